/* newton.c: the loop shared by bdnewton and fbnewton: fixed-pattern Newton system, Armijo line search (monotone or not), statuses, statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "newton.h"

/* Armijo sufficient-decrease constant and step reduction. */
#define ARMIJO_SIGMA 1e-4
#define ARMIJO_BETA 0.5
#define MAX_BACKTRACKS 60
/* Descent test on the Newton direction: slope <= -RHO ||d||^P (De Luca, Facchinei and Kanzow). */
#define DESCENT_RHO 1e-8
#define DESCENT_P 2.1
/* "Stopped decreasing": the best merit fell by less than STALL_FRACTION over STALL_WINDOW iterations. */
#define STALL_WINDOW 20
#define STALL_FRACTION 1e-3
#define DEFAULT_MAX_ITER 500
/* Systems solved per iteration while a method adjusts its choice of generalized Jacobian. */
#define NEWTON_MAX_ADJUST 4

enum { STEP_TAKEN = 0, STEP_FAILED = 1 };

long newton_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return DEFAULT_MAX_ITER;
}

const cpk_linsys_type *newton_choose_linsys(const cpk_problem *p, const cpk_settings *s)
{
  if (s->linsys) return s->linsys;
  int dense_m = p->kind != CPK_KIND_NONLINEAR_MCP && p->M->format == CPK_MATRIX_DENSE;
  return (dense_m || p->n <= 100) ? cpk_linsys_dense : cpk_linsys_umfpack;
}

double newton_dot(const double *a, const double *b, size_t n)
{
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

double newton_norm_inf(const double *a, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

void newton_jmul(const newton_ws *ws, const double *x, double *y)
{
  const cpk_csc *J = ws->J;
  memset(y, 0, ws->n * sizeof *y);
  for (cpk_int j = 0; j < J->n; j++)
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) y[J->i[k]] += J->x[k] * x[j];
}

void newton_atmul(const newton_ws *ws, const double *x, double *y)
{
  const cpk_csc *A = ws->A;
  for (cpk_int j = 0; j < A->n; j++) {
    double s = 0.0;
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) s += A->x[k] * x[A->i[k]];
    y[j] = s;
  }
}

/* ---- setup ---------------------------------------------------------------- */

/* A's pattern: each column of J with its diagonal entry merged in (explicit zero if J lacks it). */
static int build_pattern(newton_ws *ws)
{
  const cpk_csc *J = ws->J;
  size_t n = ws->n;
  cpk_int missing = 0;
  for (cpk_int j = 0; j < J->n; j++) {
    int has = 0;
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) has |= J->i[k] == j;
    missing += !has;
  }
  if (J->p[n] > INT64_MAX - missing) return CPK_EOVERFLOW;
  int rc = cpk_csc_alloc((cpk_int)n, (cpk_int)n, J->p[n] + missing, &ws->A);
  ws->jmap = cpk_alloc_array((size_t)J->p[n], sizeof *ws->jmap);
  ws->dpos = cpk_alloc_array(n, sizeof *ws->dpos);
  if (rc || !ws->jmap || !ws->dpos) return rc ? rc : CPK_ENOMEM;
  cpk_csc *A = ws->A;
  cpk_int a = 0;
  for (cpk_int j = 0; j < (cpk_int)n; j++) {
    A->p[j] = a;
    int placed = 0;
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) {
      if (!placed && J->i[k] >= j) {
        if (J->i[k] > j) A->i[a++] = j;
        ws->dpos[j] = J->i[k] > j ? a - 1 : a;
        placed = 1;
      }
      ws->jmap[k] = a;
      A->i[a++] = J->i[k];
    }
    if (!placed) {
      ws->dpos[j] = a;
      A->i[a++] = j;
    }
  }
  A->p[n] = a;
  memset(A->x, 0, (size_t)a * sizeof *A->x);
  return cpk_csc_check(A);
}

