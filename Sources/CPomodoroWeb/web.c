#include "pomodoro_web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef POMODORO_HAVE_MICROHTTPD
#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

// libmicrohttpd is loaded when `pomodoro web` starts its server, not linked: the device's own
// `pomodoro run` never maps it. The header still types every entry point at compile time.
// Debian's libmicrohttpd12 (0.9.x on bookworm, 1.0 on trixie) installs it under this name.
#define POMO_MHD_SONAME "libmicrohttpd.so.12"
#define POMO_MHD_FUNCTIONS(X)                                                                        \
  X(start_daemon) X(stop_daemon) X(get_daemon_info) X(get_timeout) X(run) X(lookup_connection_value) \
  X(get_connection_info) X(create_response_from_buffer) X(create_response_from_callback)             \
  X(add_response_header) X(queue_response) X(destroy_response) X(suspend_connection)                 \
  X(resume_connection) X(get_connection_values)

static struct {
#define POMO_FIELD(name) __typeof__(&MHD_##name) name;
  POMO_MHD_FUNCTIONS(POMO_FIELD)
#undef POMO_FIELD
} lib;

static int loaded = 0;
static char load_error[512];

const char *pomo_web_load(void) {
  if (loaded) return NULL;
  if (load_error[0]) return load_error;
  void *handle = dlopen(POMO_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;
  if (handle) {
#define POMO_LOAD(name) \
  if (!missing && !(lib.name = (__typeof__(lib.name))dlsym(handle, "MHD_" #name))) missing = "MHD_" #name;
    POMO_MHD_FUNCTIONS(POMO_LOAD)
#undef POMO_LOAD
  }
  if (!handle || missing) {
    const char *why = handle ? missing : dlerror();
    snprintf(load_error, sizeof load_error, "%s cannot be loaded (%s%s): install it with sudo apt install libmicrohttpd12",
             POMO_MHD_SONAME, handle ? "no symbol " : "", why ? why : "unknown error");
    if (handle) dlclose(handle);
    return load_error;
  }
  loaded = 1;
  return NULL;
}

#define POMO_STREAM_BUFFER 65536
// A request's target (path and query) over POMO_MAX_TARGET bytes is answered 414 by the shim. A
// connection's memory pool of POMO_POOL (libmicrohttpd's default is 32 KiB) leaves room to answer
// it: a request line that filled the pool left none, and the connection closed with no answer.
// Past the pool libmicrohttpd answers 414 (or 431) itself.
#define POMO_MAX_TARGET 8192
#define POMO_POOL 65536

struct stream {
  int id;
  int used;
  int ended;
  int suspended;
  unsigned long long opened;
  struct MHD_Connection *connection;
  char *buffer;
  size_t length;
  size_t sent;
};

// A request whose answer comes later (from the device): its connection is suspended until
// pomo_web_answer resumes it.
struct deferred {
  int id;
  struct MHD_Connection *connection;
  struct upload *upload;
};

// A connection, from its accept (MHD_OPTION_NOTIFY_CONNECTION) to its close: since when it has
// been without a whole request (accepted, or its last answer sent), and whether one is being
// answered now.
struct conn {
  struct MHD_Connection *connection;
  int fd;
  unsigned long long since;
  int answering;
  // Shut down by the shim (its deadline passed, or its place went to a newcomer): closing.
  int closing;
};

struct pomo_web {
  struct MHD_Daemon *daemon;
  struct conn *conns;
  int max_conns;
  unsigned long long request_ms;
  unsigned long long closed_late;
  unsigned long long closed_for_room;
  // A connection closed in the last MHD_run: libmicrohttpd takes its listening socket back into
  // its epoll set (dropped at the connection limit) only in its next run, which nothing on its
  // descriptor would wake.
  int freed;
  struct deferred *deferred;
  int max_deferred;
  pomo_web_handler handler;
  void *context;
  int max_body;
  int max_streams;
  struct stream *streams;
  int next_id;
  unsigned long long opened;
};

// What a connection's request has sent of its body so far.
struct upload {
  char *body;
  size_t length;
  int too_large;
  // A deferred request: its id while it waits, then its answer (copied) once given.
  int deferred_id;
  int answered;
  int status;
  char *content_type;
  char *answer;
  size_t answer_length;
  char *set_cookie;
};

static void upload_free(struct upload *u) {
  free(u->body);
  free(u->content_type);
  free(u->answer);
  free(u->set_cookie);
  free(u);
}

static unsigned long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000ULL + (unsigned long long)t.tv_nsec / 1000000ULL;
}

static struct conn *find_conn(pomo_web *w, struct MHD_Connection *c) {
  for (int i = 0; i < w->max_conns; i++)
    if (w->conns[i].connection == c) return &w->conns[i];
  return NULL;
}

// Closes `k` (libmicrohttpd sees its socket end at its next turn, and frees it).
static void conn_close(struct conn *k) {
  if (k->fd >= 0) shutdown(k->fd, SHUT_RDWR);
  k->closing = 1;
}

// A connection accepted: when every place is taken (libmicrohttpd would accept no more), the
// oldest connection without a whole request gives its place, so that a newcomer (the owner)
// is never left waiting behind clients that send slowly or nothing at all.
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
  (void)socket_context;
  pomo_web *w = cls;
  if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
    struct conn *k = find_conn(w, c);
    if (k) memset(k, 0, sizeof *k);
    w->freed = 1;
    return;
  }
  struct conn *k = find_conn(w, NULL);
  if (!k) return;
  const union MHD_ConnectionInfo *info = lib.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  *k = (struct conn){c, info ? info->connect_fd : -1, now_ms(), 0, 0};
  int open = 0;
  struct conn *oldest = NULL;
  for (int i = 0; i < w->max_conns; i++) {
    struct conn *o = &w->conns[i];
    if (!o->connection || o->closing) continue;
    open++;
    if (o != k && !o->answering && (!oldest || o->since < oldest->since)) oldest = o;
  }
  if (open >= w->max_conns && oldest) {
    conn_close(oldest);
    w->closed_for_room++;
  }
}

// Closes the connections whose request is not whole `request_ms` after they were accepted or
// last answered (libmicrohttpd's own timeout counts silence only: a byte every few seconds
// keeps a connection forever); the milliseconds until the next such deadline, or -1.
static long long close_late(pomo_web *w) {
  unsigned long long now = now_ms();
  long long next = -1;
  for (int i = 0; i < w->max_conns; i++) {
    struct conn *k = &w->conns[i];
    if (!k->connection || k->closing || k->answering) continue;
    if (now >= k->since + w->request_ms) {
      conn_close(k);
      w->closed_late++;
      continue;
    }
    long long left = (long long)(k->since + w->request_ms - now);
    if (next < 0 || left < next) next = left;
  }
  return next;
}

static struct stream *find_stream(pomo_web *w, int id) {
  for (int i = 0; i < w->max_streams; i++)
    if (w->streams[i].used && w->streams[i].id == id) return &w->streams[i];
  return NULL;
}

// The stream's bytes as they come; with nothing to send the connection is suspended (no busy
// loop) until pomo_web_stream_send resumes it.
static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  struct stream *s = cls;
  if (s->length > s->sent) {
    size_t n = s->length - s->sent < max ? s->length - s->sent : max;
    memcpy(buf, s->buffer + s->sent, n);
    s->sent += n;
    if (s->sent == s->length) s->sent = s->length = 0;
    return (ssize_t)n;
  }
  if (s->ended) return MHD_CONTENT_READER_END_OF_STREAM;
  lib.suspend_connection(s->connection);
  s->suspended = 1;
  return 0;
}

