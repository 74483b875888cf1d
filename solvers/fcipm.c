/* fcipm.c: the friction-cone interior-point solver type: reduced unknowns, starting point, the fixed point on the De Saxce term, statuses and statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "fcipm.h"
#include "nsn_finish.h"

/*
 * Outer loop: s_c = mu_c |u_T,c| is frozen, and the primal-dual
 * predictor-corrector iterations (fcipm_newton.c) work on the convex
 * second-order-cone complementarity problem this leaves. s is refreshed
 * from the current iterate at every iteration when the Newton matrix carries
 * its derivative (settings.fcipm.linearize, the default), else whenever the
 * inner problem is solved as well as the fixed point has converged (see
 * refresh_due). The library's cone residual (cpk_fc_residual) is checked at
 * every iterate, and only it decides `solved`.
 */

/*
 * Mehrotra's centering target sigma mu is kept above FCIPM_FLOOR |x|_inf
 * times the last change of s: complementarity is not driven to 0 faster
 * than the fixed point converges, or the iterate would sit on the cones'
 * boundary, unable to follow the next change of s. Once the residual has not
 * fallen by 10% in FCIPM_FLOOR_WINDOW iterations the floor is dropped: it
 * then only slows the end (measured on the FCLIB files, doc/solvers.md).
 */
#define FCIPM_FLOOR 0.03
#define FCIPM_FLOOR_WINDOW 10

/* Iterations without a 10% gain on the best residual before `stalled`. */
#define FCIPM_STALL_WINDOW 40

/* nsn's iterations in the finish when fcipm's own budget is spent (nsgs's finish takes as many). */
#define FCIPM_FINISH_MIN_ITER 50

static long fcipm_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return 500;
}

#define FCIPM_NVECS 13
static void state_vectors(fcipm_state *S, double **v[FCIPM_NVECS])
{
  double **all[FCIPM_NVECS] = {&S->x,  &S->y,   &S->dx, &S->dy,   &S->ax,  &S->ay,    &S->rp,
                               &S->t,  &S->lam, &S->sc, &S->work, &S->res, &S->rscale};
  memcpy(v, all, sizeof all);
}

static void fcipm_free(void *vs)
{
  fcipm_state *S = vs;
  if (!S) return;
  double **vecs[FCIPM_NVECS];
  state_vectors(S, vecs);
  for (size_t v = 0; v < FCIPM_NVECS; v++) free(*vecs[v]);
  double *full[] = {S->r,     S->u,     S->rbest, S->s,  S->snew, S->winv,
                    S->w2inv, S->mval, S->g,     S->rt, S->ut};
  free(S->mrow);
  free(S->lsrc);
  free(S->fmap);
  cpk_csc_free(S->wfix);
  for (size_t v = 0; v < sizeof full / sizeof full[0]; v++) free(full[v]);
  free(S->cstart);
  free(S->csize);
  free(S->ridx);
  free(S->mpos);
  cpk_csc_free(S->K);
  cpk_linsys_free(S->ls);
  nsn_finisher_free(S->finisher);
  free(S);
}

/* Cone sizes and the reduced unknowns: all of a contact with mu > 0, the normal one otherwise. */
static void layout(fcipm_state *S, const cpk_problem *p)
{
  size_t k = 0, d = p->cone_dim;
  for (size_t c = 0; c < S->nc; c++) {
    S->cstart[c] = k;
    S->csize[c] = p->mu[c] > 0.0 ? d : 1;
    for (size_t j = 0; j < S->csize[c]; j++, k++) {
      S->ridx[k] = c * d + j;
      S->rscale[k] = j ? p->mu[c] : 1.0;
    }
  }
  S->nr = k;
}

