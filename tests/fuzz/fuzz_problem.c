/* fuzz_problem.c: libFuzzer harness of the problem text reader (format v1). */
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  cpk_problem *p = NULL;
  cpk_error err;
  if (text && cpk_problem_read_string(text, "fuzz", &p, &err) == CPK_OK) cpk_problem_free(p);
  free(text);
  return 0;
}
