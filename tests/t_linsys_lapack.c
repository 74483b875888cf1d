/* t_linsys_lapack.c: the "lapack" backend beyond t_linsys: scaling, rcond, long update runs, dense solvers on it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "families.h"
#include "testlib.h"

/* Dense matrices here are column-major: a[i + j * n]. */
static double *new_array(size_t count)
{
  double *a = calloc(count ? count : 1, sizeof *a);
  if (!a) abort();
  return a;
}

/* Dense CSC (every entry stored, zeros included): the backend must not care. */
static cpk_csc *dense_csc(size_t n, const double *a)
{
  cpk_csc *C = NULL;
  if (cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)(n * n), &C)) abort();
  for (size_t j = 0; j <= n; j++) C->p[j] = (cpk_int)(j * n);
  for (size_t k = 0; k < n * n; k++) {
    C->i[k] = (cpk_int)(k % n);
    C->x[k] = a[k];
  }
  return C;
}

/* Column-diagonally dominant with random signs: ||A^{-1}||_1 <= 1. */
static void random_matrix(gsl_rng *r, size_t n, double *a)
{
  for (size_t j = 0; j < n; j++) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      a[i + j * n] = i == j ? 0.0 : 2.0 * gsl_rng_uniform(r) - 1.0;
      sum += fabs(a[i + j * n]);
    }
    a[j + j * n] = (gsl_rng_uniform(r) < 0.5 ? -1.0 : 1.0) * (sum + 1.0);
  }
}

/* b = A x or A^T x from the dense array. */
static void multiply(size_t n, const double *a, const double *x, double *b, int trans)
{
  for (size_t i = 0; i < n; i++) {
    double s = 0.0;
    for (size_t j = 0; j < n; j++) s += (trans ? a[j + i * n] : a[i + j * n]) * x[j];
    b[i] = s;
  }
}

static double max_rel_diff(size_t n, const double *x, const double *y)
{
  double d = 0.0, m = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i])) return INFINITY;
    d = fmax(d, fabs(x[i] - y[i]));
    m = fmax(m, fabs(y[i]));
  }
  return d / m;
}

/* Factor a, solve op(A) x = op(A) xs, return max|x - xs| / max|xs| (INFINITY on failure). */
static double solve_against(cpk_linsys *L, size_t n, const double *a, const double *xs, int trans)
{
  double *x = new_array(n);
  multiply(n, a, xs, x, trans);
  double e = cpk_linsys_solve(L, x, trans) ? INFINITY : max_rel_diff(n, x, xs);
  free(x);
  return e;
}

static int factor_dense(cpk_linsys *L, size_t n, const double *a)
{
  cpk_csc *A = dense_csc(n, a);
  int rc = cpk_linsys_factor(L, A);
  cpk_csc_free(A);
  return rc;
}

/* Exponents of the power-of-two row (d = 0) and column (d = 1) scalings of test_scaling. */
static int scale_exp(size_t k, int d) { return d ? (int)(k % 3) * 10 : (int)(k % 5) * 20 - 40; }

/*
 * Solve op(D_r A D_c) x = b for x = xs; the error is measured on D_c x (plain)
 * or D_r x (transposed): that is what a backward-stable solve of the scaled
 * system bounds, since x itself spans many orders of magnitude.
 */
static double scaled_error(cpk_linsys *L, size_t n, const double *a, const double *xs, int trans)
{
  double *x = new_array(n), d = 0.0, m = 0.0;
  multiply(n, a, xs, x, trans);
  int rc = cpk_linsys_solve(L, x, trans);
  for (size_t i = 0; i < n; i++) {
    int e = scale_exp(i, !trans);
    d = fmax(d, ldexp(fabs(x[i] - xs[i]), e));
    m = fmax(m, ldexp(fabs(xs[i]), e));
  }
  free(x);
  return rc || !isfinite(d) ? INFINITY : d / m;
}

