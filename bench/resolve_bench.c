/* resolve_bench.c: time of a re-solve by a bound solver (update q, solve) against a fresh set-up and solve, on the 48-variable dense physics MLCP (issue 15's target). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "physics_mlcp.h"

/* Usage: resolve_bench [SOLVER [REPEATS [NCONTACTS]]]   (defaults: lemke 2000 16) */

typedef struct timing {
  double median_us, min_us;
} timing;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median and minimum: the machine is shared, so the mean measures the neighbours too. */
static timing summarize(double *t, int k)
{
  qsort(t, (size_t)k, sizeof *t, cmp_double);
  timing out = {1e6 * t[k / 2], 1e6 * t[0]};
  return out;
}

/* The documented route before issue 15: a new problem, solver and result per call. */
static int fresh_solve(const cpk_problem *p, const cpk_solver_type *T, double *seconds)
{
  double t0 = cpk_wtime();
  cpk_problem *c = NULL;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  int rc = cpk_problem_copy(p, &c);
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  if (!rc) rc = cpk_solver_alloc(T, c, NULL, &s, NULL);
  if (!rc) rc = cpk_solver_solve(s, r, NULL);
  if (!rc && r->status != CPK_STATUS_SOLVED) rc = CPK_ESINGULAR;
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(c);
  *seconds = cpk_wtime() - t0;
  return rc;
}

/*
 * The work a re-solve cannot avoid, on M itself (dense LAPACK): one LU and one solve when M's
 * values changed (factor != 0), one solve with the factors there when only q did.
 */
static int essential(cpk_linsys *L, const cpk_csc *A, const double *q, double *x, int factor,
                     double *seconds)
{
  memcpy(x, q, (size_t)A->n * sizeof *x);
  double t0 = cpk_wtime();
  int rc = factor ? cpk_linsys_factor(L, A) : CPK_OK;
  if (!rc) rc = cpk_linsys_solve(L, x, 0);
  *seconds = cpk_wtime() - t0;
  return rc;
}

/* Update q (by_values = 0) or M's values (1), by 1e-9 relative so the active set stays; re-solve. */
static int timed_resolve(cpk_problem *p, cpk_solver *s, cpk_result *r, int by_values, int i,
                         const double *q0, const double *m0, double *buf, double *seconds)
{
  size_t n = p->n, len = by_values ? n * n : n;
  const double *base = by_values ? m0 : q0;
  for (size_t j = 0; j < len; j++) buf[j] = base[j] * (1.0 + 1e-9 * (double)((i + (int)j) % 3 - 1));
  double t0 = cpk_wtime();
  int rc = by_values ? cpk_problem_update_matrix_dense(p, buf, n, 0) : cpk_problem_update_q(p, buf);
  if (!rc) rc = cpk_solver_solve(s, r, NULL);
  *seconds = cpk_wtime() - t0;
  return rc ? rc : (r->status == CPK_STATUS_SOLVED ? CPK_OK : CPK_ESINGULAR);
}

static void row(const char *what, timing t)
{
  printf("%-50s %10.2f %10.2f\n", what, t.median_us, t.min_us);
}

int main(int argc, char **argv)
{
  const char *name = argc > 1 ? argv[1] : "lemke";
  int k = argc > 2 ? atoi(argv[2]) : 2000;
  size_t nc = argc > 3 ? (size_t)atol(argv[3]) : 16;
  const cpk_solver_type *T = cpk_solver_find(name);
  cpk_problem *p = NULL;
  cpk_init();
  if (!T || k < 1 || cpk_physics_mlcp(nc, 6, 2024, &p)) {
    fprintf(stderr, "usage: resolve_bench [SOLVER [REPEATS [NCONTACTS]]]\n");
    return 2;
  }
  size_t n = p->n;
  double *t[5], *q0 = malloc(n * sizeof *q0), *m0 = malloc(n * n * sizeof *m0);
  double *buf = malloc(n * n * sizeof *buf), *x = malloc(n * sizeof *x);
  for (int j = 0; j < 5; j++) t[j] = calloc((size_t)k, sizeof *t[j]);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_csc *A = NULL;
  cpk_linsys *L = NULL;
  if (!t[0] || !t[1] || !t[2] || !t[3] || !t[4] || !q0 || !m0 || !buf || !x ||
      cpk_matrix_to_csc(p->M, &A) || cpk_linsys_alloc(cpk_linsys_lapack, n, &L) ||
      cpk_result_alloc(n, &r) || cpk_solver_alloc(T, p, NULL, &s, NULL) ||
      cpk_solver_solve(s, r, NULL) || r->status != CPK_STATUS_SOLVED) {
    fprintf(stderr, "resolve_bench: %s does not solve the first problem\n", name);
    return 1;
  }
  memcpy(q0, p->q, n * sizeof *q0);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) m0[i * n + j] = cpk_matrix_get(p->M, i, j);
  long iters = 0;
  for (int i = 0; i < k; i++) { /* the baselines interleaved with the re-solves: same machine load */
    if (essential(L, A, q0, x, 1, &t[0][i]) || essential(L, A, q0, x, 0, &t[1][i]) ||
        timed_resolve(p, s, r, 0, i, q0, m0, buf, &t[2][i])) {
      fprintf(stderr, "resolve_bench: re-solve %d after a q update failed\n", i);
      return 1;
    }
    iters += r->iterations;
    if (timed_resolve(p, s, r, 1, i, q0, m0, buf, &t[3][i])) {
      fprintf(stderr, "resolve_bench: re-solve %d after an M update failed\n", i);
      return 1;
    }
    iters += r->iterations;
  }
  for (int i = 0; i < k; i++)
    if (fresh_solve(p, T, &t[4][i])) {
      fprintf(stderr, "resolve_bench: fresh solve %d failed\n", i);
      return 1;
    }
  timing lu = summarize(t[0], k), sv = summarize(t[1], k), rq = summarize(t[2], k);
  timing rm = summarize(t[3], k), fresh = summarize(t[4], k);
  printf("solver %s, n = %zu (dense physics MLCP, %zu contacts), %d repeats, same active set\n", name,
         n, nc, k);
  printf("%-50s %10s %10s\n", "", "median_us", "min_us");
  row("fresh: copy problem + alloc + solve + free", fresh);
  row("re-solve: update_q + cpk_solver_solve", rq);
  row("re-solve: update_matrix_dense + cpk_solver_solve", rm);
  row("one LAPACK LU + solve of M (n x n)", lu);
  row("one solve with M's LU factors", sv);
  printf("beyond the solve itself (median): q update %.2f us (vs one solve), M update %.2f us (vs one "
         "LU + solve); iterations per re-solve %.2f\n",
         rq.median_us - sv.median_us, rm.median_us - lu.median_us, (double)iters / (2.0 * k));
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_linsys_free(L);
  cpk_csc_free(A);
  for (int j = 0; j < 5; j++) free(t[j]);
  free(q0), free(m0), free(buf), free(x);
  return 0;
}
