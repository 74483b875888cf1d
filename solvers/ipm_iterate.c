/* ipm_iterate.c: the interior-point iteration loop: convergence, crossover, divergence and infeasibility certificates. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ipm.h"

/* Steps shorter than this, several times in a row, mean the method is stuck. */
#define IPM_TINY_STEP 1e-8
#define IPM_TINY_STEPS_MAX 5
/* Iterates this large (relative to the start) count as diverging. */
#define IPM_DIVERGENCE 1e14
/* Iterates this large (relative to the start) are offered to the certificate check. */
#define IPM_SUSPICIOUS 1e6
/*
 * No progress: the best natural residual fell by less than 1% over this many
 * iterations (path following converges in a few steps once on track; the
 * potential-reduction method may creep for a while).
 */
#define IPM_STALL_WINDOW_PATH 15
#define IPM_STALL_WINDOW_POTENTIAL 30
/*
 * Slow convergence: the best natural residual fell by less than half over a
 * stall window. Nonlinear problems then get the Newton polish once (ipm_polish.c).
 */
#define IPM_SLOW_FACTOR 0.5
/* Crossover is tried once the natural residual is within this factor of the tolerance. */
#define IPM_CROSSOVER_FACTOR 1e4

static double norm_inf(const double *x, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

static void set_status(cpk_result *r, cpk_status st, const char *msg)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s", msg);
}

/* ---- infeasibility certificate -------------------------------------------- */

/* y_i for a certificate: only variables with an infinite side can carry weight, signed by the other side. */
static int certificate_y(const ipm_state *S, const double *dir, double *y)
{
  double ymax = 0.0;
  for (size_t i = 0; i < S->n; i++) {
    int t = S->type[i];
    y[i] = (t == IPM_LOWER || t == IPM_UPPER || t == IPM_FREE) ? dir[i] : 0.0;
    ymax = fmax(ymax, fabs(y[i]));
  }
  if (!(ymax > 0.0) || !isfinite(ymax)) return 0;
  for (size_t i = 0; i < S->n; i++) {
    y[i] /= ymax;
    int t = S->type[i];
    if ((t == IPM_LOWER && y[i] < -1e-10) || (t == IPM_UPPER && y[i] > 1e-10)) return 0;
    if ((t == IPM_LOWER && y[i] < 0.0) || (t == IPM_UPPER && y[i] > 0.0)) y[i] = 0.0;
  }
  return 1;
}

/*
 * A y with y_i >= 0 where only l_i is finite, y_i <= 0 where only u_i is,
 * y_i = 0 where both are, and g = M^T y with g_i <= 0 where u_i = inf,
 * g_i >= 0 where l_i = -inf, proves that no solution exists when
 *   q^T y + sum_i max_{l_i <= z_i <= u_i} g_i z_i < 0:
 * at a solution every y_i F_i(z) >= 0, yet y^T F(z) = g^T z + q^T y < 0.
 * For an LCP this is the Farkas certificate y >= 0, M^T y <= 0, q^T y < 0.
 * Checked to the relative tolerances lemke uses for the same test.
 */
static int certificate(ipm_state *S, const cpk_problem *p, const double *dir)
{
  double *y = S->y, *g = S->g, qnorm = 1.0, value = 0.0;
  if (p->kind == CPK_KIND_NONLINEAR_MCP || !certificate_y(S, dir, y)) return 0;
  double mnorm;
  if (cpk_matrix_norm_inf_checked(p->M, &mnorm)) return 0; /* out of memory: nothing is proved */
  double gtol = 1e-10 * fmax(1.0, mnorm);
  cpk_matrix_mv(p->M, y, g, 1);
  for (size_t i = 0; i < S->n; i++) {
    double l = p->lower[i], u = p->upper[i];
    if ((isinf(u) && g[i] > gtol) || (isinf(l) && g[i] < -gtol)) return 0;
    if (g[i] > 0.0 && isfinite(u)) value += g[i] * u;
    else if (g[i] < 0.0 && isfinite(l)) value += g[i] * l;
    value += p->q[i] * y[i];
    qnorm = fmax(qnorm, fabs(p->q[i]));
  }
  return value < -1e-10 * qnorm;
}

/* ---- ending tests --------------------------------------------------------- */

/* 1 when the iterate, or a crossover from it, solves the problem. */
static int converged(ipm_state *S, const cpk_problem *p, const cpk_settings *s, double res, int *rc)
{
  *rc = CPK_OK;
  if (res <= S->tol) return 1;
  if (!s->ipm.crossover || !(res <= IPM_CROSSOVER_FACTOR * S->tol)) return 0;
  int c = ipm_crossover(S, p, 0);
  if (c < 0) *rc = -c;
  return c == 1;
}

/*
 * An infeasible monotone problem drives the iterate off along a recession
 * direction while steps shrink. The iterate and the affine-scaling direction
 * are offered to the certificate check; only a verified certificate ends the
 * solve with no_solution. Divergence or repeated tiny steps without one end
 * it as stalled, and so does a best residual that stops falling (the
 * potential-reduction method, whose potential is bounded below on an
 * infeasible problem, stagnates rather than diverges). Returns 1 when the
 * solve ends here.
 */
