// System calls the Swift overlay does not export: timerfd, signal self-pipe, adjtimex, a child
// process spawned with its pipes, pidfd.
#ifndef POMODORO_SYS_H
#define POMODORO_SYS_H

#include <stdint.h>

/// A timerfd on CLOCK_MONOTONIC (non-blocking, close-on-exec); -1 where there is none (macOS).
int pomo_timer_create(void);
/// Arms the timer to fire at the absolute CLOCK_MONOTONIC instant `ns` (0 disarms).
int pomo_timer_set(int fd, int64_t ns);
/// Reads (clears) the timer's expiry count; returns 0 when nothing had expired.
int pomo_timer_clear(int fd);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that write the signal number as one byte
/// to a pipe, and returns the pipe's read end (non-blocking), or -1 with errno set.
/// SIGPIPE is ignored. Calling it again returns the same descriptor.
int pomo_signal_pipe(void);
/// Sends `signo` to the same pipe too (SIGQUIT, SIGTSTP, SIGCONT, SIGUSR1...); sets the pipe up
/// first if needed. 0, or -1 with errno set.
int pomo_signal_watch(int signo);
/// Puts `signo` back to its default action (undoes pomo_signal_watch).
void pomo_signal_unwatch(int signo);
/// The first signal the pipe's handler caught (0: none yet): a cheap check for a tight loop.
int pomo_signal_first(void);
/// Carries out `signo`'s default action now: the process stops (SIGTSTP) or dies (SIGUSR1,
/// SIGQUIT...) as if the signal had never been caught. If the process lives on (stopped, then
/// continued), the pipe's handler is installed again before it returns.
void pomo_signal_default_action(int signo);
/// Forgets every signal caught so far: drains the pipe and clears the first one (for a process
/// that runs several commands in turn, as the tests do).
void pomo_signal_forget(void);
/// Reads one pending signal number from the pipe, or 0 when none is pending.
int pomo_signal_next(int fd);

/// 1 when the wall clock has been set since boot: the kernel's NTP state (adjtimex), or, where a
/// sandbox refuses adjtimex, systemd-timesyncd's /run/systemd/timesync/synchronized. Else 0.
int pomo_clock_synced(void);

/// The user id of the process at the other end of the connected Unix socket `fd` (SO_PEERCRED;
/// getpeereid elsewhere): 0 and *uid set, or -1 with errno set.
int pomo_peer_uid(int fd, uint32_t *uid);

/// Starts `path` with `argv` (NULL-ended) and `envp` (NULL-ended) in a process group of its own,
/// with signals at their defaults and none blocked: its stdin the read end of a pipe whose write
/// end is *stdin_fd, its stdout and stderr the write end of one whose read end is *output_fd (both
/// ends here non-blocking and close-on-exec). The child's pid, or -1 with errno set.
int pomo_spawn(const char *path, char *const argv[], char *const envp[], int *stdin_fd, int *output_fd);
/// A descriptor that becomes readable when process `pid` ends (pidfd_open, Linux 5.3); -1 where
/// there is none (then poll waitpid).
int pomo_pidfd_open(int pid);

#endif
