/* t_tao.c: PETSc TAO's complementarity solvers (tao-ssils, tao-ssfls, tao-asils, tao-asfls) on LCPs, box MCPs and Kojima-Shindo, answers checked independently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "mcp_problems.h"
#include "testlib.h"

/*
 * Open MPI's start (first TAO alloc) and exit keep allocations LeakSanitizer
 * cannot attribute (see t_linsys_petsc.c): both happen with leak tracking off,
 * and every allocation in between is checked.
 */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define LEAKS_UNTRACKED() __lsan_disable()
#define LEAKS_TRACKED() __lsan_enable()
#else
#define LEAKS_UNTRACKED() ((void)0)
#define LEAKS_TRACKED() ((void)0)
#endif

static const char *const tao[] = {"tao-ssils", "tao-ssfls", "tao-asils", "tao-asfls"};
#define NTAO (sizeof tao / sizeof tao[0])

static double dist_inf(const double *a, const double *b, size_t n)
{
  double d = 0.0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* Solve p with `name` from z0 (NULL: 0) into a new result; the call's error code in *rc. */
static cpk_result *run(const cpk_problem *p, const char *name, const double *z0, long max_iter,
                       int *rc)
{
  cpk_settings s;
  cpk_error err;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.z0 = z0;
  s.max_iter = max_iter;
  if (cpk_result_alloc(p->n, &r)) abort();
  *rc = cpk_solve(p, name, &s, r, &err);
  if (*rc) t_diag("%s: %s", name, err.message);
  return r;
}

static cpk_problem *dense_problem(size_t n, const double *M, const double *q, const double *l,
                                  const double *u)
{
  cpk_matrix *A = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_dense_array(n, n, M, n, 0, &A)) abort();
  int rc = l || u ? cpk_problem_alloc_affine_mcp(A, q, l, u, &p) : cpk_problem_alloc_lcp(A, q, &p);
  cpk_matrix_free(A);
  if (rc) abort();
  return p;
}

/* Every TAO method on p: solved, the independent check passes, z = the known answer. */
static void expect_answer(const cpk_problem *p, const double *answer, const char *what)
{
  for (size_t k = 0; k < NTAO; k++) {
    int rc;
    cpk_result *r = run(p, tao[k], NULL, 0, &rc);
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
             dist_inf(r->z, answer, p->n) < 1e-7,
         "%s %s: %s in %ld iterations, residual %.1e, |z - z*| %.1e", tao[k], what,
         cpk_status_name(r->status), r->iterations, r->residual, dist_inf(r->z, answer, p->n));
    cpk_result_free(r);
  }
}

/* LCPs: both z > 0; one z at its bound with w > 0 (hand-derived). */
static void test_lcps(void)
{
  static const double M[4] = {2, 1, 1, 2};
  static const double q1[2] = {-5, -6}, z1[2] = {4.0 / 3.0, 7.0 / 3.0};
  static const double q2[2] = {1, -1}, z2[2] = {0.0, 0.5}; /* w = (1.5, 0) */
  cpk_problem *p = dense_problem(2, M, q1, NULL, NULL);
  expect_answer(p, z1, "LCP, interior solution");
  cpk_problem_free(p);
  p = dense_problem(2, M, q2, NULL, NULL);
  expect_answer(p, z2, "LCP, z1 at 0 with w1 = 1.5");
  cpk_problem_free(p);
}

/*
 * Affine MCP with an upper bound, a free variable and a lower bound: z = (1, -3.2, 6.6)
 * (F1 = -7.2 <= 0 at u1 = 1, F2 = F3 = 0); M is symmetric positive definite, so unique.
 */
