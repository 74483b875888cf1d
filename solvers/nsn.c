/* nsn.c: the "nsn" solver: semismooth Newton on the Alart-Curnier function of the friction-cone problem, with a non-monotone line search, a regularized Newton matrix and restarts from nsgs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "monitor.h"
#include "newton.h"
#include "nsn.h"

/*
 * Alart and Curnier (1991) wrote the frictional contact law as a nonsmooth
 * equation Phi(r) = 0 (nsn.h); Christensen, Klarbring, Pang and Stromberg
 * (1998) solved it by a semismooth Newton method with a line search on
 * 1/2 |Phi|^2. Far from a solution that merit has kinks and local minima:
 * the step falls back on a regularized matrix H + delta I, then on the
 * scaled gradient, and when the merit stops decreasing a bounded run of
 * nsgs (block Gauss-Seidel) moves the point to where Newton converges.
 */

#define ARMIJO_SIGMA 1e-4
#define ARMIJO_BETA 0.5
#define MAX_BACKTRACKS 40
/* Angle test: a direction descends enough when slope <= -DESCENT_COS |grad| |d| (scale-free). */
#define DESCENT_COS 1e-8
/*
 * Shifts tried per iteration: delta = base 10^k, k = 0 .. MAX_REGULARIZE-2, with
 * base = min(REGULARIZE_MAX_BASE, |Phi| / |Phi(r0)|).
 */
#define MAX_REGULARIZE 8
#define REGULARIZE_MAX_BASE 1e-2
/* Stalled: the best merit did not fall by STALL_FACTOR within STALL_WINDOW iterations. */
#define STALL_WINDOW 30
#define STALL_FACTOR 0.5
#define MAX_RESTARTS 8
#define DEFAULT_MAX_ITER 500
/* An accepted trial keeps its u = u + t W dir; u is recomputed as W r + q every this many
 * accepted steps (so rounding does not accumulate in u) and before a solution is claimed. */
#define U_REFRESH 8

enum { STEP_TAKEN = 0, STEP_FAILED = -1 };

static long nsn_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return DEFAULT_MAX_ITER;
}

static void nsn_free(void *vs)
{
  nsn_state *S = vs;
  if (!S) return;
  cpk_csc_free(S->Wown);
  cpk_csc_free(S->H);
  free(S->dpos);
  free(S->diag);
  free(S->rho);
  free(S->Ablk);
  free(S->Bblk);
  cpk_linsys_free(S->ls);
  double *v[] = {S->r, S->u, S->phi, S->rt, S->ut, S->phit, S->dir, S->wd, S->hd, S->dsave, S->rbest, S->grad};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) free(v[k]);
  free(S);
}

static int alloc_arrays(nsn_state *S)
{
  size_t blk;
  if (cpk_size_mul(S->n, S->d, &blk)) return CPK_EOVERFLOW;
  double **v[] = {&S->r,  &S->u,  &S->phi, &S->rt,    &S->ut,   &S->phit,
                  &S->dir, &S->wd, &S->hd,  &S->dsave, &S->rbest, &S->grad};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (!(*v[k] = cpk_calloc_array(S->n, sizeof(double)))) return CPK_ENOMEM;
  S->rho = cpk_alloc_array(S->nc, 2 * sizeof *S->rho);
  S->Ablk = cpk_alloc_array(blk, sizeof *S->Ablk);
  S->Bblk = cpk_alloc_array(blk, sizeof *S->Bblk);
  return (!S->rho || !S->Ablk || !S->Bblk) ? CPK_ENOMEM : CPK_OK;
}

/* W from the problem: its CSC as it is, a dense W on its full pattern (fixed: updates refill it). */
static int nsn_bind_w(nsn_state *S, const cpk_problem *p)
{
  if (p->M->format == CPK_MATRIX_CSC) {
    S->W = p->M->csc;
    return CPK_OK;
  }
  int rc = resolve_affine_jacobian(p, &S->Wown);
  S->W = S->Wown;
  return rc;
}

