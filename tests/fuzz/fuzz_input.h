/* fuzz_input.h: the fuzzer's bytes as a NUL-terminated string or a temporary file, for the reader harnesses. */
#ifndef CPK_FUZZ_INPUT_H
#define CPK_FUZZ_INPUT_H
#include <stddef.h>
#include <stdint.h>

/* malloc'd copy of data with a NUL after it (NULL when out of memory). */
char *fuzz_text(const uint8_t *data, size_t size);
/* Write data to a temporary file; its path (static), or NULL. */
const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix);

#endif
