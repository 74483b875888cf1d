/* physics_mlcp.c: a dense boxed contact MLCP (Delassus form with box friction), as a physics engine's solver seam sees it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <cpkit/matrix.h>
#include <cpkit/util.h>
#include "physics_mlcp.h"

#define PHYS_FRICTION_BOX 0.3

static double uni(gsl_rng *r, double a, double b) { return a + (b - a) * gsl_rng_uniform(r); }

static void cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void unit(double *v)
{
  double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int k = 0; k < 3; k++) v[k] /= s;
}

/* A random unit normal and an orthonormal tangent pair (dir[0] = n, dir[1], dir[2] = t1, t2). */
static void frame(gsl_rng *r, double dir[3][3])
{
  for (int k = 0; k < 3; k++) dir[0][k] = gsl_ran_gaussian(r, 1.0);
  unit(dir[0]);
  double e[3] = {fabs(dir[0][0]) < 0.9 ? 1.0 : 0.0, fabs(dir[0][0]) < 0.9 ? 0.0 : 1.0, 0.0};
  cross(dir[0], e, dir[1]);
  unit(dir[1]);
  cross(dir[0], dir[1], dir[2]);
}

/* Row `row` of J on body b: [d, r x d] with sign s. */
static void jac_row(double *J, size_t nv, size_t row, size_t b, const double *d, const double *arm,
                    double s)
{
  double rd[3];
  cross(arm, d, rd);
  for (int k = 0; k < 3; k++) {
    J[row * nv + 6 * b + k] += s * d[k];
    J[row * nv + 6 * b + 3 + k] += s * rd[k];
  }
}

static void fill_jacobian(gsl_rng *r, size_t nc, size_t nb, double *J)
{
  size_t nv = 6 * nb;
  for (size_t c = 0; c < nc; c++) {
    double dir[3][3], arm_a[3], arm_b[3];
    frame(r, dir);
    for (int k = 0; k < 3; k++) arm_a[k] = uni(r, -0.5, 0.5), arm_b[k] = uni(r, -0.5, 0.5);
    size_t a = gsl_rng_uniform_int(r, nb), b = gsl_rng_uniform_int(r, nb + 1); /* nb: ground */
    for (size_t k = 0; k < 3; k++) {
      jac_row(J, nv, 3 * c + k, a, dir[k], arm_a, 1.0);
      if (b < nb && b != a) jac_row(J, nv, 3 * c + k, b, dir[k], arm_b, -1.0);
    }
  }
}

/* M = J Mass^-1 J^T + cfm I (row-major n*n), q = J v with approaching normals. */
static void assemble(gsl_rng *r, size_t n, size_t nb, const double *J, double *minv, double *M,
                     double *q)
{
  size_t nv = 6 * nb;
  double trace = 0.0;
  for (size_t b = 0; b < nb; b++) {
    double m = uni(r, 1.0, 5.0);
    for (int k = 0; k < 3; k++) minv[6 * b + k] = 1.0 / m, minv[6 * b + 3 + k] = 1.0 / (m * uni(r, 0.05, 0.2));
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0.0;
      for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * minv[k] * J[j * nv + k];
      M[i * n + j] = s;
    }
  for (size_t i = 0; i < n; i++) trace += M[i * n + i];
  for (size_t i = 0; i < n; i++) M[i * n + i] += 1e-3 * trace / (double)n;
  for (size_t i = 0; i < n; i++) {
    double s = 0.0;
    for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * gsl_ran_gaussian(r, 1.0);
    q[i] = i % 3 == 0 ? s - 1.0 : s; /* most contacts approach */
  }
}

int cpk_physics_mlcp(size_t ncontacts, size_t nbodies, unsigned long seed, cpk_problem **out)
{
  size_t n = 3 * ncontacts, nv = 6 * nbodies;
  *out = NULL;
  if (ncontacts == 0 || nbodies == 0 || n > 3000 || nv > 6000) return CPK_EINVAL;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  double *J = cpk_calloc_array(n * nv, sizeof *J), *M = cpk_alloc_array(n * n, sizeof *M);
  double *q = cpk_alloc_array(n, sizeof *q), *lo = cpk_alloc_array(n, sizeof *lo);
  double *hi = cpk_alloc_array(n, sizeof *hi), *minv = cpk_alloc_array(nv, sizeof *minv);
  cpk_matrix *A = NULL;
  int rc = (!r || !J || !M || !q || !lo || !hi || !minv) ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    gsl_rng_set(r, seed);
    fill_jacobian(r, ncontacts, nbodies, J);
    assemble(r, n, nbodies, J, minv, M, q);
    for (size_t i = 0; i < n; i++) {
      lo[i] = i % 3 == 0 ? 0.0 : -PHYS_FRICTION_BOX;
      hi[i] = i % 3 == 0 ? INFINITY : PHYS_FRICTION_BOX;
    }
    rc = cpk_matrix_from_dense_array(n, n, M, n, 0, &A);
  }
  if (!rc) rc = cpk_problem_alloc_affine_mcp(A, q, lo, hi, out);
  cpk_matrix_free(A);
  free(J), free(M), free(q), free(lo), free(hi), free(minv);
  if (r) gsl_rng_free(r);
  return rc;
}
