/* LD_PRELOAD shim for bench/run: counts gpuctl's remote commands (libssh exec requests: one
 * round trip each, gpuctl's only way of running anything on a node, files included) and
 * appends the count to the file named by GPUCTL_BENCH_COUNT at exit. Not part of gpuctl. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long exec_requests;

int ssh_channel_request_exec(void* channel, const char* command) {
  static int (*real)(void*, const char*);
  if (!real) real = (int (*)(void*, const char*))dlsym(RTLD_NEXT, "ssh_channel_request_exec");
  atomic_fetch_add(&exec_requests, 1);
  return real(channel, command);
}

__attribute__((destructor)) static void report(void) {
  const char* path = getenv("GPUCTL_BENCH_COUNT");
  if (!path) return;
  FILE* out = fopen(path, "a");
  if (!out) return;
  fprintf(out, "%ld\n", (long)atomic_load(&exec_requests));
  fclose(out);
}