static void test_box_mcp(void)
{
  static const double M[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
  static const double q[3] = {-8, 2, -10}, z[3] = {1.0, -3.2, 6.6};
  static const double l[3] = {0, -INFINITY, 0}, u[3] = {1, INFINITY, INFINITY};
  cpk_problem *p = dense_problem(3, M, q, l, u);
  expect_answer(p, z, "box MCP (upper, free and lower bounds)");
  cpk_problem_free(p);
}

/* Kojima-Shindo's F, written here again so the check does not use the problem's own F. */
static void kojima_shindo(const double *x, double *f)
{
  f[0] = 3 * x[0] * x[0] + 2 * x[0] * x[1] + 2 * x[1] * x[1] + x[2] + 3 * x[3] - 6;
  f[1] = 2 * x[0] * x[0] + x[0] + x[1] * x[1] + 10 * x[2] + 2 * x[3] - 2;
  f[2] = 3 * x[0] * x[0] + x[0] * x[1] + 2 * x[1] * x[1] + 2 * x[2] + 9 * x[3] - 9;
  f[3] = x[0] * x[0] + 3 * x[1] * x[1] + 2 * x[2] + 3 * x[3] - 3;
}

/* The NCP's residual max_i |min(x_i, F_i(x))| from the formula above. */
static double kojima_shindo_residual(const double *x)
{
  double f[4], res = 0.0;
  kojima_shindo(x, f);
  for (int i = 0; i < 4; i++) res = fmax(res, fabs(fmin(x[i], f[i])));
  return res;
}

/*
 * Kojima-Shindo from MCPLIB's starts, as an NCP and boxed in [0, 10]^4 (two finite bounds:
 * Billups' composition in TAO; the bound 10 is inactive at both solutions, (1, 0, 3, 0) and
 * the degenerate (sqrt(6)/2, 0, 0, 1/2)). A start TAO cannot solve must end honestly (not
 * `solved`, residual above the tolerance); at least half of the starts must be solved.
 */
static void test_kojima_shindo(int boxed)
{
  const double ks1[4] = {1, 0, 3, 0}, ks2[4] = {sqrt(6.0) / 2.0, 0, 0, 0.5};
  const char *what = boxed ? "Kojima-Shindo in [0, 10]^4" : "Kojima-Shindo";
  const cpk_mcp_info *info = cpk_mcp_find("kojshin");
  cpk_problem *p = NULL;
  if (!info || cpk_mcp_problem(info, &p)) abort();
  for (size_t i = 0; boxed && i < 4; i++) p->upper[i] = 10.0;
  for (size_t k = 0; k < NTAO; k++) {
    size_t solved = 0;
    for (size_t st = 0; st < info->nstarts; st++) {
      int rc;
      cpk_result *r = run(p, tao[k], info->starts + 4 * st, 0, &rc);
      double own = kojima_shindo_residual(r->z);
      int known = dist_inf(r->z, ks1, 4) < 1e-6 || dist_inf(r->z, ks2, 4) < 1e-6;
      int ok = rc == CPK_OK && (r->status == CPK_STATUS_SOLVED ? own < 1e-7 && known
                                                               : r->residual > r->tolerance);
      solved += rc == CPK_OK && r->status == CPK_STATUS_SOLVED && ok;
      t_ok(ok, "%s %s from start %zu: %s in %ld iterations, own residual %.1e%s", tao[k], what,
           st + 1, cpk_status_name(r->status), r->iterations, own,
           known ? ", a known solution" : "");
      cpk_result_free(r);
    }
    t_ok(2 * solved >= info->nstarts, "%s solves %s from %zu of %zu starts", tao[k], what, solved,
         info->nstarts);
  }
  cpk_problem_free(p);
}

/* Sparse LCP (tridiagonal, positive definite): TAO's answer is lemke's (the solution is unique). */
static void test_sparse_lcp(void)
{
  enum { n = 60 };
  cpk_int ti[3 * n], tj[3 * n];
  double tx[3 * n], q[n];
  size_t nnz = 0;
  for (int i = 0; i < n; i++) {
    ti[nnz] = tj[nnz] = i, tx[nnz++] = 4.0;
    if (i > 0) ti[nnz] = i, tj[nnz] = i - 1, tx[nnz++] = -1.0;
    if (i + 1 < n) ti[nnz] = i, tj[nnz] = i + 1, tx[nnz++] = -1.5;
    q[i] = (i % 3 == 0) ? 1.0 : -1.0 - 0.1 * i;
  }
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_triplets(n, n, nnz, ti, tj, tx, &M) || cpk_problem_alloc_lcp(M, q, &p))
    abort();
  cpk_matrix_free(M);
  int rc;
  cpk_result *ref = run(p, "lemke", NULL, 0, &rc);
  if (rc || ref->status != CPK_STATUS_SOLVED) abort();
  for (size_t k = 0; k < NTAO; k++) {
    cpk_result *r = run(p, tao[k], NULL, 0, &rc);
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
             dist_inf(r->z, ref->z, n) < 1e-6,
         "%s sparse tridiagonal LCP, n = %d: %s, |z - z_lemke| %.1e", tao[k], n,
         cpk_status_name(r->status), dist_inf(r->z, ref->z, n));
    cpk_result_free(r);
  }
  cpk_result_free(ref);
  cpk_problem_free(p);
}

