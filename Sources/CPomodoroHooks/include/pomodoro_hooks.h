// The one C shim over libcurl for `pomodoro hooks`' webhooks: a POST driven by the process's one
// poll loop through libcurl's multi socket interface (CURLMOPT_SOCKETFUNCTION and
// CURLMOPT_TIMERFUNCTION), never a thread. libcurl is loaded on first use (dlopen), so that no
// other process of the device maps it; where its header was not installed at build time the
// shim compiles its "not installed" body.
#ifndef POMODORO_HOOKS_H
#define POMODORO_HOOKS_H

#include <stddef.h>

// 1 when libcurl's header was there at build time.
int pomo_curl_compiled(void);
// Loads libcurl: NULL when it is loaded, else why not (a message naming the library and the fix).
const char *pomo_curl_load(void);

typedef struct pomo_post pomo_post;

// Starts a POST of `body` to `url` (http or https only) with `header_count` header lines
// ("Name: value") and a bound of `timeout_ms` on the whole transfer. NULL (and why in `error`)
// when it cannot start.
pomo_post *pomo_post_start(const char *url, const char *const *headers, int header_count, const char *body,
                           size_t body_length, long timeout_ms, char *error, size_t error_size);
// The sockets the transfer waits on, at most `max`: `events` bit 1 readable, bit 2 writable.
int pomo_post_sockets(const pomo_post *post, int *fds, int *events, int max);
// Milliseconds until libcurl's next timeout (-1: none asked).
long pomo_post_timeout(const pomo_post *post);
// Acts on `fd` (-1: the timeout) with `events` (bit 1 readable, bit 2 writable); 1 once the
// transfer has ended (then `pomo_post_result`), else 0.
int pomo_post_act(pomo_post *post, int fd, int events);
// How it ended: 0 when an HTTP answer came (its status in `status`), else libcurl's code and its
// message in `error`.
int pomo_post_result(const pomo_post *post, long *status, char *error, size_t error_size);
void pomo_post_free(pomo_post *post);

#endif