static int alloc_arrays(fcipm_state *S, const cpk_problem *p)
{
  size_t n = p->n, nc = p->nc;
  double **vecs[FCIPM_NVECS];
  int rc = CPK_OK;
  state_vectors(S, vecs);
  for (size_t v = 0; v < FCIPM_NVECS; v++)
    if (!(*vecs[v] = cpk_calloc_array(n, sizeof(double)))) rc = CPK_ENOMEM;
  double **full[] = {&S->r, &S->u, &S->rbest, &S->g, &S->rt, &S->ut};
  for (size_t v = 0; v < 6; v++)
    if (!(*full[v] = cpk_calloc_array(n, sizeof(double)))) rc = CPK_ENOMEM;
  if (!(S->s = cpk_calloc_array(nc, sizeof(double))) || !(S->snew = cpk_calloc_array(nc, sizeof(double))) ||
      !(S->winv = cpk_calloc_array(nc, FCIPM_BLK * sizeof(double))) ||
      !(S->w2inv = cpk_calloc_array(nc, FCIPM_BLK * sizeof(double))) ||
      !(S->cstart = cpk_calloc_array(nc, sizeof(size_t))) ||
      !(S->csize = cpk_calloc_array(nc, sizeof(size_t))) ||
      !(S->ridx = cpk_calloc_array(n, sizeof(size_t))))
    rc = CPK_ENOMEM;
  return rc;
}

static const cpk_linsys_type *choose_linsys(const cpk_problem *p, const cpk_settings *s)
{
  if (s->linsys) return s->linsys;
  if (p->n <= 100 || p->M->format == CPK_MATRIX_DENSE) return cpk_linsys_lapack;
  return cpk_linsys_umfpack;
}

/*
 * The interior-point theory needs a monotone problem: W's symmetric part
 * positive semidefinite (W itself need not be symmetric: nothing here
 * symmetrizes it, which would change the problem). A negative diagonal entry
 * proves W is not monotone; a full test would cost a factorization, so other
 * non-monotone W are taken and may end `stalled`.
 */
static int check_monotone_diagonal(const cpk_problem *p, cpk_error *err)
{
  for (size_t i = 0; i < p->n; i++) {
    double wii = cpk_matrix_get(p->M, i, i);
    if (wii < 0.0)
      return cpk_error_set(err, CPK_EINVAL,
                           "fcipm: W[%zu,%zu] = %g < 0 (1-based indices): W is not positive semidefinite (not a "
                           "monotone problem), which the interior-point method needs",
                           i + 1, i + 1, wii);
  }
  return CPK_OK;
}

static int fcipm_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *out = NULL;
  int bad = check_monotone_diagonal(p, err);
  if (bad) return bad;
  fcipm_state *S = calloc(1, sizeof *S);
  if (!S) return CPK_ENOMEM;
  S->n = p->n;
  S->nc = p->nc;
  S->dim = p->cone_dim;
  S->linearize = s->fcipm.linearize;
  int rc = p->nc == 0 ? CPK_OK : alloc_arrays(S, p);
  if (!rc && p->nc) {
    layout(S, p);
    rc = fcipm_build_system(S, p);
  }
  if (!rc && p->nc) rc = cpk_linsys_alloc(choose_linsys(p, s), S->nr, &S->ls);
  if (rc) {
    fcipm_free(S);
    return cpk_error_set(err, rc, "fcipm: cannot set up the workspace for %zu contacts", p->nc);
  }
  resolve_seen_set(&S->seen, p);
  *out = S;
  return CPK_OK;
}

/* The contacts with mu = 0 (a cone of size 1) are the ones the workspace was laid out for. */
static int same_layout(const fcipm_state *S, const cpk_problem *p)
{
  for (size_t c = 0; c < S->nc; c++)
    if ((p->mu[c] > 0.0 ? S->dim : 1) != S->csize[c]) return 0;
  return 1;
}

/* A re-solve's refusal: alloc's reason (in e) goes to r->message, where the driver finds it. */
static int refused(int rc, const cpk_error *e, cpk_result *r)
{
  const char *why = e->message;
  if (!strncmp(why, "fcipm: ", 7)) why += 7; /* the driver names the solver */
  snprintf(r->message, sizeof r->message, "%.*s", (int)sizeof r->message - 1, why);
  return rc;
}

/*
 * A re-solve after updates: q is read at every solve; new W values, or new mu
 * with the same contacts at mu = 0, refresh M's values in place (no
 * allocation; the symbolic analysis is kept); otherwise the workspace is built again.
 */