/* No solution (M = -1, q = -1: w = -z - 1 < 0 for every z >= 0): never `solved`. */
static void test_honest_failure(void)
{
  static const double M[1] = {-1}, q[1] = {-1};
  cpk_problem *p = dense_problem(1, M, q, NULL, NULL);
  for (size_t k = 0; k < NTAO; k++) {
    int rc;
    cpk_result *r = run(p, tao[k], NULL, 0, &rc);
    t_ok(rc == CPK_OK && r->status != CPK_STATUS_SOLVED && r->residual > r->tolerance &&
             r->message[0] != '\0',
         "%s infeasible LCP: %s, residual %.2g (%s)", tao[k], cpk_status_name(r->status),
         r->residual, r->message);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/* Iteration limit, warm start at the answer, and a re-solve after a new q on a bound solver. */
static void test_limits_and_resolve(void)
{
  static const double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, z[2] = {4.0 / 3.0, 7.0 / 3.0};
  static const double q2[2] = {1, -1}, z2[2] = {0.0, 0.5};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  int rc;
  cpk_result *r = run(p, "tao-ssils", NULL, 1, &rc);
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 1,
       "max_iter 1: %s after %ld iterations", cpk_status_name(r->status), r->iterations);
  cpk_result_free(r);
  r = run(p, "tao-ssils", z, 0, &rc);
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && r->iterations == 0,
       "warm start at the answer: %s after %ld iterations", cpk_status_name(r->status),
       r->iterations);
  cpk_result_free(r);
  cpk_solver *s = NULL;
  if (cpk_result_alloc(2, &r) || cpk_solver_alloc(cpk_solver_tao_asils, p, NULL, &s, NULL)) abort();
  rc = cpk_solver_solve(s, r, NULL);
  int first = rc == CPK_OK && r->status == CPK_STATUS_SOLVED && dist_inf(r->z, z, 2) < 1e-7;
  if (cpk_problem_update_q(p, q2)) abort();
  rc = cpk_solver_solve(s, r, NULL);
  t_ok(first && rc == CPK_OK && r->status == CPK_STATUS_SOLVED &&
           t_is_mcp_solution(p, r->z, 1e-7) &&
           dist_inf(r->z, z2, 2) < 1e-7,
       "one tao-asils solver, two q: both answers (second z = (%g, %g))", r->z[0], r->z[1]);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  if (!cpk_linsys_petsc || !cpk_solver_find("tao-ssils")) {
    t_ok(!cpk_solver_tao_ssils && !cpk_solver_find("tao-ssils"),
         "built without PETSc: the tao solvers are NULL and not registered");
    return t_done();
  }
  LEAKS_UNTRACKED(); /* Open MPI starts in the first alloc */
  cpk_linsys *ls = NULL;
  if (cpk_linsys_alloc(cpk_linsys_petsc, 1, &ls)) abort();
  LEAKS_TRACKED();
  cpk_linsys_free(ls);
  test_lcps();
  test_box_mcp();
  test_kojima_shindo(0);
  test_kojima_shindo(1);
  test_sparse_lcp();
  test_honest_failure();
  test_limits_and_resolve();
  LEAKS_UNTRACKED(); /* MPI_Finalize runs at exit */
  return t_done();
}
