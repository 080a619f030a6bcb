#include "pomodoro_hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef POMODORO_HAVE_CURL
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>

// libcurl is loaded when the first webhook is posted, not linked: the device's `pomodoro run`
// never maps it (nor the TLS libraries it brings). Debian's libcurl4 (openssl or gnutls flavour)
// installs it under this name; the header types every entry point at compile time.
#define POMO_CURL_SONAME "libcurl.so.4"
#define POMO_CURL_FUNCTIONS(X)                                                                        \
  X(global_init) X(easy_init) X(easy_setopt) X(easy_getinfo) X(easy_cleanup) X(easy_strerror)        \
  X(multi_init) X(multi_setopt) X(multi_add_handle) X(multi_remove_handle) X(multi_socket_action) \
  X(multi_info_read) X(multi_cleanup) X(slist_append) X(slist_free_all)

static struct {
#define POMO_FIELD(name) __typeof__(&curl_##name) name;
  POMO_CURL_FUNCTIONS(POMO_FIELD)
#undef POMO_FIELD
} lib;

static int loaded = 0;
static char load_error[512];

int pomo_curl_compiled(void) { return 1; }

const char *pomo_curl_load(void) {
  if (loaded) return NULL;
  if (load_error[0]) return load_error;
  void *handle = dlopen(POMO_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;
  if (handle) {
#define POMO_LOAD(name) \
  if (!missing && !(lib.name = (__typeof__(lib.name))dlsym(handle, "curl_" #name))) missing = "curl_" #name;
    POMO_CURL_FUNCTIONS(POMO_LOAD)
#undef POMO_LOAD
  }
  if (!handle || missing || lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    const char *why = handle ? (missing ? missing : "curl_global_init failed") : dlerror();
    snprintf(load_error, sizeof load_error, "%s cannot be loaded (%s): install it with sudo apt install libcurl4",
             POMO_CURL_SONAME, why ? why : "unknown error");
    if (handle) dlclose(handle);
    return load_error;
  }
  loaded = 1;
  return NULL;
}

// A transfer's sockets: libcurl says each one's wish through the socket callback.
#define POMO_SOCKETS 8

struct pomo_post {
  CURLM *multi;
  CURL *easy;
  struct curl_slist *headers;
  char *body;
  int fds[POMO_SOCKETS];
  int events[POMO_SOCKETS];
  int count;
  long timeout_ms;
  int done;
  CURLcode code;
  long status;
  char error[CURL_ERROR_SIZE];
};

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *user, void *socket_user) {
  (void)easy;
  (void)socket_user;
  pomo_post *post = user;
  int i = 0;
  while (i < post->count && post->fds[i] != fd) i++;
  if (what == CURL_POLL_REMOVE) {
    if (i < post->count) {
      post->count--;
      post->fds[i] = post->fds[post->count];
      post->events[i] = post->events[post->count];
    }
    return 0;
  }
  int events = (what & CURL_POLL_IN ? 1 : 0) | (what & CURL_POLL_OUT ? 2 : 0);
  if (i == post->count) {
    if (post->count == POMO_SOCKETS) return -1;
    post->count++;
  }
  post->fds[i] = fd;
  post->events[i] = events;
  return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *user) {
  (void)multi;
  ((pomo_post *)user)->timeout_ms = timeout_ms;
  return 0;
}

// The answer's body is not kept (the status says whether it was taken).
static size_t on_body(char *data, size_t size, size_t count, void *user) {
  (void)data;
  (void)user;
  return size * count;
}

static void finish(pomo_post *post) {
  CURLMsg *message;
  int left;
  while ((message = lib.multi_info_read(post->multi, &left))) {
    if (message->msg != CURLMSG_DONE) continue;
    post->done = 1;
    post->code = message->data.result;
    lib.easy_getinfo(post->easy, CURLINFO_RESPONSE_CODE, &post->status);
  }
}

pomo_post *pomo_post_start(const char *url, const char *const *headers, int header_count, const char *body,
                           size_t body_length, long timeout_ms, char *error, size_t error_size) {
  const char *why = pomo_curl_load();
  if (why) {
    snprintf(error, error_size, "%s", why);
    return NULL;
  }
  pomo_post *post = calloc(1, sizeof *post);
  if (!post) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  post->timeout_ms = -1;
  post->multi = lib.multi_init();
  post->easy = lib.easy_init();
  post->body = malloc(body_length + 1);
  if (!post->multi || !post->easy || !post->body) {
    snprintf(error, error_size, "libcurl could not make a transfer");
    pomo_post_free(post);
    return NULL;
  }
  memcpy(post->body, body, body_length);
  post->body[body_length] = 0;
  for (int i = 0; i < header_count; i++) {
    struct curl_slist *next = lib.slist_append(post->headers, headers[i]);
    if (!next) {
      snprintf(error, error_size, "out of memory");
      pomo_post_free(post);
      return NULL;
    }
    post->headers = next;
  }
  lib.multi_setopt(post->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
  lib.multi_setopt(post->multi, CURLMOPT_SOCKETDATA, post);
  lib.multi_setopt(post->multi, CURLMOPT_TIMERFUNCTION, on_timer);
  lib.multi_setopt(post->multi, CURLMOPT_TIMERDATA, post);
  lib.easy_setopt(post->easy, CURLOPT_URL, url);
  // http and https only, here and on no redirect (none is followed).
  lib.easy_setopt(post->easy, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(post->easy, CURLOPT_FOLLOWLOCATION, 0L);
  lib.easy_setopt(post->easy, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(post->easy, CURLOPT_POST, 1L);
  lib.easy_setopt(post->easy, CURLOPT_POSTFIELDS, post->body);
  lib.easy_setopt(post->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
  lib.easy_setopt(post->easy, CURLOPT_HTTPHEADER, post->headers);
  lib.easy_setopt(post->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
  lib.easy_setopt(post->easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  lib.easy_setopt(post->easy, CURLOPT_USERAGENT, "pomodoro-hooks");
  lib.easy_setopt(post->easy, CURLOPT_WRITEFUNCTION, on_body);
  lib.easy_setopt(post->easy, CURLOPT_ERRORBUFFER, post->error);
  if (lib.multi_add_handle(post->multi, post->easy) != CURLM_OK) {
    snprintf(error, error_size, "libcurl could not start the transfer");
    pomo_post_free(post);
    return NULL;
  }
  return post;
}

int pomo_post_sockets(const pomo_post *post, int *fds, int *events, int max) {
  int n = post->count < max ? post->count : max;
  for (int i = 0; i < n; i++) {
    fds[i] = post->fds[i];
    events[i] = post->events[i];
  }
  return n;
}

long pomo_post_timeout(const pomo_post *post) { return post->done ? -1 : post->timeout_ms; }

int pomo_post_act(pomo_post *post, int fd, int events) {
  if (post->done) return 1;
  int running = 0;
  int mask = (events & 1 ? CURL_CSELECT_IN : 0) | (events & 2 ? CURL_CSELECT_OUT : 0);
  if (fd < 0) post->timeout_ms = -1;
  lib.multi_socket_action(post->multi, fd < 0 ? CURL_SOCKET_TIMEOUT : fd, fd < 0 ? 0 : mask, &running);
  finish(post);
  return post->done;
}

int pomo_post_result(const pomo_post *post, long *status, char *error, size_t error_size) {
  *status = post->status;
  if (post->code == CURLE_OK) return 0;
  snprintf(error, error_size, "%s", post->error[0] ? post->error : lib.easy_strerror(post->code));
  return (int)post->code;
}

void pomo_post_free(pomo_post *post) {
  if (!post) return;
  if (post->multi && post->easy) lib.multi_remove_handle(post->multi, post->easy);
  if (post->easy) lib.easy_cleanup(post->easy);
  if (post->multi) lib.multi_cleanup(post->multi);
  if (post->headers) lib.slist_free_all(post->headers);
  free(post->body);
  free(post);
}

#else

int pomo_curl_compiled(void) { return 0; }
const char *pomo_curl_load(void) {
  return "webhooks were not compiled in: libcurl's header was not installed (sudo apt install libcurl4-openssl-dev, "
         "then rebuild)";
}
pomo_post *pomo_post_start(const char *url, const char *const *headers, int header_count, const char *body,
                           size_t body_length, long timeout_ms, char *error, size_t error_size) {
  (void)url, (void)headers, (void)header_count, (void)body, (void)body_length, (void)timeout_ms;
  snprintf(error, error_size, "%s", pomo_curl_load());
  return NULL;
}
int pomo_post_sockets(const pomo_post *post, int *fds, int *events, int max) {
  (void)post, (void)fds, (void)events, (void)max;
  return 0;
}
long pomo_post_timeout(const pomo_post *post) {
  (void)post;
  return -1;
}
int pomo_post_act(pomo_post *post, int fd, int events) {
  (void)post, (void)fd, (void)events;
  return 1;
}
int pomo_post_result(const pomo_post *post, long *status, char *error, size_t error_size) {
  (void)post;
  *status = 0;
  snprintf(error, error_size, "%s", pomo_curl_load());
  return -1;
}
void pomo_post_free(pomo_post *post) { (void)post; }

#endif
