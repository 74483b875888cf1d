/* t_pgs.c: projected Gauss-Seidel: convergence on SPD problems, honest failure elsewhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "families.h"
#include "testlib.h"

static cpk_result *run(const cpk_problem *p, const char *solver, const cpk_settings *s, int *rc)
{
  cpk_result *r = NULL;
  cpk_error err;
  cpk_result_alloc(p->n, &r);
  *rc = cpk_solve(p, solver, s, r, &err);
  if (*rc) t_diag("%s: %s", solver, err.message);
  return r;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* Dense SPD M = B B' / n + I with mixed bounds; the solution is unique, so PGS must match Lemke. */
static cpk_problem *dense_spd_box(size_t n, unsigned long seed)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  cpk_matrix *M = NULL, *B = NULL;
  cpk_matrix_alloc_dense(n, n, &M);
  cpk_matrix_alloc_dense(n, n, &B);
  double *q = calloc(n, sizeof *q), *l = calloc(n, sizeof *l), *u = calloc(n, sizeof *u);
  for (size_t i = 0; i < n * n; i++) B->dense->data[i] = gsl_rng_uniform(rng) - 0.5;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double v = i == j ? 1.0 : 0.0;
      for (size_t k = 0; k < n; k++) v += B->dense->data[i * n + k] * B->dense->data[j * n + k] / n;
      M->dense->data[i * n + j] = v;
    }
  for (size_t i = 0; i < n; i++) {
    q[i] = 4 * gsl_rng_uniform(rng) - 2;
    l[i] = i % 3 == 0 ? -INFINITY : -0.5;
    u[i] = i % 2 == 0 ? 0.7 : INFINITY;
  }
  cpk_problem *p = NULL;
  cpk_problem_alloc_affine_mcp(M, q, l, u, &p);
  cpk_matrix_free(M);
  cpk_matrix_free(B);
  free(q);
  free(l);
  free(u);
  gsl_rng_free(rng);
  return p;
}

static void test_converges(void)
{
  int rc1, rc2;
  cpk_problem *p = NULL;
  cpk_family_delassus(300, 120, 3, &p);
  cpk_result *a = run(p, "pgs", NULL, &rc1), *b = run(p, "lemke", NULL, &rc2);
  t_ok(!rc1 && a->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, a->z, 1e-7),
       "sparse SPD Delassus LCP (300 contacts): solved in %ld sweeps", a->iterations);
  cpk_result_free(a);
  cpk_result_free(b);
  cpk_problem_free(p);

  p = dense_spd_box(40, 11);
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = 1e-12;
  a = run(p, "pgs", &s, &rc1);
  b = run(p, "lemke", NULL, &rc2);
  t_ok(!rc1 && !rc2 && a->status == CPK_STATUS_SOLVED && b->status == CPK_STATUS_SOLVED &&
           max_diff(a->z, b->z, p->n) < 1e-8,
       "dense SPD box MCP: PGS agrees with Lemke (|dz| = %.1e, %ld sweeps)",
       max_diff(a->z, b->z, p->n), a->iterations);
  cpk_result_free(a);
  s.pgs.omega = 1.5;
  a = run(p, "pgs", &s, &rc1);
  t_ok(!rc1 && a->status == CPK_STATUS_SOLVED && max_diff(a->z, b->z, p->n) < 1e-8,
       "SOR with omega = 1.5 converges to the same point (%ld sweeps)", a->iterations);
  cpk_result_free(a);
  cpk_result_free(b);
  s.pgs.omega = 2.0;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_result_alloc(p->n, &r);
  t_ok(cpk_solve(p, "pgs", &s, r, &err) == CPK_EINVAL && strstr(err.message, "relaxation"),
       "omega = 2 refused: %s", err.message);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static cpk_problem *small(const double *M, const double *q)
{
  cpk_matrix *A = NULL;
  cpk_problem *p = NULL;
  cpk_matrix_alloc_dense(2, 2, &A);
  memcpy(A->dense->data, M, 4 * sizeof *M);
  cpk_problem_alloc_lcp(A, q, &p);
  cpk_matrix_free(A);
  return p;
}

static void test_failures(void)
{
  /* z1 <- max(0, 3 z2 + 1), z2 <- max(0, 3 z1 + 1): the iterates grow without bound. */
  double M[] = {1, -3, -3, 1}, q[] = {-1, -1};
  cpk_problem *p = small(M, q);
  int rc;
  cpk_result *r = run(p, "pgs", NULL, &rc);
  t_ok(!rc && r->status == CPK_STATUS_STALLED && strstr(r->message, "diverged"),
       "divergent iteration reported as stalled: %s", r->message);
  cpk_result_free(r);
  cpk_problem_free(p);

  double Z[] = {0, 1, 1, 1};
  p = small(Z, q);
  cpk_result_alloc(2, &r);
  cpk_error err;
  t_ok(cpk_solve(p, "pgs", NULL, r, &err) == CPK_EINVAL && strstr(err.message, "M[1,1] = 0"),
       "zero diagonal refused: %s", err.message);
  cpk_result_free(r);
  cpk_problem_free(p);

  double D[] = {1e-310, 1, 1, 1}; /* subnormal: 1/M[1,1] overflows, so the iterates were NaN */
  p = small(D, q);
  cpk_result_alloc(2, &r);
  t_ok(cpk_solve(p, "pgs", NULL, r, &err) == CPK_EINVAL && strstr(err.message, "M[1,1] = 1e-310"),
       "subnormal diagonal refused: %s", err.message);
  cpk_result_free(r);
  cpk_problem_free(p);

  cpk_family_delassus(300, 120, 3, &p);
  cpk_settings s;
  cpk_settings_default(&s);
  s.max_iter = 3;
  r = run(p, "pgs", &s, &rc);
  t_ok(!rc && r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 3,
       "max_iter = 3: max_iterations after 3 sweeps (%s, %ld)", cpk_status_name(r->status),
       r->iterations);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_converges();
  test_failures();
  return t_done();
}