// The connection of a stream ended (the client left, the stream ended, the daemon stopped).
static void stream_free(void *cls) {
  struct stream *s = cls;
  free(s->buffer);
  memset(s, 0, sizeof *s);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why) {
  (void)why;
  pomo_web *w = cls;
  struct conn *k = find_conn(w, c);
  if (k) {
    // Answered: its next request has `request_ms` from now.
    k->answering = 0;
    k->since = now_ms();
  }
  struct upload *u = *con_cls;
  if (u) {
    for (int i = 0; i < w->max_deferred; i++)
      if (w->deferred[i].upload == u) memset(&w->deferred[i], 0, sizeof w->deferred[i]);
    upload_free(u);
    *con_cls = NULL;
  }
}

// Queues `response` (not a stream) on `c`.
static enum MHD_Result queue_plain(struct MHD_Connection *c, const pomo_web_response *response) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  struct MHD_Response *r =
      lib.create_response_from_buffer(response->body_length, (void *)response->body, MHD_RESPMEM_MUST_COPY);
#pragma GCC diagnostic pop
  if (!r) return MHD_NO;
  lib.add_response_header(r, "Content-Type", response->content_type);
  int cache_control = 0;
  for (size_t i = 0; i < response->header_count; i++) {
    lib.add_response_header(r, response->headers[2 * i], response->headers[2 * i + 1]);
    if (!strcasecmp(response->headers[2 * i], "Cache-Control")) cache_control = 1;
  }
  if (!cache_control) lib.add_response_header(r, "Cache-Control", "no-store");
  lib.add_response_header(r, "X-Content-Type-Options", "nosniff");
  lib.add_response_header(r, "X-Frame-Options", "DENY");
  lib.add_response_header(r, "Referrer-Policy", "no-referrer");
  if (response->set_cookie) lib.add_response_header(r, "Set-Cookie", response->set_cookie);
  enum MHD_Result ok = lib.queue_response(c, (unsigned int)response->status, r);
  lib.destroy_response(r);
  return ok;
}

