/* t_petsc_fail.c: a failure on one MPI rank only (solver, backend alloc, factor or solve; nsn's nested nsgs restart after it) ends the solve with an error on every rank, without a deadlock. */
#include "mpi_testlib.h"

/*
 * Run alone (1 rank) by `make check`, and with 2 ranks by t_petsc_fail_2ranks.sh
 * under `timeout`: a deadlock fails the script instead of hanging it. The failure is
 * injected on the last rank only, through a solver that wraps ipm and gives it a
 * backend that wraps petsc; the driver sees the petsc backend in the settings, so
 * the solve is a distributed one. Every rank must return an error from the solve
 * (or from the solver's allocation), and a clean solve afterwards must work again.
 *
 * FAIL_NESTED: the wrapper runs nsn on a cone problem with petsc itself (so that
 * nested driver calls see a distributed backend too), and returns at once on the
 * last rank. The other ranks' backend calls then meet the agreed error, nsn gets
 * stuck on gradient steps and restarts through the driver (nsgs): that nested call
 * must keep the agreed error, not wait for the rank that has left (review, 2 ranks).
 */
enum { FAIL_NONE, FAIL_SOLVER, FAIL_ALLOC, FAIL_FACTOR, FAIL_SOLVE, FAIL_NESTED, NCASES };
static const char *case_name[NCASES] = {"no failure", "the solver returns at once",
                                        "the backend's alloc", "the 3rd factorization",
                                        "the 2nd solve", "nsn's solver returns at once"};

static int mode;      /* FAIL_* of the running case */
static int fail_here; /* this rank is the one that fails */
static long calls;    /* factorizations or solves of the wrapped backend in this case */

/* ---- the backend: petsc, failing on one rank before its collective work ---- */

static int f_alloc(void **state, size_t n)
{
  if (mode == FAIL_ALLOC && fail_here) return CPK_ENOMEM;
  return cpk_linsys_petsc->alloc(state, n);
}

static int f_factor(void *state, const cpk_csc *A)
{
  if (mode == FAIL_FACTOR && fail_here && ++calls == 3) return CPK_ENOMEM;
  return cpk_linsys_petsc->factor(state, A);
}

static int f_solve(void *state, double *x, int transpose)
{
  if (mode == FAIL_SOLVE && fail_here && ++calls == 2) return CPK_ELINSYS;
  return cpk_linsys_petsc->solve(state, x, transpose);
}

/* petsc's own functions but for these three (the state is petsc's): set up in main */
static cpk_linsys_type failing_petsc;

/* ---- the solver: ipm with that backend, or nsn with petsc (FAIL_NESTED) ---- */

static const cpk_solver_type *ipm, *nsn;

static const cpk_solver_type *inner(void) { return mode == FAIL_NESTED ? nsn : ipm; }

static cpk_settings with_failing_backend(const cpk_settings *s)
{
  cpk_settings c = *s;
  if (mode != FAIL_NESTED) c.linsys = &failing_petsc;
  return c;
}

static long w_max_iter(const cpk_problem *p) { return inner()->default_max_iter(p); }

static int w_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  cpk_settings c = with_failing_backend(s);
  return inner()->alloc(state, p, &c, err);
}

static int w_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                   cpk_result *r)
{
  if (mode == FAIL_SOLVER && fail_here) return CPK_ENOMEM;
  if (mode == FAIL_NESTED && fail_here) return CPK_ELINSYS;
  cpk_settings c = with_failing_backend(s);
  return inner()->solve(state, p, &c, mon, r);
}

static void w_free(void *state) { inner()->free(state); }

static const cpk_solver_type failing = {"failing", "ipm or nsn failing on one rank",
                                        CPK_KIND_LCP | CPK_KIND_FRICTION_CONE, w_max_iter,
                                        w_alloc, w_solve, w_free};

/* ---- the problems and the cases ---- */

/* A cone problem on which nsn without its linear solves (gradient steps) stalls. */
#define CONE_FILE "data/fclib/NESpheres_30_1.hdf5"

/* A solution by the independent check of its kind. */
static int is_solution(const cpk_problem *p, const double *z)
{
  return p->kind == CPK_KIND_FRICTION_CONE ? t_is_fc_solution(p, z, 1e-6)
                                           : t_is_mcp_solution(p, z, 1e-8);
}

