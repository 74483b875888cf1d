/* fc_local.c: the exact one-contact friction-cone solver: separation, sticking, sliding by a damped Alart-Curnier Newton, projection fallback. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <cpkit/problem.h>
#include "fc_local.h"

#define DMAX CPK_CONE_DIM_MAX
#define SINGULAR_TOL 1e-12   /* smallest |det| / Hadamard bound (product of row norms) a small solve accepts */
#define ZERO_BLOCK_TOL 1e-14 /* W_nn at most this times max |W_ij|: the block is degenerate */
#define RHO_FLOOR 1e-10      /* W_kk below this times max |W_ij| gets rho_k = 1 / max |W_ij| */
#define ARMIJO 1e-4
#define MAX_BACKTRACKS 40
#define FIXED_POINT_FACTOR 20
#define SLIDE_GRID 72        /* angles sampled when sliding is searched by its direction */
#define SLIDE_BISECTIONS 60
#define ROUNDOFF (16.0 * DBL_EPSILON) /* relative accuracy the natural map can be computed to */

/* One contact's data and the Alart-Curnier parameters chosen for it. */
typedef struct local_problem {
  size_t dim;
  double mu, tol;
  const double *W, *q;
  double rho[DMAX]; /* Alart-Curnier weights: 1 / W_nn, then one value for every tangential row */
  double wnorm;     /* |W|_F >= |W|_2: rho = 1 / wnorm makes the projection step safe */
  double G[DMAX * DMAX]; /* I - diag(rho) W, row-major: the Jacobian's constant factor */
} local_problem;

static void velocity(const local_problem *L, const double *r, double *u)
{
  size_t d = L->dim;
  for (size_t i = 0; i < d; i++) {
    u[i] = L->q[i];
    for (size_t j = 0; j < d; j++) u[i] += L->W[i * d + j] * r[j];
  }
}

static double natural_map(const local_problem *L, const double *r)
{
  double u[DMAX], e[DMAX];
  velocity(L, r, u);
  double res = cpk_cone_natural_map(L->dim, L->mu, r, u, e);
  return isnan(res) ? INFINITY : res;
}

static double norm2(size_t d, const double *x)
{
  double s = 0.0;
  for (size_t k = 0; k < d; k++) s += x[k] * x[k];
  return sqrt(s);
}

/*
 * 2 x 2 and 3 x 3 systems by Cramer's rule (the adjugate over the determinant):
 * GSL's LU allocates and goes through BLAS at every call, which costs more than
 * all the rest of a one-contact solve. |det| is compared with Hadamard's bound
 * (the product of the row norms), a scale-free test for near-singularity.
 */
static int cramer_solve(size_t d, const double *A, const double *b, double *x)
{
  double det, bound = 1.0, y[3];
  for (size_t k = 0; k < d; k++) bound *= norm2(d, A + k * d);
  if (d == 2) {
    det = A[0] * A[3] - A[1] * A[2];
    y[0] = A[3] * b[0] - A[1] * b[1];
    y[1] = A[0] * b[1] - A[2] * b[0];
  } else {
    double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8];
    double c2 = A[3] * A[7] - A[4] * A[6];
    det = A[0] * c0 + A[1] * c1 + A[2] * c2;
    y[0] = c0 * b[0] + (A[2] * A[7] - A[1] * A[8]) * b[1] + (A[1] * A[5] - A[2] * A[4]) * b[2];
    y[1] = c1 * b[0] + (A[0] * A[8] - A[2] * A[6]) * b[1] + (A[2] * A[3] - A[0] * A[5]) * b[2];
    y[2] = c2 * b[0] + (A[1] * A[6] - A[0] * A[7]) * b[1] + (A[0] * A[4] - A[1] * A[3]) * b[2];
  }
  if (!(fabs(det) > SINGULAR_TOL * bound)) return 1;
  for (size_t k = 0; k < d; k++) {
    x[k] = y[k] / det;
    if (!isfinite(x[k])) return 1;
  }
  return 0;
}

/*
 * Whether r is as good as asked: the natural map at most tol, or at the level
 * of the round-off in computing it (|r| + |u| times a few epsilons), which an
 * absolute tol cannot beat when reactions are large (e.g. W ~ 1e-5, r ~ 1e5).
 */
/* converged() with u = W r + q already at hand. */
static int converged_at(const local_problem *L, const double *r, const double *u)
{
  double e[DMAX];
  double res = cpk_cone_natural_map(L->dim, L->mu, r, u, e);
  double noise = ROUNDOFF * (norm2(L->dim, r) + norm2(L->dim, u));
  return res <= fmax(L->tol, noise);
}

