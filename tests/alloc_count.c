/* alloc_count.c: the allocator wrappers of alloc_count.h: linked into a test program, they count its allocations and those of every library it loads. */
#include <errno.h>
#include <stdlib.h>
#include "alloc_count.h"

#ifndef ALLOC_COUNT_NONE
/*
 * The allocator functions defined in the executable take precedence over
 * glibc's for every shared object of the process (libcpkit, LAPACK, GSL), so
 * each call is counted while `counting` is set, then forwarded to glibc's own
 * entry points. ASan replaces the allocator itself: the test skips there.
 */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);
void *memalign(size_t align, size_t n);
/* exported from the executable, whatever -fvisibility the build uses */
#define COUNTED __attribute__((visibility("default")))

static volatile int counting;
static volatile long allocations;

COUNTED void *malloc(size_t n)
{
  if (counting) allocations++;
  return __libc_malloc(n);
}

COUNTED void *calloc(size_t k, size_t n)
{
  if (counting) allocations++;
  return __libc_calloc(k, n);
}

COUNTED void *realloc(void *p, size_t n)
{
  if (counting) allocations++;
  return __libc_realloc(p, n);
}

COUNTED void free(void *p) { __libc_free(p); }

COUNTED void *memalign(size_t align, size_t n)
{
  if (counting) allocations++;
  return __libc_memalign(align, n);
}

COUNTED void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

COUNTED int posix_memalign(void **out, size_t align, size_t n)
{
  void *p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void alloc_count_start(void)
{
  allocations = 0;
  counting = 1;
}

long alloc_count_stop(void)
{
  counting = 0;
  return allocations;
}

#else
typedef int alloc_count_none; /* nothing to count with: not an empty file */
#endif