static int refresh(fcipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_result *r)
{
  if (!(resolve_changed(&S->seen, p) & (RESOLVE_VALUES | RESOLVE_MU))) return CPK_OK;
  cpk_error e;
  cpk_error_clear(&e);
  int rc = check_monotone_diagonal(p, &e);
  if (rc) return refused(rc, &e, r);
  if (p->nc && same_layout(S, p)) {
    layout(S, p);
    fcipm_refresh_system(S, p);
  } else {
    void *fresh = NULL;
    if ((rc = fcipm_alloc(&fresh, p, s, &e))) return refused(rc, &e, r);
    fcipm_state old = *S; /* swap, so the driver's pointer holds the new workspace */
    *S = *(fcipm_state *)fresh;
    *(fcipm_state *)fresh = old;
    fcipm_free(fresh);
  }
  resolve_seen_set(&S->seen, p);
  return CPK_OK;
}

/* |a_T| of one contact's block (full vector). */
static double tangent_norm(size_t d, const double *a)
{
  double s = 0.0;
  for (size_t k = 1; k < d; k++) s += a[k] * a[k];
  return sqrt(s);
}

void fcipm_evaluate(fcipm_state *S, const cpk_problem *p)
{
  size_t d = p->cone_dim;
  memset(S->r, 0, S->n * sizeof *S->r);
  for (size_t k = 0; k < S->nr; k++) S->r[S->ridx[k]] = S->rscale[k] * S->x[k];
  cpk_matrix_mv(p->M, S->r, S->u, 0);
  for (size_t i = 0; i < S->n; i++) S->u[i] += p->q[i];
  for (size_t c = 0; c < S->nc; c++) {
    double ut = tangent_norm(d, S->u + c * d), *uc = S->u + c * d;
    S->snew[c] = p->mu[c] * ut;
    for (size_t j = 1; j < d; j++) S->g[c * d + j] = ut > 1e-14 * (1.0 + fabs(uc[0])) ? uc[j] / ut : 0.0;
    for (size_t j = 0; j < S->csize[c]; j++) {
      size_t k = S->cstart[c] + j;
      S->rp[k] = S->y[k] - S->rscale[k] * (S->u[S->ridx[k]] + (j ? 0.0 : S->s[c]));
    }
  }
}

static double inf_norm(size_t n, const double *v)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* Moves each cone's x (y) strictly inside L, at least `margin` from its boundary. */
static void push_inside(fcipm_state *S, double *x, double margin)
{
  for (size_t c = 0; c < S->nc; c++) {
    double *xc = x + S->cstart[c];
    double t = 0.0;
    for (size_t k = 1; k < S->csize[c]; k++) t += xc[k] * xc[k];
    xc[0] = fmax(xc[0], sqrt(t)) + margin;
  }
}

/*
 * Cold start x = xi_x e, y = xi_y e with xi_y = |D q|_inf and
 * xi_x = xi_y / max_k M_kk, so that M x and y have the size of b. A warm
 * start z0 gives x = D^{-1} z0 and y = D (u + s e_n), moved inside the cones
 * (unless S->cold).
 */
