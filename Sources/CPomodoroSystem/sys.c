#ifdef __linux__
#define _GNU_SOURCE /* pipe2 */
#endif
#include "pomodoro_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <spawn.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/timerfd.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#endif

int pomo_timer_create(void) {
#ifdef __linux__
  return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
#else
  errno = ENOSYS;
  return -1;
#endif
}

int pomo_timer_set(int fd, int64_t ns) {
#ifdef __linux__
  struct itimerspec spec;
  memset(&spec, 0, sizeof spec);
  if (ns > 0) {
    spec.it_value.tv_sec = (time_t)(ns / 1000000000LL);
    spec.it_value.tv_nsec = (long)(ns % 1000000000LL);
  }
  return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
#else
  (void)fd;
  (void)ns;
  errno = ENOSYS;
  return -1;
#endif
}

int pomo_timer_clear(int fd) {
  uint64_t expirations = 0;
  ssize_t n = read(fd, &expirations, sizeof expirations);
  return n == (ssize_t)sizeof expirations ? 1 : 0;
}

static int signal_pipe[2] = {-1, -1};
static volatile sig_atomic_t first_signal = 0;

static void on_signal(int signo) {
  int saved = errno;
  if (first_signal == 0) first_signal = signo;
  unsigned char byte = (unsigned char)signo;
  ssize_t ignored = write(signal_pipe[1], &byte, 1);
  (void)ignored;
  errno = saved;
}

static void install(int signo) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(signo, &action, NULL);
}

int pomo_signal_pipe(void) {
  if (signal_pipe[0] >= 0) return signal_pipe[0];
#ifdef __linux__
  /* Non-blocking and close-on-exec from the start: no moment where a child could inherit it. */
  if (pipe2(signal_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return -1;
#else
  if (pipe(signal_pipe) != 0) return -1;
  for (int i = 0; i < 2; i++) {
    fcntl(signal_pipe[i], F_SETFL, fcntl(signal_pipe[i], F_GETFL) | O_NONBLOCK);
    fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC);
  }
#endif
  install(SIGINT);
  install(SIGTERM);
  install(SIGHUP);
  signal(SIGPIPE, SIG_IGN);
  return signal_pipe[0];
}

int pomo_signal_watch(int signo) {
  if (pomo_signal_pipe() < 0) return -1;
  install(signo);
  return 0;
}

void pomo_signal_unwatch(int signo) { signal(signo, SIG_DFL); }

int pomo_signal_first(void) { return first_signal; }

void pomo_signal_forget(void) {
  if (signal_pipe[0] >= 0) {
    while (pomo_signal_next(signal_pipe[0]) != 0) {
    }
  }
  first_signal = 0;
}

void pomo_signal_default_action(int signo) {
  signal(signo, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signo);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(signo);
  // Still here: the signal stopped the process and SIGCONT resumed it (or it was discarded,
  // as a stop signal is in an orphaned process group). Watch it again.
  install(signo);
}

int pomo_signal_next(int fd) {
  unsigned char byte = 0;
  return read(fd, &byte, 1) == 1 ? byte : 0;
}

int pomo_clock_synced(void) {
#ifdef __linux__
  struct timex tx;
  memset(&tx, 0, sizeof tx);
  int state = adjtimex(&tx);
  if (state >= 0) return state == TIME_ERROR ? 0 : 1;
  // The service's sandbox (ProtectClock=) refuses even a read-only adjtimex. Then ask
  // systemd-timesyncd, which creates this file once it has set the clock since boot.
  return access("/run/systemd/timesync/synchronized", F_OK) == 0 ? 1 : 0;
#else
  return 1;
#endif
}

int pomo_peer_uid(int fd, uint32_t *uid) {
#ifdef __linux__
  struct ucred cred;
  socklen_t length = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
  *uid = (uint32_t)cred.uid;
  return 0;
#else
  uid_t u;
  gid_t g;
  if (getpeereid(fd, &u, &g) != 0) return -1;
  *uid = (uint32_t)u;
  return 0;
#endif
}

int pomo_spawn(const char *path, char *const argv[], char *const envp[], int *stdin_fd, int *output_fd) {
  int in[2], out[2];
#ifdef __linux__
#define POMO_PIPE(p) pipe2(p, O_CLOEXEC)
#else
#define POMO_PIPE(p) pipe(p)
#endif
  if (POMO_PIPE(in) != 0) return -1;
  if (POMO_PIPE(out) != 0) {
    int saved = errno;
    close(in[0]);
    close(in[1]);
    errno = saved;
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  posix_spawn_file_actions_addclose(&actions, in[0]);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  int failed = posix_spawn(&pid, path, &actions, &attributes, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(in[0]);
  close(out[1]);
  if (failed != 0) {
    close(in[1]);
    close(out[0]);
    errno = failed;
    return -1;
  }
  for (int i = 0; i < 2; i++) {
    int fd = i == 0 ? in[1] : out[0];
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  *stdin_fd = in[1];
  *output_fd = out[0];
  return pid;
}

int pomo_pidfd_open(int pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}
