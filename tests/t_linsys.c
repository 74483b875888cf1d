/* t_linsys.c: every linsys backend: solves, transposes, updates, singularity, symbolic reuse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/* Relative (normwise backward) error accepted for a solve of a well-conditioned system. */
#define TOL_SOLVE 1e-12
/* After a long run of updates rounding accumulates; still far below what a wrong answer gives. */
#define TOL_UPDATE 1e-10

/* Dense matrices in this file are column-major: a[i + j * n]. */
static double *new_array(size_t count)
{
  double *a = calloc(count ? count : 1, sizeof *a);
  if (!a) abort();
  return a;
}

/* CSC copy of a dense matrix, built here so the check does not rely on the library's converters. */
static cpk_csc *to_csc(size_t n, const double *a)
{
  cpk_int nnz = 0;
  for (size_t k = 0; k < n * n; k++) nnz += a[k] != 0.0;
  cpk_csc *C = NULL;
  if (cpk_csc_alloc((cpk_int)n, (cpk_int)n, nnz, &C)) abort();
  cpk_int k = 0;
  for (size_t j = 0; j < n; j++) {
    C->p[j] = k;
    for (size_t i = 0; i < n; i++)
      if (a[i + j * n] != 0.0) {
        C->i[k] = (cpk_int)i;
        C->x[k++] = a[i + j * n];
      }
  }
  C->p[n] = k;
  return C;
}

/* ||op(A) x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf), from the dense array. */
static double backward_error(size_t n, const double *a, const double *x, const double *b, int trans)
{
  double rmax = 0.0, anorm = 0.0, xmax = 0.0, bmax = 0.0;
  for (size_t i = 0; i < n; i++) {
    double r = -b[i], rowsum = 0.0;
    for (size_t j = 0; j < n; j++) {
      double aij = trans ? a[j + i * n] : a[i + j * n];
      r += aij * x[j];
      rowsum += fabs(aij);
    }
    if (!isfinite(r) || !isfinite(x[i])) return INFINITY; /* fmax would hide a NaN */
    rmax = fmax(rmax, fabs(r));
    anorm = fmax(anorm, rowsum);
    xmax = fmax(xmax, fabs(x[i]));
    bmax = fmax(bmax, fabs(b[i]));
  }
  double scale = anorm * xmax + bmax;
  return scale > 0.0 ? rmax / scale : rmax;
}

/* Column j: entries with probability `density`, strictly diagonally dominant (margin >= 1). */
static void random_column(gsl_rng *r, size_t n, size_t j, double density, double *col)
{
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    col[i] = (i != j && gsl_rng_uniform(r) < density) ? 2.0 * gsl_rng_uniform(r) - 1.0 : 0.0;
    sum += fabs(col[i]);
  }
  double d = sum + 1.0 + gsl_rng_uniform(r);
  col[j] = gsl_rng_uniform(r) < 0.5 ? -d : d;
}

/* Column-diagonally dominant, so ||A^{-1}||_1 <= 1: well conditioned at every size. */
static void random_matrix(gsl_rng *r, size_t n, double density, double *a)
{
  for (size_t j = 0; j < n; j++) random_column(r, n, j, density, a + j * n);
}

static void random_vector(gsl_rng *r, size_t n, double *b)
{
  for (size_t i = 0; i < n; i++) b[i] = 4.0 * gsl_rng_uniform(r) - 2.0;
}

/* Factor a, solve with b (plain or transposed), return the backward error (or 1e300 on failure). */
static double solve_error(cpk_linsys *L, size_t n, const double *a, const double *b, int trans)
{
  double *x = new_array(n);
  memcpy(x, b, n * sizeof *x);
  int rc = cpk_linsys_solve(L, x, trans);
  double err = rc ? 1e300 : backward_error(n, a, x, b, trans);
  free(x);
  return err;
}