static int alloc_vectors(newton_ws *ws)
{
  double **v[] = {&ws->z,  &ws->w, &ws->phi,  &ws->zt,   &ws->wt,  &ws->phit,
                  &ws->d,  &ws->alpha, &ws->beta, &ws->g, &ws->tmp};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (!(*v[k] = cpk_calloc_array(ws->n, sizeof(double)))) return CPK_ENOMEM;
  return CPK_OK;
}

int newton_ws_init(newton_ws *ws, const newton_method *m, const cpk_problem *p,
                   const cpk_settings *s, cpk_error *err)
{
  ws->n = p->n;
  ws->method = m;
  ws->hist_cap = s->newton.nonmonotone > 1 ? s->newton.nonmonotone : 1;
  ws->fb_lambda = s->newton.fb_lambda > 0.0 ? s->newton.fb_lambda : CPK_DEFAULT_NEWTON_FB_LAMBDA;
  int rc = p->kind == CPK_KIND_NONLINEAR_MCP ? cpk_csc_copy(p->jac_pattern, &ws->J)
                                             : cpk_matrix_to_csc(p->M, &ws->J);
  if (!rc && (ws->J->m != (cpk_int)p->n || ws->J->n != (cpk_int)p->n)) rc = CPK_EBADMAT;
  if (!rc) rc = build_pattern(ws);
  if (!rc) rc = alloc_vectors(ws);
  if (!rc) rc = cpk_linsys_alloc(newton_choose_linsys(p, s), p->n, &ws->ls);
  if (rc)
    return cpk_error_set(err, rc, "%s: cannot set up the Newton system for n = %zu (%s)", m->name,
                         p->n, cpk_strerror(rc));
  return CPK_OK;
}

void newton_ws_release(newton_ws *ws)
{
  cpk_csc_free(ws->J);
  cpk_csc_free(ws->A);
  free(ws->jmap);
  free(ws->dpos);
  cpk_linsys_free(ws->ls);
  double *v[] = {ws->z, ws->w, ws->phi, ws->zt, ws->wt, ws->phit,
                 ws->d, ws->alpha, ws->beta, ws->g, ws->tmp};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) free(v[k]);
}

/* ---- evaluation and the Newton direction ---------------------------------- */

/* w = F(z) and phi = Phi(z); merit INFINITY (and CPK_EBADFUNC) when F fails. */
static int evaluate(newton_ws *ws, const cpk_problem *p, const double *z, double *w, double *phi,
                    double *merit)
{
  ws->nf++;
  int rc = cpk_problem_eval(p, z, w);
  *merit = rc ? INFINITY : ws->method->residual(ws, p, z, w, phi);
  if (!rc && !isfinite(*merit)) rc = CPK_EBADFUNC;
  return rc;
}

/* J = F'(z) (nonlinear problems); CPK_EBADFUNC when the callback fails or returns non-finite values. */
static int evaluate_jacobian(newton_ws *ws, const cpk_problem *p)
{
  if (p->kind != CPK_KIND_NONLINEAR_MCP) return CPK_OK;
  ws->nj++;
  if (p->jacobian(ws->z, ws->J, p->params) != 0) return CPK_EBADFUNC;
  for (cpk_int k = 0; k < ws->J->p[ws->n]; k++)
    if (!isfinite(ws->J->x[k])) return CPK_EBADFUNC;
  return CPK_OK;
}

/* A = diag(alpha) + diag(beta) J on the fixed pattern. */
static void assemble(newton_ws *ws)
{
  const cpk_csc *J = ws->J;
  cpk_csc *A = ws->A;
  memset(A->x, 0, (size_t)A->p[ws->n] * sizeof *A->x);
  for (cpk_int j = 0; j < J->n; j++) {
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++)
      A->x[ws->jmap[k]] = ws->beta[J->i[k]] * J->x[k];
    A->x[ws->dpos[j]] += ws->alpha[j];
  }
}

