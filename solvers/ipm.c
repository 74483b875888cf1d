/* ipm.c: the interior-point solver type: workspace, starting and warm-start points, choice of method, statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "ipm.h"

/* Distance from the bounds, and size of the multipliers, of a cold start. */
#define IPM_START_SLACK 1.0
#define IPM_START_MULT 1.0
/* Warm start: z0 is moved at least this far (relative to max(1, |z0|_inf)) inside the bounds. */
#define IPM_WARM_MARGIN 1e-2

/* Nonlinear problems: potential reduction converges linearly on the large FCLIB contact
 * MCPs (Capsules-i125-1213, 286 contacts: 902 iterations to 1e-8); a run that stops
 * progressing ends earlier by the stall test. */
static long ipm_default_max_iter(const cpk_problem *p)
{
  return p->kind == CPK_KIND_NONLINEAR_MCP ? 2000 : 300;
}

/* The n-vectors of the workspace, for allocation and release in one place. */
#define IPM_NVECS 28
static void state_vectors(ipm_state *S, double **v[IPM_NVECS])
{
  double **all[IPM_NVECS] = {&S->z,   &S->wl,  &S->wu,  &S->f,   &S->dz,    &S->dwl, &S->dwu, &S->az,
                             &S->awl, &S->awu, &S->zt,  &S->wlt, &S->wut,   &S->ft,  &S->zbest, &S->tl,
                             &S->tu,  &S->D,   &S->rhs, &S->res, &S->tmp,   &S->sc,  &S->y,   &S->g,
                             &S->zw,  &S->wlw, &S->wuw, &S->fw};
  memcpy(v, all, sizeof all);
}

static void ipm_free(void *vs)
{
  ipm_state *S = vs;
  if (!S) return;
  double **vecs[IPM_NVECS];
  state_vectors(S, vecs);
  for (size_t v = 0; v < IPM_NVECS; v++) free(*vecs[v]);
  free(S->type);
  free(S->pinned);
  free(S->act);
  free(S->last_act);
  free(S->jmap);
  free(S->dpos);
  cpk_csc_free(S->Jown);
  cpk_csc_free(S->K);
  cpk_linsys_free(S->ls);
  free(S);
}

static int bound_type(const cpk_problem *p, size_t i)
{
  int has_l = isfinite(p->lower[i]), has_u = isfinite(p->upper[i]);
  if (has_l && has_u) return p->lower[i] == p->upper[i] ? IPM_FIXED : IPM_BOX;
  return has_l ? IPM_LOWER : (has_u ? IPM_UPPER : IPM_FREE);
}

static int alloc_arrays(ipm_state *S, size_t n)
{
  double **vecs[IPM_NVECS];
  int rc = CPK_OK;
  state_vectors(S, vecs);
  for (size_t v = 0; v < IPM_NVECS; v++)
    if (!(*vecs[v] = cpk_calloc_array(n, sizeof(double)))) rc = CPK_ENOMEM;
  unsigned char **flags[] = {&S->type, &S->pinned, &S->act, &S->last_act};
  for (size_t v = 0; v < sizeof flags / sizeof flags[0]; v++)
    if (!(*flags[v] = cpk_calloc_array(n, 1))) rc = CPK_ENOMEM;
  return rc;
}

static const cpk_linsys_type *choose_linsys(const cpk_problem *p, const cpk_settings *s)
{
  if (s->linsys) return s->linsys;
  if (p->n <= 100 || (p->M && p->M->format == CPK_MATRIX_DENSE)) return cpk_linsys_lapack;
  return cpk_linsys_umfpack;
}

/* J: M itself (sparse), M converted once (dense), or a copy of the Jacobian pattern to fill. */
static int setup_jacobian(ipm_state *S, const cpk_problem *p)
{
  if (p->kind == CPK_KIND_NONLINEAR_MCP) {
    int rc = cpk_csc_copy(p->jac_pattern, &S->Jown);
    S->J = S->Jown;
    return rc;
  }
  if (p->M->format == CPK_MATRIX_CSC) {
    S->J = p->M->csc;
    return CPK_OK;
  }
  int rc = resolve_affine_jacobian(p, &S->Jown); /* full pattern: updates may fill any entry */
  S->J = S->Jown;
  return rc;
}

/* Bound types (O(n)) and, after an update of M's values, the dense J: a re-solve without allocation. */
static void refresh_problem(ipm_state *S, const cpk_problem *p)
{
  S->m = 0;
  for (size_t i = 0; i < S->n; i++) {
    S->type[i] = (unsigned char)bound_type(p, i);
    S->pinned[i] = S->type[i] == IPM_FIXED;
    S->m += IPM_HAS_L(S->type[i]) + IPM_HAS_U(S->type[i]);
  }
  if (p->kind != CPK_KIND_NONLINEAR_MCP && S->Jown && (resolve_changed(&S->seen, p) & RESOLVE_VALUES))
    resolve_refresh_jacobian(S->Jown, p);
  resolve_seen_set(&S->seen, p);
}

