/* fcprox.c: the "fcprox" solver: a proximal-point outer loop around nsn for friction-cone problems whose W is singular (redundant contacts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "monitor.h"
#include "fc_shift.h"

/*
 * With several contact points per pair of touching faces, W = H M^-1 H^T has a
 * large null space (rank 6 per body at most): the forces are not unique, the
 * Alart-Curnier Newton matrices are singular near the solution set, and nsn
 * stalls (the 900-brick wall, doc/petsc.md). The proximal point method
 * (Rockafellar 1976; Siconos's FC3D_PROXIMAL) solves instead a sequence of
 * problems with W + rho I and q - rho r_k, whose matrices are nonsingular, each
 * from and around the last answer r_k: a fixed point r = r_k is a solution of
 * the original problem (the rho terms cancel in u). Each proximal problem is
 * solved by nsn, on a copy of the problem bound once (symbolic analysis once;
 * each solve updates q, and W's diagonal when rho changes). rho starts at
 * sigma max W_ii; it falls by RHO_FACTOR when an outer step reduced the residual
 * less than SLOW_RATE after a fast nsn solve (the step is then too timid), and
 * rises by RHO_FACTOR when nsn was slow or did not converge (adapt_rho). The
 * answer is judged on the original problem only.
 */

/* The outer loop stops as stalled when the best residual did not fall by half in this many steps. */
#define STALL_OUTER 12
/* rho stays within [RHO_MIN_REL, RHO_MAX_REL] max W_ii. */
#define RHO_MIN_REL 1e-12
#define RHO_MAX_REL 1e4
/* Each proximal problem is solved to INNER_RATIO times the current residual (not below the tolerance). */
#define INNER_RATIO 0.1
#define DEFAULT_MAX_ITER 2000
/* rho moves by this factor: down after a fast inner solve (at most INNER_EASY Newton iterations;
   by its square after a single one) whose outer step reduced the residual by less than
   SLOW_RATE, up after a slow one (more than INNER_HARD) or a failed one. */
#define RHO_FACTOR 3.0
#define INNER_EASY 4
#define INNER_HARD 12
#define SLOW_RATE 0.25

typedef struct fcprox_state {
  size_t n;
  fc_shift *shift;       /* W + rho I on a fixed pattern */
  cpk_problem *prox;     /* the proximal problem: W + rho I, q - rho r_k */
  const cpk_solver_type *inner;
  void *inner_state;
  cpk_settings set;      /* the inner solver's settings (z0 = rk) */
  cpk_result *res;       /* the inner solver's result */
  double *rk, *qs, *u, *rbest;
  double dscale;         /* max W_ii (> 0) */
  long outer, inner_iter, inner_failures, rho_changes;
  double rho;
} fcprox_state;

static long fcprox_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return DEFAULT_MAX_ITER;
}

static void fcprox_free(void *vs)
{
  fcprox_state *F = vs;
  if (!F) return;
  if (F->inner_state) F->inner->free(F->inner_state);
  cpk_result_free(F->res);
  cpk_problem_free(F->prox);
  fc_shift_free(F->shift);
  free(F->rk);
  free(F->qs);
  free(F->u);
  free(F->rbest);
  free(F);
}

static int alloc_arrays(fcprox_state *F)
{
  double **v[] = {&F->rk, &F->qs, &F->u, &F->rbest};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (!(*v[k] = cpk_calloc_array(F->n, sizeof(double)))) return CPK_ENOMEM;
  return CPK_OK;
}

/* The proximal problem (rho 0 for now) and nsn bound to it. */
static int bind_inner(fcprox_state *F, const cpk_problem *p, cpk_error *err)
{
  cpk_matrix *M = NULL;
  int rc = cpk_matrix_from_csc(F->shift->P, &M);
  if (!rc) rc = cpk_problem_alloc_friction_cone(M, p->q, p->cone_dim, p->mu, &F->prox);
  cpk_matrix_free(M);
  if (!rc && p->row_scale) rc = cpk_problem_set_row_scale(F->prox, p->row_scale);
  if (!rc) rc = cpk_result_alloc(F->n, &F->res);
  if (rc) return rc;
  F->set.nsn.restart = 0; /* the proximal problems are regular: Newton needs no nsgs rescue */
  return F->inner->alloc(&F->inner_state, F->prox, &F->set, err);
}

