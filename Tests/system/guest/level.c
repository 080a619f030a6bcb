/* Test-only (Tests/system/run.sh): watches a gpio-sim line's level far more often than a shell
 * can. level VALUE-FILE WANT SECONDS: reads VALUE-FILE (sim_gpioN/value) every 2 ms until it
 * reads WANT (0 or 1) or SECONDS pass. Prints `WANT after N ms (K reads)` and exits 0, or
 * `no WANT in N ms (K reads, H high)` and exits 1. The alarm's beeps are 100 ms long with a
 * 700 ms pause, so a shell's sparse reads under TCG can miss every one; this cannot. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long ms_since(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a->tv_sec) * 1000L + (b.tv_nsec - a->tv_nsec) / 1000000L;
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: level VALUE-FILE WANT SECONDS\n"); return 64; }
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) { perror(argv[1]); return 66; }
  char want = argv[2][0];
  long limit = atol(argv[3]) * 1000L, reads = 0, high = 0;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct timespec pause = {0, 2000000L};
  for (;;) {
    char c = 0;
    if (pread(fd, &c, 1, 0) != 1) { perror("read"); return 1; }
    reads++;
    if (c == '1') high++;
    if (c == want) {
      printf("%c after %ld ms (%ld reads)\n", want, ms_since(&start), reads);
      return 0;
    }
    if (ms_since(&start) >= limit) break;
    nanosleep(&pause, NULL);
  }
  printf("no %c in %ld ms (%ld reads, %ld high)\n", want, ms_since(&start), reads, high);
  return 1;
}