static int converged(const local_problem *L, const double *r)
{
  double u[DMAX];
  velocity(L, r, u);
  return converged_at(L, r, u);
}

/*
 * 4 x 4 by the adjugate too, from the 2 x 2 minors of the top two rows (s) and
 * of the bottom two (c): det A = sum of s_k c_(5-k) with alternating signs
 * (Laplace expansion along the top two rows). GSL's LU allocates at every
 * call, which costs more than the one-contact solve and cannot fail cleanly
 * when memory is short. The same scale-free singularity test as for 2 and 3.
 */
static int cramer4_solve(const double *A, const double *b, double *x)
{
  const double *a = A;
  double s0 = a[0] * a[5] - a[4] * a[1], s1 = a[0] * a[6] - a[4] * a[2];
  double s2 = a[0] * a[7] - a[4] * a[3], s3 = a[1] * a[6] - a[5] * a[2];
  double s4 = a[1] * a[7] - a[5] * a[3], s5 = a[2] * a[7] - a[6] * a[3];
  double c5 = a[10] * a[15] - a[14] * a[11], c4 = a[9] * a[15] - a[13] * a[11];
  double c3 = a[9] * a[14] - a[13] * a[10], c2 = a[8] * a[15] - a[12] * a[11];
  double c1 = a[8] * a[14] - a[12] * a[10], c0 = a[8] * a[13] - a[12] * a[9];
  double det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0, bound = 1.0;
  double adj[16] = {
      a[5] * c5 - a[6] * c4 + a[7] * c3,     -a[1] * c5 + a[2] * c4 - a[3] * c3,
      a[13] * s5 - a[14] * s4 + a[15] * s3,  -a[9] * s5 + a[10] * s4 - a[11] * s3,
      -a[4] * c5 + a[6] * c2 - a[7] * c1,    a[0] * c5 - a[2] * c2 + a[3] * c1,
      -a[12] * s5 + a[14] * s2 - a[15] * s1, a[8] * s5 - a[10] * s2 + a[11] * s1,
      a[4] * c4 - a[5] * c2 + a[7] * c0,     -a[0] * c4 + a[1] * c2 - a[3] * c0,
      a[12] * s4 - a[13] * s2 + a[15] * s0,  -a[8] * s4 + a[9] * s2 - a[11] * s0,
      -a[4] * c3 + a[5] * c1 - a[6] * c0,    a[0] * c3 - a[1] * c1 + a[2] * c0,
      -a[12] * s3 + a[13] * s1 - a[14] * s0, a[8] * s3 - a[9] * s1 + a[10] * s0};
  /* 1 / cond_1(A) = |det| / (||A||_1 ||adj A||_1): refuse only a block that is singular to
     working precision (the Hadamard ratio of the 2x2 and 3x3 solves falls like the product of
     the small singular values and refused ones(4) + 1e-4 I, cond 4e4, which GSL's LU took). */
  double an = 0.0, adjn = 0.0;
  for (size_t j = 0; j < 4; j++) {
    double ca = 0.0, cadj = 0.0;
    for (size_t i = 0; i < 4; i++) ca += fabs(a[4 * i + j]), cadj += fabs(adj[4 * i + j]);
    an = fmax(an, ca), adjn = fmax(adjn, cadj);
  }
  bound = an * adjn;
  if (!(fabs(det) > SINGULAR_TOL * bound)) return 1;
  double y[4];
  for (size_t i = 0; i < 4; i++) {
    y[i] = (adj[4 * i] * b[0] + adj[4 * i + 1] * b[1] + adj[4 * i + 2] * b[2] +
            adj[4 * i + 3] * b[3]) / det;
    if (!isfinite(y[i])) return 1;
  }
  memcpy(x, y, sizeof y);
  return 0;
}

/* The 2 x 2 and 3 x 3 solve by Cramer's rule, the 4 x 4 by its adjugate (fc_local.h). */
int fc_local_small_solve(size_t d, const double *A, const double *b, double *x)
{
  return d <= 3 ? cramer_solve(d, A, b, x) : cramer4_solve(A, b, x);
}

/*
 * The projection P of v = r - rho u on the Alart-Curnier set (normal part on
 * R+, tangential part on the disc of radius mu max(0, v_n)) and, when Dp is not
 * NULL, one element of its generalized Jacobian dP/dv (row-major).
 */