static const char *header(struct MHD_Connection *c, const char *name) {
  return lib.lookup_connection_value(c, MHD_HEADER_KIND, name);
}

// Counts the request's Host headers (RFC 9112: more than one is a 400).
static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  (void)value;
  if (key && !strcasecmp(key, "Host")) ++*(int *)cls;
  return MHD_YES;
}

// Adds a query argument's length (and its '=' and '&') to the target's.
static enum MHD_Result add_length(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  (void)kind;
  *(size_t *)cls += (key ? strlen(key) : 0) + (value ? strlen(value) : 0) + 2;
  return MHD_YES;
}

static void client_text(struct MHD_Connection *c, char *out, size_t size) {
  out[0] = 0;
  const union MHD_ConnectionInfo *info = lib.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (!info || !info->client_addr) return;
  const struct sockaddr *a = info->client_addr;
  if (a->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, out, (socklen_t)size);
  else if (a->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, out, (socklen_t)size);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size,
                                  void **con_cls) {
  (void)version;
  pomo_web *w = cls;
  struct upload *u = *con_cls;
  if (!u) {
    u = calloc(1, sizeof *u);
    if (!u || !(u->body = malloc((size_t)w->max_body + 1))) {
      free(u);
      return MHD_NO;
    }
    u->body[0] = 0;
    *con_cls = u;
    return MHD_YES;
  }
  if (u->answered) {
    // Resumed with its answer.
    pomo_web_response answer = {u->status, u->content_type, u->answer, u->answer_length, u->set_cookie, 0, 0};
    return queue_plain(c, &answer);
  }
  if (u->deferred_id) return MHD_YES;  // resumed without an answer: it waits on
  if (*upload_size) {
    size_t room = (size_t)w->max_body - u->length;
    size_t take = *upload_size < room ? *upload_size : room;
    if (*upload_size > room) u->too_large = 1;
    memcpy(u->body + u->length, upload_data, take);
    u->length += take;
    u->body[u->length] = 0;
    *upload_size = 0;
    return MHD_YES;
  }
  struct conn *k = find_conn(w, c);
  if (k) k->answering = 1;
  size_t target = strlen(url);
  lib.get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_length, &target);
  if (target > POMO_MAX_TARGET) {
    static const char too_long[] = "{\"error\":\"the address is over 8 KiB\"}";
    pomo_web_response refused = {414, "application/json", too_long, sizeof too_long - 1, NULL, 0, 0};
    return queue_plain(c, &refused);
  }
  char client[64];
  client_text(c, client, sizeof client);
  int hosts = 0;
  lib.get_connection_values(c, MHD_HEADER_KIND, count_host, &hosts);
  pomo_web_request request = {method, url, header(c, "Host"), header(c, "Origin"), header(c, "Cookie"), client,
                              u->body, u->length, u->too_large, c, header(c, "If-None-Match"), hosts};
  pomo_web_response response = {500, "text/plain; charset=utf-8", "", 0, NULL, 0, 0};
  int id = ++w->next_id;
  w->handler(w->context, &request, &response, id);
  if (response.deferred) {
    for (int i = 0; i < w->max_deferred; i++) {
      if (w->deferred[i].id) continue;
      w->deferred[i] = (struct deferred){id, c, u};
      u->deferred_id = id;
      lib.suspend_connection(c);
      return MHD_YES;
    }
    static const char busy[] = "{\"error\":\"too many requests waiting for the desk; try again\"}";
    response = (pomo_web_response){503, "application/json", busy, sizeof busy - 1, NULL, 0, 0};
  }
  struct MHD_Response *r = NULL;
  struct stream *s = NULL;
  if (response.stream) {
    for (int i = 0; i < w->max_streams && !s; i++)
      if (!w->streams[i].used) s = &w->streams[i];
    if (s) {
      memset(s, 0, sizeof *s);
      s->used = 1;
      s->id = id;
      s->opened = ++w->opened;
      s->connection = c;
      // The response's body is the stream's first bytes.
      if (response.body_length && (s->buffer = malloc(response.body_length))) {
        memcpy(s->buffer, response.body, response.body_length);
        s->length = response.body_length;
      }
      r = lib.create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_reader, s, stream_free);
      if (!r) {
        free(s->buffer);
        memset(s, 0, sizeof *s);
      }
    }
    if (!r) {
      static const char busy[] = "{\"error\":\"too many event streams\"}";
      response.status = 503;
      response.content_type = "application/json";
      response.body = busy;
      response.body_length = sizeof busy - 1;
      response.stream = 0;
    }
  }
  if (!r) return queue_plain(c, &response);
  lib.add_response_header(r, "Content-Type", "text/event-stream");
  lib.add_response_header(r, "Cache-Control", "no-cache");
  lib.add_response_header(r, "X-Content-Type-Options", "nosniff");
  lib.add_response_header(r, "X-Frame-Options", "DENY");
  lib.add_response_header(r, "Referrer-Policy", "no-referrer");
  enum MHD_Result ok = lib.queue_response(c, (unsigned int)response.status, r);
  lib.destroy_response(r);
  return ok;
}

