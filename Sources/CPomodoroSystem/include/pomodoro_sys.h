// System calls the Swift overlay does not export: timerfd, signal self-pipe, adjtimex.
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
/// Reads one pending signal number from the pipe, or 0 when none is pending.
int pomo_signal_next(int fd);

/// 1 when the wall clock has been set since boot: the kernel's NTP state (adjtimex), or, where a
/// sandbox refuses adjtimex, systemd-timesyncd's /run/systemd/timesync/synchronized. Else 0.
int pomo_clock_synced(void);

#endif
