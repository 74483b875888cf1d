/* fuzz_fclib.c: libFuzzer harness of the FCLIB HDF5 reader (local and global problems, as a cone problem and as a contact system). */
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fuzz_file(data, size, ".hdf5");
  cpk_problem *p = NULL;
  cpk_contact_system *s = NULL;
  cpk_error err;
  if (!path) return 0;
  if (cpk_problem_read_fclib(path, &p, &err) == CPK_OK) cpk_problem_free(p);
  if (cpk_contact_system_read_fclib(path, &s, &err) == CPK_OK) cpk_contact_system_free(s);
  return 0;
}
