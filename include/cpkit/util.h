/** util.h: small helpers shared by all modules: overflow-checked allocation and a wall clock. @file */
#ifndef CPKIT_UTIL_H
#define CPKIT_UTIL_H
#include <stddef.h>
#include <cpkit/export.h>

CPK_BEGIN_DECLS

/** *out = a * b; returns 0 on success, non-zero if the product overflows size_t. */
CPK_API int cpk_size_mul(size_t a, size_t b, size_t *out);
/** malloc(count * size) that returns NULL on overflow (and for count == 0 returns a valid 1-byte block). */
CPK_API void *cpk_alloc_array(size_t count, size_t size);
/** calloc(count, size) with the same conventions. */
CPK_API void *cpk_calloc_array(size_t count, size_t size);
/** Copy of a string (NULL for NULL or on failure). */
CPK_API char *cpk_strdup(const char *s);
/** Monotonic wall clock in seconds. */
CPK_API double cpk_wtime(void);
/**
 * Optional set-up for programs that link cpkit: turns GSL's default error handler (which aborts
 * the process) off, since cpkit checks every GSL return code itself. Call once, before threads.
 */
CPK_API void cpk_init(void);

CPK_END_DECLS
#endif
