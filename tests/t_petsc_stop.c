/* t_petsc_stop.c: with MPI ranks, a stop one rank decides alone (callback, time limit, the estimate before a factorization) is every rank's; a factorization refused on one rank leaves every rank's factors alike; direct users of cpk_linsys_* with petsc are not held by an earlier error. */
#include <math.h>
#include <string.h>
#include "mpi_testlib.h"

/*
 * Run alone (1 rank) by `make check`, and with 2 ranks by t_petsc_stop_2ranks.sh under
 * `timeout`, so that ranks that fall out of step (a hang) fail the script. The odd
 * one out is the last rank. Driver cases: ipm with petsc on a 48-row LCP, where the
 * last rank alone (1) has a callback that stops at iteration 2, (2) has a time
 * limit of 1 ns, (3) sees a million seconds in its backend's factorization times
 * (a solver wraps ipm and gives it a backend that wraps petsc, as t_petsc_fail.c
 * does, so the driver still sees petsc), under a limit of 10^5 s that every rank
 * has: only the estimate before a factorization stops, and on that rank only, or
 * (4) fails at once (an error agreed in the driver). Every rank must stop with
 * the same status after as many iterations. Direct cases, cpk_linsys_* alone: a
 * factorization the last rank refuses (a bad matrix) while the others get a good
 * one must leave every rank with its old factors, so that a solve then works
 * alike everywhere and solves the old matrix; the factorization after it (and
 * after case 4's failed run) must not meet the earlier error again; a column
 * update refused on the last rank must be refused on every rank.
 */
enum { RUN_PLAIN, RUN_CALLBACK, RUN_TIME, RUN_ESTIMATE, RUN_FAIL, NRUNS };
static const char *run_name[NRUNS] = {"no stop", "a callback stops at iteration 2",
                                      "a time limit of 1 ns", "a slow factorization's estimate",
                                      "the solver fails at once"};
static const int run_status[NRUNS] = {CPK_STATUS_SOLVED, CPK_STATUS_STALLED,
                                      CPK_STATUS_TIME_LIMIT, CPK_STATUS_TIME_LIMIT, -1};

static int mode;      /* RUN_* of the running case */
static int odd_rank;  /* this rank is the one that decides alone */

/* ---- the backend: petsc, whose factorizations look slow on the odd rank (RUN_ESTIMATE) ---- */

static void slow_stats(const void *state, cpk_linsys_stats *st)
{
  cpk_linsys_petsc->stats(state, st);
  if (mode == RUN_ESTIMATE && odd_rank) st->factor_time_s += 1e6;
}

static cpk_linsys_type slow_petsc; /* petsc's functions but for stats: set up in main */

/* ---- the solver: ipm with that backend, failing at once on the odd rank (RUN_FAIL) ---- */

static const cpk_solver_type *ipm;

static long w_max_iter(const cpk_problem *p) { return ipm->default_max_iter(p); }

static int w_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  cpk_settings c = *s;
  c.linsys = &slow_petsc;
  return ipm->alloc(state, p, &c, err);
}

static int w_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                   cpk_result *r)
{
  if (mode == RUN_FAIL && odd_rank) return CPK_ENOMEM;
  cpk_settings c = *s;
  c.linsys = &slow_petsc;
  return ipm->solve(state, p, &c, mon, r);
}

static void w_free(void *state) { ipm->free(state); }

static const cpk_solver_type wrapped = {"slow-ipm", "ipm on a petsc whose factorizations look slow",
                                        CPK_KIND_LCP, w_max_iter, w_alloc, w_solve, w_free};

static int stop_on_odd_rank(const cpk_iteration_info *info, void *data)
{
  (void)data;
  return odd_rank && info->iteration >= 2;
}

enum { N = T_LCP48_N }; /* the problem: t_lcp48's matrix (t_csc48), times a scale */

/* ---- the driver cases ---- */

