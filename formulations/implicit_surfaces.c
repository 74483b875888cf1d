/* implicit_surfaces.c: the ready-made implicit surfaces (half-space, sphere, ellipsoid) and a surface evaluated at the end-of-step pose of its body, with the partials the implicit compiler needs. */
#include <math.h>
#include <string.h>
#include "implicit_internal.h"

/* ---- half-space n.x <= d: data = (n, d) ---- */
static double plane_value(const cpk_implicit_surface *s, const double x[3])
{
  return cim_dot(s->data, x) - s->data[3];
}
static void plane_gradient(const cpk_implicit_surface *s, const double x[3], double g[3])
{
  (void)x;
  memcpy(g, s->data, 3 * sizeof *g);
}
static void zero_hessian(const cpk_implicit_surface *s, const double x[3], double H[9])
{
  (void)s, (void)x;
  memset(H, 0, 9 * sizeof *H);
}
/* Every point of a plane has its normal; the foot of the origin stands for them all. */
static void plane_support(const cpk_implicit_surface *s, const double n[3], double x[3])
{
  (void)n;
  for (int a = 0; a < 3; a++) x[a] = s->data[3] * s->data[a];
}

int cpk_implicit_plane(const double n[3], double d, cpk_implicit_surface *s)
{
  double len = sqrt(cim_dot(n, n));
  if (!(len > 0) || !isfinite(len) || !isfinite(d)) return CPK_EINVAL;
  memset(s, 0, sizeof *s);
  for (int a = 0; a < 3; a++) s->data[a] = n[a] / len;
  s->data[3] = d;
  s->value = plane_value;
  s->gradient = plane_gradient;
  s->hessian = zero_hessian;
  s->support = plane_support;
  return CPK_OK;
}

/* ---- ellipsoid m (sum x_k^2 / a_k^2 - 1) / 2: data = (a, b, c, m) ---- */
static double ellipsoid_value(const cpk_implicit_surface *s, const double x[3])
{
  double q = 0.0;
  for (int a = 0; a < 3; a++) q += x[a] * x[a] / (s->data[a] * s->data[a]);
  return 0.5 * s->data[3] * (q - 1.0);
}
static void ellipsoid_gradient(const cpk_implicit_surface *s, const double x[3], double g[3])
{
  for (int a = 0; a < 3; a++) g[a] = s->data[3] * x[a] / (s->data[a] * s->data[a]);
}
static void ellipsoid_hessian(const cpk_implicit_surface *s, const double x[3], double H[9])
{
  (void)x;
  memset(H, 0, 9 * sizeof *H);
  for (int a = 0; a < 3; a++) H[4 * a] = s->data[3] / (s->data[a] * s->data[a]);
}
/* The normal at x is D^-2 x, so the point with normal n is D^2 n / |D n|. */
static void ellipsoid_support(const cpk_implicit_surface *s, const double n[3], double x[3])
{
  double q = 0.0;
  for (int a = 0; a < 3; a++) q += s->data[a] * s->data[a] * n[a] * n[a];
  q = sqrt(q);
  for (int a = 0; a < 3; a++) x[a] = q > 0 ? s->data[a] * s->data[a] * n[a] / q : 0.0;
}

int cpk_implicit_ellipsoid(double a, double b, double c, cpk_implicit_surface *s)
{
  if (!(a > 0 && b > 0 && c > 0) || !isfinite(a) || !isfinite(b) || !isfinite(c))
    return CPK_EINVAL;
  memset(s, 0, sizeof *s);
  s->data[0] = a;
  s->data[1] = b;
  s->data[2] = c;
  s->data[3] = fmin(a, fmin(b, c));
  s->value = ellipsoid_value;
  s->gradient = ellipsoid_gradient;
  s->hessian = ellipsoid_hessian;
  s->support = ellipsoid_support;
  return CPK_OK;
}

int cpk_implicit_sphere(double r, cpk_implicit_surface *s)
{
  return cpk_implicit_ellipsoid(r, r, r, s);
}

/* ---- placement ---- */

void cim_quat_to_matrix(const double q[4], double R[9])
{
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* The velocity partials: dxb/dv = -h A, dxb/dw = Dw = h R^T [r]x, and g = A^T gb picks
 * up d(h w x u)/dw = -h [u]x with u = R gb. */
static void velocity_partials(const cim_place *p, double h, const double r[3], const double A[9],
                              const double gb[3], const double H[9], cim_eval *e)
{
  double Sr[9], Dw[9], HDw[9], AHDw[9], u[3], Su[9];
  cim_skew(r, Sr);
  cim_mul_tn(p->R, Sr, Dw, 3, 3, 3);
  for (int k = 0; k < 9; k++) Dw[k] *= h;
  cim_mul_tn(Dw, gb, e->Fv + 3, 3, 3, 1);
  for (int a = 0; a < 3; a++) e->Fv[a] = -h * e->g[a];
  cim_mul(H, Dw, HDw, 3, 3, 3);
  cim_mul_tn(A, HDw, AHDw, 3, 3, 3);
  cim_mul(p->R, gb, u, 3, 3, 1);
  cim_skew(u, Su);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      e->GV[6 * i + j] = -h * e->Gx[3 * i + j];
      e->GV[6 * i + 3 + j] = AHDw[3 * i + j] - h * Su[3 * i + j];
    }
}

int cim_place_eval(const cim_place *p, const double *V, double h, const double x[3], cim_eval *e)
{
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  const double *v = p->moving && V ? V : zero;
  double r[3], W[9], Sw[9], A[9], xb[3], gb[3], H[9], HA[9];
  for (int a = 0; a < 3; a++) r[a] = x[a] - p->c[a] - h * v[a];
  cim_skew(v + 3, Sw);
  for (int k = 0; k < 9; k++) W[k] = (k % 4 == 0 ? 1.0 : 0.0) - h * Sw[k];
  cim_mul_tn(p->R, W, A, 3, 3, 3);
  cim_mul(A, r, xb, 3, 3, 1);
  const cpk_implicit_surface *s = p->surf;
  e->F = s->value(s, xb);
  s->gradient(s, xb, gb);
  s->hessian(s, xb, H);
  cim_mul_tn(A, gb, e->g, 3, 3, 1);
  cim_mul(H, A, HA, 3, 3, 3);
  cim_mul_tn(A, HA, e->Gx, 3, 3, 3);
  if (p->moving)
    velocity_partials(p, h, r, A, gb, H, e);
  else {
    memset(e->Fv, 0, sizeof e->Fv);
    memset(e->GV, 0, sizeof e->GV);
  }
  int ok = isfinite(e->F);
  for (int k = 0; k < 9; k++) ok &= isfinite(e->Gx[k]) && isfinite(H[k]);
  for (int a = 0; a < 3; a++) ok &= isfinite(e->g[a]);
  return ok ? CPK_OK : CPK_EBADFUNC;
}
