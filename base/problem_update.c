/* problem_update.c: changing a problem's data in place for re-solves (q, bounds, M's values, mu, friction coefficients). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/problem.h>
#include <cpkit/util.h>

/* v[i] - v[i] is 0 for a finite entry and NaN for an infinite or NaN one, and a NaN stays
 * in a sum: four sums without a branch an entry (an update's M has 10^4 entries a step
 * on the tripod's LCP; the test per entry cost a tenth of that step). */
static int all_finite(const double *v, size_t n)
{
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; k++) s[k] += v[i + k] - v[i + k];
  for (; i < n; i++) s[0] += v[i] - v[i];
  return s[0] + s[1] + s[2] + s[3] == 0.0;
}

int cpk_problem_update_q(cpk_problem *p, const double *q)
{
  if (!p || !q || !p->q || !all_finite(q, p->n)) return CPK_EINVAL;
  memcpy(p->q, q, p->n * sizeof *q);
  p->rev.q++;
  return CPK_OK;
}

static int bounds_ok(const cpk_problem *p, const double *lower, const double *upper)
{
  for (size_t i = 0; i < p->n; i++) {
    double l = lower ? lower[i] : p->lower[i], u = upper ? upper[i] : p->upper[i];
    if (isnan(l) || isnan(u) || l > u || l == INFINITY || u == -INFINITY) return 0;
    if (p->kind == CPK_KIND_LCP && (l != 0.0 || u != INFINITY)) return 0;
  }
  return 1;
}

int cpk_problem_update_bounds(cpk_problem *p, const double *lower, const double *upper)
{
  if (!p || p->kind == CPK_KIND_FRICTION_CONE || !bounds_ok(p, lower, upper)) return CPK_EINVAL;
  if (lower) memcpy(p->lower, lower, p->n * sizeof *lower);
  if (upper) memcpy(p->upper, upper, p->n * sizeof *upper);
  p->rev.bounds++;
  return CPK_OK;
}

int cpk_problem_update_matrix_values(cpk_problem *p, const double *values)
{
  if (!p || !p->M || !values) return CPK_EINVAL;
  if (p->M->format == CPK_MATRIX_DENSE) return cpk_problem_update_matrix_dense(p, values, p->n, 0);
  size_t nnz = cpk_matrix_nnz(p->M);
  if (!all_finite(values, nnz)) return CPK_EINVAL;
  memcpy(p->M->csc->x, values, nnz * sizeof *values);
  p->rev.values++;
  return CPK_OK;
}

int cpk_problem_update_matrix_dense(cpk_problem *p, const double *a, size_t ld, int col_major)
{
  if (!p || !p->M || p->M->format != CPK_MATRIX_DENSE || !a || ld < p->n) return CPK_EINVAL;
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < p->n; j++)
      if (!isfinite(col_major ? a[i + j * ld] : a[i * ld + j])) return CPK_EINVAL;
  int rc = cpk_matrix_set_dense_array(p->M, a, ld, col_major);
  if (!rc) p->rev.values++;
  return rc;
}

int cpk_problem_update_mu(cpk_problem *p, const double *mu)
{
  if (!p || p->kind != CPK_KIND_FRICTION_CONE || !mu) return CPK_EINVAL;
  for (size_t c = 0; c < p->nc; c++)
    if (!(mu[c] >= 0.0 && isfinite(mu[c]))) return CPK_EINVAL;
  memcpy(p->mu, mu, p->nc * sizeof *mu);
  p->rev.mu++;
  return CPK_OK;
}

void cpk_problem_touch_params(cpk_problem *p)
{
  if (p) p->rev.params++;
}

int cpk_problem_update_fcoef(cpk_problem *p, const double *fcoef)
{
  if (!p || !p->findex || !fcoef) return CPK_EINVAL;
  for (size_t i = 0; i < p->n; i++)
    if (p->findex[i] >= 0 && !(fcoef[i] >= 0.0 && isfinite(fcoef[i]))) return CPK_EINVAL;
  for (size_t i = 0; i < p->n; i++) p->fcoef[i] = p->findex[i] >= 0 ? fcoef[i] : 0.0;
  p->rev.bounds++;
  return CPK_OK;
}
