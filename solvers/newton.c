/* newton.c: the loop shared by bdnewton and fbnewton: fixed-pattern Newton system with proximal perturbation, Armijo line search (monotone or not) with a watchdog, restarts, statuses, statistics. */
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
/* Systems solved per iteration while a method adjusts its choice of generalized Jacobian. */
#define NEWTON_MAX_ADJUST 4
/* The adaptive factor of the proximal perturbation (see proximal_step). */
#define PROX_GROWTH 100.0
#define PROX_SHRINK 10.0
#define PROX_RHO_MIN 1e-3
#define PROX_RHO_MAX 1e4
#define PROX_SHORT_STEP 1e-2

const cpk_linsys_type *newton_choose_linsys(const cpk_problem *p, const cpk_settings *s)
{
  if (s->linsys) return s->linsys;
  int dense_m = p->kind != CPK_KIND_NONLINEAR_MCP && p->M->format == CPK_MATRIX_DENSE;
  return (dense_m || p->n <= 100) ? cpk_linsys_lapack : cpk_linsys_umfpack;
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
  for (size_t i = 0; i < n; i++) { /* fmax(m, |a_i|) with m never NaN: a NaN a_i is skipped the */
    double v = fabs(a[i]);        /* same way, and no libm call per entry (fmax is not inlined) */
    if (v > m) m = v;
  }
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
  double **v[] = {&ws->z, &ws->w,  &ws->phi, &ws->zt,    &ws->wt,   &ws->phit, &ws->d, &ws->alpha,
                  &ws->beta, &ws->g, &ws->tmp, &ws->zb, &ws->wb, &ws->phib, &ws->zs,
                  &ws->zg, &ws->wg, &ws->zlast,
                  &ws->rw};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (!(*v[k] = cpk_calloc_array(ws->n, sizeof(double)))) return CPK_ENOMEM;
  return CPK_OK;
}

int newton_ws_init(newton_ws *ws, const newton_method *m, const cpk_problem *p,
                   const cpk_settings *s, cpk_error *err)
{
  ws->n = p->n;
  ws->method = m;
  ws->hist_cap0 = s->newton.nonmonotone > 1 ? s->newton.nonmonotone : 1;
  ws->fb_lambda = s->newton.fb_lambda > 0.0 ? s->newton.fb_lambda : CPK_DEFAULT_NEWTON_FB_LAMBDA;
  ws->prox_scale = s->newton.proximal;
  ws->watchdog = s->newton.watchdog;
  ws->restarts = s->newton.restarts;
  ws->crash = s->newton.crash;
  int rc = p->kind == CPK_KIND_NONLINEAR_MCP ? cpk_csc_copy(p->jac_pattern, &ws->J)
                                             : resolve_affine_jacobian(p, &ws->J);
  if (!rc && (ws->J->m != (cpk_int)p->n || ws->J->n != (cpk_int)p->n)) rc = CPK_EBADMAT;
  if (!rc) rc = build_pattern(ws);
  if (!rc) rc = alloc_vectors(ws);
  if (!rc) rc = cpk_linsys_alloc(newton_choose_linsys(p, s), p->n, &ws->ls);
  if (!rc) resolve_seen_set(&ws->seen, p);
  if (rc)
    return cpk_error_set(err, rc, "%s: cannot set up the Newton system for n = %zu (%s)", m->name,
                         p->n, cpk_strerror(rc));
  return CPK_OK;
}

/*
 * Rows in two units (impulses and velocities in the contact models) make the sum of
 * squares of the merit a sum of unlike things: a 2.7 g ball's impulse rows vanish
 * beside its velocity rows and the search stalls (issue 14). Each method multiplies
 * row i of Phi and of V by rw[i], which leaves the Newton direction as it is and
 * makes the merit, its slope, the fallbacks and the stall test unit-free.
 */
void newton_set_row_weights(newton_ws *ws, const cpk_problem *p)
{
  for (size_t i = 0; i < ws->n; i++) ws->rw[i] = p->row_scale ? 1.0 / p->row_scale[i] : 1.0;
}

void newton_ws_release(newton_ws *ws)
{
  cpk_csc_free(ws->J);
  cpk_csc_free(ws->A);
  free(ws->jmap);
  free(ws->dpos);
  cpk_linsys_free(ws->ls);
  double *v[] = {ws->z,    ws->w, ws->phi, ws->zt, ws->wt, ws->phit, ws->d,   ws->alpha,
                 ws->beta, ws->g, ws->tmp, ws->zb, ws->wb, ws->phib, ws->zs,
                 ws->zg, ws->wg, ws->zlast,
                 ws->rw};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) free(v[k]);
}

