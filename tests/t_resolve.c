/* t_resolve.c: the update-and-re-solve API (issue 15): problem updates and their refusals, caller-array matrices, result resize, re-solves by bound solvers checked independently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include "physics_mlcp.h"
#include "resolve_testlib.h"
#include "testlib.h"

/* A 3x3 affine MCP: M SPD (tridiagonal), mixed bounds. */
static cpk_problem *small_mcp(int sparse)
{
  double a[9] = {4, -1, 0, -1, 4, -1, 0, -1, 4}, q[3] = {-1, 2, -3};
  double lo[3] = {0, -1, -INFINITY}, hi[3] = {INFINITY, 1, INFINITY};
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (sparse) {
    cpk_int cp[4] = {0, 2, 5, 7}, ri[7] = {0, 1, 0, 1, 2, 1, 2};
    double x[7] = {4, -1, -1, 4, -1, -1, 4};
    cpk_matrix_from_csc_arrays(3, 3, cp, ri, x, &M);
  } else {
    cpk_matrix_from_dense_array(3, 3, a, 3, 0, &M);
  }
  cpk_problem_alloc_affine_mcp(M, q, lo, hi, &p);
  cpk_matrix_free(M);
  return p;
}

static int same(const double *a, const double *b, size_t n)
{
  return memcmp(a, b, n * sizeof *a) == 0;
}

static void test_init(void)
{
  gsl_set_error_handler(NULL); /* GSL's default: abort */
  cpk_init();
  gsl_error_handler_t *installed = gsl_set_error_handler(NULL);
  t_ok(installed != NULL, "cpk_init replaces GSL's aborting default handler");
  cpk_init();
}

static void test_update_q(void)
{
  cpk_problem *p = small_mcp(0);
  double q[3] = {1, 2, 3}, bad[3] = {1, NAN, 3}, keep[3];
  unsigned long rev = p->rev.q;
  t_ok(cpk_problem_update_q(p, q) == CPK_OK && same(p->q, q, 3) && p->rev.q == rev + 1,
       "update_q: q replaced, rev.q bumped");
  memcpy(keep, p->q, sizeof keep);
  t_ok(cpk_problem_update_q(p, bad) == CPK_EINVAL && same(p->q, keep, 3) && p->rev.q == rev + 1,
       "update_q: a NaN refused, q and rev.q unchanged");
  bad[1] = INFINITY;
  t_ok(cpk_problem_update_q(p, bad) == CPK_EINVAL && same(p->q, keep, 3), "update_q: inf refused");
  t_ok(cpk_problem_update_q(p, NULL) == CPK_EINVAL && cpk_problem_update_q(NULL, q) == CPK_EINVAL,
       "update_q: NULL refused");
  cpk_problem_free(p);
}