static void start(fcipm_state *S, const cpk_problem *p, const cpk_settings *s)
{
  double qs = 0.0, dmax = 0.0;
  const double *z0 = S->cold ? NULL : s->z0;
  S->run_best = S->gain_ref = INFINITY;
  S->mu_c = S->step = S->ds = 0.0;
  S->floor = FCIPM_FLOOR;
  for (size_t k = 0; k < S->nr; k++) {
    size_t i = S->ridx[k];
    qs = fmax(qs, fabs(S->rscale[k] * p->q[i]));
    dmax = fmax(dmax, S->rscale[k] * S->rscale[k] * cpk_matrix_get(p->M, i, i));
  }
  if (!(qs > 0.0)) qs = 1.0;
  if (!(dmax > 0.0 && isfinite(dmax))) dmax = 1.0;
  double xi_x = qs / dmax, xi_y = qs;
  memset(S->x, 0, S->nr * sizeof *S->x);
  memset(S->y, 0, S->nr * sizeof *S->y);
  memset(S->s, 0, S->nc * sizeof *S->s);
  if (z0)
    for (size_t k = 0; k < S->nr; k++) S->x[k] = z0[S->ridx[k]] / S->rscale[k];
  fcipm_evaluate(S, p); /* u at the warm point (or 0), and s from it */
  memcpy(S->s, S->snew, S->nc * sizeof *S->s);
  fcipm_evaluate(S, p); /* y = 0 now: rp = -D (u + s e_n) */
  for (size_t k = 0; k < S->nr; k++) S->y[k] = z0 ? -S->rp[k] : 0.0;
  push_inside(S, S->x, z0 ? 1e-2 * fmax(xi_x, inf_norm(S->nr, S->x)) : xi_x);
  push_inside(S, S->y, z0 ? 1e-2 * fmax(xi_y, inf_norm(S->nr, S->y)) : xi_y);
  fcipm_evaluate(S, p);
}

/*
 * The De Saxce terms are refreshed when the inner problem is solved about
 * as accurately as the fixed point has converged: its error (feasibility,
 * and complementarity in velocity units) is at most refresh_ratio times the
 * change the refresh brings, or below the tolerance anyway.
 */
static double s_change(const fcipm_state *S)
{
  double ds = 0.0;
  for (size_t c = 0; c < S->nc; c++) ds = fmax(ds, fabs(S->snew[c] - S->s[c]));
  return ds;
}

static int refresh_due(const fcipm_state *S, const cpk_settings *s, double ds)
{
  if (ds == 0.0) return 0;
  double xm = inf_norm(S->nr, S->x);
  double err = fmax(inf_norm(S->nr, S->rp), xm > 0.0 ? S->mu_c / xm : 0.0);
  return S->linearize || s->fcipm.refresh_ratio == 0.0 || err <= s->fcipm.refresh_ratio * ds ||
         err <= 1e-2 * S->tol;
}

/* Notes the residual of the current iterate; returns 1 when it is this run's best by a margin that resets the stall count. */
static int note(fcipm_state *S, const cpk_problem *p, double *res)
{
  *res = cpk_fc_residual(p, S->r, S->u);
  if (*res < S->best_res) {
    S->best_res = *res;
    memcpy(S->rbest, S->r, S->n * sizeof *S->r);
  }
  if (!(*res < S->run_best)) return 0;
  S->run_best = *res;
  if (!(*res < 0.9 * S->gain_ref)) return 0;
  S->gain_ref = *res;
  return 1;
}

/*
 * A contact whose solution is the cone's apex with the modified velocity on
 * the dual cone's boundary has no strictly complementary solution, and the
 * interior iterates approach r_c = 0 only about as fast as the residual
 * falls: r_c stays near the residual's size. The point with such contacts
 * (|r_c| <= FCIPM_SNAP times the residual) set to exactly 0 is tried too.
 */
#define FCIPM_SNAP 10.0
static void try_apex(fcipm_state *S, const cpk_problem *p, double res)
{
  size_t d = p->cone_dim, snapped = 0;
  memcpy(S->rt, S->r, S->n * sizeof *S->r);
  for (size_t c = 0; c < S->nc; c++) {
    double *rc = S->rt + c * d, nrm = 0.0;
    for (size_t k = 0; k < d; k++) nrm += rc[k] * rc[k];
    if (nrm == 0.0 || sqrt(nrm) > FCIPM_SNAP * res) continue;
    memset(rc, 0, d * sizeof *rc);
    snapped++;
  }
  if (!snapped) return;
  cpk_matrix_mv(p->M, S->rt, S->ut, 0);
  for (size_t i = 0; i < S->n; i++) S->ut[i] += p->q[i];
  double rs = cpk_fc_residual(p, S->rt, S->ut);
  if (rs < S->best_res) {
    S->best_res = rs;
    memcpy(S->rbest, S->rt, S->n * sizeof *S->rt);
  }
}

