/* Test-only (Tests/system/run.sh): a contact that bounces, faster than a shell can write.
 * bounce PULL-FILE N: writes pull-down/pull-up to a gpio-sim line's `pull` attribute N times
 * in a tight loop (at real-time priority), ends pulled down (pressed, for an active-low input) and prints how long the
 * toggling took in microseconds. The caller holds the press and releases it. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int put(int fd, const char *s, size_t n) { return pwrite(fd, s, n, 0) == (ssize_t)n ? 0 : -1; }

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: bounce PULL-FILE N\n"); return 64; }
  int fd = open(argv[1], O_WRONLY);
  if (fd < 0) { perror(argv[1]); return 1; }
  int n = atoi(argv[2]);
  /* Real-time priority, where allowed: no other guest process runs in the middle of it. */
  struct sched_param prio = {.sched_priority = 50};
  (void)sched_setscheduler(0, SCHED_FIFO, &prio);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; i++) {
    if (put(fd, "pull-down", 9) || put(fd, "pull-up", 7)) { perror("write"); return 1; }
  }
  if (put(fd, "pull-down", 9)) { perror("write"); return 1; }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%ld\n", (long)((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000L));
  return 0;
}
