/*
 * A slow disk for benchmarks, preloaded into a server (LD_PRELOAD): fsync and fdatasync sleep
 * SLOW_FSYNC_MS milliseconds, then flush as the C library does. Network block storage and busy
 * disks take 2-10 ms a flush where this project's machine takes 0.2-0.4 ms. Built by
 * bench/slow-fsync.ts with the host's C compiler; never shipped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void) {
  const char *text = getenv("SLOW_FSYNC_MS");
  double ms = text == NULL ? 0 : atof(text);
  if (ms <= 0 || ms > 1000) return; /* bench/slow-fsync.ts refuses more */
  struct timespec t = {(time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6)};
  while (nanosleep(&t, &t) != 0) {
  }
}

int fsync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  slow();
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  slow();
  return real(fd);
}