static int nsn_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  nsn_state *S = calloc(1, sizeof *S);
  *out = NULL;
  if (!S) return cpk_error_set(err, CPK_ENOMEM, "nsn: out of memory");
  S->n = p->n;
  S->nc = p->nc;
  S->d = p->cone_dim;
  S->hist_cap0 = s->nsn.nonmonotone > 0 ? s->nsn.nonmonotone : CPK_DEFAULT_NSN_NONMONOTONE;
  int rc = alloc_arrays(S);
  if (!rc) rc = nsn_bind_w(S, p);
  if (!rc) rc = nsn_build_pattern(S);
  if (!rc) rc = cpk_linsys_alloc(newton_choose_linsys(p, s), p->n, &S->ls);
  if (rc) {
    nsn_free(S);
    return cpk_error_set(err, rc, "nsn: cannot set up the Newton system for %zu contacts (%s)",
                         p->nc, cpk_strerror(rc));
  }
  nsn_choose_rho(S, s->nsn.rho);
  resolve_seen_set(&S->seen, p);
  *out = S;
  return CPK_OK;
}

/* ---- evaluation ----------------------------------------------------------------- */

/* u = W r + q, phi = Phi(r) and the merit at the current point. */
static void evaluate(nsn_state *S, const cpk_problem *p)
{
  cpk_problem_eval(p, S->r, S->u);
  S->merit = nsn_phi(S, p, S->r, S->u, S->phi);
  S->evaluations++;
  S->u_exact = 1;
  S->u_age = 0;
}

/* u = W r + q afresh (phi and the merit not): before a claim of convergence. */
static void refresh_u(nsn_state *S, const cpk_problem *p)
{
  cpk_problem_eval(p, S->r, S->u);
  S->evaluations++;
  S->u_exact = 1;
}

/* The cone residual at (r, u); FCLIB's merit from the same pass kept for the stats: it holds
 * until the next evaluation (every change of r is followed by one). */
static double residual(nsn_state *S, const cpk_problem *p)
{
  double res = cpk_fc_residual_merit(p, S->r, S->u, &S->fc_merit);
  S->fc_merit_at = S->evaluations;
  return res;
}

static void swap_ptr(double **a, double **b)
{
  double *t = *a;
  *a = *b;
  *b = t;
}

/* ---- the direction ------------------------------------------------------------- */

/* dir solves (H + delta I) dir = -phi; 1 if it did (finite), 0 if not, or CPK_ENOMEM. */
static int solve_shifted(nsn_state *S, double delta)
{
  cpk_csc *H = S->H;
  if (delta > 0.0)
    for (size_t j = 0; j < S->n; j++) {
      S->dsave[j] = H->x[S->diag[j]];
      H->x[S->diag[j]] += delta;
    }
  int rc = cpk_linsys_factor_unchecked(S->ls, H); /* H's pattern was checked when built */
  if (delta > 0.0)
    for (size_t j = 0; j < S->n; j++) H->x[S->diag[j]] = S->dsave[j];
  if (rc == CPK_ENOMEM) return rc;
  if (rc) return 0;
  for (size_t i = 0; i < S->n; i++) S->dir[i] = -S->phi[i];
  rc = cpk_linsys_solve(S->ls, S->dir, 0);
  if (rc == CPK_ENOMEM) return rc;
  return !rc && isfinite(newton_norm_inf(S->dir, S->n));
}

/*
 * The Newton direction, or the first regularized one that descends: slope is
 * the merit's directional derivative phi . H dir. Returns 1 with slope set,
 * 0 when no shift gave a descent direction, or CPK_ENOMEM.
 */
static int newton_direction(nsn_state *S, double *slope)
{
  /* H is scale-free (rho ~ 1/W): so is delta, from the merit's decrease since the start */
  double base = fmin(REGULARIZE_MAX_BASE, fmax(1e-12, sqrt(S->merit / S->merit0)));
  nsn_hmul(S, S->phi, S->grad, 1);
  double gn = sqrt(newton_dot(S->grad, S->grad, S->n));
  /* After a singular H, start shifted: delta ~ |Phi| keeps fast local convergence (Yamashita-Fukushima). */
  for (int k = S->was_singular; k < MAX_REGULARIZE; k++) {
    double delta = k == 0 ? 0.0 : base * pow(10.0, k - 1);
    S->regularizations += k > 0;
    int ok = solve_shifted(S, delta);
    if (ok < 0 || ok > 1) return ok;
    if (k == 0) S->was_singular = !ok;
    if (!ok) continue;
    *slope = newton_dot(S->grad, S->dir, S->n); /* phi . H dir = (H^T phi) . dir: no product */
    double d2 = newton_dot(S->dir, S->dir, S->n);
    if (isfinite(*slope) && *slope < 0.0 && *slope <= -DESCENT_COS * gn * sqrt(d2))
      return 1;
  }
  return 0;
}