static void test_update_bounds(void)
{
  cpk_problem *p = small_mcp(0);
  double lo[3] = {0, -2, -5}, hi[3] = {1, 2, 5}, keep_l[3], keep_u[3];
  unsigned long rev = p->rev.bounds;
  t_ok(cpk_problem_update_bounds(p, lo, NULL) == CPK_OK && same(p->lower, lo, 3) &&
           p->upper[0] == INFINITY && p->rev.bounds == rev + 1,
       "update_bounds: lower replaced, upper kept (NULL side)");
  t_ok(cpk_problem_update_bounds(p, NULL, hi) == CPK_OK && same(p->upper, hi, 3), "upper replaced");
  memcpy(keep_l, p->lower, sizeof keep_l);
  memcpy(keep_u, p->upper, sizeof keep_u);
  rev = p->rev.bounds;
  double crossed[3] = {0, 3, 0}; /* 3 > upper[1] = 2 */
  double nan_l[3] = {0, NAN, 0}, inf_l[3] = {INFINITY, 0, 0}, minf_u[3] = {1, -INFINITY, 5};
  int refused = cpk_problem_update_bounds(p, crossed, NULL) == CPK_EINVAL &&
                cpk_problem_update_bounds(p, nan_l, NULL) == CPK_EINVAL &&
                cpk_problem_update_bounds(p, inf_l, NULL) == CPK_EINVAL &&
                cpk_problem_update_bounds(p, NULL, minf_u) == CPK_EINVAL &&
                cpk_problem_update_bounds(p, hi, lo) == CPK_EINVAL;
  t_ok(refused && same(p->lower, keep_l, 3) && same(p->upper, keep_u, 3) && p->rev.bounds == rev,
       "update_bounds: crossed, NaN, l = +inf, u = -inf refused; bounds and rev unchanged");
  cpk_problem_free(p);
  /* an LCP keeps 0 and +inf */
  double a[4] = {2, 0, 0, 2}, q[2] = {-1, 1}, z0[2] = {0, 0}, inf2[2] = {INFINITY, INFINITY};
  cpk_matrix *M = NULL;
  cpk_matrix_from_dense_array(2, 2, a, 2, 0, &M);
  cpk_problem_alloc_lcp(M, q, &p);
  double one[2] = {1, 1};
  t_ok(cpk_problem_update_bounds(p, one, NULL) == CPK_EINVAL && p->lower[0] == 0.0,
       "update_bounds: an LCP refuses other bounds");
  t_ok(cpk_problem_update_bounds(p, z0, inf2) == CPK_OK, "update_bounds: an LCP takes 0, +inf");
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

static void test_update_values(void)
{
  cpk_problem *p = small_mcp(0);
  double rm[9] = {5, 1, 0, 1, 5, 1, 0, 1, 5}, bad[9] = {5, 1, 0, 1, NAN, 1, 0, 1, 5};
  unsigned long rev = p->rev.values;
  t_ok(cpk_problem_update_matrix_values(p, rm) == CPK_OK && cpk_matrix_get(p->M, 0, 1) == 1.0 &&
           cpk_matrix_get(p->M, 2, 2) == 5.0 && p->rev.values == rev + 1,
       "update_matrix_values (dense, row-major n*n)");
  t_ok(cpk_problem_update_matrix_values(p, bad) == CPK_EINVAL && cpk_matrix_get(p->M, 1, 1) == 5.0 &&
           p->rev.values == rev + 1,
       "update_matrix_values: NaN refused, M and rev unchanged");
  /* column-major with a leading dimension 4: entry (i, j) at a[i + 4 j]; the padding is garbage */
  double cm[12] = {7, 2, 0, NAN, 3, 7, 0, NAN, 0, 0, 7, NAN};
  t_ok(cpk_problem_update_matrix_dense(p, cm, 4, 1) == CPK_OK && cpk_matrix_get(p->M, 1, 0) == 2.0 &&
           cpk_matrix_get(p->M, 0, 1) == 3.0 && cpk_matrix_get(p->M, 2, 2) == 7.0,
       "update_matrix_dense: column-major, ld 4 (padding ignored)");
  double rm4[12] = {6, 1, 2, NAN, 3, 6, 0, NAN, 0, 0, 6, NAN};
  t_ok(cpk_problem_update_matrix_dense(p, rm4, 4, 0) == CPK_OK && cpk_matrix_get(p->M, 0, 2) == 2.0 &&
           cpk_matrix_get(p->M, 1, 0) == 3.0,
       "update_matrix_dense: row-major, ld 4");
  rev = p->rev.values;
  rm4[5] = INFINITY;
  t_ok(cpk_problem_update_matrix_dense(p, rm4, 4, 0) == CPK_EINVAL &&
           cpk_problem_update_matrix_dense(p, rm, 2, 0) == CPK_EINVAL &&
           cpk_matrix_get(p->M, 1, 1) == 6.0 && p->rev.values == rev,
       "update_matrix_dense: inf and ld < n refused, M unchanged");
  cpk_problem_free(p);
  p = small_mcp(1);
  double x[7] = {8, -2, -2, 8, -2, -2, 8}, xb[7] = {8, -2, -2, 8, NAN, -2, 8};
  t_ok(cpk_problem_update_matrix_values(p, x) == CPK_OK && cpk_matrix_get(p->M, 1, 0) == -2.0 &&
           cpk_matrix_get(p->M, 2, 2) == 8.0,
       "update_matrix_values (CSC, nnz values in stored order)");
  t_ok(cpk_problem_update_matrix_values(p, xb) == CPK_EINVAL && cpk_matrix_get(p->M, 2, 1) == -2.0,
       "update_matrix_values (CSC): NaN refused, M unchanged");
  t_ok(cpk_problem_update_matrix_dense(p, rm, 3, 0) == CPK_EINVAL,
       "update_matrix_dense refused on a CSC matrix");
  cpk_problem_free(p);
}

static void test_update_mu_params_fcoef(void)
{
  double w[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, q[3] = {-1, 0.5, 0}, mu = 0.3, mu2 = 0.6, neg = -0.1;
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  cpk_matrix_from_dense_array(3, 3, w, 3, 0, &W);
  cpk_problem_alloc_friction_cone(W, q, 3, &mu, &p);
  unsigned long rev = p->rev.mu;
  t_ok(cpk_problem_update_mu(p, &mu2) == CPK_OK && p->mu[0] == 0.6 && p->rev.mu == rev + 1,
       "update_mu on a cone problem");
  double nan_mu = NAN;
  t_ok(cpk_problem_update_mu(p, &neg) == CPK_EINVAL && cpk_problem_update_mu(p, &nan_mu) == CPK_EINVAL &&
           p->mu[0] == 0.6 && p->rev.mu == rev + 1,
       "update_mu: negative and NaN refused, mu unchanged");
  t_ok(cpk_problem_update_bounds(p, NULL, NULL) == CPK_EINVAL, "update_bounds refused on a cone problem");
  cpk_problem_free(p);
  cpk_matrix_free(W);
  p = small_mcp(0);
  t_ok(cpk_problem_update_mu(p, &mu) == CPK_EINVAL, "update_mu refused on an affine MCP");
  rev = p->rev.params;
  cpk_problem_touch_params(p);
  cpk_problem_touch_params(NULL);
  t_ok(p->rev.params == rev + 1, "touch_params bumps rev.params (NULL ignored)");
  double fc[3] = {0, 0.5, 0}, fbad[3] = {0, -1, 0};
  t_ok(cpk_problem_update_fcoef(p, fc) == CPK_EINVAL, "update_fcoef refused without friction-index rows");
  int findex[3] = {-1, 0, -1};
  t_ok(cpk_problem_set_friction_index(p, findex, fc) == CPK_OK, "friction-index row 1 -> 0");
  rev = p->rev.bounds;
  fc[1] = 0.8;
  t_ok(cpk_problem_update_fcoef(p, fc) == CPK_OK && p->fcoef[1] == 0.8 && p->rev.bounds == rev + 1,
       "update_fcoef replaces the coefficient, bumps rev.bounds");
  t_ok(cpk_problem_update_fcoef(p, fbad) == CPK_EINVAL && p->fcoef[1] == 0.8 && p->rev.bounds == rev + 1,
       "update_fcoef: a negative coefficient refused, unchanged");
  cpk_problem_free(p);
}

static void test_matrix_arrays(void)
{
  /* 2x3 matrix [[1 2 3] [4 5 6]], row-major with ld 4 and column-major with ld 3 */
  double rm[8] = {1, 2, 3, -9, 4, 5, 6, -9}, cm[9] = {1, 4, -9, 2, 5, -9, 3, 6, -9};
  cpk_matrix *A = NULL, *B = NULL;
  int ok = cpk_matrix_from_dense_array(2, 3, rm, 4, 0, &A) == CPK_OK &&
           cpk_matrix_from_dense_array(2, 3, cm, 3, 1, &B) == CPK_OK;
  for (size_t i = 0; ok && i < 2; i++)
    for (size_t j = 0; j < 3; j++)
      ok = ok && cpk_matrix_get(A, i, j) == (double)(3 * i + j + 1) &&
           cpk_matrix_get(B, i, j) == (double)(3 * i + j + 1);
  t_ok(ok, "from_dense_array: row-major ld 4 and column-major ld 3 give the same matrix");
  rm[0] = 100;
  t_ok(cpk_matrix_get(A, 0, 0) == 1.0, "from_dense_array copies the caller's array");
  cpk_matrix *C = (cpk_matrix *)1;
  t_ok(cpk_matrix_from_dense_array(2, 3, rm, 2, 0, &C) == CPK_EINVAL && !C &&
           cpk_matrix_from_dense_array(2, 3, cm, 1, 1, &C) == CPK_EINVAL && !C,
       "from_dense_array: ld too small refused, *out NULL");
  double cm2[6] = {6, 5, 4, 3, 2, 1};
  t_ok(cpk_matrix_set_dense_array(B, cm2, 2, 1) == CPK_OK && cpk_matrix_get(B, 0, 0) == 6.0 &&
           cpk_matrix_get(B, 1, 2) == 1.0 && cpk_matrix_get(B, 0, 1) == 4.0,
       "set_dense_array overwrites the values (column-major, ld 2)");
  t_ok(cpk_matrix_set_dense_array(B, cm2, 1, 1) == CPK_EINVAL && cpk_matrix_get(B, 0, 0) == 6.0,
       "set_dense_array: ld too small refused");
  cpk_matrix_free(A);
  cpk_matrix_free(B);
  /* CSC: [[1 0] [2 3]] */
  cpk_int cp[3] = {0, 2, 3}, ri[3] = {0, 1, 1}, unsorted[3] = {1, 0, 1}, dup[3] = {0, 0, 1};
  cpk_int badp[3] = {1, 2, 3}, outside[3] = {0, 2, 1};
  double x[3] = {1, 2, 3};
  t_ok(cpk_matrix_from_csc_arrays(2, 2, cp, ri, x, &A) == CPK_OK && cpk_matrix_get(A, 1, 0) == 2.0 &&
           cpk_matrix_get(A, 0, 1) == 0.0 && cpk_matrix_get(A, 1, 1) == 3.0,
       "from_csc_arrays");
  x[0] = 50;
  t_ok(cpk_matrix_get(A, 0, 0) == 1.0, "from_csc_arrays copies the caller's arrays");
  cpk_matrix_free(A);
  C = (cpk_matrix *)1;
  int r1 = cpk_matrix_from_csc_arrays(2, 2, cp, unsorted, x, &C);
  int r2 = cpk_matrix_from_csc_arrays(2, 2, cp, dup, x, &C);
  int r3 = cpk_matrix_from_csc_arrays(2, 2, badp, ri, x, &C);
  int r4 = cpk_matrix_from_csc_arrays(2, 2, cp, outside, x, &C);
  int r5 = cpk_matrix_from_csc_arrays(2, 2, cp, NULL, x, &C);
  t_ok(r1 && r2 && r3 && r4 && r5 && !C,
       "from_csc_arrays refuses unsorted, duplicate, out-of-range rows, colptr[0] != 0, missing "
       "arrays (%d %d %d %d %d)", r1, r2, r3, r4, r5);
  cpk_int empty[3] = {0, 0, 0};
  t_ok(cpk_matrix_from_csc_arrays(2, 2, empty, NULL, NULL, &A) == CPK_OK && cpk_matrix_nnz(A) == 0,
       "from_csc_arrays: an empty matrix needs no row or value array");
  cpk_matrix_free(A);
}

static void test_result_resize(void)
{
  cpk_result *r = NULL;
  cpk_result_alloc(3, &r);
  r->z[2] = 7;
  r->status = CPK_STATUS_SOLVED;
  double *z = r->z;
  t_ok(cpk_result_resize(r, 2) == CPK_OK && r->n == 2 && r->capacity == 3 && r->z == z &&
           r->status != CPK_STATUS_SOLVED,
       "result_resize shrinks in place (capacity kept, reset)");
  t_ok(cpk_result_resize(r, 3) == CPK_OK && r->z == z && r->n == 3, "grows back within capacity in place");
  t_ok(cpk_result_resize(r, 50) == CPK_OK && r->n == 50 && r->capacity == 50, "grows beyond capacity");
  int zeros = 1;
  for (size_t i = 0; i < 50; i++) { /* every array holds 50 entries (ASan checks the writes) */
    zeros = zeros && r->z[i] == 0.0 && r->w[i] == 0.0;
    r->z[i] = r->w[i] = r->ray[i] = 1.0;
    r->basis[i] = CPK_VAR_BASIC;
  }
  t_ok(zeros, "grown arrays start zeroed");
  t_ok(cpk_result_resize(r, 0) == CPK_OK && r->n == 0 && r->capacity == 50, "resize to 0");
  cpk_result_free(r);
}

/* Re-solve p with one bound solver after each kind of update; each answer checked here. */
static void resolve_all_updates(const char *name, cpk_problem *p)
{
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  size_t n = p->n;
  cpk_result_alloc(n, &r);
  if (!t_ok(cpk_solver_alloc(cpk_solver_find(name), p, NULL, &s, &err) == CPK_OK, "%s: alloc", name)) {
    t_diag("%s", err.message);
    cpk_result_free(r);
    return;
  }
  double *q = malloc(n * sizeof *q), *lo = malloc(n * sizeof *lo), *a = malloc(n * n * sizeof *a);
  for (int round = 0; round < 4; round++) {
    if (round == 1) { /* q */
      for (size_t i = 0; i < n; i++) q[i] = p->q[i] + (i % 2 ? 0.7 : -0.4);
      cpk_problem_update_q(p, q);
    } else if (round == 2) { /* M's values: scaled off-diagonal, stronger diagonal */
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) a[i * n + j] = cpk_matrix_get(p->M, i, j) * (i == j ? 1.5 : 0.5);
      if (p->M->format == CPK_MATRIX_DENSE) cpk_problem_update_matrix_dense(p, a, n, 0);
      else {
        double *x = malloc(cpk_matrix_nnz(p->M) * sizeof *x);
        for (size_t k = 0; k < cpk_matrix_nnz(p->M); k++) x[k] = p->M->csc->x[k] * 0.5;
        for (size_t j = 0; j < n; j++)
          for (cpk_int k = p->M->csc->p[j]; k < p->M->csc->p[j + 1]; k++)
            if ((size_t)p->M->csc->i[k] == j) x[k] *= 3.0;
        cpk_problem_update_matrix_values(p, x);
        free(x);
      }
    } else if (round == 3) { /* bounds */
      for (size_t i = 0; i < n; i++) lo[i] = isfinite(p->lower[i]) ? p->lower[i] + 0.1 : p->lower[i];
      cpk_problem_update_bounds(p, lo, NULL);
    }
    int rc = cpk_solver_solve(s, r, &err);
    double res = rc ? INFINITY : resolve_natural_residual(p, r->z);
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && res <= 1e-7 * fmax(1.0, r->tolerance / 1e-8) &&
             t_is_mcp_solution(p, r->z, 1e-7),
         "%s: re-solve %d (%s) solves the updated problem: residual %.2g (own loop)", name, round,
         round == 0 ? "first" : round == 1 ? "q" : round == 2 ? "M values" : "bounds", res);
  }
  free(q), free(lo), free(a);
  cpk_solver_free(s);
  cpk_result_free(r);
}

