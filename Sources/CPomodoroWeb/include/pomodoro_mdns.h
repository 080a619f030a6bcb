// The one shim over libavahi-client, for announcing the page over mDNS/DNS-SD from a poll(2)
// loop without Avahi's own (simple-poll or threaded) loop: the shim is the AvahiPoll, its
// watches and timeouts are served by the caller's loop (pomo_mdns_watches, pomo_mdns_timeout_ms,
// pomo_mdns_dispatch). Avahi's callbacks become events the caller takes (pomo_mdns_next_event)
// and decides on. Compiled with its real body where <avahi-client/client.h> is installed
// (POMODORO_HAVE_AVAHI), which loads the library (dlopen) when the server starts, else with a
// body that says it is not installed.
#ifndef POMODORO_MDNS_H
#define POMODORO_MDNS_H

#include <stddef.h>

typedef struct pomo_mdns pomo_mdns;

/// What Avahi said, in order.
enum {
  /// The daemon is there and the host's name is settled: the service may be added.
  POMO_MDNS_RUNNING = 1,
  /// The host's name is being (re)registered or collided: what was added is withdrawn, added again at RUNNING.
  POMO_MDNS_HOST_CHANGING = 2,
  /// Waiting for avahi-daemon to appear (not running, or restarting).
  POMO_MDNS_CONNECTING = 3,
  /// The client failed (`error`: Avahi's error code).
  POMO_MDNS_CLIENT_FAILURE = 4,
  /// The service is announced.
  POMO_MDNS_ESTABLISHED = 5,
  /// Another service on the LAN has the name.
  POMO_MDNS_NAME_COLLISION = 6,
  /// The entry group failed (`error`).
  POMO_MDNS_GROUP_FAILURE = 7,
  /// avahi-daemon went away (restarted, stopped): a new client (pomo_mdns_restart) waits for it.
  POMO_MDNS_DAEMON_GONE = 8,
};

/// Avahi's error code for a name another service of this host has (AVAHI_ERR_COLLISION).
#define POMO_MDNS_ERR_COLLISION (-8)

/// 1 when libavahi-client was compiled in.
int pomo_mdns_available(void);

/// Loads libavahi-client and makes a client that waits for the daemon if it is not there yet
/// (AVAHI_CLIENT_NO_FAIL). NULL with the reason in `error`.
pomo_mdns *pomo_mdns_start(char *error, size_t error_size);

/// Frees the client and everything it announced (withdrawn).
void pomo_mdns_stop(pomo_mdns *m);

/// A new client after a failure (the daemon restarted); 0, or Avahi's error code.
int pomo_mdns_restart(pomo_mdns *m);

/// The descriptors Avahi watches and for what (POLLIN/POLLOUT), at most `max`; returns how many.
int pomo_mdns_watches(pomo_mdns *m, int *fds, short *events, int max);

/// Milliseconds until Avahi's next timeout (0: due now), -1 for none.
long long pomo_mdns_timeout_ms(pomo_mdns *m);

/// Serves the watches whose descriptors are ready (`readable`, `writable`) and the timeouts due.
void pomo_mdns_dispatch(pomo_mdns *m, const int *readable, int readable_count, const int *writable, int writable_count);

/// The next event, 0 when none; `error` gets Avahi's error code where the event has one.
int pomo_mdns_next_event(pomo_mdns *m, int *error);

/// Adds and commits an `_http._tcp`-like service `type` named `name` on `port` with the TXT
/// strings (replacing what was added before); 0, or Avahi's error code.
int pomo_mdns_publish(pomo_mdns *m, const char *name, const char *type, int port, const char *const *txt, int txt_count);

/// Withdraws what was added (the client stays).
void pomo_mdns_withdraw(pomo_mdns *m);

/// Avahi's alternative to `name` after a collision ("Pomodoro on desk #2"), into `out`.
void pomo_mdns_alternative(pomo_mdns *m, const char *name, char *out, size_t out_size);

/// Avahi's text for an error code.
const char *pomo_mdns_strerror(pomo_mdns *m, int error);

#endif
