/* layout_reuse.c: the arrays of an earlier layout taken over by a new one of the same sizes (the stepper's update lays its system out in the map it replaced a step before, without allocating). */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

void *cvm_reuse(void **old, size_t n_old, size_t n, size_t size, int zero)
{
  void *p = *old;
  *old = NULL;
  if (p && n_old == n) { /* allocated as (n, size) before: the product does not overflow */
    if (zero) memset(p, 0, n * size);
    return p;
  }
  free(p);
  return zero ? cpk_calloc_array(n, size) : cpk_alloc_array(n, size);
}

void cvm_varmap_recycle(cpk_varmap *C, cpk_varmap *old)
{
  *old = *C;
  memset(C, 0, sizeof *C);
  C->model = old->model;
  C->options = old->options;
  C->setup = old->setup;
  C->rows = old->rows;
  C->affine = 1; /* as cvm_varmap_new */
}