static void test_find(void)
{
  t_ok(cpk_linsys_find("dense") == cpk_linsys_dense, "find(\"dense\")");
  t_ok(cpk_linsys_find("umfpack") == cpk_linsys_umfpack, "find(\"umfpack\")");
  t_ok(cpk_linsys_find("lapack") == cpk_linsys_lapack, "find(\"lapack\")");
  t_ok(!cpk_linsys_is_distributed(cpk_linsys_dense) && !cpk_linsys_is_distributed(cpk_linsys_umfpack) &&
           !cpk_linsys_is_distributed(cpk_linsys_lapack) && !cpk_linsys_is_distributed(NULL),
       "dense, umfpack, lapack and NULL are not distributed");
  t_ok(cpk_linsys_find("nope") == NULL && cpk_linsys_find(NULL) == NULL, "find unknown -> NULL");
}

static void test_solves(const cpk_linsys_type *T, gsl_rng *r)
{
  const size_t sizes[] = {1, 2, 3, 10, 40, 120};
  const double densities[] = {0.05, 1.0};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t d = 0; d < 2; d++) {
      size_t n = sizes[s];
      double *a = new_array(n * n), *b = new_array(n);
      random_matrix(r, n, densities[d], a);
      random_vector(r, n, b);
      cpk_csc *A = to_csc(n, a);
      cpk_linsys *L = NULL;
      int rc = cpk_linsys_alloc(T, n, &L);
      if (!rc) rc = cpk_linsys_factor(L, A);
      t_ok(rc == CPK_OK, "%s: factor n=%zu density=%g (%s)", T->name, n, densities[d],
           cpk_errname(rc));
      if (!rc) {
        double e0 = solve_error(L, n, a, b, 0), e1 = solve_error(L, n, a, b, 1);
        t_ok(e0 <= TOL_SOLVE, "%s: ||Ax-b|| n=%zu density=%g (%.2e)", T->name, n, densities[d], e0);
        t_ok(e1 <= TOL_SOLVE, "%s: ||A^Tx-b|| n=%zu density=%g (%.2e)", T->name, n, densities[d],
             e1);
      }
      cpk_linsys_free(L);
      cpk_csc_free(A);
      free(a);
      free(b);
    }
}

static void test_empty(const cpk_linsys_type *T)
{
  cpk_linsys *L = NULL;
  cpk_csc *A = NULL;
  double dummy = 7.0;
  int rc = cpk_linsys_alloc(T, 0, &L);
  t_ok(rc == CPK_OK, "%s: alloc n=0", T->name);
  if (rc) return;
  cpk_csc_alloc(0, 0, 0, &A);
  t_ok(A && cpk_linsys_factor(L, A) == CPK_OK, "%s: factor the 0-by-0 matrix", T->name);
  t_ok(cpk_linsys_solve(L, &dummy, 0) == CPK_OK && cpk_linsys_solve(L, &dummy, 1) == CPK_OK &&
           dummy == 7.0,
       "%s: solves with n=0", T->name);
  t_ok(cpk_linsys_replace_column(L, 0, &dummy, NULL) == CPK_EINVAL, "%s: replace_column j >= n=0",
       T->name);
  cpk_csc_free(A);
  cpk_linsys_free(L);
}

/* Worst errors seen over the replacement sequence. */
typedef struct upd_worst {
  double res, res_t, diff;
  int failed_calls;
} upd_worst;

static double rel_diff(size_t n, const double *x, const double *y)
{
  double d = 0.0, m = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(y[i])) return INFINITY;
    d = fmax(d, fabs(x[i] - y[i]));
    m = fmax(m, fabs(y[i]));
  }
  return m > 0.0 ? d / m : d;
}

