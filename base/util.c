/* util.c: overflow-checked allocation, string copy, and the wall clock. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_errno.h>
#include <cpkit/util.h>

int cpk_size_mul(size_t a, size_t b, size_t *out)
{
  if (a != 0 && b > SIZE_MAX / a) return 1;
  *out = a * b;
  return 0;
}

void *cpk_alloc_array(size_t count, size_t size)
{
  size_t bytes;
  if (cpk_size_mul(count, size, &bytes)) return NULL;
  return malloc(bytes ? bytes : 1);
}

void *cpk_calloc_array(size_t count, size_t size)
{
  size_t bytes;
  if (cpk_size_mul(count, size, &bytes)) return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

char *cpk_strdup(const char *s)
{
  if (!s) return NULL;
  size_t len = strlen(s) + 1;
  char *copy = malloc(len);
  if (copy) memcpy(copy, s, len);
  return copy;
}

double cpk_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cpk_init(void) { gsl_set_error_handler_off(); }