/* dir = t g, g = -H^T phi the steepest descent, t minimizing |phi + t H g| (H as linearized). */
static int gradient_direction(nsn_state *S, double *slope)
{
  nsn_hmul(S, S->phi, S->dir, 1);
  for (size_t i = 0; i < S->n; i++) S->dir[i] = -S->dir[i];
  nsn_hmul(S, S->dir, S->hd, 0);
  double g2 = newton_dot(S->dir, S->dir, S->n), hg2 = newton_dot(S->hd, S->hd, S->n);
  if (!(g2 > 0.0) || !(hg2 > 0.0) || !isfinite(g2 / hg2)) return 0;
  double t = g2 / hg2;
  for (size_t i = 0; i < S->n; i++) S->dir[i] *= t;
  *slope = -t * g2;
  return 1;
}

/* ---- line search --------------------------------------------------------------- */

static double reference_merit(const nsn_state *S)
{
  double ref = S->merit;
  for (int k = 0; k < S->nhist; k++) ref = fmax(ref, S->hist[k]);
  return ref;
}

static void remember_merit(nsn_state *S)
{
  if (S->nhist < S->hist_cap) S->hist[S->nhist++] = S->merit;
  else S->hist[S->iter % S->hist_cap] = S->merit;
}

/*
 * Backtrack from t = 1 along dir (u is affine in r: u(r + t dir) = u + t W dir)
 * until the non-monotone Armijo test holds; the trial becomes the current point, its u and
 * phi included (a fresh W r + q and Phi were a tenth of a tripod step's solve), with u
 * recomputed every U_REFRESH accepted steps; iterate() recomputes u before it claims a
 * solution.
 */
static int line_search(nsn_state *S, const cpk_problem *p, double slope)
{
  double ref = reference_merit(S), t = 1.0;
  double dn = newton_norm_inf(S->dir, S->n), rn = newton_norm_inf(S->r, S->n);
  cpk_matrix_mv(p->M, S->dir, S->wd, 0);
  for (int k = 0; k < MAX_BACKTRACKS; k++) {
    for (size_t i = 0; i < S->n; i++) {
      S->rt[i] = S->r[i] + t * S->dir[i];
      S->ut[i] = S->u[i] + t * S->wd[i];
    }
    double mt = nsn_phi(S, p, S->rt, S->ut, S->phit);
    S->evaluations++;
    if (mt <= ref + ARMIJO_SIGMA * t * slope) {
      swap_ptr(&S->r, &S->rt);
      if (++S->u_age >= U_REFRESH) {
        evaluate(S, p);
        return 1;
      }
      swap_ptr(&S->u, &S->ut);
      swap_ptr(&S->phi, &S->phit);
      S->merit = mt;
      S->u_exact = 0;
      return 1;
    }
    t *= ARMIJO_BETA;
    S->backtracks++;
    if (t * dn <= 1e-16 * (1.0 + rn)) break;
  }
  return 0;
}

/* One step: Newton (regularized if need be), else the scaled gradient. */
static int step(nsn_state *S, const cpk_problem *p)
{
  double slope = 0.0;
  nsn_linearize(S, p);
  nsn_assemble(S);
  int ok = newton_direction(S, &slope);
  if (ok > 1) return ok;
  if (ok == 1 && line_search(S, p, slope)) return STEP_TAKEN;
  if (gradient_direction(S, &slope) && line_search(S, p, slope)) {
    S->gradient_steps++;
    return STEP_TAKEN;
  }
  return STEP_FAILED;
}

/* ---- restart from nsgs ---------------------------------------------------------- */

/*
 * Run the registered "nsgs" for a bounded number of sweeps from r and take
 * its answer if its residual is smaller: *moved = 1 then. Nothing happens
 * without nsgs, when switched off, out of time or out of restarts.
 * Returns an error code (CPK_ENOMEM) only when the call failed.
 */