/* One solve: g[0] its return code, g[1] its status, g[2] its iterations, g[3] z passes the check (RUN_PLAIN). */
static void run_case(const cpk_problem *p, int m, int *g)
{
  cpk_settings st;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&st);
  st.linsys = cpk_linsys_petsc;
  if (m == RUN_CALLBACK) st.callback = stop_on_odd_rank;
  if (m == RUN_TIME && odd_rank) st.time_limit = 1e-9;
  if (m == RUN_ESTIMATE) st.time_limit = 1e5; /* never reached: the estimate alone stops */
  mode = m;
  g[0] = cpk_result_alloc(p->n, &r);
  if (!g[0]) g[0] = cpk_solver_alloc(&wrapped, p, &st, &s, &err);
  if (!g[0]) g[0] = cpk_solver_solve(s, r, &err);
  g[1] = g[0] ? -1 : (int)r->status;
  g[2] = g[0] ? -1 : (int)r->iterations;
  g[3] = !g[0] && m == RUN_PLAIN && t_is_mcp_solution(p, r->z, 1e-8); /* the others stop early */
  if (g[0]) t_diag("rank %d, %s: %s", cpk_mpi_rank(), run_name[m], err.message);
  cpk_solver_free(s);
  cpk_result_free(r);
}

/* ---- the direct cases ---- */

enum { D_FACTOR, D_REFUSED, D_SOLVE_OLD, D_OLD_SOLVED, D_FACTOR_NEW, D_NEW_SOLVED, D_COUNT,
       D_UPDATE_REFUSED, D_UPDATE_SOLVED, ND };

/* A solve of A x = b with L; 1 when it returned CPK_OK and x solves A. */
static int solve_check(cpk_linsys *L, const cpk_csc *A, int *rc)
{
  double b[N], x[N];
  for (int i = 0; i < N; i++) x[i] = b[i] = cos(0.3 * i);
  *rc = cpk_linsys_solve(L, x, 0);
  return *rc == CPK_OK && t_solves48(A, x, b);
}

/* g: the return codes and checks of ND steps on a new petsc instance. */
static void direct_cases(int *g)
{
  cpk_csc *A = t_csc48(1.0), *B = t_csc48(2.0), *bad = t_csc48(2.0);
  cpk_linsys *L = NULL;
  int rc;
  for (int k = 0; k < ND; k++) g[k] = -1;
  if (!A || !B || !bad || cpk_linsys_alloc(cpk_linsys_petsc, N, &L)) goto out;
  bad->i[1] = bad->i[0]; /* column 0's rows repeated: not a valid CSC, refused before PETSc */
  g[D_FACTOR] = cpk_linsys_factor(L, A);
  g[D_REFUSED] = cpk_linsys_factor(L, odd_rank ? bad : B); /* an error on every rank */
  g[D_OLD_SOLVED] = solve_check(L, A, &rc);                /* A's factors, on every rank */
  g[D_SOLVE_OLD] = rc;
  g[D_FACTOR_NEW] = cpk_linsys_factor(L, B); /* a new call: the refusal is not met again */
  g[D_NEW_SOLVED] = solve_check(L, B, &rc);
  cpk_linsys_stats st;
  cpk_linsys_get_stats(L, &st);
  g[D_COUNT] = (int)st.factorizations;
  double col[N]; /* B's column 0 doubled, refused on the odd rank (column N does not exist) */
  for (int i = 0; i < N; i++) col[i] = 0.0;
  for (cpk_int k = B->p[0]; k < B->p[1]; k++) col[B->i[k]] = 2.0 * B->x[k];
  g[D_UPDATE_REFUSED] = cpk_linsys_replace_column(L, odd_rank ? N : 0, col, NULL);
  g[D_UPDATE_SOLVED] = solve_check(L, B, &rc); /* B still, on every rank */
out:
  cpk_linsys_free(L);
  cpk_csc_free(A);
  cpk_csc_free(B);
  cpk_csc_free(bad);
}

/* ---- the report ---- */

enum { PER_RUN = 4, MINE = PER_RUN * NRUNS + 2 * ND + 1 };

