/* t_cheap_paths.c: the cheaper paths of a tripod step (branch ncp05d) give what the full ones give: the unchecked factorization, untimed small factorizations, stats set as a list, FCLIB's merit from the residual's pass and nsn's fclib_merit stat. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/* A full n x n CSC with random entries and a dominant diagonal (nonsingular). */
static cpk_csc *random_csc(gsl_rng *g, cpk_int n)
{
  cpk_csc *A = NULL;
  if (cpk_csc_alloc(n, n, n * n, &A)) return NULL;
  for (cpk_int j = 0; j <= n; j++) A->p[j] = j * n;
  for (cpk_int j = 0; j < n; j++)
    for (cpk_int i = 0; i < n; i++) {
      A->i[j * n + i] = i;
      A->x[j * n + i] = gsl_rng_uniform(g) - 0.5 + (i == j ? (double)n : 0.0);
    }
  return A;
}

/* Factor A with `checked` or unchecked on a fresh instance of T; x <- A^{-1} x; stats out. */
static int factor_solve(const cpk_linsys_type *T, const cpk_csc *A, int checked, double *x,
                        cpk_linsys_stats *st)
{
  cpk_linsys *L = NULL;
  int rc = cpk_linsys_alloc(T, (size_t)A->n, &L);
  for (int k = 0; !rc && k < 3; k++) /* three times, as a solver refactors */
    rc = checked ? cpk_linsys_factor(L, A) : cpk_linsys_factor_unchecked(L, A);
  if (!rc) rc = cpk_linsys_solve(L, x, 0);
  if (!rc) cpk_linsys_get_stats(L, st);
  cpk_linsys_free(L);
  return rc;
}

/* The unchecked factorization gives the checked one's solution bit for bit; the timing rule. */
static void test_unchecked(gsl_rng *g)
{
  const char *names[] = {"lapack", "umfpack", "dense"};
  const cpk_int sizes[] = {9, 2 * CPK_LINSYS_TIMED_MIN_N};
  for (size_t b = 0; b < 3; b++)
    for (size_t k = 0; k < 2; k++) {
      const cpk_linsys_type *T = cpk_linsys_find(names[b]);
      cpk_int n = sizes[k];
      cpk_csc *A = random_csc(g, n);
      double x1[64], x2[64];
      cpk_linsys_stats s1, s2;
      for (cpk_int i = 0; i < n; i++) x1[i] = x2[i] = gsl_rng_uniform(g) - 0.5;
      int rc1 = A ? factor_solve(T, A, 1, x1, &s1) : -1, rc2 = A ? factor_solve(T, A, 0, x2, &s2) : -1;
      t_ok(!rc1 && !rc2 && memcmp(x1, x2, (size_t)n * sizeof *x1) == 0 &&
               s1.factorizations == 3 && s2.factorizations == 3,
           "%s n = %d: unchecked factorization solves as the checked one, bit for bit (rc %d, %d)",
           names[b], (int)n, rc1, rc2);
      if (n < CPK_LINSYS_TIMED_MIN_N)
        t_ok(!rc1 && s1.factor_time_s == 0.0 && s2.factor_time_s == 0.0,
             "%s n = %d: below CPK_LINSYS_TIMED_MIN_N not timed (%g s)", names[b], (int)n,
             s1.factor_time_s);
      else
        t_ok(!rc1 && s1.factor_time_s > 0.0 && s2.factor_time_s > 0.0,
             "%s n = %d: timed (%g s, %g s)", names[b], (int)n, s1.factor_time_s,
             s2.factor_time_s);
      cpk_csc_free(A);
    }
}

