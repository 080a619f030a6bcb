// The one shim over GNU libmicrohttpd, for a poll(2) loop without the library's threads: the
// daemon runs with MHD_USE_EPOLL, its epoll descriptor is polled by the caller, and MHD_run
// serves what is ready. Compiled with its real body where <microhttpd.h> is installed
// (POMODORO_HAVE_MICROHTTPD), which loads the library on first use, else with a body that says
// it is not installed.
#ifndef POMODORO_WEB_H
#define POMODORO_WEB_H

#include <stddef.h>

typedef struct pomo_web pomo_web;

/// One request, whole (its body read, up to the limit the server was started with).
typedef struct {
  const char *method;
  /// The path, without the query.
  const char *path;
  /// Headers, or NULL when absent.
  const char *host;
  const char *origin;
  const char *cookie;
  /// The client's address as text.
  const char *client;
  const char *body;
  size_t body_length;
  /// 1 when the body passed the limit (it is cut there).
  int body_too_large;
  /// For pomo_web_query.
  void *connection;
  /// The If-None-Match header (a cached page's ETag), or NULL.
  const char *if_none_match;
  /// How many Host headers the request carried (more than one: 400).
  int host_count;
} pomo_web_request;

/// What the handler answers: a status and a body (copied by the shim), or, with `stream` set, an
/// event stream (text/event-stream) whose first bytes are the body, written on with
/// pomo_web_stream_send.
typedef struct {
  int status;
  const char *content_type;
  const char *body;
  size_t body_length;
  /// A Set-Cookie header, or NULL.
  const char *set_cookie;
  int stream;
  /// 1: the answer comes later, through pomo_web_answer with the request's id; the connection
  /// waits suspended (its content and status here are ignored).
  int deferred;
  /// More headers: `header_count` pairs, name then value (copied by libmicrohttpd). A
  /// Cache-Control among them replaces the shim's own.
  const char *const *headers;
  size_t header_count;
} pomo_web_response;

/// Called for every complete request inside pomo_web_run; `stream_id` is the id the response's
/// stream gets when the handler sets `stream`.
typedef void (*pomo_web_handler)(void *context, const pomo_web_request *request, pomo_web_response *response,
                                 int stream_id);

/// 1 when libmicrohttpd was compiled in.
int pomo_web_available(void);
/// Loads libmicrohttpd (once; pomo_web_start does it too): NULL when loaded, else why and the fix.
const char *pomo_web_load(void);
/// Listens on `address` (NULL or "": every interface, IPv6 and IPv4) and `port` (0: any free
/// one); at most `max_connections` (and `per_ip` from one address), idle ones closed after
/// `timeout_s`; a request not whole (headers and body) `request_s` after its connection was
/// accepted or last answered is closed, however it trickles, and when every place is taken the
/// oldest connection without a whole request is closed for the newcomer; bodies kept to
/// `max_body` bytes; at most `max_streams` event streams. NULL on failure, with why in `error`.
pomo_web *pomo_web_start(const char *address, int port, int max_connections, int per_ip, int timeout_s,
                         int request_s, int max_body, int max_streams, pomo_web_handler handler, void *context,
                         char *error, size_t error_size);
/// The port it listens on.
int pomo_web_port(pomo_web *w);
/// The descriptor to poll for reading (libmicrohttpd's epoll set).
int pomo_web_fd(pomo_web *w);
/// Milliseconds until pomo_web_run is due without input, or -1 when nothing is due.
long long pomo_web_timeout_ms(pomo_web *w);
/// Serves what is ready, without blocking (closing first the requests past their deadline).
void pomo_web_run(pomo_web *w);
/// Connections the shim has closed: past their request's deadline, and for a newcomer's room.
void pomo_web_closed(pomo_web *w, unsigned long long *late, unsigned long long *for_room);
/// A query argument of the request being handled, or NULL.
const char *pomo_web_query(const pomo_web_request *request, const char *name);
/// Appends `length` bytes to stream `id` and wakes it: 0, or -1 when the stream has ended or its
/// buffer would pass 64 KiB (a client that does not read: the stream is then ended).
int pomo_web_stream_send(pomo_web *w, int id, const char *data, size_t length);
/// Ends stream `id` once what it holds is sent.
void pomo_web_stream_end(pomo_web *w, int id);
/// Streams open now, and the oldest's id (or -1).
int pomo_web_streams(pomo_web *w, int *oldest);
/// Answers deferred request `id` (its response copied): 0, or -1 when it is not waiting (its
/// client left, or it was answered).
int pomo_web_answer(pomo_web *w, int id, const pomo_web_response *response);
/// The hash kept for a pairing's token or a pairing code (libcrypt's SHA-256-crypt, a fixed
/// salt): 0 with the hash in `out`, or -1.
int pomo_web_hash(const char *secret, char *out, size_t out_size);
/// Stops the daemon: closes every connection and the listening socket.
void pomo_web_stop(pomo_web *w);

#endif
