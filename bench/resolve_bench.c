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

/* One LU factorization and one solve of M itself (dense LAPACK): the work a re-solve cannot avoid. */
static int essential(cpk_linsys *L, const cpk_csc *A, const double *q, double *x, double *seconds)
{
  memcpy(x, q, (size_t)A->n * sizeof *x);
  double t0 = cpk_wtime();
  int rc = cpk_linsys_factor(L, A);
  if (!rc) rc = cpk_linsys_solve(L, x, 0);
  *seconds = cpk_wtime() - t0;
  return rc;
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
  double *t = calloc((size_t)k, sizeof *t), *tlu = calloc((size_t)k, sizeof *tlu);
  double *q0 = malloc(n * sizeof *q0), *q = malloc(n * sizeof *q), *x = malloc(n * sizeof *x);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_csc *A = NULL;
  cpk_linsys *L = NULL;
  if (!t || !tlu || !q0 || !q || !x || cpk_matrix_to_csc(p->M, &A) ||
      cpk_linsys_alloc(cpk_linsys_lapack, n, &L) || cpk_result_alloc(n, &r) ||
      cpk_solver_alloc(T, p, NULL, &s, NULL) ||
      cpk_solver_solve(s, r, NULL) || r->status != CPK_STATUS_SOLVED) {
    fprintf(stderr, "resolve_bench: %s does not solve the first problem\n", name);
    return 1;
  }
  memcpy(q0, p->q, n * sizeof *q0);
  long iters = 0;
  for (int i = 0; i < k; i++) { /* q moves by 1e-7 relative: the active set stays; LU interleaved */
    if (essential(L, A, q0, x, &tlu[i])) {
      fprintf(stderr, "resolve_bench: M is singular\n");
      return 1;
    }
    for (size_t j = 0; j < n; j++) q[j] = q0[j] * (1.0 + 1e-7 * (double)((i + (int)j) % 3 - 1));
    double t0 = cpk_wtime();
    int rc = cpk_problem_update_q(p, q);
    if (!rc) rc = cpk_solver_solve(s, r, NULL);
    t[i] = cpk_wtime() - t0;
    if (rc || r->status != CPK_STATUS_SOLVED) {
      fprintf(stderr, "resolve_bench: re-solve %d: %s\n", i, cpk_status_name(r->status));
      return 1;
    }
    iters += r->iterations;
  }
  timing re = summarize(t, k), lu = summarize(tlu, k);
  for (int i = 0; i < k; i++)
    if (fresh_solve(p, T, &t[i])) {
      fprintf(stderr, "resolve_bench: fresh solve %d failed\n", i);
      return 1;
    }
  timing fresh = summarize(t, k);
  printf("solver %s, n = %zu (dense physics MLCP, %zu contacts), %d repeats\n", name, n, nc, k);
  printf("%-44s %10s %10s\n", "", "median_us", "min_us");
  printf("%-44s %10.2f %10.2f\n", "fresh: copy problem + alloc + solve + free", fresh.median_us,
         fresh.min_us);
  printf("%-44s %10.2f %10.2f\n", "re-solve: update_q + cpk_solver_solve", re.median_us, re.min_us);
  printf("%-44s %10.2f %10.2f\n", "one LAPACK LU + solve of M (n x n)", lu.median_us, lu.min_us);
  printf("re-solve beyond one LU + solve: %.2f us (median), %.2f us (min); iterations per re-solve "
         "%.2f\n", re.median_us - lu.median_us, re.min_us - lu.min_us, (double)iters / k);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_linsys_free(L);
  cpk_csc_free(A);
  free(t), free(tlu), free(q0), free(q), free(x);
  return 0;
}