/* Solve with the updated factors and with a fresh factorization of the explicit matrix a. */
static void compare_fresh(const cpk_linsys_type *T, cpk_linsys *L, size_t n, const double *a,
                          const double *b, upd_worst *w)
{
  double *x = new_array(n), *y = new_array(n);
  cpk_csc *A = to_csc(n, a);
  cpk_linsys *F = NULL;
  int rc = cpk_linsys_alloc(T, n, &F);
  for (int trans = 0; trans < 2 && !rc; trans++) {
    memcpy(x, b, n * sizeof *x);
    memcpy(y, b, n * sizeof *y);
    rc = cpk_linsys_solve(L, x, trans);
    if (!rc) rc = cpk_linsys_factor(F, A);
    if (!rc) rc = cpk_linsys_solve(F, y, trans);
    if (rc) break;
    double e = backward_error(n, a, x, b, trans);
    if (trans) w->res_t = fmax(w->res_t, e);
    else w->res = fmax(w->res, e);
    w->diff = fmax(w->diff, rel_diff(n, x, y));
  }
  if (rc) w->failed_calls++;
  cpk_linsys_free(F);
  cpk_csc_free(A);
  free(x);
  free(y);
}

/* One replacement; every other one passes A^{-1} col, as a pivoting method would. */
static int replace_one(cpk_linsys *L, gsl_rng *r, size_t n, double *a, size_t k, double *col,
                       double *ainv)
{
  size_t j = gsl_rng_uniform_int(r, n);
  random_column(r, n, j, 0.1, col);
  int give = (k % 2 == 0);
  if (give) {
    memcpy(ainv, col, n * sizeof *col);
    if (cpk_linsys_solve(L, ainv, 0)) return CPK_ELINSYS;
  }
  int rc = cpk_linsys_replace_column(L, j, col, give ? ainv : NULL);
  if (!rc) memcpy(a + j * n, col, n * sizeof *col);
  return rc;
}

static void check_update_stats(const cpk_linsys_type *T, cpk_linsys *L, long nupd)
{
  cpk_linsys_stats st;
  cpk_linsys_get_stats(L, &st);
  t_ok(st.factorizations == 1 && st.updates == nupd && st.updates_since_factor == nupd,
       "%s: stats count 1 factorization and %ld updates (got %ld, %ld, %ld)", T->name, nupd,
       st.factorizations, st.updates, st.updates_since_factor);
  if (T != cpk_linsys_dense) /* the eta-file backends */
    t_ok(st.nnz_updates >= (double)nupd, "%s: eta file holds %g entries", T->name, st.nnz_updates);
}

static void test_updates(const cpk_linsys_type *T, gsl_rng *r)
{
  const size_t n = 50;
  const long nupd = 200;
  double *a = new_array(n * n), *b = new_array(n), *col = new_array(n), *ainv = new_array(n);
  random_matrix(r, n, 0.08, a);
  cpk_csc *A = to_csc(n, a);
  cpk_linsys *L = NULL;
  int rc = cpk_linsys_alloc(T, n, &L);
  if (!rc) rc = cpk_linsys_factor(L, A);
  t_ok(rc == CPK_OK, "%s: factor before the update run", T->name);
  upd_worst w = {0.0, 0.0, 0.0, 0};
  for (long k = 0; k < nupd && !rc; k++) {
    if (replace_one(L, r, n, a, (size_t)k, col, ainv)) w.failed_calls++;
    random_vector(r, n, b);
    compare_fresh(T, L, n, a, b, &w);
  }
  t_ok(!rc && w.failed_calls == 0, "%s: %ld replacements and solves succeed (%d failed)", T->name,
       nupd, w.failed_calls);
  t_ok(!rc && w.res <= TOL_UPDATE, "%s: updated solves: worst ||A_k x - b|| %.2e", T->name, w.res);
  t_ok(!rc && w.res_t <= TOL_UPDATE, "%s: updated solves: worst ||A_k^T x - b|| %.2e", T->name,
       w.res_t);
  t_ok(!rc && w.diff <= 1e3 * TOL_UPDATE, "%s: updated vs fresh factorization: worst %.2e",
       T->name, w.diff);
  if (!rc) check_update_stats(T, L, nupd);
  /* Refactoring the explicit matrix clears the update history. */
  cpk_csc *A2 = to_csc(n, a);
  cpk_linsys_stats st;
  rc = rc ? rc : cpk_linsys_factor(L, A2);
  cpk_linsys_get_stats(L, &st);
  t_ok(!rc && st.updates_since_factor == 0 && st.nnz_updates == 0.0 && st.updates == nupd,
       "%s: factor resets updates_since_factor and nnz_updates", T->name);
  random_vector(r, n, b);
  t_ok(!rc && solve_error(L, n, a, b, 0) <= TOL_SOLVE, "%s: solve after refactor", T->name);
  cpk_linsys_free(L);
  cpk_csc_free(A);
  cpk_csc_free(A2);
  free(a);
  free(b);
  free(col);
  free(ainv);
}

