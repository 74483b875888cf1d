/* t_lemke_backend.c: a bound Lemke solver whose basis fell back to UMFPACK goes back to the dense backend on the next re-solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

enum { N = 60 };

/* q = -M e: z = e. */
static void rhs(const double *a, double *q)
{
  for (size_t i = 0; i < N; i++) {
    q[i] = 0.0;
    for (size_t j = 0; j < N; j++) q[i] -= a[i * N + j];
  }
}

/*
 * All unknowns free (the MCP is M z + q = 0), so Lemke's first basis is M itself.
 * M unit upper triangular with -1 above the diagonal: its inverse holds 2^k, so
 * LAPACK's condition estimate refuses it, while UMFPACK (pivots all 1) factors it
 * and solves it exactly (lemke_basis.c's fallback).
 */
static void ill(double *a, double *q)
{
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) a[i * N + j] = j < i ? 0.0 : (j == i ? 1.0 : -1.0);
  rhs(a, q);
}

/* A well-conditioned one: 4 I minus the neighbours. */
static void tame(double *a, double *q)
{
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) a[i * N + j] = i == j ? 4.0 : (i == j + 1 || j == i + 1 ? -1.0 : 0.0);
  rhs(a, q);
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Solved (residual checked here), with the sparse backend in use (1) or not (0) at the end. */
static int solved_on(const cpk_problem *p, const cpk_result *r, int rc, double sparse)
{
  return !rc && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-9) &&
         stat(r, "sparse_linsys") == sparse;
}

static int update(cpk_problem *p, const double *a, const double *q)
{
  int rc = cpk_problem_update_matrix_dense(p, a, N, 0);
  return rc ? rc : cpk_problem_update_q(p, q);
}

int main(void)
{
  double *a = malloc(N * N * sizeof *a), q[N], lo[N], hi[N];
  for (size_t i = 0; i < N; i++) lo[i] = -INFINITY, hi[i] = INFINITY;
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  cpk_solver *S = NULL;
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  s.resolve.warm = 0; /* each solve starts cold: what is tested is the backend */
  ill(a, q);
  if (!a || cpk_matrix_from_dense_array(N, N, a, N, 0, &M) || cpk_problem_alloc_affine_mcp(M, q, lo, hi, &p) ||
      cpk_result_alloc(N, &r) || cpk_solver_alloc(cpk_solver_lemke, p, &s, &S, NULL))
    return t_ok(0, "setup"), t_done();
  int rc = cpk_solver_solve(S, r, NULL);
  t_ok(solved_on(p, r, rc, 1.0), "ill-conditioned MCP: solved on the UMFPACK fallback (%s, sparse_linsys %g)",
       cpk_status_name(r->status), stat(r, "sparse_linsys"));
  tame(a, q);
  rc = update(p, a, q);
  if (!rc) rc = cpk_solver_solve(S, r, NULL);
  t_ok(solved_on(p, r, rc, 0.0), "well-conditioned re-solve: back on the dense backend (%s, sparse_linsys %g)",
       cpk_status_name(r->status), stat(r, "sparse_linsys"));
  ill(a, q);
  rc = update(p, a, q);
  for (int k = 0; k < 2 && !rc; k++) { /* the fallback backend, used again */
    rc = cpk_solver_solve(S, r, NULL);
    t_ok(solved_on(p, r, rc, 1.0) && stat(r, "sparse_fallbacks") == (double)(k + 2),
         "ill-conditioned again (%d): solved on the fallback again, %g fallbacks in all", k + 1,
         stat(r, "sparse_fallbacks"));
  }
  cpk_solver_free(S);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  free(a);
  return t_done();
}