/* One case: the return code of alloc or solve; *solved: z passes the independent check;
 * *status: the result's status (what the solver had set when the solve failed). */
static int run_case(const cpk_problem *p, int m, int *solved, int *status)
{
  cpk_settings st;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&st);
  st.linsys = cpk_linsys_petsc;
  mode = m;
  calls = 0;
  *solved = 0;
  *status = -1;
  int rc = cpk_result_alloc(p->n, &r);
  if (!rc) rc = cpk_solver_alloc(&failing, p, &st, &s, &err);
  if (!rc) rc = cpk_solver_solve(s, r, &err);
  if (!rc) *solved = r->status == CPK_STATUS_SOLVED && is_solution(p, r->z);
  if (r) *status = (int)r->status;
  if (rc) t_diag("rank %d, %s: %s", cpk_mpi_rank(), case_name[m], err.message);
  cpk_solver_free(s);
  cpk_result_free(r);
  return rc;
}

static const char *status_name(int st)
{
  return st >= 0 && st < CPK_STATUS_COUNT ? cpk_status_name((cpk_status)st) : "none";
}

/* Rank 0's report of every rank's results (g: rc, solved, status per case); cone: the FCLIB problem was read. */
static void report(const int *all, int size, int cone)
{
  for (int r = 0; r < size; r++) {
    const int *g = all + 3 * NCASES * r;
    t_ok(g[FAIL_NONE] == CPK_OK && g[NCASES + FAIL_NONE],
         "rank %d: without a failure (before and after the failing cases) ipm solves", r);
    for (int m = FAIL_SOLVER; m < NCASES; m++)
      t_ok((m == FAIL_NESTED && !cone) || g[m] != CPK_OK,
           "%srank %d: %s fails on rank %d: the solve returns an error (%s)",
           m == FAIL_NESTED && !cone ? "# SKIP no FCLIB problem: " : "", r, case_name[m], size - 1,
           cpk_errname(g[m]));
    /* nsn stops stalled only after its nsgs restart did not move (nsn.c, stuck) */
    if (r < size - 1)
      t_ok(!cone || g[2 * NCASES + FAIL_NESTED] == CPK_STATUS_STALLED,
           "%srank %d: nsn met the agreed error, got stuck and tried its nsgs restart (status %s)",
           cone ? "" : "# SKIP no FCLIB problem: ", r, status_name(g[2 * NCASES + FAIL_NESTED]));
  }
}

int main(void)
{
  ipm = cpk_solver_find("ipm");
  nsn = cpk_solver_find("nsn");
  failing_petsc = *cpk_linsys_petsc; /* never NULL: this test is built with PETSc only (petsc.am) */
  failing_petsc.name = "failing-petsc";
  failing_petsc.alloc = f_alloc;
  failing_petsc.factor = f_factor;
  failing_petsc.solve = f_solve;
  cpk_problem *p = t_lcp48(), *cone = t_fclib_problem(CONE_FILE);
  if (!ipm || !nsn || !p) {
    t_ok(0, "ipm, nsn and the LCP exist");
    cpk_problem_free(p);
    cpk_problem_free(cone);
    return t_done();
  }
  int rank, size, mine[3 * NCASES] = {0};
  int up = t_mpi_start(&rank, &size);
  fail_here = rank == size - 1;
  /* a clean solve, each failure, and a clean solve again: the failures leave nothing behind */
  static const int order[] = {FAIL_NONE,  FAIL_SOLVER, FAIL_ALLOC, FAIL_FACTOR,
                              FAIL_SOLVE, FAIL_NESTED, FAIL_NONE};
  for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
    int m = order[k], solved = 0, status = -1;
    if (m == FAIL_NESTED && !cone) continue; /* built without HDF5: reported as skipped */
    int rc = run_case(m == FAIL_NESTED ? cone : p, m, &solved, &status);
    mine[m] = k > 0 && mine[m] ? mine[m] : rc; /* FAIL_NONE twice: both must pass */
    mine[NCASES + m] = solved && (k == 0 || mine[NCASES + m]);
    mine[2 * NCASES + m] = status;
  }
  int *all = t_mpi_gather(mine, 3 * NCASES, size);
  t_ok(up == CPK_OK && all, "%d rank(s): every case ended on every rank", size);
  if (all) report(all, size, cone != NULL);
  free(all);
  cpk_problem_free(p);
  cpk_problem_free(cone);
  return t_mpi_done(rank);
}
