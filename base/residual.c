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

double cpk_fc_residual_contacts(size_t dim, size_t nc, const double *mu, const double *r,
                                const double *u, double *sum)
{
  double e[CPK_CONE_DIM_MAX], worst = 0.0;
  for (size_t c = 0; c < nc; c++) {
    double ec = cpk_cone_natural_map(dim, mu[c], r + c * dim, u + c * dim, e);
    if (isnan(ec)) {
      if (sum) *sum = NAN;
      return INFINITY;
    }
    if (sum) *sum += ec * ec;
    /* u_n >= 0 holds at every solution (u^ in K* says so), but the natural map sees a
     * negative u_n only through |u_n| / mu: with mu = 1e10, r = 0 and u_n = -1 had residual
     * 1e-10. The normal velocity's violation counts at its own size. */
    if (-u[c * dim] > ec) ec = -u[c * dim];
    if (ec > worst) worst = ec;
  }
  return worst;
}

/* The cone's residual (cpk_fc_residual) over the contacts of rows [lo, hi); with sum, the
 * squares of the natural maps' norms are added to it (NaN when one is NaN). */
static double fc_residual_rows(const cpk_problem *p, const double *r, const double *u, size_t lo,
                               size_t hi, double *sum)
{
  size_t d = p->cone_dim, c0 = lo / d, c1 = hi / d + (hi % d != 0);
  if (c1 > p->nc) c1 = p->nc;
  if (c0 >= c1) return 0.0;
  return cpk_fc_residual_contacts(d, c1 - c0, p->mu + c0, r + c0 * d, u + c0 * d, sum);
}

double cpk_natural_residual_rows(const cpk_problem *p, const double *z, const double *w, size_t lo,
                                 size_t hi)
{
  double r = 0.0;
  if (hi > p->n) hi = p->n;
  if (p->kind == CPK_KIND_FRICTION_CONE) return fc_residual_rows(p, z, w, lo, hi, NULL);
  for (size_t i = lo; i < hi; i++) {
    double t = z[i] - w[i], lo_i = p->lower[i], hi_i = p->upper[i];
    if (p->findex && p->findex[i] >= 0) { /* bounds +-c_i z_j at this z (z_j < 0 is row j's error) */
      hi_i = p->fcoef[i] * fmax(z[p->findex[i]], 0.0);
      lo_i = -hi_i;
    }
    double mid = t < lo_i ? lo_i : (t > hi_i ? hi_i : t);
    double e = fabs(z[i] - mid);
    if (isnan(e)) return INFINITY;
    if (e > r) r = e;
  }
  return r;
}

double cpk_fc_residual_merit(const cpk_problem *p, const double *r, const double *u, double *merit)
{
  if (p->kind != CPK_KIND_FRICTION_CONE || p->cone_dim == 0) { /* no contacts: merit 0, as before */
    *merit = 0.0;
    return cpk_natural_residual_rows(p, r, u, 0, p->n);
  }
  double sum = 0.0, qq = 0.0, res = fc_residual_rows(p, r, u, 0, p->n, &sum);
  for (size_t i = 0; i < p->n; i++) qq += p->q[i] * p->q[i];
  *merit = isnan(sum) ? INFINITY : sqrt(sum) / (1.0 + sqrt(sqrt(qq)));
  return res;
}

double cpk_natural_residual(const cpk_problem *p, const double *z, const double *w)
{
  return cpk_natural_residual_rows(p, z, w, 0, p->n);
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
