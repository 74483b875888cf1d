/* resolve_testlib.c: for the re-solve tests: a natural residual computed independently of the library, a small friction-cone problem. */
#include <math.h>
#include "resolve_testlib.h"

double resolve_natural_residual(const cpk_problem *p, const double *z)
{
  double r = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double w = p->q[i];
    for (size_t j = 0; j < p->n; j++) w += cpk_matrix_get(p->M, i, j) * z[j];
    double lo = p->lower[i], hi = p->upper[i];
    if (p->findex && p->findex[i] >= 0) { /* a friction-index row's box follows its normal */
      hi = p->fcoef[i] * fmax(z[p->findex[i]], 0.0);
      lo = -hi;
    }
    double t = z[i] - w, mid = fmin(fmax(t, lo), hi);
    r = fmax(r, fabs(z[i] - mid));
  }
  return r;
}

cpk_problem *resolve_small_cone(void)
{
  double w[81], q[9], mu[3] = {0.3, 0.5, 0.8};
  for (size_t i = 0; i < 9; i++)
    for (size_t j = 0; j < 9; j++) {
      double v = i == j ? 1.0 : 0.0;
      for (size_t k = 0; k < 9; k++) v += sin((double)(i * 9 + k + 1)) * sin((double)(j * 9 + k + 1)) / 9.0;
      w[i * 9 + j] = v;
    }
  for (size_t i = 0; i < 9; i++) q[i] = i % 3 == 0 ? -1.0 + 0.2 * (double)i / 3.0 : 0.4 * cos((double)i);
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  cpk_matrix_from_dense_array(9, 9, w, 9, 0, &W);
  cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  cpk_matrix_free(W);
  return p;
}
