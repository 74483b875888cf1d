/* fbnewton.c: semismooth Newton on the (penalised) Fischer-Burmeister reformulation of the box MCP, with a gradient fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "newton.h"

/*
 * phi(a, b) = lambda (sqrt(a^2 + b^2) - a - b) - (1 - lambda) a_+ b_+ vanishes
 * exactly when a >= 0, b >= 0, ab = 0 (Chen, Chen and Kanzow's penalised FB;
 * lambda = 1 is plain FB). Per variable, after Billups' extension to bounds:
 *   free           Phi = -F
 *   [l, inf)       Phi = phi(z - l, F)
 *   (-inf, u]      Phi = phi(u - z, -F)
 *   [l, u], l < u  Phi = phi(z - l, phi(u - z, -F))
 *   l = u          Phi = l - z
 * The merit Psi = 0.5 ||Phi||^2 is continuously differentiable with
 * gradient V^T Phi for V in the generalized Jacobian, which gives the
 * gradient fallback and the descent test.
 */
enum { BOX_FREE, BOX_LOWER, BOX_UPPER, BOX_BOTH, BOX_FIXED };

typedef struct fb_state {
  newton_ws ws;        /* first member: the method callbacks receive &ws */
  unsigned char *box;  /* BOX_* per index */
  unsigned char *kink; /* index where phi's arguments both vanish (Phi not differentiable) */
  double *zdir, *jz;   /* De Luca-Facchinei-Kanzow direction at kinks, and J times it */
} fb_state;

static double fb_phi(double a, double b, double lam)
{
  return lam * (hypot(a, b) - a - b) - (1.0 - lam) * fmax(a, 0.0) * fmax(b, 0.0);
}

/*
 * Partial derivatives of phi at (a, b). At the kink (0, 0) the element of the
 * generalized gradient is the one that reproduces the directional derivative
 * along (ad, bd) (the arguments' derivatives along the kink direction):
 * (ad/r, bd/r) in place of (a/r, b/r); the penalty term is second order there.
 */
static void fb_dphi(double a, double b, double ad, double bd, double lam, double *da, double *db)
{
  double r = hypot(a, b);
  if (r > 0.0) {
    *da = lam * (a / r - 1.0) - (1.0 - lam) * (a > 0.0 && b > 0.0 ? b : 0.0);
    *db = lam * (b / r - 1.0) - (1.0 - lam) * (a > 0.0 && b > 0.0 ? a : 0.0);
    return;
  }
  double rd = hypot(ad, bd);
  *da = lam * (rd > 0.0 ? ad / rd - 1.0 : -1.0);
  *db = lam * (rd > 0.0 ? bd / rd - 1.0 : -1.0);
}

static int box_of(double l, double u)
{
  if (l == u) return BOX_FIXED;
  if (isinf(l) && isinf(u)) return BOX_FREE;
  if (isinf(u)) return BOX_LOWER;
  if (isinf(l)) return BOX_UPPER;
  return BOX_BOTH;
}

static double fb_component(int box, double l, double u, double z, double f, double lam)
{
  switch (box) {
  case BOX_FREE: return -f;
  case BOX_LOWER: return fb_phi(z - l, f, lam);
  case BOX_UPPER: return fb_phi(u - z, -f, lam);
  case BOX_BOTH: return fb_phi(z - l, fb_phi(u - z, -f, lam), lam);
  default: return l - z;
  }
}

static double fb_residual(newton_ws *ws, const cpk_problem *p, const double *z, const double *w,
                          double *phi)
{
  fb_state *S = (fb_state *)ws;
  double s = 0.0;
  for (size_t i = 0; i < ws->n; i++) {
    double r = ws->rw[i]; /* phi of the row-scaled pair: unit-free (newton_set_row_weights) */
    phi[i] = fb_component(S->box[i], r * p->lower[i], r * p->upper[i], r * z[i], r * w[i],
                          ws->fb_lambda);
    s += phi[i] * phi[i];
  }
  return isfinite(s) ? 0.5 * s : INFINITY;
}

/* Mark the kinks; when there are any, jz = J zdir with zdir their indicator. */
static void find_kinks(fb_state *S, const cpk_problem *p)
{
  newton_ws *ws = &S->ws;
  int any = 0;
  for (size_t i = 0; i < ws->n; i++) {
    double z = ws->z[i], f = ws->w[i], l = p->lower[i], u = p->upper[i];
    int k = 0;
    switch (S->box[i]) {
    case BOX_LOWER: k = z == l && f == 0.0; break;
    case BOX_UPPER: k = z == u && f == 0.0; break;
    case BOX_BOTH:
      k = (z == u && f == 0.0) || (z == l && fb_phi(u - z, -f, ws->fb_lambda) == 0.0);
      break;
    default: break;
    }
    S->kink[i] = (unsigned char)k;
    S->zdir[i] = k ? 1.0 : 0.0;
    any |= k;
  }
  if (any) newton_jmul(ws, S->zdir, S->jz);
  else memset(S->jz, 0, ws->n * sizeof *S->jz);
}

/* Row scalings of a doubly bounded index: Phi = phi(a, b(c, d)), a = z - l, c = u - z, d = -F
 * (l, u given times the row weight r, z and F taken times r; the caller applies r to the result). */
