/* t_time_limit.c: the time limit bounds factorizations: the monitor's decision (cpk_monitor_fits, cpk_monitor_before_factor) and solves that stop before a factorization the time left cannot cover. */
/*
 * No assertion depends on how fast this machine is. The slow factorizations
 * are simulated: a linear-solver backend wraps the dense one and reports each
 * factorization as taking SLOW_S seconds, against limits of LIMIT_S seconds
 * (SLOW_S > LIMIT_S). The real work takes milliseconds; only a machine that
 * stalls for LIMIT_S seconds could change an answer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define SLOW_S 5000.0
#define LIMIT_S 1000.0

/* ---- a backend whose factorizations claim to be slow ----------------- */

static int slow_alloc(void **state, size_t n)
{
  return cpk_linsys_alloc(cpk_linsys_dense, n, (cpk_linsys **)state);
}

static int slow_factor(void *state, const cpk_csc *A) { return cpk_linsys_factor(state, A); }

static int slow_solve(void *state, double *x, int transpose)
{
  return cpk_linsys_solve(state, x, transpose);
}

static int slow_replace(void *state, size_t j, const double *col, const double *Ainv_col)
{
  return cpk_linsys_replace_column(state, j, col, Ainv_col);
}

static void slow_stats(const void *state, cpk_linsys_stats *st)
{
  cpk_linsys_get_stats(state, st);
  st->factor_time_s += SLOW_S * (double)st->factorizations;
}

static void slow_free(void *state) { cpk_linsys_free(state); }

static const cpk_linsys_type slow_type = {"slow-dense", slow_alloc, slow_factor, slow_solve,
                                          slow_replace, slow_stats, slow_free, NULL};

/* ---- the decision, seen from inside a solver ------------------------- */

/* A backend whose statistics the test sets directly. */
static cpk_linsys_stats fake_stats;
static int fake_alloc(void **state, size_t n)
{
  *state = malloc(1);
  return *state ? CPK_OK : CPK_ENOMEM;
}
static int fake_factor(void *state, const cpk_csc *A) { return CPK_OK; }
static int fake_solve(void *state, double *x, int transpose) { return CPK_OK; }
static void fake_stats_fn(const void *state, cpk_linsys_stats *st) { *st = fake_stats; }
static const cpk_linsys_type fake_type = {"fake", fake_alloc, fake_factor, fake_solve, NULL,
                                          fake_stats_fn, free, NULL};

/* A solver that only asks the monitor, the way ipm, lemke and the Newton methods do. */
static int probe_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  cpk_linsys *ls = NULL;
  int tl = s->time_limit > 0.0;
  if (cpk_linsys_alloc(&fake_type, p->n, &ls)) return CPK_ENOMEM;
  t_ok(cpk_monitor_fits(mon, 1.0), "%s: 1 s fits", tl ? "limit 1000 s" : "no limit");
  t_ok(cpk_monitor_fits(mon, NAN), "%s: no estimate (NaN) is no veto", tl ? "limit" : "no limit");
  t_ok(cpk_monitor_fits(mon, SLOW_S) == !tl, "%s: 5000 s %s", tl ? "limit 1000 s" : "no limit",
       tl ? "does not fit" : "fits");
  memset(&fake_stats, 0, sizeof fake_stats);
  t_ok(cpk_monitor_before_factor(mon, ls) == 0, "no factorization yet: no estimate, go on");
  fake_stats.factorizations = 1;
  fake_stats.factor_time_s = SLOW_S;
  t_ok(cpk_monitor_before_factor(mon, ls) == (tl ? CPK_STATUS_TIME_LIMIT : 0),
       "%s: after one 5000 s factorization, %s", tl ? "limit 1000 s" : "no limit",
       tl ? "stop (time_limit)" : "go on");
  fake_stats.factorizations = 3;
  fake_stats.factor_time_s = SLOW_S + 1.0;
  t_ok(cpk_monitor_before_factor(mon, ls) == 0,
       "the estimate is the last factorizations' time (two took 1 s), not the mean");
  fake_stats.factorizations = 4;
  fake_stats.factor_time_s = 2 * SLOW_S + 1.0;
  t_ok(cpk_monitor_before_factor(mon, ls) == (tl ? CPK_STATUS_TIME_LIMIT : 0),
       "%s: a slow one again, %s", tl ? "limit 1000 s" : "no limit", tl ? "stop" : "go on");
  t_ok(cpk_monitor_before_factor(mon, ls) == (tl ? CPK_STATUS_TIME_LIMIT : 0),
       "no factorization since: the estimate stands");
  cpk_linsys_free(ls);
  memset(r->z, 0, p->n * sizeof *r->z);
  r->status = CPK_STATUS_STALLED;
  return CPK_OK;
}

static int probe_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *out = NULL;
  return CPK_OK;
}
static void probe_free(void *state) {}
static long probe_max_iter(const cpk_problem *p) { return 1; }

static const cpk_solver_type probe_type = {"probe", "asks the monitor", CPK_KIND_LCP,
                                           probe_max_iter, probe_alloc, probe_solve, probe_free};

static void decision(const cpk_problem *p, double limit)
{
  cpk_settings s;
  cpk_solver *sv = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.time_limit = limit;
  if (cpk_solver_alloc(&probe_type, p, &s, &sv, &err) || cpk_result_alloc(p->n, &r)) {
    t_ok(0, "probe solver allocated: %s", err.message);
    return;
  }
  t_ok(cpk_solver_solve(sv, r, &err) == CPK_OK, "probe solve ran");
  cpk_result_free(r);
  cpk_solver_free(sv);
}

/* ---- real solvers under a limit their next factorization cannot meet -- */

static void solve_case(const cpk_problem *p, const char *solver, double limit)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.linsys = &slow_type;
  s.time_limit = limit;
  s.lemke.refactor_interval = 5; /* lemke refactors within a few pivots */
  if (cpk_result_alloc(p->n, &r)) {
    t_ok(0, "result allocated");
    return;
  }
  int rc = cpk_solve(p, solver, &s, r, &err);
  if (limit > 0.0) {
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_TIME_LIMIT,
         "%s, limit %g s, factorizations of %g s: ends time_limit (status %s after %ld iterations)",
         solver, limit, SLOW_S, cpk_status_name(r->status), r->iterations);
  } else { /* the control: the same backend without a limit solves it, checked independently */
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && r->iterations > 1 &&
             t_is_mcp_solution(p, r->z, 1e-6),
         "%s, no limit: solved in %ld iterations (more than one factorization needed)", solver,
         r->iterations);
  }
  cpk_result_free(r);
}

int main(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  if (cpk_problem_read_file(t_srcpath("data/lemke/refactor-box120.cpk"), &p, &err)) {
    t_ok(0, "read refactor-box120.cpk: %s", err.message);
    return t_done();
  }
  cpk_problem *lcp = NULL;
  double one = 1.0, minus = -1.0;
  cpk_matrix *A = NULL;
  if (!cpk_matrix_alloc_dense(1, 1, &A)) {
    A->dense->data[0] = one;
    cpk_problem_alloc_lcp(A, &minus, &lcp);
  }
  cpk_matrix_free(A);
  if (lcp) {
    decision(lcp, LIMIT_S);
    decision(lcp, 0.0);
  } else {
    t_ok(0, "a 1x1 LCP for the probe");
  }
  static const char *const solvers[] = {"lemke", "ipm", "bdnewton", "fbnewton"};
  for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++) {
    solve_case(p, solvers[k], 0.0);
    solve_case(p, solvers[k], LIMIT_S);
  }
  cpk_problem_free(lcp);
  cpk_problem_free(p);
  return t_done();
}