/* Rank 0's report of every rank's results (all: MINE ints per rank). */
static void report(const int *all, int size)
{
  for (int r = 0; r < size; r++) {
    const int *g = all + MINE * r, *g0 = all;
    t_ok(g[0] == CPK_OK && g[1] == CPK_STATUS_SOLVED && g[3],
         "rank %d: ipm with petsc solves the LCP (independent check)", r);
    for (int m = RUN_CALLBACK; m < RUN_FAIL; m++) {
      const int *c = g + PER_RUN * m, *c0 = g0 + PER_RUN * m;
      t_ok(c[0] == CPK_OK && c[1] == run_status[m] && c[2] == c0[2],
           "rank %d: %s on rank %d: status %s (want %s), %d iterations (rank 0: %d)", r,
           run_name[m], size - 1, c[1] >= 0 ? cpk_status_name((cpk_status)c[1]) : "none",
           cpk_status_name((cpk_status)run_status[m]), c[2], c0[2]);
    }
    t_ok(g[PER_RUN * RUN_FAIL] != CPK_OK, "rank %d: %s on rank %d: an error (%s)", r,
         run_name[RUN_FAIL], size - 1, cpk_errname(g[PER_RUN * RUN_FAIL]));
    for (int after = 0; after < 2; after++) {
      const int *d = g + PER_RUN * NRUNS + after * ND;
      const char *when = after ? "after a refusal" : "after a failed solve";
      t_ok(d[D_FACTOR] == CPK_OK, "rank %d, direct %s: factor", r, when);
      t_ok(d[D_REFUSED] != CPK_OK, "rank %d, direct %s: refused on rank %d, an error here (%s)", r,
           when, size - 1, cpk_errname(d[D_REFUSED]));
      t_ok(d[D_SOLVE_OLD] == CPK_OK && d[D_OLD_SOLVED],
           "rank %d, direct %s: then a solve keeps the old factors (%s)", r, when,
           cpk_errname(d[D_SOLVE_OLD]));
      t_ok(d[D_FACTOR_NEW] == CPK_OK && d[D_NEW_SOLVED],
           "rank %d, direct %s: the next factorization and solve work (%s)", r, when,
           cpk_errname(d[D_FACTOR_NEW]));
      t_ok(d[D_COUNT] == 2, "rank %d, direct %s: 2 factorizations counted (%d)", r, when, d[D_COUNT]);
      t_ok(d[D_UPDATE_REFUSED] != CPK_OK && d[D_UPDATE_SOLVED],
           "rank %d, direct %s: a column update refused on rank %d: an error here (%s), and no "
           "rank applied it", r, when, size - 1, cpk_errname(d[D_UPDATE_REFUSED]));
    }
    t_ok(g[MINE - 1], "rank %d: a plain solve at the end solves the LCP", r);
  }
}

int main(void)
{
  ipm = cpk_solver_find("ipm");
  slow_petsc = *cpk_linsys_petsc; /* never NULL: this test is built with PETSc only (petsc_stop.am) */
  slow_petsc.name = "slow-petsc";
  slow_petsc.stats = slow_stats;
  cpk_problem *p = t_lcp48();
  if (!ipm || !p) {
    t_ok(0, "ipm and the LCP exist");
    cpk_problem_free(p);
    return t_done();
  }
  int rank, size, mine[MINE], last[PER_RUN];
  int up = t_mpi_start(&rank, &size);
  odd_rank = rank == size - 1;
  for (int m = 0; m < NRUNS; m++) run_case(p, m, mine + PER_RUN * m);
  direct_cases(mine + PER_RUN * NRUNS); /* after RUN_FAIL's failed run */
  direct_cases(mine + PER_RUN * NRUNS + ND);
  run_case(p, RUN_PLAIN, last);
  mine[MINE - 1] = last[0] == CPK_OK && last[1] == CPK_STATUS_SOLVED && last[3];
  t_mpi_report(up, mine, MINE, rank, size, report);
  cpk_problem_free(p);
  return t_mpi_done(rank);
}