/* Expect factor to report CPK_ESINGULAR, and the instance to refuse solves afterwards. */
static void expect_singular(const cpk_linsys_type *T, size_t n, const double *a, const char *what)
{
  cpk_csc *A = to_csc(n, a);
  cpk_linsys *L = NULL;
  double *x = new_array(n);
  int rc = cpk_linsys_alloc(T, n, &L);
  if (!rc) rc = cpk_linsys_factor(L, A);
  t_ok(rc == CPK_ESINGULAR, "%s: %s -> CPK_ESINGULAR (%s)", T->name, what, cpk_errname(rc));
  t_ok(L && cpk_linsys_solve(L, x, 0) == CPK_EINVAL, "%s: no solve after a singular factor",
       T->name);
  cpk_linsys_free(L);
  cpk_csc_free(A);
  free(x);
}

static void test_singular(const cpk_linsys_type *T, gsl_rng *r)
{
  const size_t n = 6;
  double *a = new_array(n * n);
  random_matrix(r, n, 1.0, a);
  memset(a + 2 * n, 0, n * sizeof *a);
  expect_singular(T, n, a, "zero column");
  random_matrix(r, n, 1.0, a);
  for (size_t j = 0; j < n; j++) a[4 + j * n] = 0.0;
  expect_singular(T, n, a, "zero row");
  random_matrix(r, n, 1.0, a);
  memcpy(a + 3 * n, a + 1 * n, n * sizeof *a);
  expect_singular(T, n, a, "two equal columns");
  /* Rank n-1 with no zero structure: column 5 = column 0 - 3 column 2. */
  random_matrix(r, n, 1.0, a);
  for (size_t i = 0; i < n; i++) a[i + 5 * n] = a[i] - 3.0 * a[i + 2 * n];
  expect_singular(T, n, a, "dependent columns");
  free(a);
}

/* A replacement that makes the matrix singular must fail and leave the old factors usable. */
static void reject_update(const cpk_linsys_type *T, cpk_linsys *L, gsl_rng *r, size_t n,
                          const double *a, size_t j, const double *col, const char *what)
{
  double *b = new_array(n);
  int rc = cpk_linsys_replace_column(L, j, col, NULL);
  t_ok(rc == CPK_ESINGULAR, "%s: replacing column %zu by %s -> CPK_ESINGULAR (%s)", T->name, j,
       what, cpk_errname(rc));
  random_vector(r, n, b);
  double e0 = solve_error(L, n, a, b, 0), e1 = solve_error(L, n, a, b, 1);
  t_ok(e0 <= TOL_SOLVE && e1 <= TOL_SOLVE, "%s: old factors still solve (%.2e, %.2e)", T->name, e0,
       e1);
  free(b);
}