static int ipm_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  size_t n = p->n;
  *out = NULL;
  int nonlinear = p->kind == CPK_KIND_NONLINEAR_MCP;
  if (nonlinear && s->ipm.method == CPK_IPM_PATH_FOLLOWING)
    return cpk_error_set(err, CPK_EUNSUP,
                         "ipm: path following is for affine problems; use the potential-reduction method");
  ipm_state *S = calloc(1, sizeof *S);
  if (!S) return CPK_ENOMEM;
  S->n = n;
  S->method = (nonlinear || s->ipm.method == CPK_IPM_POTENTIAL) ? IPM_RUN_POTENTIAL : IPM_RUN_PATH;
  int rc = alloc_arrays(S, n);
  if (!rc) rc = setup_jacobian(S, p);
  if (!rc) refresh_problem(S, p);
  if (!rc) rc = ipm_build_pattern(S);
  if (!rc) rc = cpk_linsys_alloc(choose_linsys(p, s), n, &S->ls);
  if (rc) {
    ipm_free(S);
    return cpk_error_set(err, rc, "ipm: cannot set up the workspace for n = %zu", n);
  }
  *out = S;
  return CPK_OK;
}

/* ---- starting point ------------------------------------------------------- */

/* z strictly inside the bounds: at least `margin` from a finite bound, mid-box when the box is narrow. */
static double interior(const cpk_problem *p, size_t i, int type, double z, double margin)
{
  double l = p->lower[i], u = p->upper[i];
  switch (type) {
  case IPM_LOWER: return fmax(z, l + margin);
  case IPM_UPPER: return fmin(z, u - margin);
  case IPM_BOX:
    if (u - l <= 2.0 * margin) return 0.5 * (l + u);
    return fmin(fmax(z, l + margin), u - margin);
  case IPM_FIXED: return l;
  default: return z;
  }
}

/* Multipliers from f = F(z): the part of f each bound can absorb, plus a positive floor. */
static void start_multipliers(ipm_state *S, double floor)
{
  for (size_t i = 0; i < S->n; i++) {
    int t = S->type[i];
    double f = S->f[i];
    S->wl[i] = S->wu[i] = 0.0;
    if (t == IPM_BOX) {
      S->wl[i] = fmax(f, 0.0) + floor;
      S->wu[i] = fmax(-f, 0.0) + floor;
    } else if (t == IPM_LOWER) {
      S->wl[i] = fmax(f, 0.0) + floor;
    } else if (t == IPM_UPPER) {
      S->wu[i] = fmax(-f, 0.0) + floor;
    }
  }
}

static int place(ipm_state *S, const cpk_problem *p, const cpk_settings *s, double margin, double floor)
{
  for (size_t i = 0; i < S->n; i++)
    S->z[i] = interior(p, i, S->type[i], s->z0 ? s->z0[i] : 0.0, margin);
  int rc = ipm_eval(S, p, S->z, S->f);
  if (!rc) start_multipliers(S, floor);
  return rc;
}

/*
 * Cold start: z IPM_START_SLACK inside its finite bounds (0 if free,
 * mid-box if the box is narrow), multipliers as in start_multipliers. Then,
 * as infeasible methods need (Wright 1997, ch. 6: the start should dominate
 * the solution), slacks and multiplier floors are raised to
 * theta = sqrt(|r0|_inf) when the residual r0 = F - wl + wu of that first
 * point is large, so that complementarity (~theta^2) balances r0.
 * Warm start: z0 moved inside by a margin relative to its size, the same
 * margin as multiplier floor (raising it to theta as for the cold start made
 * Kojima-Shindo from (0, 1, 1, 0) take 500 iterations instead of 9; a poor
 * warm start is handled by the cold restart instead). A warm start where F
 * fails becomes the cold start.
 */
static int start_point(ipm_state *S, const cpk_problem *p, const cpk_settings *s)
{
  if (s->z0) {
    double zmax = 1.0;
    for (size_t i = 0; i < S->n; i++) zmax = fmax(zmax, fabs(s->z0[i]));
    int rc = place(S, p, s, IPM_WARM_MARGIN * zmax, IPM_WARM_MARGIN * zmax);
    if (rc != CPK_EBADFUNC) return rc;
    cpk_settings cold = *s;
    cold.z0 = NULL;
    return start_point(S, p, &cold);
  }
  int rc = place(S, p, s, IPM_START_SLACK, IPM_START_MULT);
  double theta = sqrt(ipm_infeasibility(S, S->f, S->wl, S->wu));
  if (rc || S->m == 0 || !(theta > 1.0)) return rc;
  return place(S, p, s, theta * IPM_START_SLACK, theta * IPM_START_MULT);
}

