/* cone.c: the second-order (Coulomb) friction cone: projection, one contact's natural map, the cone problem's residual and FCLIB merit. */
#include <math.h>
#include <cpkit/problem.h>

static double tangent_norm(size_t dim, const double *x)
{
  double s = 0.0;
  for (size_t k = 1; k < dim; k++) s += x[k] * x[k];
  return sqrt(s);
}

void cpk_cone_project(size_t dim, double mu, const double *x, double *y)
{
  double t = tangent_norm(dim, x), xn = x[0];
  if (xn >= 0 && t <= mu * xn) { /* inside K (mu = 0: the half-line, not a point below it) */
    for (size_t k = 0; k < dim; k++) y[k] = x[k];
    return;
  }
  if (mu * t <= -xn) { /* inside the polar cone -K*: the apex is closest */
    for (size_t k = 0; k < dim; k++) y[k] = 0.0;
    return;
  }
  /* onto the boundary ray through x's tangential direction; t > 0 here. a = (xn + mu t) /
   * (1 + mu^2) and s = mu a / t, divided through by mu when mu > 1 so that mu^2 cannot
   * overflow (mu = 1e200 gave y = 0 instead of about (0, x_T)) */
  double a, s;
  if (mu > 1.0) {
    double g = xn / mu + t;
    a = g / (mu + 1.0 / mu);
    s = g / ((1.0 + 1.0 / (mu * mu)) * t);
  } else {
    a = (xn + mu * t) / (1.0 + mu * mu);
    s = mu * a / t;
  }
  y[0] = a;
  for (size_t k = 1; k < dim; k++) y[k] = s * x[k];
}

double cpk_cone_natural_map(size_t dim, double mu, const double *r, const double *u, double *e)
{
  double y[CPK_CONE_DIM_MAX], x[CPK_CONE_DIM_MAX] = {0}, uh[CPK_CONE_DIM_MAX] = {0}, s = 0.0;
  if (dim < 2 || dim > CPK_CONE_DIM_MAX) return NAN;
  for (size_t k = 0; k < dim; k++) uh[k] = u[k];
  uh[0] += mu * tangent_norm(dim, u); /* the De Saxce modification u^ = u + mu |u_T| e_n */
  for (size_t k = 0; k < dim; k++) x[k] = r[k] - uh[k];
  cpk_cone_project(dim, mu, x, y);
  /* e = r - y written as u^ + (x - y): the same in exact arithmetic, but when |r| >> |u^| the
   * rounded x is r itself and r - y would be 0 whatever u^ is (a huge r then "solved" any
   * problem); inside K, x - y is exactly 0 and e = u^ exactly. */
  for (size_t k = 0; k < dim; k++) {
    e[k] = uh[k] + (x[k] - y[k]);
    s += e[k] * e[k];
  }
  return sqrt(s);
}

double cpk_fc_residual(const cpk_problem *p, const double *r, const double *u)
{
  return cpk_natural_residual_rows(p, r, u, 0, p->n);
}

double cpk_fc_merit(const cpk_problem *p, const double *r, const double *u)
{
  double merit;
  cpk_fc_residual_merit(p, r, u, &merit); /* one computation of both: they cannot disagree */
  return merit;
}
