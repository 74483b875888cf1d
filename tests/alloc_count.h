/* alloc_count.h: counting the heap allocations a stretch of a test program makes (malloc, calloc, realloc and memalign wrappers in alloc_count.c; glibc without AddressSanitizer only). */
#ifndef CPK_TESTS_ALLOC_COUNT_H
#define CPK_TESTS_ALLOC_COUNT_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_COUNT_NONE 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define ALLOC_COUNT_NONE 1 /* ASan replaces the allocator itself: such a test skips */
#endif

#ifndef ALLOC_COUNT_NONE
/* Count from zero the allocations of every shared object of the process. */
void alloc_count_start(void);
/* Stop counting; the allocations since alloc_count_start. */
long alloc_count_stop(void);
#endif

#endif
