/* fcipm_cone.c: algebra of one Lorentz cone for the friction-cone interior point: Nesterov-Todd scaling, Jordan product, arrow solve, step to the boundary. */
#include <math.h>
#include <string.h>
#include <cpkit/errors.h>
#include "fcipm.h"

/*
 * L = { x : x_0 >= |x_1| } with the Jordan product x o y = (x . y, x0 y1 + y0 x1),
 * identity e = (1, 0), det x = x^T J x, J = diag(1, -1, ..., -1)
 * (Alizadeh and Goldfarb 2003, section 4). A cone of size 1 is the half-line.
 */

static double tail_norm(size_t d, const double *x)
{
  double s = 0.0;
  for (size_t k = 1; k < d; k++) s += x[k] * x[k];
  return sqrt(s);
}

double fcipm_det(size_t d, const double *x)
{
  double t = tail_norm(d, x);
  return (x[0] - t) * (x[0] + t);
}

void fcipm_block_mv(size_t d, const double *A, const double *x, double *y)
{
  for (size_t i = 0; i < d; i++) {
    double v = 0.0;
    for (size_t j = 0; j < d; j++) v += A[i * d + j] * x[j];
    y[i] = v;
  }
}

/*
 * NT scaling point w with Q_w y = x (Q_w = 2 w w^T - det(w) J, the quadratic
 * representation). With x^ = x / sqrt(det x), y^ = y / sqrt(det y),
 * gamma = sqrt((1 + x^ . y^) / 2) and beta = (det x / det y)^(1/4), the
 * point is w = beta wb with wb = (x^ + J y^) / (2 gamma), det wb = 1.
 * Then W = Q_{w^(1/2)}, W^2 = Q_w and W^{-2} = Q_{w^{-1}} with
 * w^{-1} = J wb / beta:  W^{-2} = (2 (J wb)(J wb)^T - J) / beta^2, and
 * W^{-1} = (2 (J v)(J v)^T - J) / beta with v = (wb + e) / sqrt(2 (wb_0 + 1)),
 * the square root of wb (Vandenberghe's cvxopt notes, section 4.3).
 */
int fcipm_nt_scaling(size_t d, const double *x, const double *y, double *winv, double *w2inv,
                     double *lam)
{
  double dx = fcipm_det(d, x), dy = fcipm_det(d, y);
  if (!(dx > 0.0 && dy > 0.0 && x[0] > 0.0 && y[0] > 0.0)) return CPK_ESINGULAR;
  double sx = sqrt(dx), sy = sqrt(dy), beta = sqrt(sx / sy);
  double xh[FCIPM_CMAX] = {0}, yh[FCIPM_CMAX] = {0}, wb[FCIPM_CMAX] = {0}, jv[FCIPM_CMAX] = {0};
  double dot = 0.0;
  for (size_t k = 0; k < d; k++) {
    xh[k] = x[k] / sx;
    yh[k] = y[k] / sy;
    dot += xh[k] * yh[k];
  }
  double gamma = sqrt(0.5 * (1.0 + dot));
  for (size_t k = 0; k < d; k++) wb[k] = (xh[k] + (k ? -yh[k] : yh[k])) / (2.0 * gamma);
  double nv = sqrt(2.0 * (wb[0] + 1.0));
  for (size_t k = 0; k < d; k++) jv[k] = (k ? -wb[k] : wb[k] + 1.0) / nv;
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < d; j++) {
      double jij = i != j ? 0.0 : (i ? -1.0 : 1.0);
      double jwi = i ? -wb[i] : wb[i], jwj = j ? -wb[j] : wb[j];
      winv[i * d + j] = (2.0 * jv[i] * jv[j] - jij) / beta;
      w2inv[i * d + j] = (2.0 * jwi * jwj - jij) / (beta * beta);
    }
  fcipm_block_mv(d, winv, x, lam);
  return CPK_OK;
}

void fcipm_jordan(size_t d, const double *a, const double *b, double *z)
{
  double dot = 0.0;
  for (size_t k = 0; k < d; k++) dot += a[k] * b[k];
  for (size_t k = 1; k < d; k++) z[k] = a[0] * b[k] + b[0] * a[k];
  z[0] = dot;
}

/*
 * The arrow matrix [a0 a1^T; a1 a0 I] is inverted by eliminating
 * t1 = (r1 - t0 a1) / a0: t0 = (a0 r0 - a1 . r1) / det a.
 */
void fcipm_arrow_solve(size_t d, const double *a, const double *r, double *t)
{
  double a1r1 = 0.0;
  for (size_t k = 1; k < d; k++) a1r1 += a[k] * r[k];
  double t0 = (a[0] * r[0] - a1r1) / fcipm_det(d, a);
  for (size_t k = 1; k < d; k++) t[k] = (r[k] - t0 * a[k]) / a[0];
  t[0] = t0;
}

/*
 * x + alpha dx leaves L where det(x + alpha dx) = c + 2 b alpha + a alpha^2
 * vanishes (a = det dx, b = x^T J dx, c = det x > 0) on the branch with a
 * positive first entry. If det dx >= 0, dx is in L (never leaves) or in -L
 * (leaves at the smaller positive root); otherwise the roots have opposite
 * signs and the positive one is the exit.
 */
double fcipm_max_step(size_t d, const double *x, const double *dx)
{
  double a = fcipm_det(d, dx), c = fcipm_det(d, x), b = x[0] * dx[0];
  for (size_t k = 1; k < d; k++) b -= x[k] * dx[k];
  if (a >= 0.0 && dx[0] >= 0.0) return INFINITY;
  double disc = b * b - a * c;
  if (disc < 0.0) disc = 0.0; /* rounding: a tangent direction */
  double qq = -(b + copysign(sqrt(disc), b));
  double r1 = a != 0.0 ? qq / a : INFINITY, r2 = qq != 0.0 ? c / qq : INFINITY;
  double best = INFINITY;
  if (r1 > 0.0) best = r1;
  if (r2 > 0.0 && r2 < best) best = r2;
  return best;
}
