/* problem_scale.c: the optional row scales of a problem (the size of each row, for merits that add squares of rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/problem.h>
#include <cpkit/util.h>

int cpk_problem_set_row_scale(cpk_problem *p, const double *scale)
{
  if (!p) return CPK_EINVAL;
  if (!scale) {
    free(p->row_scale);
    p->row_scale = NULL;
    return CPK_OK;
  }
  for (size_t i = 0; i < p->n; i++)
    if (!(scale[i] > 0.0) || !isfinite(scale[i])) return CPK_EINVAL;
  double *s = p->row_scale ? p->row_scale : cpk_alloc_array(p->n ? p->n : 1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  memcpy(s, scale, p->n * sizeof *s);
  p->row_scale = s;
  return CPK_OK;
}