static int restart(nsn_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                   double *res, int *moved)
{
  const cpk_solver_type *T = cpk_solver_find("nsgs");
  *moved = 0;
  if (!T || !s->nsn.restart || S->restarts >= MAX_RESTARTS) return CPK_OK;
  cpk_settings ss = *s;
  ss.z0 = S->r;
  ss.max_iter = s->nsn.restart_sweeps > 0 ? s->nsn.restart_sweeps : CPK_DEFAULT_NSN_RESTART_SWEEPS;
  ss.callback = NULL;
  ss.verbose = 0;
  ss.nsn.restart = 0; /* never nested, whatever the restart solver runs */
  ss.nsgs.polish = 0; /* nor polished by nsn in turn */
  if (!cpk_monitor_nested_limit(mon, &ss.time_limit)) return CPK_OK; /* alike on every rank */
  cpk_solver *gs = NULL;
  cpk_result *rr = NULL;
  int rc = cpk_result_alloc(S->n, &rr);
  if (!rc) rc = cpk_solver_alloc(T, p, &ss, &gs, NULL);
  if (!rc) rc = cpk_solver_solve(gs, rr, NULL);
  if (!rc) {
    S->restarts++;
    S->restart_sweeps += rr->iterations;
    if (rr->residual < *res) {
      memcpy(S->r, rr->z, S->n * sizeof *S->r);
      evaluate(S, p);
      *res = residual(S, p);
      *moved = 1;
    }
  }
  cpk_solver_free(gs);
  cpk_result_free(rr);
  return rc == CPK_ENOMEM ? rc : CPK_OK;
}

/* ---- the loop ------------------------------------------------------------------ */

static void set_status(cpk_result *r, cpk_status st, const char *what, double res, double merit)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s (residual %.3g, Alart-Curnier merit %.3g)", what,
           res, merit);
}

/* The best point so far (by the cone residual) is what a failed solve returns. */
static void keep_best(nsn_state *S, double res)
{
  if (!(res < S->res_best)) return;
  S->res_best = res;
  memcpy(S->rbest, S->r, S->n * sizeof *S->r);
}

/* 1 when the best merit has not halved over the last STALL_WINDOW iterations. */
static int stalled(nsn_state *S)
{
  if (S->merit < STALL_FACTOR * S->window_merit) {
    S->window_merit = S->merit;
    S->window_start = S->iter;
    return 0;
  }
  return S->iter - S->window_start >= STALL_WINDOW;
}

/* After a restart (or at the start): forget the merit history and the stall window. */
static void reset_progress(nsn_state *S)
{
  S->nhist = 0;
  S->window_merit = S->merit;
  S->window_start = S->iter;
}

/*
 * Progress stopped (line search failed or the merit stalled). A non-monotone
 * search can cycle between active sets: the first remedy is a monotone search
 * from the best point so far; then restarts; else stop (*done).
 */
static int stuck(nsn_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                 double *res, cpk_result *r, const char *why, int *done)
{
  if (S->hist_cap > 1) {
    S->hist_cap = 1;
    S->monotone_switch = 1;
    memcpy(S->r, S->rbest, S->n * sizeof *S->r);
    evaluate(S, p);
    *res = S->res_best;
    reset_progress(S);
    *done = 0;
    return CPK_OK;
  }
  int moved = 0, rc = restart(S, p, s, mon, res, &moved);
  *done = !moved;
  if (rc) return rc;
  if (moved) {
    reset_progress(S);
    keep_best(S, *res);
  } else {
    set_status(r, CPK_STATUS_STALLED, why, *res, S->merit);
  }
  return CPK_OK;
}

static int iterate(nsn_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                   cpk_result *r)
{
  double tol = cpk_problem_tolerance(p, s->tol), res = residual(S, p);
  keep_best(S, res);
  reset_progress(S);
  while (!(res <= tol)) {
    int stop = cpk_monitor_log(mon, S->iter, res, S->merit, NAN, NAN, S->r), done = 0;
    if (stop) {
      set_status(r, (cpk_status)stop, "stopped", res, S->merit);
      return CPK_OK;
    }
    remember_merit(S);
    int rc = step(S, p);
    if (rc > 0) return rc;
    if (rc == STEP_TAKEN) {
      S->iter++;
      res = residual(S, p);
      if (res <= tol && !S->u_exact) { /* claim convergence on u = W r + q, not u + t W dir */
        refresh_u(S, p);
        res = residual(S, p);
        if (!(res <= tol)) evaluate(S, p); /* phi and the merit at the exact u, to go on */
      }
      keep_best(S, res);
      if (res <= tol || !stalled(S)) continue;
    }
    rc = stuck(S, p, s, mon, &res, r,
               rc == STEP_TAKEN ? "the merit stopped decreasing" : "line search failed", &done);
    if (rc || done) return rc;
  }
  r->status = CPK_STATUS_SOLVED;
  return CPK_OK;
}

