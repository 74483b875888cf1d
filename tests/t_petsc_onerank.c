/* t_petsc_onerank.c: with MPI ranks, an argument one rank refuses alone (driver and cpk_linsys_*) and an eta-file allocation that fails on one rank only end alike on every rank. */
#include <math.h>
#include <string.h>
#include "mpi_testlib.h"

/*
 * Run alone (1 rank) by `make check`, and with 2 ranks by t_petsc_onerank_2ranks.sh
 * under `timeout`, so that ranks out of step (a hang) fail the script. The odd one
 * out is the last rank. Driver cases (ipm with petsc on t_lcp48's LCP): the last
 * rank alone (1) passes no result to cpk_solver_solve, (2) has a negative tolerance,
 * (3) a warm start with a NaN, (4) asks cpk_solve for an unknown solver: every rank
 * must get an error, and a plain solve after them must solve the LCP. Direct cases
 * (cpk_linsys_* with petsc, outside any driver run): (5) a solve with x NULL on the
 * last rank only; (6) column updates, where the last rank alone has cpkit's first
 * allocation inside each update fail (failalloc.c linked in, armed around each
 * update: the eta file's growth; MPI's own allocations are spared, a failure inside
 * MPI's collectives is not what this tests); (7) before them, an instance whose
 * allocation fails on the last rank alone. The program reacts as lemke does: an update that
 * fails is followed by a refactorization of the current matrix. Every rank must
 * get the same return code from every update, and a solve at the end must solve
 * the matrix of the updates that succeeded, on every rank.
 */

void failalloc_arm(unsigned long k, const char *object); /* failalloc.c */

enum { N = T_LCP48_N, UPDATES = 70 };
static int odd_rank;

/* ---- driver cases ---- */
enum { C_NO_RESULT, C_BAD_TOL, C_BAD_WARM, C_UNKNOWN, C_PLAIN, C_PLAIN_OK, NC };
static const char *case_name[NC] = {"no result", "a negative tolerance", "a NaN in the warm start",
                                    "an unknown solver", "a plain solve", "its answer"};

static void driver_settings(cpk_settings *st, int m, double *z0)
{
  cpk_settings_default(st);
  st->linsys = cpk_linsys_petsc;
  if (!odd_rank) return;
  if (m == C_BAD_TOL) st->tol = -1.0;
  if (m == C_BAD_WARM) {
    for (int i = 0; i < N; i++) z0[i] = 0.0;
    z0[N / 2] = NAN;
    st->z0 = z0;
  }
}

/* The return code of case m (g[C_PLAIN_OK]: the plain solve's answer passes the check). */
static int driver_case(const cpk_problem *p, int m, int *g)
{
  cpk_settings st;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  double z0[N];
  cpk_error_clear(&err);
  driver_settings(&st, m, z0);
  int rc = cpk_result_alloc(p->n, &r);
  if (!rc && m == C_UNKNOWN) rc = cpk_solve(p, odd_rank ? "no-such-solver" : "ipm", &st, r, &err);
  else if (!rc) rc = cpk_solver_alloc(cpk_solver_find("ipm"), p, &st, &s, &err);
  if (!rc && m != C_UNKNOWN) rc = cpk_solver_solve(s, m == C_NO_RESULT && odd_rank ? NULL : r, &err);
  if (m == C_PLAIN) g[C_PLAIN_OK] = !rc && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-8);
  if (rc) t_diag("rank %d, %s: %s", cpk_mpi_rank(), case_name[m], err.message);
  cpk_solver_free(s);
  cpk_result_free(r);
  return rc;
}

/* ---- direct cases ---- */
enum { D_FACTOR, D_SOLVE_NULL, D_SOLVE_AFTER, D_SOLVED_AFTER, D_FINAL, D_FINAL_SOLVED, D_ALLOC, ND };

/* B's column j times f, into col (dense). */
static void scaled_column(const cpk_csc *B, cpk_int j, double f, double *col)
{
  for (int i = 0; i < N; i++) col[i] = 0.0;
  for (cpk_int k = B->p[j]; k < B->p[j + 1]; k++) col[B->i[k]] = f * B->x[k];
}

/*
 * Update u replaces column u mod N by itself times 1.1 (or 1/1.1 on odd rounds),
 * with A^{-1} col computed first, so that the update's own first allocation is the
 * eta file's. rcs[u]: its return code. B follows the updates that succeeded.
 */
static int column_updates(cpk_linsys *L, cpk_csc *B, int *rcs)
{
  double col[N], a[N];
  for (int u = 0; u < UPDATES; u++) {
    cpk_int j = u % N;
    double f = (u / N) % 2 ? 1.0 / 1.1 : 1.1;
    scaled_column(B, j, f, col);
    memcpy(a, col, sizeof a);
    int rc = cpk_linsys_solve(L, a, 0);
    if (rc) return rc;
    if (odd_rank) failalloc_arm(1, "libcpkit"); /* cpkit's own allocations, not MPI's */
    rcs[u] = cpk_linsys_replace_column(L, (size_t)j, col, a);
    failalloc_arm(0, NULL);
    if (rcs[u] == CPK_OK)
      for (cpk_int k = B->p[j]; k < B->p[j + 1]; k++) B->x[k] *= f;
    else if ((rc = cpk_linsys_factor(L, B))) /* lemke's answer to a failed update */
      return rc;
  }
  return CPK_OK;
}