int pomo_web_available(void) { return 1; }

pomo_web *pomo_web_start(const char *address, int port, int max_connections, int per_ip, int timeout_s,
                         int request_s, int max_body, int max_streams, pomo_web_handler handler, void *context,
                         char *error, size_t error_size) {
  const char *why = pomo_web_load();
  if (why) {
    snprintf(error, error_size, "%s", why);
    return NULL;
  }
  pomo_web *w = calloc(1, sizeof *w);
  if (!w || !(w->streams = calloc((size_t)max_streams, sizeof *w->streams)) ||
      !(w->deferred = calloc((size_t)max_connections, sizeof *w->deferred)) ||
      !(w->conns = calloc((size_t)max_connections, sizeof *w->conns))) {
    if (w) {
      free(w->streams);
      free(w->deferred);
    }
    free(w);
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  w->handler = handler;
  w->context = context;
  w->max_body = max_body;
  w->max_streams = max_streams;
  w->max_deferred = max_connections;
  w->max_conns = max_connections;
  w->request_ms = (unsigned long long)(request_s > 0 ? request_s : 1) * 1000ULL;
  unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  struct sockaddr_in v4;
  struct sockaddr_in6 v6;
  const struct sockaddr *bind_to = NULL;
  memset(&v4, 0, sizeof v4);
  memset(&v6, 0, sizeof v6);
  if (address && *address) {
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
      v4.sin_family = AF_INET;
      v4.sin_port = htons((uint16_t)port);
      bind_to = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
      v6.sin6_family = AF_INET6;
      v6.sin6_port = htons((uint16_t)port);
      bind_to = (const struct sockaddr *)&v6;
      flags |= MHD_USE_IPv6;
    } else {
      snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", address);
      free(w->streams);
      free(w->deferred);
      free(w->conns);
      free(w);
      return NULL;
    }
  }
  for (int attempt = 0; attempt < 2 && !w->daemon; attempt++) {
    // Every interface: IPv6 and IPv4 where the system has IPv6, IPv4 alone where it has not.
    unsigned int these = bind_to || attempt ? flags : flags | MHD_USE_DUAL_STACK;
    w->daemon = lib.start_daemon(these, (uint16_t)port, NULL, NULL, on_request, w,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned int)max_connections,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)per_ip,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)timeout_s,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)POMO_POOL,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, w,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, w,
                                 bind_to ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_END, bind_to, MHD_OPTION_END);
    if (bind_to) break;
  }
  if (!w->daemon) {
    snprintf(error, error_size, "cannot listen on %s port %d (in use, or not an address of this machine?)",
             address && *address ? address : "every interface", port);
    free(w->streams);
    free(w->deferred);
    free(w->conns);
    free(w);
    return NULL;
  }
  return w;
}

