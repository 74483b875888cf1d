/* newton_run.c: the iteration loop of bdnewton and fbnewton: start test, crash, iterations with a watchdog, restarts, the honest final status and the statistics. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "monitor.h"
#include "newton.h"

/* "Stopped decreasing": the best merit fell by less than STALL_FRACTION over STALL_WINDOW iterations. */
#define STALL_WINDOW 20
#define STALL_FRACTION 1e-3
#define DEFAULT_MAX_ITER 500
/*
 * "Creeping": the natural residual has not fallen below RES_PROGRESS times its
 * best for RES_WINDOW iterations while the merit still crawls down (a positive
 * local minimum of the merit approached slowly: the implicit two-sphere scene
 * of seed 000 with fbnewton, where the merit fell 0.1% per iteration for 500
 * iterations at residual 7e-7). Newton's method that converges halves the
 * residual in a few iterations.
 */
#define RES_WINDOW 50
#define RES_PROGRESS 0.5
/*
 * A start whose natural residual passes the tolerance but by less than this factor
 * gets one Newton step (kept when it lowers the residual): see polish_start.
 */
#define START_MARGIN 1e-2
/* Non-monotone memory of the restarts (when the settings ask for less). */
#define RESTART_NONMONOTONE 10

/* How an attempt (the start or a restart) ended. */
enum { ATTEMPT_DONE, ATTEMPT_STALLED };

long newton_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return DEFAULT_MAX_ITER;
}

/* z0 (or the last solution of a re-solve, or 0) projected onto the bounds. */
static void start_point(newton_ws *ws, const cpk_problem *p, const cpk_settings *s)
{
  const double *z0 = newton_resolve_start(ws, p, s);
  for (size_t i = 0; i < ws->n; i++) {
    double v = z0 ? z0[i] : 0.0;
    ws->z[i] = fmin(fmax(v, p->lower[i]), p->upper[i]);
  }
}

static void set_status(cpk_result *r, cpk_status st, const char *fmt, double a, double b)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, fmt, a, b);
}

/* Linear-solver counters of this solve: the backend's totals minus those at its start. */
static void fill_stats(const newton_ws *ws, const cpk_linsys_stats *ls0, cpk_result *r)
{
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(ws->ls, &ls);
  ls.factorizations -= ls0->factorizations;
  ls.symbolic -= ls0->symbolic;
  ls.factor_time_s -= ls0->factor_time_s;
  cpk_result_set_stat(r, "function_evaluations", (double)ws->nf);
  cpk_result_set_stat(r, "jacobian_evaluations", (double)ws->nj);
  cpk_result_set_stat(r, "linesearch_backtracks", (double)ws->backtracks);
  cpk_result_set_stat(r, "fallback_steps", (double)ws->fallbacks);
  cpk_result_set_stat(r, "proximal_steps", (double)ws->prox_steps);
  cpk_result_set_stat(r, "crash_steps", (double)ws->crash_steps);
  cpk_result_set_stat(r, "watchdog_returns", (double)ws->watchdog_returns);
  cpk_result_set_stat(r, "restarts", (double)ws->restarts_done);
  cpk_result_set_stat(r, "factorizations", (double)(ls.factorizations + ws->extra_factorizations));
  cpk_result_set_stat(r, "symbolic_analyses", (double)ls.symbolic);
  cpk_result_set_stat(r, "factor_time_s", ls.factor_time_s + ws->extra_factor_time);
  cpk_result_set_stat(r, "nnz_factors", ls.nnz_factors);
  cpk_result_set_stat(r, "sparse_linsys", ls.sparse); /* the backend says, whatever its name */
  cpk_result_set_stat(r, "merit", ws->merit);
}

/* Progress test over a window of iterations: 1 when the best merit has stopped decreasing. */
static int stopped_decreasing(double *best, long iter, double merit)
{
  double b = iter > 0 ? fmin(best[(iter - 1) % (STALL_WINDOW + 1)], merit) : merit;
  best[iter % (STALL_WINDOW + 1)] = b;
  if (iter < STALL_WINDOW) return 0;
  double before = best[(iter - STALL_WINDOW) % (STALL_WINDOW + 1)];
  return !(b < (1.0 - STALL_FRACTION) * before);
}

/*
 * The watchdog of the non-monotone search (Chamberlain, Powell, Lemarechal
 * and Pedersen's idea as PATH uses it): steps may raise the merit, but after
 * `watchdog` iterations without a new best point the iterate goes back to the
 * best one and the next search is monotone from there.
 */
static void watchdog(newton_ws *ws)
{
  newton_save_best(ws, 0);
  if (ws->hist_cap > 1 && ws->watchdog > 0 && ws->iter - ws->best_iter >= ws->watchdog &&
      ws->merit > ws->merit_best) {
    newton_return_to_best(ws);
    ws->watchdog_returns++;
  }
}