static void ac_projection(const local_problem *L, const double *v, double *P, double *Dp)
{
  size_t d = L->dim;
  double pn = fmax(0.0, v[0]), radius = L->mu * pn, nt = 0.0;
  for (size_t k = 1; k < d; k++) nt += v[k] * v[k];
  nt = sqrt(nt);
  if (Dp) memset(Dp, 0, d * d * sizeof *Dp);
  P[0] = pn;
  if (Dp && v[0] > 0.0) Dp[0] = 1.0;
  if (nt <= radius) { /* sticking: the tangential part passes through */
    for (size_t k = 1; k < d; k++) {
      P[k] = v[k];
      if (Dp && radius > 0.0) Dp[k * d + k] = 1.0;
    }
    return;
  }
  double s = radius / nt; /* sliding: onto the disc's rim, direction v_T / |v_T| */
  for (size_t k = 1; k < d; k++) {
    P[k] = s * v[k];
    if (!Dp) continue;
    for (size_t l = 1; l < d; l++) Dp[k * d + l] = s * ((k == l) - v[k] * v[l] / (nt * nt));
    if (v[0] > 0.0) Dp[k * d] = L->mu * v[k] / nt;
  }
}

/*
 * The Alart-Curnier function phi(r) = r - P(r - rho (W r + q)) and, when J is not
 * NULL, J = I - dP (I - diag(rho) W); u = W r + q. Returns the merit 0.5 |phi|^2.
 */
static double ac_function(const local_problem *L, const double *r, double *phi, double *J,
                          double *u)
{
  size_t d = L->dim;
  double v[DMAX] = {0}, P[DMAX], Dp[DMAX * DMAX], psi = 0.0;
  velocity(L, r, u);
  for (size_t k = 0; k < d; k++) v[k] = r[k] - L->rho[k] * u[k];
  ac_projection(L, v, P, J ? Dp : NULL);
  for (size_t k = 0; k < d; k++) {
    phi[k] = r[k] - P[k];
    psi += phi[k] * phi[k];
  }
  for (size_t k = 0; J && k < d; k++)
    for (size_t j = 0; j < d; j++) {
      double s = (k == j);
      for (size_t l = 0; l < d; l++) s -= Dp[k * d + l] * L->G[l * d + j];
      J[k * d + j] = s;
    }
  return isfinite(psi) ? 0.5 * psi : INFINITY;
}

/*
 * Damped Newton on the Alart-Curnier function from r (updated in place), with an
 * Armijo backtracking on 0.5 |phi|^2. A singular Jacobian (a rigid or redundant
 * direction of W) gives the projection step d = -phi instead. Returns 1 when the
 * natural map reached tol, 0 when the iterations or the line search ran out.
 */
static int ac_newton(const local_problem *L, double *r, long max_iter)
{
  size_t d = L->dim;
  double phi[DMAX], J[DMAX * DMAX], step[DMAX], rhs[DMAX], rt[DMAX], phit[DMAX], Jt[DMAX * DMAX];
  double u[DMAX], ut[DMAX]; /* W r + q at r and at the trial: the convergence test's too */
  double psi = ac_function(L, r, phi, J, u);
  for (long it = 0; it < max_iter && isfinite(psi); it++) {
    if (converged_at(L, r, u)) return 1;
    for (size_t k = 0; k < d; k++) rhs[k] = -phi[k];
    if (fc_local_small_solve(d, J, rhs, step)) memcpy(step, rhs, d * sizeof *step);
    double alpha = 1.0, psit;
    int backtracks = 0;
    for (;;) { /* the trial's Jacobian comes along: most first trials are accepted */
      for (size_t k = 0; k < d; k++) rt[k] = r[k] + alpha * step[k];
      psit = ac_function(L, rt, phit, Jt, ut);
      if (psit <= (1.0 - 2.0 * ARMIJO * alpha) * psi) break;
      if (++backtracks > MAX_BACKTRACKS) return converged_at(L, r, u);
      alpha *= 0.5;
    }
    memcpy(r, rt, d * sizeof *r);
    memcpy(u, ut, d * sizeof *u);
    memcpy(phi, phit, d * sizeof *phi);
    memcpy(J, Jt, d * d * sizeof *J);
    psi = psit;
  }
  return converged_at(L, r, u);
}

/*
 * The projection fixed point r <- proj_K(r - rho (u + mu |u_T| e_n)) with
 * rho = 1 / |W|_F: slow but free of Jacobians, the fallback when Newton fails.
 */
