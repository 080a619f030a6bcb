#include "pomodoro_mdns.h"

#include <stdio.h>
#include <string.h>

#ifdef POMODORO_HAVE_AVAHI
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/watch.h>
#include <dlfcn.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

// libavahi-client (and libavahi-common, which it brings) is loaded when `pomodoro web` starts:
// the device's own process never maps it nor the D-Bus library under it. Debian's
// libavahi-client3 installs it under this name.
#define POMO_AVAHI_SONAME "libavahi-client.so.3"
#define POMO_AVAHI_FUNCTIONS(X)                                                                          \
  X(client_new) X(client_free) X(client_errno) X(entry_group_new) X(entry_group_free)                 \
  X(entry_group_add_service_strlst) X(entry_group_commit) X(entry_group_reset) X(entry_group_is_empty) \
  X(alternative_service_name) X(strerror) X(string_list_new_from_array) X(string_list_free) X(free)

static struct {
#define POMO_FIELD(name) __typeof__(&avahi_##name) name;
  POMO_AVAHI_FUNCTIONS(POMO_FIELD)
#undef POMO_FIELD
} lib;

static int loaded;
static char load_error[512];

static const char *load(void) {
  if (loaded) return NULL;
  if (load_error[0]) return load_error;
  void *handle = dlopen(POMO_AVAHI_SONAME, RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;
  if (handle) {
#define POMO_LOAD(name) \
  if (!missing && !(lib.name = (__typeof__(lib.name))dlsym(handle, "avahi_" #name))) missing = "avahi_" #name;
    POMO_AVAHI_FUNCTIONS(POMO_LOAD)
#undef POMO_LOAD
  }
  if (!handle || missing) {
    const char *why = handle ? missing : dlerror();
    snprintf(load_error, sizeof load_error, "%s cannot be loaded (%s%s): install it with sudo apt install libavahi-client3",
             POMO_AVAHI_SONAME, handle ? "no symbol " : "", why ? why : "unknown error");
    if (handle) dlclose(handle);
    return load_error;
  }
  loaded = 1;
  return NULL;
}

_Static_assert(POMO_MDNS_ERR_COLLISION == AVAHI_ERR_COLLISION, "the header's copy of AVAHI_ERR_COLLISION");

static long long monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define POMO_MAX_WATCHES 16
#define POMO_MAX_TIMEOUTS 32
#define POMO_MAX_EVENTS 32

struct AvahiWatch {
  pomo_mdns *m;
  int used;
  int fd;
  AvahiWatchEvent events;
  AvahiWatchEvent revents;
  AvahiWatchCallback callback;
  void *userdata;
};

struct AvahiTimeout {
  pomo_mdns *m;
  int used;
  int enabled;
  // CLOCK_MONOTONIC nanoseconds: Avahi gives its times as gettimeofday's (the wall clock); each is
  // turned into a time from now on the monotonic clock when it is set.
  long long due;
  AvahiTimeoutCallback callback;
  void *userdata;
};

struct pomo_mdns {
  AvahiPoll poll;
  AvahiClient *client;
  AvahiEntryGroup *group;
  struct AvahiWatch watches[POMO_MAX_WATCHES];
  struct AvahiTimeout timeouts[POMO_MAX_TIMEOUTS];
  int events[POMO_MAX_EVENTS];
  int errors[POMO_MAX_EVENTS];
  int first_event;
  int event_count;
};

static void push(pomo_mdns *m, int event, int error) {
  if (m->event_count == POMO_MAX_EVENTS) return;
  int i = (m->first_event + m->event_count) % POMO_MAX_EVENTS;
  m->events[i] = event;
  m->errors[i] = error;
  m->event_count++;
}

static AvahiWatch *watch_new(const AvahiPoll *api, int fd, AvahiWatchEvent event, AvahiWatchCallback callback,
                             void *userdata) {
  pomo_mdns *m = api->userdata;
  for (int i = 0; i < POMO_MAX_WATCHES; i++) {
    AvahiWatch *w = &m->watches[i];
    if (w->used) continue;
    *w = (AvahiWatch){m, 1, fd, event, 0, callback, userdata};
    return w;
  }
  return NULL;
}

static void watch_update(AvahiWatch *w, AvahiWatchEvent event) { w->events = event; }
static AvahiWatchEvent watch_get_events(AvahiWatch *w) { return w->revents; }
static void watch_free(AvahiWatch *w) { w->used = 0; }

static long long due_of(const struct timeval *tv) {
  struct timeval now;
  gettimeofday(&now, NULL);
  long long left = ((long long)tv->tv_sec - now.tv_sec) * 1000000000LL + ((long long)tv->tv_usec - now.tv_usec) * 1000LL;
  return monotonic_ns() + (left > 0 ? left : 0);
}

static AvahiTimeout *timeout_new(const AvahiPoll *api, const struct timeval *tv, AvahiTimeoutCallback callback,
                                 void *userdata) {
  pomo_mdns *m = api->userdata;
  for (int i = 0; i < POMO_MAX_TIMEOUTS; i++) {
    AvahiTimeout *t = &m->timeouts[i];
    if (t->used) continue;
    *t = (AvahiTimeout){m, 1, tv != NULL, tv ? due_of(tv) : 0, callback, userdata};
    return t;
  }
  return NULL;
}

static void timeout_update(AvahiTimeout *t, const struct timeval *tv) {
  t->enabled = tv != NULL;
  if (tv) t->due = due_of(tv);
}

static void timeout_free(AvahiTimeout *t) { t->used = 0; }

static void group_callback(AvahiEntryGroup *g, AvahiEntryGroupState state, void *userdata) {
  (void)g;
  pomo_mdns *m = userdata;
  switch (state) {
  case AVAHI_ENTRY_GROUP_ESTABLISHED: push(m, POMO_MDNS_ESTABLISHED, 0); break;
  case AVAHI_ENTRY_GROUP_COLLISION: push(m, POMO_MDNS_NAME_COLLISION, 0); break;
  case AVAHI_ENTRY_GROUP_FAILURE: push(m, POMO_MDNS_GROUP_FAILURE, m->client ? lib.client_errno(m->client) : 0); break;
  default: break;
  }
}

static void client_callback(AvahiClient *c, AvahiClientState state, void *userdata) {
  pomo_mdns *m = userdata;
  switch (state) {
  case AVAHI_CLIENT_S_RUNNING: push(m, POMO_MDNS_RUNNING, 0); break;
  case AVAHI_CLIENT_S_COLLISION:
  case AVAHI_CLIENT_S_REGISTERING: push(m, POMO_MDNS_HOST_CHANGING, 0); break;
  case AVAHI_CLIENT_CONNECTING: push(m, POMO_MDNS_CONNECTING, 0); break;
  case AVAHI_CLIENT_FAILURE: {
    int e = lib.client_errno(c);
    push(m, e == AVAHI_ERR_DISCONNECTED ? POMO_MDNS_DAEMON_GONE : POMO_MDNS_CLIENT_FAILURE, e);
    break;
  }
  }
}

int pomo_mdns_available(void) { return 1; }

static int new_client(pomo_mdns *m) {
  int error = 0;
  m->client = lib.client_new(&m->poll, AVAHI_CLIENT_NO_FAIL, client_callback, m, &error);
  return m->client ? 0 : (error ? error : AVAHI_ERR_FAILURE);
}

pomo_mdns *pomo_mdns_start(char *error, size_t error_size) {
  const char *why = load();
  if (why) {
    snprintf(error, error_size, "%s", why);
    return NULL;
  }
  pomo_mdns *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  m->poll = (AvahiPoll){m, watch_new, watch_update, watch_get_events, watch_free, timeout_new, timeout_update, timeout_free};
  int e = new_client(m);
  if (e) {
    snprintf(error, error_size, "avahi_client_new: %s", lib.strerror(e));
    free(m);
    return NULL;
  }
  return m;
}

static void free_client(pomo_mdns *m) {
  // Freeing the client frees its entry groups (withdrawing their services) and its watches.
  if (m->client) lib.client_free(m->client);
  m->client = NULL;
  m->group = NULL;
}

void pomo_mdns_stop(pomo_mdns *m) {
  if (!m) return;
  free_client(m);
  free(m);
}

int pomo_mdns_restart(pomo_mdns *m) {
  free_client(m);
  return new_client(m);
}

int pomo_mdns_watches(pomo_mdns *m, int *fds, short *events, int max) {
  int n = 0;
  for (int i = 0; i < POMO_MAX_WATCHES && n < max; i++) {
    AvahiWatch *w = &m->watches[i];
    if (!w->used || !(w->events & (AVAHI_WATCH_IN | AVAHI_WATCH_OUT))) continue;
    fds[n] = w->fd;
    events[n] = (short)(w->events & (AVAHI_WATCH_IN | AVAHI_WATCH_OUT));
    n++;
  }
  return n;
}

long long pomo_mdns_timeout_ms(pomo_mdns *m) {
  long long soonest = -1;
  long long now = monotonic_ns();
  for (int i = 0; i < POMO_MAX_TIMEOUTS; i++) {
    AvahiTimeout *t = &m->timeouts[i];
    if (!t->used || !t->enabled) continue;
    long long left = t->due > now ? (t->due - now + 999999) / 1000000 : 0;
    if (soonest < 0 || left < soonest) soonest = left;
  }
  return soonest;
}

static int contains(const int *fds, int count, int fd) {
  for (int i = 0; i < count; i++)
    if (fds[i] == fd) return 1;
  return 0;
}

void pomo_mdns_dispatch(pomo_mdns *m, const int *readable, int readable_count, const int *writable, int writable_count) {
  // A callback may free or add watches and timeouts: each slot is looked at once, as it is then.
  for (int i = 0; i < POMO_MAX_WATCHES; i++) {
    AvahiWatch *w = &m->watches[i];
    if (!w->used) continue;
    AvahiWatchEvent happened = 0;
    if ((w->events & AVAHI_WATCH_IN) && contains(readable, readable_count, w->fd)) happened |= AVAHI_WATCH_IN;
    if ((w->events & AVAHI_WATCH_OUT) && contains(writable, writable_count, w->fd)) happened |= AVAHI_WATCH_OUT;
    if (!happened) continue;
    w->revents = happened;
    w->callback(w, w->fd, happened, w->userdata);
    if (w->used) w->revents = 0;
  }
  long long now = monotonic_ns();
  for (int i = 0; i < POMO_MAX_TIMEOUTS; i++) {
    AvahiTimeout *t = &m->timeouts[i];
    if (!t->used || !t->enabled || t->due > now) continue;
    // Avahi sets it again if it wants it again.
    t->enabled = 0;
    t->callback(t, t->userdata);
  }
}

int pomo_mdns_next_event(pomo_mdns *m, int *error) {
  if (m->event_count == 0) return 0;
  int event = m->events[m->first_event];
  if (error) *error = m->errors[m->first_event];
  m->first_event = (m->first_event + 1) % POMO_MAX_EVENTS;
  m->event_count--;
  return event;
}

int pomo_mdns_publish(pomo_mdns *m, const char *name, const char *type, int port, const char *const *txt, int txt_count) {
  if (!m->client) return AVAHI_ERR_BAD_STATE;
  if (!m->group) {
    m->group = lib.entry_group_new(m->client, group_callback, m);
    if (!m->group) return lib.client_errno(m->client);
  } else {
    lib.entry_group_reset(m->group);
  }
  AvahiStringList *list = lib.string_list_new_from_array((const char **)txt, txt_count);
  int e = lib.entry_group_add_service_strlst(m->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0, name, type, NULL, NULL,
                                             (uint16_t)port, list);
  lib.string_list_free(list);
  if (e < 0) return e;
  e = lib.entry_group_commit(m->group);
  return e < 0 ? e : 0;
}

void pomo_mdns_withdraw(pomo_mdns *m) {
  if (m->group) lib.entry_group_reset(m->group);
}

void pomo_mdns_alternative(pomo_mdns *m, const char *name, char *out, size_t out_size) {
  (void)m;
  char *alt = lib.alternative_service_name(name);
  snprintf(out, out_size, "%s", alt ? alt : name);
  if (alt) lib.free(alt);
}

const char *pomo_mdns_strerror(pomo_mdns *m, int error) {
  (void)m;
  return loaded ? lib.strerror(error) : "unknown error";
}

#else

int pomo_mdns_available(void) { return 0; }

pomo_mdns *pomo_mdns_start(char *error, size_t error_size) {
  snprintf(error, error_size, "libavahi-client was not compiled in (sudo apt install libavahi-client-dev, then rebuild)");
  return NULL;
}

void pomo_mdns_stop(pomo_mdns *m) { (void)m; }
int pomo_mdns_restart(pomo_mdns *m) {
  (void)m;
  return -1;
}
int pomo_mdns_watches(pomo_mdns *m, int *fds, short *events, int max) {
  (void)m, (void)fds, (void)events, (void)max;
  return 0;
}
long long pomo_mdns_timeout_ms(pomo_mdns *m) {
  (void)m;
  return -1;
}
void pomo_mdns_dispatch(pomo_mdns *m, const int *readable, int readable_count, const int *writable, int writable_count) {
  (void)m, (void)readable, (void)readable_count, (void)writable, (void)writable_count;
}
int pomo_mdns_next_event(pomo_mdns *m, int *error) {
  (void)m, (void)error;
  return 0;
}
int pomo_mdns_publish(pomo_mdns *m, const char *name, const char *type, int port, const char *const *txt, int txt_count) {
  (void)m, (void)name, (void)type, (void)port, (void)txt, (void)txt_count;
  return -1;
}
void pomo_mdns_withdraw(pomo_mdns *m) { (void)m; }
void pomo_mdns_alternative(pomo_mdns *m, const char *name, char *out, size_t out_size) {
  (void)m;
  snprintf(out, out_size, "%s", name);
}
const char *pomo_mdns_strerror(pomo_mdns *m, int error) {
  (void)m, (void)error;
  return "libavahi-client was not compiled in";
}

#endif
