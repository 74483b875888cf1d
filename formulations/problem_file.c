/* problem_file.c: reading a problem file of either kind, FCLIB (HDF5 signature) or the text format; lives here because io/ sits below formulations/. */
#include <stdio.h>
#include <string.h>
#include <cpkit/fclib.h>
#include <cpkit/io.h>

int cpk_file_is_hdf5(const char *path)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8] = {0};
  FILE *f = path ? fopen(path, "rb") : NULL;
  if (!f) return 0;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  return got == sizeof head && memcmp(head, sig, sizeof sig) == 0;
}

int cpk_problem_read_any(const char *path, cpk_problem **out, cpk_error *err)
{
  if (cpk_file_is_hdf5(path)) return cpk_problem_read_fclib(path, out, err);
  return cpk_problem_read_file(path, out, err);
}