/* ---- shared pieces -------------------------------------------------------- */

void ipm_note(ipm_state *S, const cpk_problem *p, double *res)
{
  *res = cpk_natural_residual(p, S->z, S->f);
  if (*res < S->best_res) {
    S->best_res = *res;
    memcpy(S->zbest, S->z, S->n * sizeof *S->z);
    S->crossed = 0;
  }
}

int ipm_evaluate(ipm_state *S, const cpk_problem *p, double *res)
{
  int rc = ipm_eval(S, p, S->z, S->f);
  if (!rc) ipm_note(S, p, res);
  return rc;
}

/* ---- the solve ------------------------------------------------------------ */

static void fill_stats(const ipm_state *S, const cpk_problem *p, cpk_result *r)
{
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(S->ls, &ls);
  r->iterations = S->iter + S->polish_iter;
  cpk_result_set_stat(r, "method", S->running == IPM_RUN_PATH ? 1.0 : 2.0);
  cpk_result_set_stat(r, "fallback", S->fallback);
  cpk_result_set_stat(r, "factorizations", (double)ls.factorizations);
  cpk_result_set_stat(r, "symbolic_analyses", (double)ls.symbolic);
  cpk_result_set_stat(r, "factor_time_s", ls.factor_time_s);
  cpk_result_set_stat(r, "nnz_factors", ls.nnz_factors);
  cpk_result_set_stat(r, "sparse_linsys", ls.sparse); /* the backend says, whatever its name */
  cpk_result_set_stat(r, "mu", S->mu);
  cpk_result_set_stat(r, "last_step", S->step);
  cpk_result_set_stat(r, "sigma", S->sigma);
  cpk_result_set_stat(r, "regularizations", (double)S->regularizations);
  cpk_result_set_stat(r, "crossover", S->crossed);
  cpk_result_set_stat(r, "crossover_attempts", (double)S->crossover_tries);
  cpk_result_set_stat(r, "warm_start", S->warm);
  if (p->kind == CPK_KIND_NONLINEAR_MCP) {
    cpk_result_set_stat(r, "polish", S->polished);
    cpk_result_set_stat(r, "polish_iterations", (double)S->polish_iter);
  }
  cpk_result_set_stat(r, "function_evaluations", (double)S->nf);
  if (p->kind == CPK_KIND_NONLINEAR_MCP) cpk_result_set_stat(r, "jacobian_evaluations", (double)S->nj);
  if (S->running == IPM_RUN_POTENTIAL) {
    cpk_result_set_stat(r, "backtracks", (double)S->backtracks);
    cpk_result_set_stat(r, "watchdog_steps", (double)S->wd_steps);
    cpk_result_set_stat(r, "watchdog_returns", (double)S->wd_returns);
  }
}

/* The passing warm start in S->z (residual res) when it passes by less than
 * IPM_FINISH_MARGIN: the polish from it for a nonlinear problem, the crossover's
 * step on its active set for an affine one (on the redundant contacts of issue
 * 14's pushed box the crossover's step spread the friction unevenly, a yaw of
 * 5e-9 where the polish keeps 6e-12). */
static int finish_warm_point(ipm_state *S, const cpk_problem *p, const cpk_settings *s,
                             cpk_monitor *mon, double res)
{
  int solved = 0;
  if (!s->ipm.crossover || res <= IPM_FINISH_MARGIN * S->tol) return CPK_OK;
  S->best_res = res;
  memcpy(S->zbest, S->z, S->n * sizeof *S->zbest);
  if (p->kind == CPK_KIND_NONLINEAR_MCP) return ipm_polish_from_best(S, p, s, mon, &solved);
  start_multipliers(S, 0.0);
  int rc = ipm_crossover(S, p, 1);
  return rc < 0 ? -rc : CPK_OK;
}

/* A warm start that already solves, or whose active set does after one Newton step, ends the solve. */
static int try_warm_point(ipm_state *S, const cpk_problem *p, const cpk_settings *s,
                          cpk_monitor *mon, int *done)
{
  double res;
  *done = 0;
  for (size_t i = 0; i < S->n; i++) S->z[i] = fmin(fmax(s->z0[i], p->lower[i]), p->upper[i]);
  int rc = ipm_evaluate(S, p, &res);
  if (!rc && res <= S->tol) rc = finish_warm_point(S, p, s, mon, res);
  if (rc || res <= S->tol) {
    *done = !rc;
    return rc == CPK_EBADFUNC ? CPK_OK : rc;
  }
  if (!s->ipm.crossover) return CPK_OK;
  start_multipliers(S, 0.0); /* s = z - l against w = F+ decides the active set */
  rc = ipm_crossover(S, p, 1);
  *done = rc == 1;
  return rc < 0 ? -rc : CPK_OK;
}