/*
 * d solves V d = -phi (re-solved while the method adjusts its choice of V).
 * Returns 1 when d is a usable descent direction (slope set), 0 when it is
 * not (singular V, non-finite d, failed descent test), or CPK_ENOMEM.
 */
static int newton_direction(newton_ws *ws, const cpk_problem *p, double *slope)
{
  double dn = NAN;
  for (int round = 0; round < NEWTON_MAX_ADJUST; round++) {
    if (round > 0) assemble(ws);
    int rc = cpk_linsys_factor(ws->ls, ws->A);
    if (rc == CPK_ENOMEM) return rc;
    if (rc) return 0;
    for (size_t i = 0; i < ws->n; i++) ws->d[i] = -ws->phi[i];
    rc = cpk_linsys_solve(ws->ls, ws->d, 0);
    if (rc == CPK_ENOMEM) return rc;
    dn = newton_norm_inf(ws->d, ws->n);
    if (rc || !isfinite(dn)) return 0;
    if (!ws->method->adjust || !ws->method->adjust(ws, p, ws->d)) break;
  }
  *slope = ws->method->slope(ws, p, ws->d);
  double d2 = newton_dot(ws->d, ws->d, ws->n);
  return isfinite(*slope) && *slope <= -DESCENT_RHO * pow(d2, 0.5 * DESCENT_P);
}

/* ---- line search -------------------------------------------------------------- */

static double reference_merit(const newton_ws *ws)
{
  double ref = ws->merit;
  for (int k = 0; k < ws->nhist; k++) ref = fmax(ref, ws->hist[k]);
  return ref;
}

static void remember_merit(newton_ws *ws)
{
  if (ws->hist_cap <= 1) return;
  if (ws->nhist < ws->hist_cap) ws->hist[ws->nhist++] = ws->merit;
  else ws->hist[ws->iter % ws->hist_cap] = ws->merit;
}

static void swap_ptr(double **a, double **b)
{
  double *t = *a;
  *a = *b;
  *b = t;
}

/* Backtrack from t = 1 along ws->d; on success the trial point becomes the current one. */
static int line_search(newton_ws *ws, const cpk_problem *p, double slope)
{
  double ref = reference_merit(ws), t = 1.0, mt;
  double dn = newton_norm_inf(ws->d, ws->n), zn = newton_norm_inf(ws->z, ws->n);
  for (int k = 0; k < MAX_BACKTRACKS; k++) {
    for (size_t i = 0; i < ws->n; i++) ws->zt[i] = ws->z[i] + t * ws->d[i];
    int rc = evaluate(ws, p, ws->zt, ws->wt, ws->phit, &mt);
    if (!rc && mt <= ref + ARMIJO_SIGMA * t * slope) {
      swap_ptr(&ws->z, &ws->zt);
      swap_ptr(&ws->w, &ws->wt);
      swap_ptr(&ws->phi, &ws->phit);
      ws->merit = mt;
      return 1;
    }
    t *= ARMIJO_BETA;
    ws->backtracks++;
    if (t * dn <= 1e-16 * (1.0 + zn)) break; /* the step no longer changes z */
  }
  return 0;
}

/* One iteration's step: the Newton direction, else the method's fallbacks. */
static int step(newton_ws *ws, const cpk_problem *p)
{
  double slope = 0.0;
  ws->g_valid = 0;
  ws->method->linearize(ws, p);
  assemble(ws);
  int ok = newton_direction(ws, p, &slope);
  if (ok > 1) return ok;
  if (ok == 1 && line_search(ws, p, slope)) return STEP_TAKEN;
  for (int attempt = 0;; attempt++) {
    int rc = ws->method->fallback(ws, p, attempt, ws->d);
    if (rc == NEWTON_NO_FALLBACK) return STEP_FAILED;
    if (rc == CPK_ENOMEM) return rc;
    if (rc) continue;
    slope = ws->method->slope(ws, p, ws->d);
    if (!(slope < 0.0) || !isfinite(newton_norm_inf(ws->d, ws->n))) continue;
    if (line_search(ws, p, slope)) {
      ws->fallbacks++;
      return STEP_TAKEN;
    }
  }
}

