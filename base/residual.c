/* residual.c: F evaluation and the one natural-map residual every solver is judged by. */
#include <math.h>
#include <cpkit/problem.h>

int cpk_problem_eval(const cpk_problem *p, const double *z, double *w)
{
  if (p->kind == CPK_KIND_NONLINEAR_MCP) {
    if (p->F(z, w, p->params) != 0) return CPK_EBADFUNC;
  } else {
    cpk_matrix_mv(p->M, z, w, 0);
    for (size_t i = 0; i < p->n; i++) w[i] += p->q[i];
  }
  for (size_t i = 0; i < p->n; i++)
    if (!isfinite(w[i])) return CPK_EBADFUNC;
  return CPK_OK;
}

double cpk_natural_residual(const cpk_problem *p, const double *z, const double *w)
{
  double r = 0.0;
  if (p->kind == CPK_KIND_FRICTION_CONE) return cpk_fc_residual(p, z, w);
  for (size_t i = 0; i < p->n; i++) {
    double t = z[i] - w[i], lo = p->lower[i], hi = p->upper[i];
    if (p->findex && p->findex[i] >= 0) { /* bounds +-c_i z_j at this z (z_j < 0 is row j's error) */
      hi = p->fcoef[i] * fmax(z[p->findex[i]], 0.0);
      lo = -hi;
    }
    double mid = t < lo ? lo : (t > hi ? hi : t);
    double e = fabs(z[i] - mid);
    if (isnan(e)) return INFINITY;
    if (e > r) r = e;
  }
  return r;
}

int cpk_problem_residual(const cpk_problem *p, const double *z, double *w, double *r)
{
  int rc = cpk_problem_eval(p, z, w);
  *r = rc ? INFINITY : cpk_natural_residual(p, z, w);
  return rc;
}

double cpk_problem_tolerance(const cpk_problem *p, double tol)
{
  if (p->kind == CPK_KIND_NONLINEAR_MCP || !p->q) return tol;
  double qmax = 1.0;
  for (size_t i = 0; i < p->n; i++)
    if (fabs(p->q[i]) > qmax) qmax = fabs(p->q[i]);
  return tol * qmax;
}
