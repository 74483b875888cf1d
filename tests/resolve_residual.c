/* resolve_residual.c: the natural residual of a box MCP computed independently of the library, for the re-solve tests. */
#include <math.h>
#include "resolve_residual.h"

double resolve_natural_residual(const cpk_problem *p, const double *z)
{
  double r = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double w = p->q[i];
    for (size_t j = 0; j < p->n; j++) w += cpk_matrix_get(p->M, i, j) * z[j];
    double t = z[i] - w, mid = fmin(fmax(t, p->lower[i]), p->upper[i]);
    r = fmax(r, fabs(z[i] - mid));
  }
  return r;
}