static void test_singular_update(const cpk_linsys_type *T, gsl_rng *r)
{
  const size_t n = 8;
  double *a = new_array(n * n), *col = new_array(n), *b = new_array(n);
  random_matrix(r, n, 0.5, a);
  cpk_csc *A = to_csc(n, a);
  cpk_linsys *L = NULL;
  int rc = cpk_linsys_alloc(T, n, &L);
  if (!rc) rc = cpk_linsys_factor(L, A);
  t_ok(rc == CPK_OK, "%s: factor before singular replacements", T->name);
  if (!rc) {
    /* One valid update first, so the rejection also has an update history to preserve. */
    random_column(r, n, 6, 0.5, col);
    rc = cpk_linsys_replace_column(L, 6, col, NULL);
    t_ok(rc == CPK_OK, "%s: a valid replacement", T->name);
    memcpy(a + 6 * n, col, n * sizeof *col);
    reject_update(T, L, r, n, a, 2, a + 5 * n, "a copy of column 5");
    memset(col, 0, n * sizeof *col);
    reject_update(T, L, r, n, a, 2, col, "zeros");
    for (size_t i = 0; i < n; i++) col[i] = a[i + 1 * n] + 2.0 * a[i + 6 * n];
    reject_update(T, L, r, n, a, 2, col, "a combination of columns 1 and 6");
    cpk_linsys_stats st;
    cpk_linsys_get_stats(L, &st);
    t_ok(st.updates == 1 && st.updates_since_factor == 1, "%s: rejected updates are not counted",
         T->name);
    random_column(r, n, 2, 0.5, col);
    rc = cpk_linsys_replace_column(L, 2, col, NULL);
    memcpy(a + 2 * n, col, n * sizeof *col);
    random_vector(r, n, b);
    t_ok(rc == CPK_OK && solve_error(L, n, a, b, 0) <= TOL_SOLVE,
         "%s: a valid replacement after the rejections", T->name);
  }
  cpk_linsys_free(L);
  cpk_csc_free(A);
  free(a);
  free(col);
  free(b);
}

/* Factor a, check the counters and the solve. */
static void factor_and_check(const cpk_linsys_type *T, cpk_linsys *L, gsl_rng *r, size_t n,
                             const double *a, long nfact, long nsym, const char *what)
{
  double *b = new_array(n);
  cpk_csc *A = to_csc(n, a);
  cpk_linsys_stats st;
  int rc = cpk_linsys_factor(L, A);
  cpk_linsys_get_stats(L, &st);
  random_vector(r, n, b);
  t_ok(rc == CPK_OK && solve_error(L, n, a, b, 0) <= TOL_SOLVE, "%s: %s: factor and solve",
       T->name, what);
  t_ok(st.factorizations == nfact && st.symbolic == nsym,
       "%s: %s: %ld factorizations, %ld symbolic (got %ld, %ld)", T->name, what, nfact, nsym,
       st.factorizations, st.symbolic);
  t_ok(st.nnz_factors >= (double)n && st.factor_time_s >= 0.0, "%s: %s: nnz_factors %g", T->name,
       what, st.nnz_factors);
  cpk_csc_free(A);
  free(b);
}

/* UMFPACK reanalyses only when the pattern changes; the dense backend never counts an analysis. */
static void test_symbolic(const cpk_linsys_type *T, gsl_rng *r)
{
  const size_t n = 30;
  int umf = (T == cpk_linsys_umfpack);
  double *a = new_array(n * n);
  cpk_linsys *L = NULL;
  random_matrix(r, n, 0.1, a);
  if (cpk_linsys_alloc(T, n, &L)) abort();
  factor_and_check(T, L, r, n, a, 1, umf ? 1 : 0, "first factor");
  for (size_t k = 0; k < n * n; k++) /* same pattern, new values, still diagonally dominant */
    if (a[k] != 0.0) a[k] *= k % (n + 1) == 0 ? 1.5 : 1.0 + 0.5 * gsl_rng_uniform(r);
  factor_and_check(T, L, r, n, a, 2, umf ? 1 : 0, "same pattern, new values");
  factor_and_check(T, L, r, n, a, 3, umf ? 1 : 0, "same matrix again");
  a[(n - 1) + 0 * n] = a[(n - 1) + 0 * n] == 0.0 ? 1e-3 : 0.0; /* one entry in or out */
  factor_and_check(T, L, r, n, a, 4, umf ? 2 : 0, "changed pattern");
  factor_and_check(T, L, r, n, a, 5, umf ? 2 : 0, "changed pattern, reused");
  cpk_linsys_free(L);
  free(a);
}