static void projection_fixed_point(const local_problem *L, double *r, long iterations)
{
  size_t d = L->dim;
  double u[DMAX], x[DMAX], rho = 1.0 / L->wnorm;
  for (long it = 0; it < iterations; it++) {
    velocity(L, r, u);
    double ut = 0.0;
    for (size_t k = 1; k < d; k++) ut += u[k] * u[k];
    for (size_t k = 0; k < d; k++) x[k] = r[k] - rho * u[k];
    x[0] -= rho * L->mu * sqrt(ut);
    cpk_cone_project(d, L->mu, x, r);
    if (converged(L, r)) return;
  }
}

/* Keep r as the best point when its natural map beats *best_res. */
static void keep_best(const local_problem *L, const double *r, double *best, double *best_res)
{
  double res = natural_map(L, r);
  if (res < *best_res) {
    *best_res = res;
    memcpy(best, r, L->dim * sizeof *best);
  }
}

static void local_setup(local_problem *L, size_t dim, double mu, const double *W, const double *q,
                        double tol, double wmax)
{
  double f = 0.0;
  L->dim = dim;
  L->mu = mu;
  L->W = W;
  L->q = q;
  L->tol = tol;
  for (size_t k = 0; k < dim * dim; k++) f += W[k] * W[k];
  L->wnorm = sqrt(f);
  /*
   * The tangential weight must be one scalar: different weights per tangential
   * row would turn the disc projection into friction opposite to a skewed slip
   * (a different law, whose solutions the natural map rejects).
   */
  double wtt = 0.0;
  for (size_t k = 1; k < dim; k++) wtt += W[k * dim + k] / (double)(dim - 1);
  L->rho[0] = W[0] > RHO_FLOOR * wmax ? 1.0 / W[0] : 1.0 / wmax;
  for (size_t k = 1; k < dim; k++) L->rho[k] = wtt > RHO_FLOOR * wmax ? 1.0 / wtt : 1.0 / wmax;
  for (size_t l = 0; l < dim; l++) /* what every Jacobian of ac_function multiplies dP by */
    for (size_t j = 0; j < dim; j++) L->G[l * dim + j] = (l == j) - L->rho[l] * W[l * dim + j];
}

/*
 * The sliding reaction r = r_n (1, -mu t) for a unit slip direction t
 * (dim - 1 values): u_n = 0 fixes r_n = -q_n / a with a = W_nn - mu W_nT t.
 * Returns a (r is only meaningful when a > 0: q_n < 0 here) and, in *slip and
 * *cross, u_T . t and the part of u_T across t (dim 3; 0 for dim 2).
 */
static double sliding_reaction(const local_problem *L, const double *t, double *r, double *slip,
                               double *cross)
{
  size_t d = L->dim;
  const double *W = L->W;
  double a = W[0], u[DMAX];
  for (size_t k = 1; k < d; k++) a -= L->mu * W[k] * t[k - 1];
  r[0] = -L->q[0] / a;
  for (size_t k = 1; k < d; k++) r[k] = -L->mu * r[0] * t[k - 1];
  velocity(L, r, u);
  *slip = 0.0;
  for (size_t k = 1; k < d; k++) *slip += u[k] * t[k - 1];
  *cross = d == 3 ? u[1] * t[1] - u[2] * t[0] : 0.0;
  return a;
}

/* Keep the sliding reaction for direction t when it is one: r_n > 0 and the slip along t. */
static void keep_if_sliding(const local_problem *L, const double *t, double *best, double *best_res)
{
  double r[DMAX], slip, cross;
  if (sliding_reaction(L, t, r, &slip, &cross) > 0.0 && slip >= 0.0)
    keep_best(L, r, best, best_res);
}

/* a (u_T x t) at angle theta: continuous in theta, zero where the slip is along t. */
static double sliding_mismatch(const local_problem *L, double theta)
{
  double t[2] = {cos(theta), sin(theta)}, r[DMAX], slip, cross;
  return sliding_reaction(L, t, r, &slip, &cross) * cross;
}

/*
 * Sliding found by its direction, for dim 2 (t = +1 or -1) and dim 3 (t at
 * angle theta: the roots of a (u_T x t) on a grid of SLIDE_GRID angles, refined
 * by bisection, kept when a > 0 and the slip goes along t). It does not depend
 * on W's conditioning, so it rescues the ill-conditioned blocks Newton fails on.
 */
