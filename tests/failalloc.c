/* failalloc.c: test-only LD_PRELOAD shim that makes the N-th malloc/calloc/realloc of a cpkit process fail (or, linked into a test, the k-th from a point the test chooses). */
/*
 * Environment:
 *   CPK_FAILALLOC_N     the call to fail, counted from 1 over malloc, calloc and
 *                       realloc together (unset or 0: fail none, only count)
 *   CPK_FAILALLOC_PROG  the program to act on (default "cpkit"); any other
 *                       process (the libtool wrapper's shell, gnuplot) is left
 *                       alone, so the count is the same from run to run
 *   CPK_FAILALLOC_COUNT a file: at exit the process writes there how many
 *                       calls it made, so a test knows how far to go
 * A test program that links this file instead calls failalloc_arm(k, object):
 * the k-th call of its thread from then on fails (0: none), counting only the
 * calls made from code in a shared object whose path holds `object` (NULL: any).
 * One call fails, the later ones succeed again: that is what an allocation
 * failure looks like to a program that must clean up and report it.
 *
 * The real allocator is found with dlsym(RTLD_NEXT), so under AddressSanitizer
 * (with verify_asan_link_order=0) the shim forwards to ASan's allocator and
 * ASan still sees every block. dlsym may itself call calloc before the real
 * one is known: that request is served from a small static arena.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static unsigned long fail_at, calls;
static int active, resolving;
static const char *count_file;

static _Alignas(max_align_t) char arena[4096];
static size_t arena_used;

static int in_arena(const void *p)
{
  return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

static void *arena_alloc(size_t size)
{
  size = (size + 15) & ~(size_t)15;
  if (size > sizeof arena - arena_used) return NULL;
  void *p = arena + arena_used;
  arena_used += size;
  return p; /* static storage: already zero, as calloc needs */
}

static void resolve(void)
{
  if (real_malloc || resolving) return;
  resolving = 1;
  real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
  real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
  real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
  real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  resolving = 0;
}

/* Called on the failing call: `break failalloc_failed` in gdb shows who asked. */
__attribute__((noinline)) void failalloc_failed(void);
__attribute__((noinline)) void failalloc_failed(void)
{
  errno = ENOMEM;
}

/*
 * The sanitizer runtime allocates through the same functions (LeakSanitizer
 * asks pthread_getattr_np for thread stacks) and stops with a CHECK failure
 * when that fails: not cpkit's doing. Such a call is spared and the failure
 * moves to the next call.
 */
static int sanitizer_call(void *caller)
{
  Dl_info info;
  if (!dladdr(caller, &info)) return 0;
  if (info.dli_sname && strstr(info.dli_sname, "pthread_getattr_np")) return 1;
  return info.dli_fname && strstr(info.dli_fname, "san.so") != NULL; /* libasan, libubsan, liblsan */
}

/*
 * Armed by a program that links this file (failalloc_arm): only the arming
 * thread's calls count, so a library's own threads (Open MPI's PMIx progress
 * thread) neither take the failure nor move it.
 */
static int thread_only;
static pthread_t armed_thread;
static const char *armed_object; /* only calls made from a shared object whose path holds this */

void failalloc_arm(unsigned long k, const char *object);
void failalloc_arm(unsigned long k, const char *object)
{
  resolve();
  active = 0;
  armed_thread = pthread_self();
  thread_only = 1;
  armed_object = object;
  __atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
  fail_at = k;
  active = k != 0;
}

/* 1 when this call (made from `caller`) is the one to fail. */
static int should_fail(void *caller)
{
  if (!active || (thread_only && !pthread_equal(pthread_self(), armed_thread))) return 0;
  Dl_info from;
  if (armed_object && !(dladdr(caller, &from) && from.dli_fname && strstr(from.dli_fname, armed_object)))
    return 0;
  unsigned long k = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
  if (k != fail_at) return 0;
  if (sanitizer_call(caller)) {
    fail_at++;
    return 0;
  }
  failalloc_failed();
  return 1;
}

void *malloc(size_t size)
{
  resolve();
  if (!real_malloc) return arena_alloc(size);
  if (should_fail(__builtin_return_address(0))) return NULL;
  return real_malloc(size);
}

void *calloc(size_t count, size_t size)
{
  resolve();
  if (!real_calloc) return count && size > sizeof arena / count ? NULL : arena_alloc(count * size);
  if (should_fail(__builtin_return_address(0))) return NULL;
  return real_calloc(count, size);
}

void *realloc(void *p, size_t size)
{
  resolve();
  if (in_arena(p)) { /* never expected; keep it correct anyway */
    void *q = malloc(size);
    if (q) memcpy(q, p, size < sizeof arena ? size : sizeof arena);
    return q;
  }
  if (should_fail(__builtin_return_address(0))) return NULL;
  return real_realloc(p, size);
}

void free(void *p)
{
  if (!p || in_arena(p)) return;
  resolve();
  real_free(p);
}

/*
 * Last of the program's exit handlers, before LeakSanitizer's own (registered
 * when the runtime started): from here on nothing fails, so the leak check
 * itself can allocate.
 */
static void at_exit(void)
{
  active = 0;
  if (!count_file) return;
  FILE *f = fopen(count_file, "w");
  if (!f) return;
  fprintf(f, "%lu\n", calls);
  fclose(f);
}

__attribute__((constructor)) static void failalloc_init(void)
{
  const char *prog = getenv("CPK_FAILALLOC_PROG"), *n = getenv("CPK_FAILALLOC_N");
  if (!prog) prog = "cpkit";
  const char *self = program_invocation_short_name;
  /* libtool runs the real binary as lt-NAME from .libs/ */
  if (strncmp(self, "lt-", 3) == 0) self += 3;
  if (strcmp(self, prog) != 0) return;
  resolve();
  fail_at = n ? strtoul(n, NULL, 10) : 0;
  count_file = getenv("CPK_FAILALLOC_COUNT");
  atexit(at_exit);
  active = 1;
}