/*
 * Rows and columns scaled by powers of two from 2^-40 to 2^40 (1-norm
 * condition ~1e24): equilibration undoes the scaling, so the matrix is not
 * singular, and the solves are as accurate as for the unscaled matrix.
 */
static void test_scaling(gsl_rng *r)
{
  const size_t n = 40;
  double *a = new_array(n * n), *xs = new_array(n);
  random_matrix(r, n, a);
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++)
      a[i + j * n] = ldexp(a[i + j * n], scale_exp(i, 0) + scale_exp(j, 1));
  for (size_t i = 0; i < n; i++) xs[i] = 1.0 + gsl_rng_uniform(r);
  cpk_linsys *L = NULL;
  int rc = cpk_linsys_alloc(cpk_linsys_lapack, n, &L);
  if (!rc) rc = factor_dense(L, n, a);
  t_ok(rc == CPK_OK, "badly scaled rows and columns: not singular (%s)", cpk_errname(rc));
  double e0 = rc ? INFINITY : scaled_error(L, n, a, xs, 0);
  double e1 = rc ? INFINITY : scaled_error(L, n, a, xs, 1);
  t_ok(e0 < 1e-12 && e1 < 1e-12, "badly scaled: solves to %.1e, transposed %.1e", e0, e1);
  cpk_linsys_free(L);
  free(a);
  free(xs);
}

/* Column 5 = column 0 - 3 column 2 + eps * random: singular for eps = 1e-15, not for 1e-6. */
static void test_rcond(gsl_rng *r)
{
  const size_t n = 12;
  const double eps[] = {1e-15, 1e-6};
  double *a = new_array(n * n), *xs = new_array(n);
  for (int k = 0; k < 2; k++) {
    random_matrix(r, n, a);
    for (size_t i = 0; i < n; i++)
      a[i + 5 * n] = a[i] - 3.0 * a[i + 2 * n] + eps[k] * (2.0 * gsl_rng_uniform(r) - 1.0);
    for (size_t i = 0; i < n; i++) xs[i] = 2.0 * gsl_rng_uniform(r) - 1.0;
    cpk_linsys *L = NULL;
    int rc = cpk_linsys_alloc(cpk_linsys_lapack, n, &L);
    if (!rc) rc = factor_dense(L, n, a);
    if (k == 0)
      t_ok(rc == CPK_ESINGULAR, "nearly dependent columns (1e-15): CPK_ESINGULAR by rcond (%s)",
           cpk_errname(rc));
    else
      t_ok(rc == CPK_OK && solve_against(L, n, a, xs, 0) < 1e-6,
           "ill-conditioned but regular (1e-6): factored and solved (%s)", cpk_errname(rc));
    cpk_linsys_free(L);
  }
  free(a);
  free(xs);
}

/* One dense random replacement of column j, kept diagonally dominant. */
static void replacement(gsl_rng *r, size_t n, size_t j, double *col)
{
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    col[i] = i == j ? 0.0 : 2.0 * gsl_rng_uniform(r) - 1.0;
    sum += fabs(col[i]);
  }
  col[j] = sum + 1.0;
}