/* ---- evaluation and the Newton direction ---------------------------------- */

int newton_evaluate(newton_ws *ws, const cpk_problem *p, const double *z, double *w, double *phi,
                    double *merit)
{
  ws->nf++;
  int rc = cpk_problem_eval(p, z, w);
  *merit = rc ? INFINITY : ws->method->residual(ws, p, z, w, phi);
  if (!rc && !isfinite(*merit)) rc = CPK_EBADFUNC;
  return rc;
}

int newton_evaluate_jacobian(newton_ws *ws, const cpk_problem *p)
{
  if (p->kind != CPK_KIND_NONLINEAR_MCP) return CPK_OK;
  ws->nj++;
  if (p->jacobian(ws->z, ws->J, p->params) != 0) return CPK_EBADFUNC;
  for (cpk_int k = 0; k < ws->J->p[ws->n]; k++)
    if (!isfinite(ws->J->x[k])) return CPK_EBADFUNC;
  return CPK_OK;
}

/*
 * A = diag(alpha) + diag(beta) (J + lambda D) on the fixed pattern: lambda > 0
 * is the proximal perturbation, the generalized Jacobian of the method at the
 * MCP whose F is replaced by F(z) + lambda D (z - z_k) (same solutions at a
 * fixed point, and J + lambda D is nonsingular for lambda > 0 when J is P0).
 * D = |diag J| (1 where J_jj = 0) gives each column a term in its own units:
 * one lambda for all (scaled by the largest |J_jj|) made a problem in other
 * units (masses x1000: mass-sized diagonal entries beside unit-free ones) a
 * different problem, 51 iterations instead of 3 in t_mcpscale.
 */
static void assemble(newton_ws *ws, double lambda)
{
  const cpk_csc *J = ws->J;
  cpk_csc *A = ws->A;
  memset(A->x, 0, (size_t)A->p[ws->n] * sizeof *A->x);
  for (cpk_int j = 0; j < J->n; j++) {
    double djj = 0.0;
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) {
      A->x[ws->jmap[k]] = ws->beta[J->i[k]] * J->x[k];
      if (J->i[k] == j) djj = fabs(J->x[k]);
    }
    A->x[ws->dpos[j]] += ws->alpha[j] + lambda * (djj > 0.0 ? djj : 1.0) * ws->beta[j];
  }
}

/*
 * d solves V d = -phi (re-solved while the method adjusts its choice of V),
 * V perturbed by lambda (see assemble; A is left unperturbed on return, for
 * the slope and the fallbacks). Returns 1 when d is a usable descent
 * direction (slope set), 0 when it is not (singular V, non-finite d, failed
 * descent test), or CPK_ENOMEM.
 */
