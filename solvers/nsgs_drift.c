/* nsgs_drift.c: nsgs's drift test and the ratio test that finds how far r can move along a direction before it leaves the cones. */
#include <math.h>
#include <cpkit/matrix.h>
#include "nsgs_drift.h"

#define DRIFT_REPEAT 1e-3 /* |d - dprev| at most this times |d|: the same change again */
#define DRIFT_NULL 1e-6   /* |W d| at most this times max|W_ij| |d|: d changes no velocity */

static double norm_inf(const double *x, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

/*
 * The first t > 0 at which x(t) = r + t d leaves K_mu (INFINITY if never):
 * either x_n(t) < 0, or f(t) = mu^2 x_n(t)^2 - |x_T(t)|^2 = a t^2 + b t + c
 * turns negative (c >= 0 when r is in K).
 */
static double block_exit(size_t dim, double mu, const double *r, const double *d)
{
  double t = d[0] < 0.0 ? -r[0] / d[0] : INFINITY;
  double a = mu * mu * d[0] * d[0], b = mu * mu * r[0] * d[0], c = mu * mu * r[0] * r[0];
  for (size_t k = 1; k < dim; k++) {
    a -= d[k] * d[k];
    b -= r[k] * d[k];
    c -= r[k] * r[k];
  }
  b *= 2.0; /* f(t) = a t^2 + b t + c */
  if (c <= 0.0 && b < 0.0) return 0.0; /* on the boundary and leaving */
  double disc = b * b - 4.0 * a * c;
  if (a < 0.0) /* f ends negative: its positive root (c >= 0 puts the roots on both sides) */
    return fmin(t, (-b - sqrt(fmax(0.0, disc))) / (2.0 * a));
  if (a == 0.0) return b < 0.0 ? fmin(t, -c / b) : t;
  if (b < 0.0 && disc > 0.0) /* f dips below 0 between two positive roots */
    return fmin(t, 2.0 * c / (-b + sqrt(disc)));
  return t;
}

double nsgs_drift_step_to_boundary(const cpk_problem *p, const double *r, const double *d,
                                   double t_cap)
{
  size_t dim = p->cone_dim;
  double t = t_cap;
  for (size_t c = 0; c < p->nc; c++)
    t = fmin(t, block_exit(dim, p->mu[c], r + c * dim, d + c * dim));
  return fmax(t, 0.0);
}

int nsgs_drift_detected(const cpk_problem *p, const double *d, const double *dprev, double wmax,
                        double *wd)
{
  double dn = norm_inf(d, p->n), diff = 0.0;
  if (!(dn > 0.0)) return 0;
  for (size_t i = 0; i < p->n; i++) diff = fmax(diff, fabs(d[i] - dprev[i]));
  if (!(diff <= DRIFT_REPEAT * dn)) return 0;
  cpk_matrix_mv(p->M, d, wd, 0);
  return norm_inf(wd, p->n) <= DRIFT_NULL * wmax * dn;
}