static void stats(const fcipm_state *S, cpk_result *r)
{
  cpk_result_set_stat(r, "inner_iterations", (double)S->inner);
  cpk_result_set_stat(r, "outer_iterations", (double)S->outer);
  cpk_result_set_stat(r, "factorizations", (double)S->factorizations);
  cpk_result_set_stat(r, "regularizations", (double)S->regularizations);
  cpk_result_set_stat(r, "complementarity", S->mu_c);
  cpk_result_set_stat(r, "last_step", S->step);
  cpk_result_set_stat(r, "floor_dropped", S->floor == 0.0);
  cpk_result_set_stat(r, "fallback", S->fallback);
  cpk_result_set_stat(r, "cold_restart", S->cold);
  cpk_result_set_stat(r, "finish_iterations", (double)S->finish_iterations);
  cpk_result_set_stat(r, "finish_factorizations", (double)S->finish_factorizations);
  cpk_result_set_stat(r, "finished", S->finished);
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(S->ls, &ls);
  cpk_result_set_stat(r, "factor_time_s", ls.factor_time_s);
}

/* 1 with r's status `stalled` and the reason when the iterate is not finite or has not
 * progressed for FCIPM_STALL_WINDOW iterations. */
static int gave_up(const fcipm_state *S, double res, long since_gain, cpk_result *r)
{
  if (!isfinite(res)) /* e.g. a huge warm start: W r overflows */
    snprintf(r->message, sizeof r->message,
             "the iterate's cone residual is not finite after %ld iterations", S->inner);
  else if (since_gain > FCIPM_STALL_WINDOW)
    snprintf(r->message, sizeof r->message,
             "no progress in %d iterations: cone residual %.3g, complementarity %.3g",
             FCIPM_STALL_WINDOW, S->best_res, S->mu_c);
  else
    return 0;
  r->status = CPK_STATUS_STALLED;
  return 1;
}

/* The iterations; the outcome in r->status and r->message. */
static int iterate(fcipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                   cpk_result *r)
{
  long since_gain = 0;
  double res;
  for (;;) {
    since_gain = note(S, p, &res) ? 0 : since_gain + 1;
    try_apex(S, p, res);
    if (S->best_res <= S->tol) {
      r->status = CPK_STATUS_SOLVED;
      return CPK_OK;
    }
    int stop = cpk_monitor_log(mon, S->inner, res, NAN, S->mu_c, S->step, NULL);
    if (stop) { /* the limits or the callback: say where it stood */
      r->status = (cpk_status)stop;
      snprintf(r->message, sizeof r->message, "stopped after %ld iterations at cone residual %.3g",
               S->inner, S->best_res);
      S->stopped = 1;
      return CPK_OK;
    }
    if (S->floor > 0.0 && since_gain > FCIPM_FLOOR_WINDOW) {
      S->floor = 0.0;
      since_gain = 0;
    }
    if (gave_up(S, res, since_gain, r)) return CPK_OK;
    double ds = s_change(S);
    if (refresh_due(S, s, ds)) {
      S->ds = ds;
      memcpy(S->s, S->snew, S->nc * sizeof *S->s);
      S->outer++;
      fcipm_evaluate(S, p);
    }
    int rc = fcipm_pc_step(S, s->fcipm.step_fraction, S->floor * S->ds * inf_norm(S->nr, S->x));
    if (rc == CPK_ESINGULAR) {
      r->status = CPK_STATUS_STALLED;
      snprintf(r->message, sizeof r->message,
               "the Newton matrix is singular or the iterate left the cones after %ld iterations",
               S->inner);
      return CPK_OK;
    }
    if (rc) return rc;
    S->inner++;
    fcipm_evaluate(S, p);
  }
}

/*
 * A warm start that already meets the tolerance is the answer: the interior
 * start moves it inside the cones, and the iterations would only come back.
 * Leaves it in rt.
 */
static int warm_start_solves(fcipm_state *S, const cpk_problem *p, const cpk_settings *s)
{
  if (!s->z0) return 0;
  memcpy(S->rt, s->z0, S->n * sizeof *S->rt);
  cpk_matrix_mv(p->M, S->rt, S->ut, 0);
  for (size_t i = 0; i < S->n; i++) S->ut[i] += p->q[i];
  return cpk_fc_residual(p, S->rt, S->ut) <= S->tol;
}

