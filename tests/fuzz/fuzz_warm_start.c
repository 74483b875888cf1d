/* fuzz_warm_start.c: libFuzzer harness of the warm-start reader (z0 and basis), for n = 4. */
#include <stdio.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fuzz_file(data, size, ".txt");
  double z0[4];
  int basis0[4], has_basis = 0;
  cpk_error err;
  if (path) cpk_warm_start_read_file(path, 4, z0, basis0, &has_basis, &err);
  return 0;
}