/* A solve of B x = b; 1 when it returned CPK_OK and x solves B. */
static int solve_check(cpk_linsys *L, const cpk_csc *B, double *x, int *rc)
{
  double b[N];
  for (int i = 0; i < N; i++) x[i] = b[i] = cos(0.3 * i);
  *rc = cpk_linsys_solve(L, x, 0);
  return *rc == CPK_OK && t_solves48(B, x, b);
}

static void direct_cases(int *g, int *rcs)
{
  cpk_csc *B = t_csc48(1.0);
  cpk_linsys *L = NULL;
  double x[N];
  for (int k = 0; k < ND; k++) g[k] = -1;
  for (int u = 0; u < UPDATES; u++) rcs[u] = -1;
  if (odd_rank) failalloc_arm(1, "libcpkit"); /* the instance's own calloc, before any collective */
  g[D_ALLOC] = cpk_linsys_alloc(cpk_linsys_petsc, N, &L);
  failalloc_arm(0, NULL);
  cpk_linsys_free(L);
  L = NULL;
  if (!B || cpk_linsys_alloc(cpk_linsys_petsc, N, &L)) goto out;
  g[D_FACTOR] = cpk_linsys_factor(L, B);
  g[D_SOLVE_NULL] = cpk_linsys_solve(L, odd_rank ? NULL : x, 0); /* an error on every rank */
  g[D_SOLVED_AFTER] = solve_check(L, B, x, &g[D_SOLVE_AFTER]);
  int rc = column_updates(L, B, rcs);
  g[D_FINAL_SOLVED] = !rc && solve_check(L, B, x, &g[D_FINAL]);
  if (rc) g[D_FINAL] = rc;
out:
  cpk_linsys_free(L);
  cpk_csc_free(B);
}

/* ---- the report ---- */
enum { MINE = NC + ND + UPDATES };

static void report_direct(const int *g, const int *g0, int r, int size)
{
  const int *d = g + NC, *u = d + ND, *u0 = g0 + NC + ND;
  int same = 1, failed = 0;
  t_ok(d[D_ALLOC] == CPK_ENOMEM, "rank %d, direct: an instance out of memory on rank %d: CPK_ENOMEM "
       "here (%s)", r, size - 1, cpk_errname(d[D_ALLOC]));
  t_ok(d[D_FACTOR] == CPK_OK, "rank %d, direct: factor", r);
  t_ok(d[D_SOLVE_NULL] != CPK_OK, "rank %d, direct: a solve with no x on rank %d: an error here (%s)",
       r, size - 1, cpk_errname(d[D_SOLVE_NULL]));
  t_ok(d[D_SOLVE_AFTER] == CPK_OK && d[D_SOLVED_AFTER], "rank %d, direct: then a solve works (%s)", r,
       cpk_errname(d[D_SOLVE_AFTER]));
  for (int k = 0; k < UPDATES; k++) {
    same = same && u[k] == u0[k];
    failed += u[k] == CPK_ENOMEM;
  }
  t_ok(same && failed > 0,
       "rank %d, direct: %d column updates, %d failed by an allocation on rank %d, the same return "
       "codes as rank 0's", r, UPDATES, failed, size - 1);
  t_ok(d[D_FINAL] == CPK_OK && d[D_FINAL_SOLVED],
       "rank %d, direct: a solve after them solves the matrix of the updates that succeeded (%s)", r,
       cpk_errname(d[D_FINAL]));
}

static void report(const int *all, int size)
{
  for (int r = 0; r < size; r++) {
    const int *g = all + MINE * r;
    for (int m = C_NO_RESULT; m < C_PLAIN; m++)
      t_ok(g[m] != CPK_OK, "rank %d: %s on rank %d: an error here (%s)", r, case_name[m], size - 1,
           cpk_errname(g[m]));
    t_ok(g[C_PLAIN] == CPK_OK && g[C_PLAIN_OK], "rank %d: then a plain solve solves the LCP", r);
    report_direct(g, all, r, size);
  }
}

int main(void)
{
  cpk_problem *p = t_lcp48();
  if (!p || !cpk_solver_find("ipm")) {
    t_ok(0, "ipm and the LCP exist");
    cpk_problem_free(p);
    return t_done();
  }
  int rank, size, mine[MINE];
  /*
   * Under ASan, Open MPI's start-up allocations, made through failalloc's malloc, escape
   * t_mpi_start's masking (measured: 122 kB in 3 357 blocks from Open MPI's modules, none
   * from cpkit): no leak check here. The driver and eta paths are leak-checked by the
   * plain build's sanitizer tests (t_solver, t_linsys) and by t_petsc_stop.
   */
  t_leak_tracking(0);
  int up = t_mpi_start(&rank, &size);
  odd_rank = rank == size - 1;
  mine[C_PLAIN_OK] = 0;
  for (int m = C_NO_RESULT; m <= C_PLAIN; m++) mine[m] = driver_case(p, m, mine);
  direct_cases(mine + NC, mine + NC + ND);
  t_mpi_report(up, mine, MINE, rank, size, report);
  cpk_problem_free(p);
  return t_mpi_done(rank);
}