static int fcprox_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *out = NULL;
  if (!(s->fcprox.sigma > 0.0) || !isfinite(s->fcprox.sigma) || s->fcprox.inner_max_iter <= 0)
    return cpk_error_set(err, CPK_EINVAL,
                         "fcprox: sigma must be finite and > 0 and inner_max_iter > 0 (got %g, %ld)",
                         s->fcprox.sigma, s->fcprox.inner_max_iter);
  const cpk_solver_type *T = cpk_solver_find("nsn");
  if (!T) return cpk_error_set(err, CPK_EUNSUP, "fcprox: the nsn solver is not registered");
  fcprox_state *F = calloc(1, sizeof *F);
  if (!F) return cpk_error_set(err, CPK_ENOMEM, "fcprox: out of memory");
  F->n = p->n;
  F->inner = T;
  F->set = *s;
  int rc = fc_shift_alloc(p, &F->shift);
  if (!rc) rc = alloc_arrays(F);
  if (!rc) rc = bind_inner(F, p, err);
  if (rc) {
    fcprox_free(F);
    return cpk_error_set(err, rc, "fcprox: cannot set up the proximal problem for %zu contacts (%s)",
                         p->nc, cpk_strerror(rc));
  }
  *out = F;
  return CPK_OK;
}

/* ---- the outer loop ------------------------------------------------------------ */

/* The proximal problem's data for rho and rk; values only when rho changed (refactor anyway). */
static int update_prox(fcprox_state *F, const cpk_problem *p, double rho, int values)
{
  int rc = CPK_OK;
  if (values) {
    fc_shift_fill(F->shift, rho);
    rc = cpk_problem_update_matrix_values(F->prox, F->shift->P->x);
  }
  for (size_t i = 0; i < F->n; i++) F->qs[i] = p->q[i] - rho * F->rk[i];
  return rc ? rc : cpk_problem_update_q(F->prox, F->qs);
}

/*
 * nsn on the proximal problem from rk, to an absolute tolerance `target`, as a stage of
 * this solve (same clock and callback, iteration numbers going on after `used`).
 * Returns an error code; *stop a stop status of the whole solve (time, iterations, callback).
 */
static int inner_solve(fcprox_state *F, cpk_monitor *mon, double target, long used, int *stop)
{
  double qmax = 1.0;
  for (size_t i = 0; i < F->n; i++) qmax = fmax(qmax, fabs(F->qs[i]));
  F->set.tol = target / qmax; /* cpk_problem_tolerance scales by max(1, |q|inf) */
  F->set.z0 = F->rk;
  F->set.time_limit = mon->settings->time_limit;
  cpk_monitor inner = *mon;
  inner.settings = &F->set;
  long left = used < mon->max_iter ? mon->max_iter - used : 0;
  inner.max_iter = left < F->set.fcprox.inner_max_iter ? left : F->set.fcprox.inner_max_iter;
  inner.offset += used;
  cpk_result_reset(F->res);
  F->res->solver = F->inner->name;
  *stop = 0;
  int rc = F->inner->solve(F->inner_state, F->prox, &F->set, &inner, F->res);
  F->inner_iter += F->res->iterations;
  if (rc) return rc;
  cpk_status st = F->res->status;
  if (st == CPK_STATUS_TIME_LIMIT) *stop = st;
  if (st == CPK_STATUS_MAX_ITERATIONS && F->inner_iter >= mon->max_iter) *stop = st;
  return CPK_OK;
}

static void set_status(cpk_result *r, cpk_status st, const char *what, double res, double rho)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s (residual %.3g, proximal rho %.3g)", what, res, rho);
}

/*
 * rho for the next proximal problem from this step's outcome (see the top of the file): nsn
 * converges in a few iterations on well-regularized problems and needs many, or fails, as rho
 * approaches 0; so rho is kept where nsn is fast, and only lowered while the outer steps are slow.
 */
static double adapt_rho(fcprox_state *F, double rho, long inner_iter, int converged, double res,
                        double res_old)
{
  double next = rho;
  if (!converged || inner_iter > INNER_HARD) next = rho * RHO_FACTOR;
  else if (inner_iter <= 1 && res > SLOW_RATE * res_old) next = rho / (RHO_FACTOR * RHO_FACTOR);
  else if (inner_iter <= INNER_EASY && res > SLOW_RATE * res_old) next = rho / RHO_FACTOR;
  next = fmin(fmax(next, RHO_MIN_REL * F->dscale), RHO_MAX_REL * F->dscale);
  F->rho_changes += next != rho;
  F->inner_failures += !converged;
  return next;
}