/* The public entry still validates; the unchecked one still checks the size. */
static void test_checks_kept(gsl_rng *g)
{
  cpk_csc *A = random_csc(g, 9), *B = random_csc(g, 8);
  cpk_linsys *L = NULL;
  int ok = A && B && !cpk_linsys_alloc(cpk_linsys_lapack, 9, &L);
  if (ok) {
    int wrong_size = cpk_linsys_factor_unchecked(L, B);
    A->i[1] = 0; /* column 0's rows 0, 0, 2, ...: not strictly increasing */
    int bad = cpk_linsys_factor(L, A);
    t_ok(wrong_size == CPK_EINVAL && bad == CPK_EBADMAT,
         "factor_unchecked refuses a wrong size (%d), factor a malformed matrix (%d)", wrong_size,
         bad);
  } else {
    t_ok(0, "lapack instance");
  }
  cpk_linsys_free(L);
  cpk_csc_free(A);
  cpk_csc_free(B);
}

/* cpk_result_set_stats as a list equals one cpk_result_set_stat a name, fresh or not. */
static void test_set_stats(void)
{
  static const char *names[] = {"a1", "a2", "b", "pivots", "merit"};
  cpk_stat list[5];
  cpk_result *r1 = NULL, *r2 = NULL;
  if (cpk_result_alloc(1, &r1) || cpk_result_alloc(1, &r2)) {
    t_ok(0, "results");
    return;
  }
  for (size_t k = 0; k < 5; k++) {
    list[k].name = names[k];
    list[k].value = 1.5 * (double)k;
    cpk_result_set_stat(r1, names[k], list[k].value);
  }
  int rc = cpk_result_set_stats(r2, list, 5), same = r1->nstats == r2->nstats;
  for (size_t k = 0; same && k < 5; k++) {
    double v = NAN;
    same = !cpk_result_get_stat(r2, names[k], &v) && v == 1.5 * (double)k;
  }
  t_ok(!rc && same, "a fresh result: the list set as one call a name (%zu stats)", r2->nstats);
  cpk_result_reset(r2);
  cpk_result_set_stat(r2, "merit", -1.0);
  cpk_result_set_stat(r2, "other", 7.0);
  rc = cpk_result_set_stats(r2, list, 5);
  double merit = NAN, other = NAN;
  cpk_result_get_stat(r2, "merit", &merit);
  cpk_result_get_stat(r2, "other", &other);
  t_ok(!rc && r2->nstats == 6 && merit == 6.0 && other == 7.0,
       "a result with stats: overwritten by name, the rest appended (%zu stats, merit %g)",
       r2->nstats, merit);
  cpk_stat many[CPK_MAX_STATS + 1];
  static char tags[CPK_MAX_STATS + 1][8];
  for (size_t k = 0; k <= CPK_MAX_STATS; k++) {
    tags[k][0] = 's';
    tags[k][1] = (char)('A' + k);
    tags[k][2] = '\0';
    many[k].name = tags[k];
    many[k].value = (double)k;
  }
  cpk_result_reset(r2);
  rc = cpk_result_set_stats(r2, many, CPK_MAX_STATS + 1);
  t_ok(rc == CPK_ENOMEM && r2->nstats == CPK_MAX_STATS, "one stat too many: CPK_ENOMEM, %zu set",
       r2->nstats);
  cpk_result_free(r1);
  cpk_result_free(r2);
}

/* W = A A^T + I (dense, nc contacts of 3), q and mu random. */
static cpk_problem *cone_problem(gsl_rng *g, size_t nc)
{
  size_t n = 3 * nc;
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  double *A = malloc(n * n * sizeof *A), *q = malloc(n * sizeof *q), *mu = malloc(nc * sizeof *mu);
  if (A && q && mu && !cpk_matrix_alloc_dense(n, n, &W)) {
    for (size_t k = 0; k < n * n; k++) A[k] = gsl_rng_uniform(g) - 0.5;
    for (size_t i = 0; i < n; i++) {
      q[i] = gsl_rng_uniform(g) - (i % 3 == 0 ? 0.7 : 0.5);
      for (size_t j = 0; j < n; j++) {
        double s = i == j ? 1.0 : 0.0;
        for (size_t k = 0; k < n; k++) s += A[i * n + k] * A[j * n + k];
        gsl_matrix_set(W->dense, i, j, s);
      }
    }
    for (size_t c = 0; c < nc; c++) mu[c] = 0.2 + 0.6 * gsl_rng_uniform(g);
    cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  }
  cpk_matrix_free(W);
  free(A);
  free(q);
  free(mu);
  return p;
}