int pomo_web_port(pomo_web *w) {
  const union MHD_DaemonInfo *info = lib.get_daemon_info(w->daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info ? info->port : -1;
}

int pomo_web_fd(pomo_web *w) {
  const union MHD_DaemonInfo *info = lib.get_daemon_info(w->daemon, MHD_DAEMON_INFO_EPOLL_FD);
  return info ? info->epoll_fd : -1;
}

long long pomo_web_timeout_ms(pomo_web *w) {
  MHD_UNSIGNED_LONG_LONG t = 0;
  long long mhd = lib.get_timeout(w->daemon, &t) == MHD_YES ? (long long)t : -1;
  long long late = close_late(w);
  if (w->freed) return 0;
  if (late >= 0 && (mhd < 0 || late < mhd)) return late;
  return mhd;
}

void pomo_web_run(pomo_web *w) {
  close_late(w);
  w->freed = 0;
  lib.run(w->daemon);
}

void pomo_web_closed(pomo_web *w, unsigned long long *late, unsigned long long *for_room) {
  *late = w->closed_late;
  *for_room = w->closed_for_room;
}

const char *pomo_web_query(const pomo_web_request *request, const char *name) {
  return lib.lookup_connection_value(request->connection, MHD_GET_ARGUMENT_KIND, name);
}

int pomo_web_stream_send(pomo_web *w, int id, const char *data, size_t length) {
  struct stream *s = find_stream(w, id);
  if (!s || s->ended) return -1;
  if (s->length + length > POMO_STREAM_BUFFER) {
    pomo_web_stream_end(w, id);
    return -1;
  }
  char *grown = realloc(s->buffer, s->length + length);
  if (!grown) return -1;
  s->buffer = grown;
  memcpy(s->buffer + s->length, data, length);
  s->length += length;
  if (s->suspended) {
    s->suspended = 0;
    lib.resume_connection(s->connection);
  }
  return 0;
}

void pomo_web_stream_end(pomo_web *w, int id) {
  struct stream *s = find_stream(w, id);
  if (!s) return;
  s->ended = 1;
  if (s->suspended) {
    s->suspended = 0;
    lib.resume_connection(s->connection);
  }
}

int pomo_web_streams(pomo_web *w, int *oldest) {
  int n = 0;
  unsigned long long first = 0;
  *oldest = -1;
  for (int i = 0; i < w->max_streams; i++) {
    struct stream *s = &w->streams[i];
    if (!s->used || s->ended) continue;
    n++;
    if (!first || s->opened < first) {
      first = s->opened;
      *oldest = s->id;
    }
  }
  return n;
}

int pomo_web_answer(pomo_web *w, int id, const pomo_web_response *response) {
  for (int i = 0; i < w->max_deferred; i++) {
    struct deferred *d = &w->deferred[i];
    if (d->id != id) continue;
    struct upload *u = d->upload;
    u->status = response->status;
    u->content_type = strdup(response->content_type ? response->content_type : "application/json");
    u->answer = malloc(response->body_length ? response->body_length : 1);
    if (u->answer && response->body_length) memcpy(u->answer, response->body, response->body_length);
    u->answer_length = u->answer ? response->body_length : 0;
    u->set_cookie = response->set_cookie ? strdup(response->set_cookie) : NULL;
    u->answered = 1;
    struct MHD_Connection *c = d->connection;
    memset(d, 0, sizeof *d);
    lib.resume_connection(c);
    return 0;
  }
  return -1;
}

void pomo_web_stop(pomo_web *w) {
  if (!w) return;
  // A suspended connection must be resumed before the daemon stops.
  for (int i = 0; i < w->max_streams; i++)
    if (w->streams[i].used && w->streams[i].suspended) lib.resume_connection(w->streams[i].connection);
  for (int i = 0; i < w->max_deferred; i++)
    if (w->deferred[i].id) lib.resume_connection(w->deferred[i].connection);
  lib.stop_daemon(w->daemon);
  free(w->streams);
  free(w->deferred);
  free(w->conns);
  free(w);
}

#else

int pomo_web_available(void) { return 0; }
const char *pomo_web_load(void) { return "libmicrohttpd is not installed"; }
pomo_web *pomo_web_start(const char *address, int port, int max_connections, int per_ip, int timeout_s,
                         int request_s, int max_body, int max_streams, pomo_web_handler handler, void *context,
                         char *error, size_t error_size) {
  (void)address; (void)port; (void)max_connections; (void)per_ip; (void)timeout_s; (void)request_s; (void)max_body;
  (void)max_streams; (void)handler; (void)context;
  snprintf(error, error_size, "libmicrohttpd is not installed");
  return NULL;
}
int pomo_web_port(pomo_web *w) { (void)w; return -1; }
int pomo_web_fd(pomo_web *w) { (void)w; return -1; }
long long pomo_web_timeout_ms(pomo_web *w) { (void)w; return -1; }
void pomo_web_run(pomo_web *w) { (void)w; }
void pomo_web_closed(pomo_web *w, unsigned long long *late, unsigned long long *for_room) {
  (void)w;
  *late = *for_room = 0;
}
const char *pomo_web_query(const pomo_web_request *request, const char *name) { (void)request; (void)name; return NULL; }
int pomo_web_stream_send(pomo_web *w, int id, const char *data, size_t length) {
  (void)w; (void)id; (void)data; (void)length;
  return -1;
}
void pomo_web_stream_end(pomo_web *w, int id) { (void)w; (void)id; }
int pomo_web_streams(pomo_web *w, int *oldest) { (void)w; *oldest = -1; return 0; }
int pomo_web_answer(pomo_web *w, int id, const pomo_web_response *response) {
  (void)w; (void)id; (void)response;
  return -1;
}
void pomo_web_stop(pomo_web *w) { (void)w; }

#endif

// The pairings' hash needs libcrypt only (libc6-dev brings its header; Debian's libcrypt1 is
// always installed), not libmicrohttpd: compiled wherever the header is, so pairing works, and
// is tested, on a machine without libmicrohttpd-dev.
#ifdef POMODORO_HAVE_CRYPT
#include <crypt.h>

int pomo_web_hash(const char *secret, char *out, size_t out_size) {
  // SHA-256-crypt (libcrypt) with a fixed salt: the secrets hashed are random (a 256-bit
  // token, a code good for 2 minutes), so a salt per entry would add nothing; the same secret
  // always gives the same hash, which is how a cookie is looked up.
  struct crypt_data *data = calloc(1, sizeof *data);
  if (!data) return -1;
  const char *hash = crypt_r(secret, "$5$rounds=1000$pomodoroweb$", data);
  int ok = hash && hash[0] == '$' && strlen(hash) < out_size;
  if (ok) strcpy(out, hash);
  free(data);
  return ok ? 0 : -1;
}
#else
int pomo_web_hash(const char *secret, char *out, size_t out_size) {
  (void)secret; (void)out; (void)out_size;
  return -1;
}
#endif