static void fill_stats(const nsn_state *S, const cpk_linsys_stats *ls0, const cpk_problem *p,
                       cpk_result *r)
{
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(S->ls, &ls);
  double fcm = S->fc_merit_at == S->evaluations ? S->fc_merit : cpk_fc_merit(p, r->z, S->u);
  const cpk_stat list[] = {
      {"factorizations", (double)(ls.factorizations - ls0->factorizations)},
      {"symbolic_analyses", (double)(ls.symbolic - ls0->symbolic)},
      {"factor_time_s", ls.factor_time_s - ls0->factor_time_s},
      {"nnz_factors", ls.nnz_factors},
      {"sparse_linsys", ls.sparse},
      {"function_evaluations", (double)S->evaluations},
      {"linesearch_backtracks", (double)S->backtracks},
      {"regularizations", (double)S->regularizations},
      {"gradient_steps", (double)S->gradient_steps},
      {"monotone_switch", (double)S->monotone_switch},
      {"restarts", (double)S->restarts},
      {"restart_sweeps", (double)S->restart_sweeps},
      {"merit", S->merit},
      {"fclib_merit", fcm}};
  cpk_result_set_stats(r, list, sizeof list / sizeof list[0]);
}

/*
 * r <- z0 (or 0), evaluated; returns the merit the shifts are scaled by (> 0): the larger
 * of the merits at z0 and at 0. With z0's alone, a warm start near the answer (nsgs's
 * finish, a time step's) would pin the shift at its cap 1e-2 while |Phi| is already small:
 * on the singular W of a pile of spheres Newton then converged linearly, by about 12 % an
 * iteration at 3001 spheres and more slowly with more (tests/t_pile_cold.c).
 */
static double start_scale(nsn_state *S, const cpk_problem *p, const double *z0)
{
  memset(S->r, 0, S->n * sizeof *S->r);
  evaluate(S, p);
  double at_zero = S->merit;
  if (z0) {
    memcpy(S->r, z0, S->n * sizeof *S->r);
    evaluate(S, p);
  }
  double m0 = S->merit; /* an overflowed merit at 0 (|q| near 1e154) must not turn the shift off */
  if (isfinite(at_zero) && at_zero > m0) m0 = at_zero;
  return m0 > 1e-300 ? m0 : 1e-300;
}

static int nsn_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  nsn_state *S = vs;
  cpk_linsys_stats ls0;
  S->W = S->Wown ? S->Wown : p->M->csc; /* the problem's CSC is updated in place */
  if (resolve_changed(&S->seen, p) & RESOLVE_VALUES) { /* W's values changed: W and rho follow */
    if (S->Wown) resolve_refresh_jacobian(S->Wown, p);
    nsn_choose_rho(S, s->nsn.rho);
  }
  resolve_seen_set(&S->seen, p);
  cpk_linsys_get_stats(S->ls, &ls0);
  S->iter = S->evaluations = S->backtracks = S->regularizations = S->gradient_steps = 0;
  S->restarts = S->restart_sweeps = 0;
  S->fc_merit_at = -1;
  S->res_best = INFINITY;
  S->was_singular = 0;
  S->hist_cap = S->hist_cap0;
  S->monotone_switch = 0;
  S->merit0 = start_scale(S, p, s->z0);
  int rc = iterate(S, p, s, mon, r);
  if (r->status != CPK_STATUS_SOLVED && S->res_best < residual(S, p)) {
    memcpy(S->r, S->rbest, S->n * sizeof *S->r);
    evaluate(S, p);
  }
  r->iterations = S->iter;
  memcpy(r->z, S->r, S->n * sizeof *r->z);
  fill_stats(S, &ls0, p, r);
  return rc;
}

static const cpk_solver_type nsn_type = {
    "nsn",
    "semismooth Newton on the Alart-Curnier function (friction cone), sparse, with restarts from "
    "nsgs",
    CPK_KIND_FRICTION_CONE,
    nsn_default_max_iter,
    nsn_alloc,
    nsn_solve,
    nsn_free};

const cpk_solver_type *cpk_solver_nsn = &nsn_type;