/* cpk_fc_residual_merit = (cpk_fc_residual, cpk_fc_merit) bit for bit, NaN included. */
static void test_residual_merit(gsl_rng *g)
{
  cpk_problem *p = cone_problem(g, 4);
  double r[12], u[12], m = 0.0;
  int same = p != NULL;
  for (int t = 0; same && t < 20; t++) {
    for (size_t i = 0; i < 12; i++) {
      r[i] = gsl_rng_uniform(g) - 0.3;
      u[i] = gsl_rng_uniform(g) - 0.5;
    }
    double res = cpk_fc_residual_merit(p, r, u, &m);
    same = res == cpk_fc_residual(p, r, u) && m == cpk_fc_merit(p, r, u) && isfinite(m);
  }
  t_ok(same, "residual and merit in one pass equal the two calls (20 random points)");
  if (p) {
    u[4] = NAN;
    double res = cpk_fc_residual_merit(p, r, u, &m);
    t_ok(res == INFINITY && m == INFINITY, "a NaN: residual %g, merit %g", res, m);
  }
  cpk_problem_free(p);
  /* an LCP has no contacts: merit 0 and its natural residual (a division by cone_dim 0 crashed) */
  const double a[4] = {2.0, 1.0, 1.0, 2.0}, q[2] = {-1.0, 1.0}, z[2] = {0.25, 0.0};
  double w[2];
  cpk_matrix *M = NULL;
  cpk_problem *lcp = NULL;
  int rc = cpk_matrix_from_dense_array(2, 2, a, 2, 0, &M);
  if (!rc) rc = cpk_problem_alloc_lcp(M, q, &lcp);
  if (!rc) rc = cpk_problem_eval(lcp, z, w);
  double res = rc ? NAN : cpk_fc_residual_merit(lcp, z, w, &m);
  t_ok(!rc && m == 0.0 && cpk_fc_merit(lcp, z, w) == 0.0 && res == cpk_natural_residual(lcp, z, w),
       "an LCP: merit %g (0), residual %g (its natural residual)", m, res);
  cpk_problem_free(lcp);
  cpk_matrix_free(M);
}

/* nsn's fclib_merit stat is cpk_fc_merit at its answer, solved, stopped or started there. */
static void test_nsn_stat(gsl_rng *g)
{
  for (int k = 0; k < 6; k++) {
    cpk_problem *p = cone_problem(g, 2 + (size_t)k);
    cpk_result *r = NULL;
    cpk_settings s;
    cpk_settings_default(&s);
    s.max_iter = k % 3 == 1 ? 1 : s.max_iter; /* stopped after one step: the best point returned */
    double z0[32], stat = NAN;
    int ok = p && !cpk_result_alloc(p->n, &r) && !cpk_solve(p, "nsn", &s, r, NULL);
    if (ok && k % 3 == 2) { /* again from its own answer: solved before any step */
      memcpy(z0, r->z, p->n * sizeof *z0);
      s.z0 = z0;
      ok = !cpk_solve(p, "nsn", &s, r, NULL);
    }
    ok = ok && !cpk_result_get_stat(r, "fclib_merit", &stat);
    double w[32];
    ok = ok && !cpk_problem_eval(p, r->z, w);
    double want = ok ? cpk_fc_merit(p, r->z, w) : NAN;
    t_ok(ok && stat == want, "nsn %zu contacts (%s, %ld iterations): fclib_merit %.17g = %.17g",
         p ? p->nc : 0, r ? cpk_status_name(r->status) : "error", r ? r->iterations : -1L, stat,
         want);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

int main(void)
{
  cpk_init();
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed());
  test_unchecked(g);
  test_checks_kept(g);
  test_set_stats();
  test_residual_merit(g);
  test_nsn_stat(g);
  gsl_rng_free(g);
  return t_done();
}