static void sliding_by_direction(const local_problem *L, double *best, double *best_res)
{
  if (L->dim == 2) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double t = sgn;
      keep_if_sliding(L, &t, best, best_res);
    }
    return;
  }
  if (L->dim != 3) return;
  double step = 2.0 * M_PI / SLIDE_GRID, lo = 0.0, flo = sliding_mismatch(L, lo);
  for (int i = 1; i <= SLIDE_GRID; i++) {
    double hi = i * step, fhi = sliding_mismatch(L, hi), x = lo;
    if ((flo < 0.0) != (fhi < 0.0) || fhi == 0.0) {
      double l = lo, h = hi, fl = flo;
      for (int b = 0; b < SLIDE_BISECTIONS; b++) {
        x = 0.5 * (l + h);
        double fx = sliding_mismatch(L, x);
        if ((fx < 0.0) == (fl < 0.0)) {
          l = x;
          fl = fx;
        } else h = x;
      }
      double t[2] = {cos(x), sin(x)};
      keep_if_sliding(L, t, best, best_res);
    }
    lo = hi;
    flo = fhi;
  }
}

/* Sliding (or anything the closed forms missed): Newton from several starts, then the fallback. */
static void solve_sliding(const local_problem *L, const double *stick, int have_stick, double *r,
                          long max_iter, double *best, double *best_res)
{
  size_t d = L->dim;
  double x[DMAX] = {0};
  if (ac_newton(L, r, max_iter)) {
    keep_best(L, r, best, best_res);
    return;
  }
  keep_best(L, r, best, best_res);
  x[0] = -L->q[0] / L->W[0]; /* the frictionless answer, a start on the cone's axis */
  if (!ac_newton(L, x, max_iter) && have_stick) {
    keep_best(L, x, best, best_res);
    cpk_cone_project(d, L->mu, stick, x); /* the sticking answer pulled back into the cone */
    ac_newton(L, x, max_iter);
  }
  keep_best(L, x, best, best_res);
  if (converged(L, best)) return;
  sliding_by_direction(L, best, best_res);
  memcpy(x, best, d * sizeof *x);
  if (converged(L, best) || ac_newton(L, x, max_iter)) {
    keep_best(L, x, best, best_res);
    return;
  }
  memcpy(x, best, d * sizeof *x);
  projection_fixed_point(L, x, FIXED_POINT_FACTOR * max_iter);
  ac_newton(L, x, max_iter);
  keep_best(L, x, best, best_res);
}

fc_local_status fc_local_solve(size_t dim, double mu, const double *W, const double *q, double *r,
                               double tol, long max_iter, double *residual)
{
  local_problem L;
  double wmax = 0.0, best[DMAX], best_res, stick[DMAX], A[DMAX * DMAX], minus_q[DMAX] = {0};
  for (size_t k = 0; k < dim * dim; k++) wmax = fmax(wmax, fabs(W[k]));
  local_setup(&L, dim, mu, W, q, tol, wmax);
  if (q[0] >= 0.0) { /* separation: u = q already satisfies the dual-cone condition */
    memset(r, 0, dim * sizeof *r);
    *residual = natural_map(&L, r);
    return converged(&L, r) ? FC_LOCAL_SOLVED : FC_LOCAL_INACCURATE;
  }
  if (!(W[0] > ZERO_BLOCK_TOL * wmax)) { /* no normal reaction can make u_n >= 0 */
    *residual = natural_map(&L, r);
    return FC_LOCAL_DEGENERATE;
  }
  if (mu == 0.0) { /* frictionless: the cone is the normal half-line */
    memset(r, 0, dim * sizeof *r);
    r[0] = -q[0] / W[0];
    *residual = natural_map(&L, r);
    return converged(&L, r) ? FC_LOCAL_SOLVED : FC_LOCAL_INACCURATE;
  }
  memcpy(A, W, dim * dim * sizeof *A);
  for (size_t k = 0; k < dim; k++) minus_q[k] = -q[k];
  int have_stick = !fc_local_small_solve(dim, A, minus_q, stick);
  if (have_stick && converged(&L, stick)) { /* sticking: u = 0 inside the cone */
    memcpy(r, stick, dim * sizeof *r);
    *residual = natural_map(&L, r);
    return FC_LOCAL_SOLVED;
  }
  for (size_t k = 0; k < dim; k++)
    if (!isfinite(r[k])) memset(r, 0, dim * sizeof *r);
  memcpy(best, r, dim * sizeof *best);
  best_res = natural_map(&L, r);
  solve_sliding(&L, stick, have_stick, r, max_iter, best, &best_res);
  memcpy(r, best, dim * sizeof *r);
  *residual = best_res;
  return converged(&L, best) ? FC_LOCAL_SOLVED : FC_LOCAL_INACCURATE;
}