/*
 * Iterate from the evaluated current point. ATTEMPT_DONE with r->status set
 * (solved, or stopped by the monitor), ATTEMPT_STALLED with the reason in
 * r->message, or a hard error code (CPK_ENOMEM).
 */
static int iterate(newton_ws *ws, const cpk_problem *p, double tol, cpk_monitor *mon,
                   cpk_result *r)
{
  double best[STALL_WINDOW + 1];
  long k = 0; /* iterations of this attempt */
  double res = cpk_natural_residual(p, ws->z, ws->w);
  double res_best = res;
  long res_best_k = 0;
  stopped_decreasing(best, 0, ws->merit);
  while (!(res <= tol)) {
    newton_remember_merit(ws);
    if (newton_evaluate_jacobian(ws, p)) {
      set_status(r, CPK_STATUS_STALLED,
                 "the Jacobian callback failed or returned a non-finite value (residual %.3g, "
                 "merit %.3g)", res, ws->merit);
      return ATTEMPT_STALLED;
    }
    int rc = newton_step(ws, p);
    if (rc == NEWTON_STEP_FAILED) {
      set_status(r, CPK_STATUS_STALLED,
                 "line search failed: neither the Newton nor the fallback direction decreases the "
                 "merit function (residual %.3g, merit %.3g)", res, ws->merit);
      return ATTEMPT_STALLED;
    }
    if (rc) return rc;
    r->iterations = ++ws->iter;
    k++;
    watchdog(ws);
    res = cpk_natural_residual(p, ws->z, ws->w);
    int stop = cpk_monitor_log(mon, ws->iter, res, ws->merit, NAN, ws->last_step, ws->z);
    if (!stop) stop = cpk_monitor_before_factor(mon, ws->ls);
    if (res <= tol) break;
    if (stop) {
      set_status(r, (cpk_status)stop, "stopped with residual %.3g (merit %.3g)", res, ws->merit);
      return ATTEMPT_DONE;
    }
    if (res < RES_PROGRESS * res_best) res_best = res, res_best_k = k;
    if (k - res_best_k >= RES_WINDOW) {
      set_status(r, CPK_STATUS_STALLED,
                 "the natural residual stopped falling (residual %.3g, merit %.3g): the iterates "
                 "creep toward a local minimum of the merit function that is not a solution", res,
                 ws->merit);
      return ATTEMPT_STALLED;
    }
    if (stopped_decreasing(best, k, ws->merit_best)) {
      set_status(r, CPK_STATUS_STALLED,
                 "the merit function stopped decreasing (residual %.3g, merit %.3g): a local "
                 "minimum of the merit function that is not a solution, or no solution", res,
                 ws->merit);
      return ATTEMPT_STALLED;
    }
  }
  r->status = CPK_STATUS_SOLVED;
  r->message[0] = '\0'; /* a stalled attempt before this one said why it stalled */
  return ATTEMPT_DONE;
}

/*
 * A warm start that passes the tolerance only just is not returned as given: the
 * tolerance is absolute, and where the answer is small (a touch-down, whose impulses
 * are of the order of the tolerance) such a start can be wrong at the scale of the
 * answer: the tilted ellipsoid of seed 003 at t = 0.2198, whose previous step's
 * impulses pass tol = 1e-7 at residual 4.5e-8 with the friction 1e-3 of the normal
 * impulse away from maximum dissipation (the stepper's physical check stopped the
 * run); one Newton step takes the residual to 1e-12. A start far below the
 * tolerance (a step at rest) costs nothing; the step is kept only when it lowers
 * the natural residual.
 */
static int polish_start(newton_ws *ws, const cpk_problem *p, double tol, cpk_monitor *mon,
                        cpk_result *r)
{
  double res = cpk_natural_residual(p, ws->z, ws->w);
  if (!(res <= tol) || res <= START_MARGIN * tol) return CPK_OK;
  newton_save_best(ws, 1);
  newton_remember_merit(ws);
  int rc = newton_evaluate_jacobian(ws, p) ? NEWTON_STEP_FAILED : newton_step(ws, p);
  if (rc == NEWTON_STEP_TAKEN && cpk_natural_residual(p, ws->z, ws->w) < res) {
    r->iterations = ++ws->iter;
    cpk_monitor_log(mon, ws->iter, cpk_natural_residual(p, ws->z, ws->w), ws->merit, NAN,
                    ws->last_step, ws->z);
  } else {
    newton_return_to_best(ws);
  }
  return rc == NEWTON_STEP_FAILED ? CPK_OK : rc;
}