static int newton_direction(newton_ws *ws, const cpk_problem *p, double lambda, double *slope)
{
  int usable = 1;
  for (int round = 0; round < NEWTON_MAX_ADJUST && usable; round++) {
    if (round > 0 || lambda > 0.0) assemble(ws, lambda);
    int rc = cpk_linsys_factor(ws->ls, ws->A);
    if (rc == CPK_ENOMEM) return rc;
    if (!rc) {
      for (size_t i = 0; i < ws->n; i++) ws->d[i] = -ws->phi[i];
      rc = cpk_linsys_solve(ws->ls, ws->d, 0);
      if (rc == CPK_ENOMEM) return rc;
    }
    usable = !rc && isfinite(newton_norm_inf(ws->d, ws->n));
    if (usable && (!ws->method->adjust || !ws->method->adjust(ws, p, ws->d))) break;
  }
  if (lambda > 0.0) assemble(ws, 0.0);
  if (!usable) return 0;
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

void newton_remember_merit(newton_ws *ws)
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

void newton_accept_trial(newton_ws *ws, double mt)
{
  swap_ptr(&ws->z, &ws->zt);
  swap_ptr(&ws->w, &ws->wt);
  swap_ptr(&ws->phi, &ws->phit);
  ws->merit = mt;
}

void newton_save_best(newton_ws *ws, int force)
{
  if (!force && !(ws->merit < ws->merit_best)) return;
  memcpy(ws->zb, ws->z, ws->n * sizeof *ws->zb);
  memcpy(ws->wb, ws->w, ws->n * sizeof *ws->wb);
  memcpy(ws->phib, ws->phi, ws->n * sizeof *ws->phib);
  ws->merit_best = ws->merit;
  ws->best_iter = ws->iter;
}

void newton_return_to_best(newton_ws *ws)
{
  memcpy(ws->z, ws->zb, ws->n * sizeof *ws->z);
  memcpy(ws->w, ws->wb, ws->n * sizeof *ws->w);
  memcpy(ws->phi, ws->phib, ws->n * sizeof *ws->phi);
  ws->merit = ws->merit_best;
  ws->nhist = 0;
  ws->best_iter = ws->iter;
}

/* Backtrack from t = 1 along ws->d; on success the trial point becomes the current one. */
static int line_search(newton_ws *ws, const cpk_problem *p, double slope)
{
  double ref = reference_merit(ws), t = 1.0, mt;
  double dn = newton_norm_inf(ws->d, ws->n), zn = newton_norm_inf(ws->z, ws->n);
  for (int k = 0; k < MAX_BACKTRACKS; k++) {
    for (size_t i = 0; i < ws->n; i++) ws->zt[i] = ws->z[i] + t * ws->d[i];
    if (ws->project)
      for (size_t i = 0; i < ws->n; i++) ws->zt[i] = fmin(fmax(ws->zt[i], p->lower[i]), p->upper[i]);
    int rc = newton_evaluate(ws, p, ws->zt, ws->wt, ws->phit, &mt);
    if (!rc && mt <= ref + ARMIJO_SIGMA * t * slope) {
      newton_accept_trial(ws, mt);
      ws->last_step = t;
      return 1;
    }
    t *= ARMIJO_BETA;
    ws->backtracks++;
    if (t * dn <= 1e-16 * (1.0 + zn)) break; /* the step no longer changes z */
  }
  return 0;
}

/* ---- one step --------------------------------------------------------------------- */

/*
 * Proximal perturbation (PATH's answer to a singular or useless Newton
 * matrix): J + lambda D (see assemble), lambda = rho c min(1, |Phi|_2), which
 * vanishes as the iterates converge. rho adapts as a Levenberg-Marquardt
 * parameter does: it starts at 1, is divided by PROX_SHRINK after a proximal
 * step taken in full (down to PROX_RHO_MIN), and grows by PROX_GROWTH while
 * the direction is unusable, its line search fails, or it ends shorter than
 * PROX_SHORT_STEP (up to PROX_RHO_MAX): a barely perturbed singular matrix
 * gives a long direction the search cuts to 1e-4 of itself, again and again
 * (t_formulations' spinning sphere: 500 iterations without it). On problems whose
 * Newton matrix is singular at every iterate (the separating contacts of a
 * frictional contact MCP, where sigma is free) a fixed rho = 1 converges
 * linearly, in hundreds of iterations. 1 = step taken, 0 = none, or CPK_ENOMEM.
 */
static int proximal_step(newton_ws *ws, const cpk_problem *p)
{
  if (!(ws->prox_scale > 0.0)) return 0;
  double base = ws->prox_scale * fmin(1.0, sqrt(2.0 * ws->merit)), slope;
  for (double rho = fmax(ws->prox_rho, PROX_RHO_MIN); rho <= PROX_RHO_MAX && base > 0.0;
       rho *= PROX_GROWTH) {
    int ok = newton_direction(ws, p, rho * base, &slope);
    if (ok > 1) return ok;
    if (ok == 1 && line_search(ws, p, slope)) {
      ws->prox_steps++;
      ws->prox_rho = ws->last_step == 1.0 ? rho / PROX_SHRINK
                     : ws->last_step < PROX_SHORT_STEP ? fmin(rho * PROX_GROWTH, PROX_RHO_MAX)
                                                       : rho;
      return 1;
    }
  }
  return 0;
}

int newton_step(newton_ws *ws, const cpk_problem *p)
{
  double slope = 0.0;
  ws->g_valid = 0;
  ws->method->linearize(ws, p);
  assemble(ws, 0.0);
  int ok = newton_direction(ws, p, 0.0, &slope);
  if (ok > 1) return ok;
  if (ok == 1 && line_search(ws, p, slope)) return NEWTON_STEP_TAKEN;
  if (ok == 0 && (ok = proximal_step(ws, p)) != 0) return ok == 1 ? NEWTON_STEP_TAKEN : ok;
  for (int attempt = 0;; attempt++) {
    int rc = ws->method->fallback(ws, p, attempt, ws->d);
    if (rc == NEWTON_NO_FALLBACK) return NEWTON_STEP_FAILED;
    if (rc == CPK_ENOMEM) return rc;
    if (rc) continue;
    slope = ws->method->slope(ws, p, ws->d);
    if (!(slope < 0.0) || !isfinite(newton_norm_inf(ws->d, ws->n))) continue;
    if (line_search(ws, p, slope)) {
      ws->fallbacks++;
      return NEWTON_STEP_TAKEN;
    }
  }
}