/* n updates in a row (each column replaced about once), checked against fresh factorizations. */
static void test_long_updates(gsl_rng *r)
{
  const size_t n = 60, nupd = 240;
  double *a = new_array(n * n), *col = new_array(n), *xs = new_array(n);
  random_matrix(r, n, a);
  cpk_linsys *L = NULL, *F = NULL;
  int rc = cpk_linsys_alloc(cpk_linsys_lapack, n, &L);
  if (!rc) rc = cpk_linsys_alloc(cpk_linsys_lapack, n, &F);
  if (!rc) rc = factor_dense(L, n, a);
  double worst = 0.0, worst_fresh = 0.0;
  for (size_t k = 0; k < nupd && !rc; k++) {
    size_t j = gsl_rng_uniform_int(r, n);
    replacement(r, n, j, col);
    if ((rc = cpk_linsys_replace_column(L, j, col, NULL))) break;
    memcpy(a + j * n, col, n * sizeof *col);
    for (size_t i = 0; i < n; i++) xs[i] = 2.0 * gsl_rng_uniform(r) - 1.0;
    if (k % 20 == 19 && (rc = factor_dense(F, n, a))) break;
    for (int trans = 0; trans < 2; trans++) {
      worst = fmax(worst, solve_against(L, n, a, xs, trans));
      if (k % 20 == 19) worst_fresh = fmax(worst_fresh, solve_against(F, n, a, xs, trans));
    }
  }
  t_ok(rc == CPK_OK, "%zu dense replacements accepted (%s)", nupd, cpk_errname(rc));
  t_ok(worst < 1e-10, "solves after up to %zu etas: worst relative error %.1e (fresh LU %.1e)",
       nupd, worst, worst_fresh);
  cpk_linsys_stats st;
  cpk_linsys_get_stats(L, &st);
  t_ok(st.updates_since_factor == (long)nupd && st.nnz_updates >= (double)nupd,
       "eta file holds the %zu updates (%ld, %g entries)", nupd, st.updates_since_factor,
       st.nnz_updates);
  rc = rc ? rc : factor_dense(L, n, a);
  cpk_linsys_get_stats(L, &st);
  double e = rc ? INFINITY : fmax(solve_against(L, n, a, xs, 0), solve_against(L, n, a, xs, 1));
  t_ok(!rc && st.updates_since_factor == 0 && st.nnz_updates == 0.0 && e < 1e-12,
       "refactor of the updated matrix: eta file empty, solves to %.1e", e);
  cpk_linsys_free(L);
  cpk_linsys_free(F);
  free(a);
  free(col);
  free(xs);
}

/* The dense solvers on the lapack backend: dense random PD LCPs with a planted solution. */
static void test_solvers(void)
{
  const char *solvers[] = {"lemke", "bdnewton", "fbnewton", "ipm"};
  const size_t sizes[] = {30, 150};
  for (size_t k = 0; k < 2; k++)
    for (size_t v = 0; v < 4; v++) {
      size_t n = sizes[k];
      cpk_problem *p = NULL;
      cpk_result *res = NULL;
      double *zs = new_array(n), err = INFINITY;
      cpk_settings s;
      cpk_settings_default(&s);
      s.linsys = cpk_linsys_lapack;
      int rc = cpk_family_random_pd(n, 7 + k, CPK_FAMILY_DENSE, &p, zs);
      if (!rc) rc = cpk_result_alloc(n, &res);
      if (!rc) rc = cpk_solve(p, solvers[v], &s, res, NULL);
      if (!rc) err = max_rel_diff(n, res->z, zs);
      t_ok(!rc && t_is_mcp_solution(p, res->z, 1e-8) && err < 1e-6,
           "%s on lapack, dense PD LCP n=%zu: z solves it, |z - z*| / |z*| = %.1e", solvers[v], n,
           err);
      cpk_result_free(res);
      cpk_problem_free(p);
      free(zs);
    }
}

/* A NaN anywhere in a well-conditioned matrix: never factored as OK (the cheap condition bound
   must not let it through; found in review: 'fmax' drops NaN). Above and below the diagonal. */
static void test_nan(void)
{
  for (int below = 0; below < 2; below++) {
    double a[9] = {4, 1, 0, 1, 4, 1, 0, 1, 4}; /* column-major, SPD */
    a[below ? 1 : 3] = NAN;
    cpk_linsys *L = NULL;
    if (cpk_linsys_alloc(cpk_linsys_lapack, 3, &L)) abort();
    int rc = factor_dense(L, 3, a);
    t_ok(rc != CPK_OK, "a NaN %s the diagonal: not factored as OK (%s)", below ? "below" : "above",
         cpk_errname(rc));
    cpk_linsys_free(L);
  }
}

int main(void)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r) return 99;
  gsl_rng_set(r, t_seed());
  t_diag("seed %lu", t_seed());
  test_scaling(r);
  test_rcond(r);
  test_long_updates(r);
  test_solvers();
  test_nan();
  gsl_rng_free(r);
  return t_done();
}