static int diverged(ipm_state *S, const cpk_problem *p, double scale, int *tiny, double *window,
                    cpk_result *r)
{
  double zn = norm_inf(S->z, S->n);
  int suspicious = S->step < 0.5 || zn > IPM_SUSPICIOUS * scale;
  if (suspicious && (certificate(S, p, S->z) || certificate(S, p, S->az))) {
    set_status(r, CPK_STATUS_NO_SOLUTION,
               "no solution: certificate y (y'F(z) >= 0 at any solution, yet "
               "q'y + max over the box of (M'y)'z < 0) found and checked");
    memcpy(r->ray, S->y, S->n * sizeof *r->ray); /* the certificate, for the caller to check */
    r->has_ray = 1;
    return 1;
  }
  *tiny = S->step < IPM_TINY_STEP ? *tiny + 1 : 0;
  if (zn > IPM_DIVERGENCE * scale || norm_inf(S->wl, S->n) > IPM_DIVERGENCE * scale ||
      norm_inf(S->wu, S->n) > IPM_DIVERGENCE * scale) {
    set_status(r, CPK_STATUS_STALLED, "iterates diverge (no solution suspected, but no certificate found)");
    return 1;
  }
  if (*tiny >= IPM_TINY_STEPS_MAX) {
    set_status(r, CPK_STATUS_STALLED, "no progress: step lengths below 1e-8");
    return 1;
  }
  long w = S->running == IPM_RUN_PATH ? IPM_STALL_WINDOW_PATH : IPM_STALL_WINDOW_POTENTIAL;
  if (S->iter % w == 0) {
    if (S->best_res > 0.99 * *window) {
      set_status(r, CPK_STATUS_STALLED, "no progress: the best natural residual has stopped falling");
      return 1;
    }
    *window = S->best_res;
  }
  return 0;
}

/* 1 (once per solve, nonlinear problems) when a window ends with the best residual not halved. */
static int slow(ipm_state *S, double *slow_window)
{
  long w = S->running == IPM_RUN_PATH ? IPM_STALL_WINDOW_PATH : IPM_STALL_WINDOW_POTENTIAL;
  if (S->polish_tried || S->iter % w != 0) return 0;
  int is_slow = S->best_res > IPM_SLOW_FACTOR * *slow_window;
  *slow_window = S->best_res;
  return is_slow;
}

static double start_scale(const ipm_state *S)
{
  return fmax(1.0, fmax(norm_inf(S->z, S->n), fmax(norm_inf(S->wl, S->n), norm_inf(S->wu, S->n))));
}

/* Map a step failure to a status; returns the remaining error code. */
static int step_failed(int rc, cpk_result *r)
{
  if (rc == CPK_ESINGULAR) set_status(r, CPK_STATUS_STALLED, "the Newton system is numerically singular");
  else if (rc == IPM_NO_STEP) set_status(r, CPK_STATUS_STALLED, "no step reduces the potential function");
  else if (rc == CPK_EBADFUNC) set_status(r, CPK_STATUS_STALLED, "F or its Jacobian is not finite at an iterate");
  else return rc;
  return CPK_OK;
}

/* ---- the loop ------------------------------------------------------------- */

int ipm_iterate(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                cpk_result *r, ipm_step_fn step)
{
  double res, scale = start_scale(S), window = INFINITY, slow_window = INFINITY;
  int rc, tiny = 0, done, stop = 0;
  S->running = step == ipm_pc_step ? IPM_RUN_PATH : IPM_RUN_POTENTIAL;
  S->stopped = 0;
  S->wd_left = S->wd_pause = 0;
  ipm_note(S, p, &res);
  S->mu = ipm_mu(S, p, S->z, S->wl, S->wu);
  if ((done = converged(S, p, s, res, &rc))) set_status(r, CPK_STATUS_SOLVED, "");
  while (!rc && !done) {
    if ((rc = step(S, p))) {
      rc = step_failed(rc, r);
      break;
    }
    S->iter++;
    ipm_note(S, p, &res);
    S->mu = ipm_mu(S, p, S->z, S->wl, S->wu);
    stop = cpk_monitor_log(mon, S->iter, res, NAN, S->mu, S->step, S->z);
    if (!stop) stop = cpk_monitor_before_factor(mon, S->ls); /* every iteration factors */
    if ((S->stopped = stop)) {
      r->status = (cpk_status)stop;
      snprintf(r->message, sizeof r->message, "stopped after %ld iterations, mu = %.3g", S->iter, S->mu);
    }
    if ((done = converged(S, p, s, res, &rc))) set_status(r, CPK_STATUS_SOLVED, "");
    else if (rc || stop) break;
    else if (!(done = diverged(S, p, scale, &tiny, &window, r)) && slow(S, &slow_window)) {
      int solved = 0;
      S->polish_tried = 1;
      rc = ipm_polish_from_best(S, p, s, mon, &solved);
      if ((done = solved)) set_status(r, CPK_STATUS_SOLVED, "");
    }
  }
  /*
   * Out of iterations or stuck (not stopped by the clock or the user): one crossover from the
   * last iterate. When the limit cut a watchdog sequence short (S->wd_left > 0) that iterate is
   * a relaxed one, not yet judged by the potential; it is not put back to the reference point:
   * the answer is zbest either way (the crossover's point replaces it only with a lower
   * residual), and neither start is the better guess of the active set in general (the relaxed
   * iterate is a full step further along; on a system of equations, free rows only, the
   * crossover's first Newton step from the reference is the relaxed step itself).
   */
  int last_try = r->status != CPK_STATUS_SOLVED && r->status != CPK_STATUS_NO_SOLUTION &&
                 (stop == 0 || stop == CPK_STATUS_MAX_ITERATIONS);
  if (!rc && last_try && s->ipm.crossover) {
    int c = ipm_crossover(S, p, 1);
    if (c == 1) set_status(r, CPK_STATUS_SOLVED, "");
    if (c < 0) rc = -c;
  }
  return rc;
}