static void test_resolves(void)
{
  const char *names[] = {"lemke", "pgs", "bdnewton", "fbnewton", "ipm", "enum"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    for (int sparse = 0; sparse < 2; sparse++) {
      cpk_problem *p = small_mcp(sparse);
      t_diag("%s, %s M", names[k], sparse ? "CSC" : "dense");
      resolve_all_updates(names[k], p);
      cpk_problem_free(p);
    }
  cpk_problem *p = NULL;
  cpk_physics_mlcp(16, 6, 7, &p);
  t_diag("the 48-variable physics MLCP");
  for (size_t k = 0; k < 5; k++) resolve_all_updates(names[k], p);
  cpk_problem_free(p);
}

/* A friction-cone problem re-solved after q, W and mu updates by each cone solver. */
static void test_cone_resolves(void)
{
  const char *names[] = {"nsgs", "nsn", "fcipm"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    cpk_problem *p = resolve_small_cone();
    cpk_solver *s = NULL;
    cpk_result *r = NULL;
    cpk_error err;
    cpk_result_alloc(p->n, &r);
    if (!t_ok(cpk_solver_alloc(cpk_solver_find(names[k]), p, NULL, &s, &err) == CPK_OK, "%s: alloc",
              names[k])) {
      t_diag("%s", err.message);
      cpk_result_free(r);
      cpk_problem_free(p);
      continue;
    }
    for (int round = 0; round < 4; round++) {
      double q[9], w[81], mu[3];
      if (round == 1) {
        for (size_t i = 0; i < 9; i++) q[i] = p->q[i] * (i % 2 ? 1.5 : 0.5);
        cpk_problem_update_q(p, q);
      } else if (round == 2) {
        for (size_t i = 0; i < 9; i++)
          for (size_t j = 0; j < 9; j++) w[i * 9 + j] = cpk_matrix_get(p->M, i, j) * (i == j ? 2.0 : 0.5);
        cpk_problem_update_matrix_values(p, w);
      } else if (round == 3) {
        for (size_t c = 0; c < 3; c++) mu[c] = p->mu[c] * 0.5;
        cpk_problem_update_mu(p, mu);
      }
      int rc = cpk_solver_solve(s, r, &err);
      t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-6),
           "%s: cone re-solve %d (%s) solves the updated problem (independent check)", names[k], round,
           round == 0 ? "first" : round == 1 ? "q" : round == 2 ? "W values" : "mu");
    }
    cpk_solver_free(s);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

static double stat_of(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Lemke re-solves from its last basis: an unchanged active set costs no pivot; resolve.warm = 0 pivots again. */
static void test_lemke_warm(void)
{
  cpk_problem *p = NULL;
  cpk_physics_mlcp(16, 6, 11, &p);
  size_t n = p->n;
  double *q = malloc(n * sizeof *q);
  for (int warm = 1; warm >= 0; warm--) {
    cpk_settings st;
    cpk_settings_default(&st);
    st.resolve.warm = warm;
    cpk_solver *s = NULL;
    cpk_result *r = NULL;
    cpk_result_alloc(n, &r);
    cpk_solver_alloc(cpk_solver_lemke, p, &st, &s, NULL);
    cpk_solver_solve(s, r, NULL);
    double first = stat_of(r, "pivots");
    for (size_t i = 0; i < n; i++) q[i] = p->q[i] * (1.0 + 1e-6);
    cpk_problem_update_q(p, q);
    cpk_solver_solve(s, r, NULL);
    double again = stat_of(r, "pivots");
    int ok = r->status == CPK_STATUS_SOLVED && resolve_natural_residual(p, r->z) <= 1e-7;
    if (warm)
      t_ok(ok && first > 0 && again == 0, "lemke: re-solve with the same active set from the last basis: "
           "%g pivots (first solve %g)", again, first);
    else
      t_ok(ok && again == first, "lemke, resolve.warm = 0: the re-solve pivots as the first (%g, %g)",
           again, first);
    for (size_t i = 0; i < n; i++) q[i] = p->q[i] / (1.0 + 1e-6);
    cpk_problem_update_q(p, q);
    cpk_solver_free(s);
    cpk_result_free(r);
  }
  free(q);
  cpk_problem_free(p);
}

/*
 * Factorizations made by consecutive lemke re-solves with the same active set: the first re-solve
 * factors its starting basis; after q or bounds changes the next ones reuse those factors (0);
 * after M's values changed they factor again (1). Every answer checked here.
 */
static void test_lemke_kept_factors(void)
{
  cpk_problem *p = NULL;
  cpk_physics_mlcp(16, 6, 5, &p);
  size_t n = p->n;
  double *q = malloc(n * sizeof *q), *lo = malloc(n * sizeof *lo), *a = malloc(n * n * sizeof *a);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_result_alloc(n, &r);
  cpk_solver_alloc(cpk_solver_lemke, p, NULL, &s, NULL);
  cpk_solver_solve(s, r, NULL);
  const char *what[] = {"q", "q", "bounds", "M values", "q"};
  const double expect[] = {1, 0, 0, 1, 0};
  for (int k = 0; k < 5; k++) {
    if (what[k][0] == 'q') {
      for (size_t i = 0; i < n; i++) q[i] = p->q[i] * (1.0 + 1e-6 * (i % 2 ? 1 : -1));
      cpk_problem_update_q(p, q);
    } else if (what[k][0] == 'b') {
      for (size_t i = 0; i < n; i++) lo[i] = p->lower[i] < 0.0 ? p->lower[i] * (1.0 + 1e-6) : p->lower[i];
      cpk_problem_update_bounds(p, lo, NULL);
    } else {
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) a[i * n + j] = cpk_matrix_get(p->M, i, j) * (1.0 + 1e-7);
      cpk_problem_update_matrix_dense(p, a, n, 0);
    }
    int rc = cpk_solver_solve(s, r, NULL);
    /* the statistics are this solve's own (not the solver's lifetime counts) */
    double made = stat_of(r, "factorizations"), res = resolve_natural_residual(p, r->z);
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && res <= 1e-8 && made == expect[k] &&
             stat_of(r, "pivots") == 0,
         "lemke: re-solve after a %s update: %g factorizations (expected %g), residual %.2g", what[k],
         made, expect[k], res);
  }
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
  free(q), free(lo), free(a);
}

/* pgs after an update that makes a diagonal entry zero: invalid_input, not a wrong answer. */
static void test_pgs_bad_update(void)
{
  cpk_problem *p = small_mcp(0);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_result_alloc(3, &r);
  cpk_solver_alloc(cpk_solver_pgs, p, NULL, &s, NULL);
  double a[9] = {4, -1, 0, -1, 0, -1, 0, -1, 4};
  cpk_problem_update_matrix_dense(p, a, 3, 0);
  int rc = cpk_solver_solve(s, r, NULL);
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_INVALID_INPUT && strstr(r->message, "diagonal"),
       "pgs: an update with a zero diagonal gives invalid_input (%s)", r->message);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_init();
  test_update_q();
  test_update_bounds();
  test_update_values();
  test_update_mu_params_fcoef();
  test_matrix_arrays();
  test_result_resize();
  test_resolves();
  test_cone_resolves();
  test_lemke_warm();
  test_lemke_kept_factors();
  test_pgs_bad_update();
  return t_done();
}