static void both_scaling(const fb_state *S, size_t i, double l, double u, double *al, double *be)
{
  double lam = S->ws.fb_lambda, r = S->ws.rw[i], z = r * S->ws.z[i], f = r * S->ws.w[i];
  double c = u - z, d = -f, cd = -S->zdir[i], dd = -S->jz[i], dc, ddd, da, db;
  fb_dphi(c, d, cd, dd, lam, &dc, &ddd);
  double b = fb_phi(c, d, lam);
  /* derivative of the inner phi along the kink direction (exact at an inner kink too) */
  double bdir = hypot(c, d) > 0.0 ? dc * cd + ddd * dd : lam * (hypot(cd, dd) - cd - dd);
  fb_dphi(z - l, b, S->zdir[i], bdir, lam, &da, &db);
  *al = da - db * dc;
  *be = -db * ddd;
}

static void fb_linearize(newton_ws *ws, const cpk_problem *p)
{
  fb_state *S = (fb_state *)ws;
  double lam = ws->fb_lambda, da, db;
  find_kinks(S, p);
  for (size_t i = 0; i < ws->n; i++) {
    double r = ws->rw[i], z = r * ws->z[i], f = r * ws->w[i], l = r * p->lower[i],
           u = r * p->upper[i];
    switch (S->box[i]) {
    case BOX_FREE: ws->alpha[i] = 0.0, ws->beta[i] = -1.0; break;
    case BOX_LOWER:
      fb_dphi(z - l, f, S->zdir[i], S->jz[i], lam, &da, &db);
      ws->alpha[i] = da, ws->beta[i] = db;
      break;
    case BOX_UPPER:
      fb_dphi(u - z, -f, -S->zdir[i], -S->jz[i], lam, &da, &db);
      ws->alpha[i] = -da, ws->beta[i] = -db;
      break;
    case BOX_BOTH: both_scaling(S, i, l, u, &ws->alpha[i], &ws->beta[i]); break;
    default: ws->alpha[i] = -1.0, ws->beta[i] = 0.0;
    }
    ws->alpha[i] *= r; /* d phi / dz = (d phi / d(r z)) r */
    ws->beta[i] *= r;
  }
}

static void ensure_gradient(newton_ws *ws)
{
  if (ws->g_valid) return;
  newton_atmul(ws, ws->phi, ws->g);
  ws->g_valid = 1;
}

static double fb_slope(newton_ws *ws, const cpk_problem *p, const double *d)
{
  (void)p;
  ensure_gradient(ws);
  return newton_dot(ws->g, d, ws->n);
}

/* The steepest-descent direction of the merit function (De Luca, Facchinei and Kanzow). */
static int fb_fallback(newton_ws *ws, const cpk_problem *p, int attempt, double *d)
{
  (void)p;
  if (attempt > 0) return NEWTON_NO_FALLBACK;
  ensure_gradient(ws);
  for (size_t i = 0; i < ws->n; i++) d[i] = -ws->g[i];
  return CPK_OK;
}

/* ---- the solver type ----------------------------------------------------------------- */

static const newton_method fb_method = {"fbnewton", fb_residual, fb_linearize, NULL, fb_slope,
                                        fb_fallback, 1};

static void fb_free(void *state)
{
  fb_state *S = state;
  if (!S) return;
  newton_ws_release(&S->ws);
  free(S->box);
  free(S->kink);
  free(S->zdir);
  free(S->jz);
  free(S);
}

static int fb_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *state = NULL;
  fb_state *S = calloc(1, sizeof *S);
  if (!S) return cpk_error_set(err, CPK_ENOMEM, "fbnewton: out of memory");
  int rc = newton_ws_init(&S->ws, &fb_method, p, s, err);
  if (!rc) {
    S->box = cpk_calloc_array(p->n, 1);
    S->kink = cpk_calloc_array(p->n, 1);
    S->zdir = cpk_calloc_array(p->n, sizeof *S->zdir);
    S->jz = cpk_calloc_array(p->n, sizeof *S->jz);
    if (!S->box || !S->kink || !S->zdir || !S->jz)
      rc = cpk_error_set(err, CPK_ENOMEM, "fbnewton: out of memory");
  }
  if (rc) {
    fb_free(S);
    return rc;
  }
  *state = S;
  return CPK_OK;
}

static int fb_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                    cpk_result *r)
{
  fb_state *S = state; /* the bounds may have changed since the last solve (O(n): always) */
  for (size_t i = 0; i < p->n; i++) S->box[i] = (unsigned char)box_of(p->lower[i], p->upper[i]);
  return newton_run(&S->ws, p, s, mon, r);
}

static const cpk_solver_type fb_type = {
    "fbnewton",
    "semismooth Newton on the penalised Fischer-Burmeister function (Billups' box form), Armijo, "
    "gradient fallback, dense/UMFPACK",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP | CPK_KIND_NONLINEAR_MCP,
    newton_default_max_iter,
    fb_alloc,
    fb_solve,
    fb_free};

const cpk_solver_type *cpk_solver_fbnewton = &fb_type;