static cpk_csc *unsorted_csc(void)
{
  cpk_csc *A = NULL;
  if (cpk_csc_alloc(2, 2, 3, &A)) abort();
  A->p[0] = 0, A->p[1] = 2, A->p[2] = 3;
  A->i[0] = 1, A->i[1] = 0, A->i[2] = 1; /* rows 1, 0 in column 0: not sorted */
  A->x[0] = 1.0, A->x[1] = 2.0, A->x[2] = 3.0;
  return A;
}

static void test_errors(const cpk_linsys_type *T)
{
  cpk_linsys *L = NULL;
  double x[3] = {1, 2, 3}, col[3] = {1, 1, 1};
  double a[9] = {4, 1, 0, 1, 4, 1, 0, 1, 4};
  cpk_csc *A = to_csc(3, a), *B = to_csc(2, a), *U = unsorted_csc();
  t_ok(cpk_linsys_alloc(T, 3, &L) == CPK_OK, "%s: alloc", T->name);
  t_ok(cpk_linsys_solve(L, x, 0) == CPK_EINVAL && cpk_linsys_solve(L, x, 1) == CPK_EINVAL,
       "%s: solve before factor -> CPK_EINVAL", T->name);
  t_ok(cpk_linsys_replace_column(L, 0, col, NULL) == CPK_EINVAL,
       "%s: replace_column before factor -> CPK_EINVAL", T->name);
  t_ok(cpk_linsys_factor(L, NULL) == CPK_EINVAL, "%s: factor(NULL) -> CPK_EINVAL", T->name);
  t_ok(cpk_linsys_factor(L, B) == CPK_EINVAL, "%s: factor of the wrong size -> CPK_EINVAL",
       T->name);
  cpk_linsys *L2 = NULL;
  t_ok(cpk_linsys_alloc(T, 2, &L2) == CPK_OK && cpk_linsys_factor(L2, U) == CPK_EBADMAT,
       "%s: unsorted CSC -> CPK_EBADMAT", T->name);
  cpk_linsys_free(L2);
  t_ok(cpk_linsys_factor(L, A) == CPK_OK, "%s: factor a 3-by-3", T->name);
  t_ok(cpk_linsys_replace_column(L, 3, col, NULL) == CPK_EINVAL,
       "%s: replace_column j = n -> CPK_EINVAL", T->name);
  t_ok(x[0] == 1 && x[1] == 2 && x[2] == 3, "%s: rejected calls leave x alone", T->name);
  cpk_linsys_stats st;
  cpk_linsys_get_stats(L, &st);
  t_ok(st.solves == 0 && st.factorizations == 1, "%s: failed calls are not counted", T->name);
  t_ok(strcmp(cpk_linsys_name(L), T->name) == 0, "%s: cpk_linsys_name", T->name);
  cpk_linsys_free(L);
  cpk_linsys_free(NULL);
  T->free(NULL);
  t_ok(1, "%s: free(NULL) at both levels", T->name);
  cpk_csc_free(A);
  cpk_csc_free(B);
  cpk_csc_free(U);
}

int main(void)
{
  const cpk_linsys_type *types[3];
  types[0] = cpk_linsys_dense;
  types[1] = cpk_linsys_umfpack;
  types[2] = cpk_linsys_lapack;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r) return 99;
  gsl_rng_set(r, t_seed());
  t_diag("seed %lu", t_seed());
  test_find();
  cpk_linsys *L = NULL;
  t_ok(cpk_linsys_alloc(NULL, 3, &L) == CPK_EINVAL && L == NULL, "alloc(NULL type) -> CPK_EINVAL");
  for (int k = 0; k < 3; k++) {
    const cpk_linsys_type *T = types[k];
    test_errors(T);
    test_empty(T);
    test_solves(T, r);
    test_singular(T, r);
    test_singular_update(T, r);
    test_symbolic(T, r);
    test_updates(T, r);
  }
  gsl_rng_free(r);
  return t_done();
}
