/* fuzz_input.c: the fuzzer's bytes as a string or a file (see fuzz_input.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_input.h"

char *fuzz_text(const uint8_t *data, size_t size)
{
  char *t = malloc(size + 1);
  if (!t) return NULL;
  memcpy(t, data, size);
  t[size] = '\0';
  return t;
}

/* One file per process, rewritten for every input: readers that only take paths see the bytes as is. */
const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
  static char path[256];
  snprintf(path, sizeof path, "%s/cpkit-fuzz-%ld%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (long)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  int bad = fwrite(data, 1, size, f) != size;
  bad |= fclose(f) != 0;
  return bad ? NULL : path;
}