/* ---- the loop ------------------------------------------------------------------ */

/* z0 (or 0) projected onto the bounds. */
static void start_point(newton_ws *ws, const cpk_problem *p, const cpk_settings *s)
{
  for (size_t i = 0; i < ws->n; i++) {
    double v = s->z0 ? s->z0[i] : 0.0;
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
  cpk_result_set_stat(r, "factorizations", (double)(ls.factorizations + ws->extra_factorizations));
  cpk_result_set_stat(r, "symbolic_analyses", (double)ls.symbolic);
  cpk_result_set_stat(r, "factor_time_s", ls.factor_time_s + ws->extra_factor_time);
  cpk_result_set_stat(r, "nnz_factors", ls.nnz_factors);
  cpk_result_set_stat(r, "sparse_linsys", strcmp(cpk_linsys_name(ws->ls), "umfpack") == 0);
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

/* Iterate from the evaluated start; returns CPK_OK with r->status set, or a hard error. */
static int iterate(newton_ws *ws, const cpk_problem *p, double tol, cpk_monitor *mon,
                   cpk_result *r)
{
  double best[STALL_WINDOW + 1];
  double res = cpk_natural_residual(p, ws->z, ws->w);
  stopped_decreasing(best, 0, ws->merit);
  for (ws->iter = 0; !(res <= tol);) {
    remember_merit(ws);
    if (evaluate_jacobian(ws, p)) {
      set_status(r, CPK_STATUS_STALLED,
                 "the Jacobian callback failed or returned a non-finite value (residual %.3g, "
                 "merit %.3g)", res, ws->merit);
      return CPK_OK;
    }
    int rc = step(ws, p);
    if (rc == STEP_FAILED) {
      set_status(r, CPK_STATUS_STALLED,
                 "line search failed: neither the Newton nor the fallback direction decreases the "
                 "merit function (residual %.3g, merit %.3g)", res, ws->merit);
      return CPK_OK;
    }
    if (rc) return rc;
    r->iterations = ++ws->iter;
    res = cpk_natural_residual(p, ws->z, ws->w);
    int stop = cpk_monitor_iteration(mon, ws->iter, res);
    if (!stop) stop = cpk_monitor_before_factor(mon, ws->ls); /* issue 16: the next step factors */
    if (res <= tol) break;
    if (stop) {
      set_status(r, (cpk_status)stop, "stopped with residual %.3g (merit %.3g)", res, ws->merit);
      return CPK_OK;
    }
    if (stopped_decreasing(best, ws->iter, ws->merit)) {
      set_status(r, CPK_STATUS_STALLED,
                 "the merit function stopped decreasing (residual %.3g, merit %.3g): a local "
                 "minimum of the merit function that is not a solution, or no solution", res,
                 ws->merit);
      return CPK_OK;
    }
  }
  r->status = CPK_STATUS_SOLVED;
  return CPK_OK;
}

int newton_run(newton_ws *ws, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r)
{
  ws->iter = ws->nf = ws->nj = ws->backtracks = ws->fallbacks = 0;
  ws->extra_factorizations = 0;
  ws->extra_factor_time = 0.0;
  ws->nhist = 0;
  cpk_linsys_stats ls0;
  cpk_linsys_get_stats(ws->ls, &ls0);
  start_point(ws, p, s);
  int rc = CPK_OK;
  if (evaluate(ws, p, ws->z, ws->w, ws->phi, &ws->merit)) {
    set_status(r, CPK_STATUS_STALLED, "F failed or is not finite at the starting point",
               0.0, 0.0);
  } else {
    rc = iterate(ws, p, cpk_problem_tolerance(p, s->tol), mon, r);
  }
  memcpy(r->z, ws->z, ws->n * sizeof *r->z);
  fill_stats(ws, &ls0, r);
  return rc;
}