/*
 * Path following has no merit function: on a problem that is not monotone it
 * can wander and stall. Then (automatic choice only, and not when the monitor
 * stopped it) the potential-reduction method, whose line search on the
 * potential does not let it wander, starts again from the same start point.
 */
static int run_methods(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  int rc = ipm_iterate(S, p, s, mon, r, S->method == IPM_RUN_PATH ? ipm_pc_step : ipm_pr_step);
  if (rc || S->method != IPM_RUN_PATH || s->ipm.method != CPK_IPM_AUTO ||
      r->status != CPK_STATUS_STALLED || S->stopped)
    return rc;
  S->fallback = 1;
  memset(S->last_act, 0xff, S->n);
  rc = start_point(S, p, s);
  if (!rc) rc = ipm_iterate(S, p, s, mon, r, ipm_pr_step);
  if (!rc && r->status != CPK_STATUS_SOLVED) {
    char why[sizeof r->message];
    snprintf(why, sizeof why, "%s", r->message);
    snprintf(r->message, sizeof r->message, "path following stalled; potential reduction: %.200s", why);
  }
  return rc;
}

/*
 * A warm-started run that stalled starts again from the cold start (z0
 * ignored) before giving up: a poor warm start must not make ipm worse than
 * no start. The best point of both runs is kept (zbest); the iteration limit
 * counts both.
 */
static int cold_restart(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                        cpk_result *r)
{
  cpk_settings cold = *s;
  char why[sizeof r->message];
  snprintf(why, sizeof why, "%s", r->message);
  cold.z0 = NULL;
  memset(S->last_act, 0xff, S->n);
  S->fallback = 0;
  int rc = start_point(S, p, &cold);
  if (!rc) rc = run_methods(S, p, &cold, mon, r);
  if (rc == CPK_EBADFUNC) rc = CPK_OK; /* the warm run's status stands */
  if (!rc && r->status != CPK_STATUS_SOLVED) {
    char now[sizeof r->message];
    snprintf(now, sizeof now, "%s", r->message);
    snprintf(r->message, sizeof r->message, "from the warm start: %.100s; from the cold start: %.100s",
             why, now);
  }
  return rc;
}

static int ipm_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  ipm_state *S = vs;
  int done = 0, rc = CPK_OK;
  refresh_problem(S, p);
  S->iter = S->regularizations = S->crossover_tries = S->backtracks = S->nf = S->nj = 0;
  S->crossed = S->fallback = S->polished = 0;
  S->polish_iter = S->wd_steps = S->wd_returns = 0;
  S->polish_tried = 0;
  S->running = S->method;
  S->warm = s->z0 != NULL;
  S->mu = S->step = S->sigma = 0.0;
  S->tol = cpk_problem_tolerance(p, s->tol);
  S->best_res = INFINITY;
  memset(S->last_act, 0xff, S->n);
  if (s->z0) rc = try_warm_point(S, p, s, mon, &done);
  if (!rc && done) r->status = CPK_STATUS_SOLVED;
  if (!rc && !done) rc = start_point(S, p, s);
  if (rc == CPK_EBADFUNC) {
    r->status = CPK_STATUS_STALLED;
    snprintf(r->message, sizeof r->message, "F could not be evaluated at the starting point");
    rc = CPK_OK;
  } else if (!rc && !done) {
    rc = run_methods(S, p, s, mon, r);
    if (!rc && s->z0 && r->status == CPK_STATUS_STALLED && !S->stopped) rc = cold_restart(S, p, s, mon, r);
    if (!rc) rc = ipm_polish(S, p, s, mon, r);
  }
  memcpy(r->z, isfinite(S->best_res) ? S->zbest : S->z, S->n * sizeof *r->z);
  if (!rc) fill_stats(S, p, r);
  return rc;
}

static const cpk_solver_type ipm_type = {
    "ipm",
    "interior point: Mehrotra path following (monotone affine), Wang-Monteiro-Pang potential reduction (NCP/MCP), crossover",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP | CPK_KIND_NONLINEAR_MCP,
    ipm_default_max_iter,
    ipm_alloc,
    ipm_solve,
    ipm_free};

const cpk_solver_type *cpk_solver_ipm = &ipm_type;