static int outer_loop(fcprox_state *F, const cpk_problem *p, const cpk_settings *s,
                      cpk_monitor *mon, cpk_result *r)
{
  double tol = cpk_problem_tolerance(p, s->tol);
  cpk_problem_eval(p, F->rk, F->u);
  double res = cpk_fc_residual(p, F->rk, F->u), best = res, window = res;
  long window_start = 0;
  int values = 1;
  memcpy(F->rbest, F->rk, F->n * sizeof *F->rk);
  while (!(res <= tol)) {
    double rho = F->rho;
    if (!cpk_monitor_fits(mon, 0.0)) {
      set_status(r, CPK_STATUS_TIME_LIMIT, "time limit", best, rho);
      return CPK_OK;
    }
    int stop = 0, rc = update_prox(F, p, rho, values);
    if (!rc) rc = inner_solve(F, mon, fmax(tol, INNER_RATIO * res), F->inner_iter, &stop);
    if (rc) return rc;
    F->outer++;
    memcpy(F->rk, F->res->z, F->n * sizeof *F->rk); /* the proximal step, converged or not */
    cpk_problem_eval(p, F->rk, F->u);
    double res_old = res;
    res = cpk_fc_residual(p, F->rk, F->u);
    if (res < best) {
      best = res;
      memcpy(F->rbest, F->rk, F->n * sizeof *F->rk);
    }
    if (stop) {
      set_status(r, (cpk_status)stop, "stopped", best, rho);
      return CPK_OK;
    }
    if (best < 0.5 * window) {
      window = best;
      window_start = F->outer;
    } else if (F->outer - window_start >= STALL_OUTER) {
      set_status(r, CPK_STATUS_STALLED, "the proximal steps stopped reducing the residual", best, rho);
      return CPK_OK;
    }
    F->rho = adapt_rho(F, rho, F->res->iterations, F->res->status == CPK_STATUS_SOLVED, res, res_old);
    values = F->rho != rho;
  }
  r->status = CPK_STATUS_SOLVED;
  return CPK_OK;
}

static void fill_stats(const fcprox_state *F, cpk_result *r)
{
  cpk_result_set_stat(r, "outer_iterations", (double)F->outer);
  cpk_result_set_stat(r, "inner_failures", (double)F->inner_failures);
  cpk_result_set_stat(r, "rho_changes", (double)F->rho_changes);
  cpk_result_set_stat(r, "rho", F->rho);
  cpk_result_set_stat(r, "rho_relative", F->rho / F->dscale);
}

static int fcprox_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                        cpk_result *r)
{
  fcprox_state *F = vs;
  fc_shift_refresh(F->shift, p); /* W's values and mu as the problem has them now */
  int rc = cpk_problem_update_mu(F->prox, p->mu);
  if (rc) return rc;
  F->set.verbose = s->verbose;
  F->dscale = fc_shift_diag_max(F->shift);
  F->rho = s->fcprox.sigma * F->dscale;
  F->outer = F->inner_iter = F->inner_failures = F->rho_changes = 0;
  if (s->z0) memcpy(F->rk, s->z0, F->n * sizeof *F->rk);
  else memset(F->rk, 0, F->n * sizeof *F->rk);
  rc = outer_loop(F, p, s, mon, r);
  if (rc) return rc;
  if (r->status == CPK_STATUS_SOLVED) memcpy(r->z, F->rk, F->n * sizeof *r->z);
  else memcpy(r->z, F->rbest, F->n * sizeof *r->z);
  r->iterations = F->inner_iter;
  fill_stats(F, r);
  return CPK_OK;
}

static const cpk_solver_type fcprox_type = {
    "fcprox",
    "proximal point around nsn (friction cone): W + rho I, for singular W (redundant contacts)",
    CPK_KIND_FRICTION_CONE,
    fcprox_default_max_iter,
    fcprox_alloc,
    fcprox_solve,
    fcprox_free};

const cpk_solver_type *cpk_solver_fcprox = &fcprox_type;