/* Before a restart: the attempt's best point becomes the solve's best when it is better. */
static void keep_global_best(newton_ws *ws)
{
  if (!(ws->merit_best < ws->merit_global)) return;
  memcpy(ws->zg, ws->zb, ws->n * sizeof *ws->zg);
  memcpy(ws->wg, ws->wb, ws->n * sizeof *ws->wg);
  ws->merit_global = ws->merit_best;
}

/*
 * Not solved: answer the best of the last point, the attempt's best and the
 * earlier attempts' best by the residual that judges it (z and w only: the
 * solve ends here).
 */
static void keep_best(newton_ws *ws, const cpk_problem *p)
{
  double rz = cpk_natural_residual(p, ws->z, ws->w), rb = cpk_natural_residual(p, ws->zb, ws->wb);
  double rg = isfinite(ws->merit_global) ? cpk_natural_residual(p, ws->zg, ws->wg) : INFINITY;
  const double *z = rb < rz ? ws->zb : ws->z, *w = rb < rz ? ws->wb : ws->w;
  if (rg < fmin(rz, rb)) z = ws->zg, w = ws->wg;
  if (z == ws->z) return;
  memcpy(ws->z, z, ws->n * sizeof *ws->z);
  memcpy(ws->w, w, ws->n * sizeof *ws->w);
}

static void note_restarts(const newton_ws *ws, cpk_result *r)
{
  if (ws->restarts_done == 0 || r->status == CPK_STATUS_SOLVED) return;
  size_t len = strlen(r->message);
  snprintf(r->message + len, sizeof r->message - len, " (after %ld restart%s)", ws->restarts_done,
           ws->restarts_done == 1 ? "" : "s");
}

/*
 * The attempts: from the start, then, while an attempt stalls, up to
 * `restarts` times from a perturbed point, each improved by the crash phase
 * first and searched non-monotonically with the watchdog. The crash is kept
 * for restarts: from the start of the first attempt Newton's method is what
 * the user asked for (and warm starts are not spoiled).
 */
static int attempts(newton_ws *ws, const cpk_problem *p, double tol, cpk_monitor *mon,
                    cpk_result *r)
{
  memcpy(ws->zs, ws->z, ws->n * sizeof *ws->zs);
  newton_save_best(ws, 1);
  for (int k = 0;; k++) {
    int rc = iterate(ws, p, tol, mon, r);
    if (rc != ATTEMPT_STALLED || k >= ws->restarts) return rc == ATTEMPT_STALLED ? CPK_OK : rc;
    keep_global_best(ws);
    if (newton_restart_point(ws, p, k + 1)) { /* F fails there: end at the best point */
      memcpy(ws->z, ws->zg, ws->n * sizeof *ws->z);
      memcpy(ws->w, ws->wg, ws->n * sizeof *ws->w);
      ws->merit = ws->merit_global;
      return CPK_OK;
    }
    newton_save_best(ws, 1); /* the watchdog and the stall test judge the restart by its own best */
    ws->project = ws->method->project_restarts;
    ws->restarts_done++;
    ws->nhist = 0;
    if (ws->hist_cap < RESTART_NONMONOTONE) ws->hist_cap = RESTART_NONMONOTONE;
    if (ws->crash > 0) newton_crash(ws, p, ws->crash);
  }
}

int newton_run(newton_ws *ws, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r)
{
  ws->iter = ws->nf = ws->nj = ws->backtracks = ws->fallbacks = 0;
  ws->prox_steps = ws->crash_steps = ws->watchdog_returns = ws->restarts_done = 0;
  ws->extra_factorizations = 0;
  ws->extra_factor_time = 0.0;
  ws->nhist = 0;
  ws->hist_cap = ws->hist_cap0;
  ws->prox_rho = 1.0;
  ws->merit_global = INFINITY;
  ws->project = 0;
  cpk_linsys_stats ls0;
  cpk_linsys_get_stats(ws->ls, &ls0);
  newton_set_row_weights(ws, p);
  start_point(ws, p, s);
  int rc = CPK_OK;
  if (newton_start_into_domain(ws, p)) {
    set_status(r, CPK_STATUS_STALLED,
               "F failed or is not finite at the starting point and at every point tried between "
               "it and the interior of the bounds", 0.0, 0.0);
  } else {
    double tol = cpk_problem_tolerance(p, s->tol);
    rc = polish_start(ws, p, tol, mon, r);
    if (!rc) rc = attempts(ws, p, tol, mon, r);
    if (!rc && r->status != CPK_STATUS_SOLVED) keep_best(ws, p);
    note_restarts(ws, r);
  }
  memcpy(r->z, ws->z, ws->n * sizeof *r->z);
  fill_stats(ws, &ls0, r);
  newton_resolve_record(ws, r);
  return rc;
}