/*
 * fcipm stopped by itself short of the tolerance (stalled, or its iteration
 * limit): nsn from its best iterate (settings.fcipm.finish, nsn_finish.h), with
 * the iterations left of the budget (at least FCIPM_FINISH_MIN_ITER) and the
 * time left. Its answer is kept only when its residual is lower; `solved` only
 * when that residual meets the tolerance (the driver checks it again).
 */
static int finish(fcipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                  cpk_result *r)
{
  int by_itself = r->status == CPK_STATUS_MAX_ITERATIONS ||
                  (r->status == CPK_STATUS_STALLED && !S->stopped);
  if (!s->fcipm.finish || !by_itself || !isfinite(S->best_res)) return CPK_OK;
  long left = cpk_monitor_max_iter(mon) - S->inner;
  /* nsn's restarts from nsgs stay on: from fcipm's point on the 900-brick wall its
   * residual crept from 2.08e-7 to 2.04e-7 in 59 iterations, then one restart took it
   * to 2.8e-8 (doc/petsc.md, sixth step) */
  const nsn_finish_opts o = {left > FCIPM_FINISH_MIN_ITER ? left : FCIPM_FINISH_MIN_ITER, S->inner, 0,
                             1, 1};
  double res = S->best_res;
  int solved = 0;
  int rc = nsn_finish(&S->finisher, p, s, mon, &o, S->rbest, &res, &solved, &S->finish_iterations,
                      &S->finish_factorizations);
  if (rc) return rc;
  S->finished = res < S->best_res;
  S->best_res = res;
  nsn_finish_outcome(r, solved, S->finish_iterations, res);
  return CPK_OK;
}

static int fcipm_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  fcipm_state *S = vs;
  int rc = refresh(S, p, s, r);
  if (rc) return rc;
  r->status = CPK_STATUS_SOLVED;
  if (p->nc == 0) return CPK_OK;
  S->tol = cpk_problem_tolerance(p, s->tol);
  S->inner = S->outer = S->factorizations = S->regularizations = 0;
  S->best_res = INFINITY;
  S->linearize = s->fcipm.linearize;
  S->stopped = S->fallback = S->cold = S->finished = 0;
  S->finish_iterations = S->finish_factorizations = 0;
  start(S, p, s);
  if (warm_start_solves(S, p, s)) {
    memcpy(r->z, S->rt, S->n * sizeof *r->z);
    r->iterations = 0;
    stats(S, r);
    return CPK_OK;
  }
  rc = iterate(S, p, s, mon, r);
  if (!rc && r->status == CPK_STATUS_STALLED && !S->stopped && s->z0) {
    S->cold = 1; /* a warm start on the wrong side of a slip reversal can trap the fixed point on s */
    r->message[0] = '\0';
    start(S, p, s);
    rc = iterate(S, p, s, mon, r);
  }
  if (!rc && r->status == CPK_STATUS_STALLED && !S->stopped && S->linearize) {
    S->linearize = 0; /* the two variants fail on different problems: try the other */
    S->fallback = 1;
    r->message[0] = '\0';
    start(S, p, s);
    rc = iterate(S, p, s, mon, r);
  }
  if (!rc) rc = finish(S, p, s, mon, r);
  memcpy(r->z, S->rbest, S->n * sizeof *r->z);
  r->iterations = S->inner + S->finish_iterations; /* the finish's work counts, as nsgs's does */
  stats(S, r);
  return rc;
}

static const cpk_solver_type fcipm_type = {
    "fcipm",
    "friction cone: primal-dual interior point on second-order cones (Nesterov-Todd, "
    "Mehrotra), De Saxce term by a fixed point",
    CPK_KIND_FRICTION_CONE,
    fcipm_default_max_iter,
    fcipm_alloc,
    fcipm_solve,
    fcipm_free};

const cpk_solver_type *cpk_solver_fcipm = &fcipm_type;
