/* t_fc_local.c: the small dense solve of the one-contact friction-cone solver (fc_local.c): answers checked against hand-made right-hand sides and GSL's LU, singular blocks refused. */
#include <math.h>
#include <string.h>
#include <gsl/gsl_linalg.h>
#include "fc_local.h"
#include "testlib.h"

/* b = A x by its own loop (A d x d, row-major). */
static void multiply(size_t d, const double *A, const double *x, double *b)
{
  for (size_t i = 0; i < d; i++) {
    b[i] = 0.0;
    for (size_t j = 0; j < d; j++) b[i] += A[i * d + j] * x[j];
  }
}

/* GSL's LU solution of A x = b (the reference); 0 when GSL solved it. */
static int gsl_reference(size_t d, const double *A, const double *b, double *x)
{
  double a[16];
  int sign;
  memcpy(a, A, d * d * sizeof *a);
  gsl_matrix_view m = gsl_matrix_view_array(a, d, d);
  gsl_vector_const_view bv = gsl_vector_const_view_array(b, d);
  gsl_vector_view xv = gsl_vector_view_array(x, d);
  gsl_permutation *perm = gsl_permutation_alloc(d);
  int rc = !perm || gsl_linalg_LU_decomp(&m.matrix, perm, &sign) ||
           gsl_linalg_LU_solve(&m.matrix, perm, &bv.vector, &xv.vector);
  gsl_permutation_free(perm);
  return rc;
}

/*
 * The adjugate is not backward stable as an LU with pivoting is: its error on a block of
 * cond ~4e4 is measured at ~2e-9 relative (GSL's LU: ~1e-12); cond^2 eps ~ 3.5e-7 bounds it.
 */
#define ACCURACY_4E4 1e-7

static double inf_norm(size_t d, const double *x)
{
  double m = 0.0;
  for (size_t i = 0; i < d; i++) m = fmax(m, fabs(x[i]));
  return m;
}

static double max_diff(size_t d, const double *x, const double *y)
{
  double e = 0.0;
  for (size_t i = 0; i < d; i++) e = fmax(e, fabs(x[i] - y[i]));
  return e;
}

/* A x = A x_true for a chosen x_true: the solve must give x_true back, and GSL's answer. */
static void well_conditioned(size_t d, const double *A, const char *what)
{
  const double x_true[4] = {1.0, -2.0, 3.0, -4.0};
  double b[4], x[4] = {NAN, NAN, NAN, NAN}, ref[4];
  multiply(d, A, x_true, b);
  int refused = fc_local_small_solve(d, A, b, x);
  t_ok(!refused && max_diff(d, x, x_true) < 1e-13, "%s: x = (1, -2, 3, -4)[:%zu] back (off by %.2g)",
       what, d, refused ? INFINITY : max_diff(d, x, x_true));
  int gsl_failed = gsl_reference(d, A, b, ref);
  double off = refused || gsl_failed ? INFINITY : max_diff(d, x, ref);
  t_ok(off < 1e-13, "%s: GSL's LU agrees (off by %.2g)", what, off);
}

/* Singular: refused, and x left as it was. */
static void refused(size_t d, const double *A, const char *what)
{
  const double b[4] = {1.0, 2.0, 3.0, 4.0};
  double x[4] = {7.0, 7.0, 7.0, 7.0};
  int rc = fc_local_small_solve(d, A, b, x);
  t_ok(rc == 1 && x[0] == 7.0 && x[1] == 7.0 && x[2] == 7.0 && x[3] == 7.0,
       "%s: refused, x untouched", what);
}

int main(void)
{
  /* not symmetric and no zero entry, so a transposed minor or a misplaced cofactor shows */
  const double A2[4] = {3, 1, -2, 4};
  const double A3[9] = {4, 1, -1, 2, 5, 1, 1, -3, 6};
  const double A4[16] = {5, 1, 2, -1, 2, 7, 1, 3, -1, -2, 7, 1, 1, 2, 3, 8};
  well_conditioned(2, A2, "2x2");
  well_conditioned(3, A3, "3x3");
  well_conditioned(4, A4, "4x4");

  /* ones(4) + 1e-4 I: cond_1 = (4 + 1e-4) / 1e-4 ~ 4e4; the exact answer of A x = ones is
     x_i = 1 / (4 + 1e-4) (A ones = (4 + 1e-4) ones), accurate to ~cond * eps */
  double near[16], ones[4] = {1, 1, 1, 1}, x[4] = {NAN, NAN, NAN, NAN}, ref[4];
  for (size_t i = 0; i < 16; i++) near[i] = i % 5 == 0 ? 1.0 + 1e-4 : 1.0;
  int rc = fc_local_small_solve(4, near, ones, x);
  double exact[4] = {1 / 4.0001, 1 / 4.0001, 1 / 4.0001, 1 / 4.0001};
  double off = rc ? INFINITY : max_diff(4, x, exact) / inf_norm(4, exact), gsl_off = INFINITY;
  if (!gsl_reference(4, near, ones, ref)) gsl_off = max_diff(4, ref, exact) / inf_norm(4, exact);
  t_ok(rc == 0 && off < ACCURACY_4E4, "ones(4) + 1e-4 I (cond ~4e4): accepted, x_i = 1/4.0001 "
       "(off by %.2g relative; GSL's LU by %.2g)", off, gsl_off);
  const double b4[4] = {1, -1, 2, 0.5};
  rc = fc_local_small_solve(4, near, b4, x);
  off = rc || gsl_reference(4, near, b4, ref) ? INFINITY : max_diff(4, x, ref) / inf_norm(4, ref);
  t_ok(off < ACCURACY_4E4, "ones(4) + 1e-4 I, another right-hand side: GSL's LU agrees (off by "
       "%.2g relative to |x|, x_1 = %.6g)", off, ref[0]);

  const double ones4[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const double rank3[16] = {1, 2, 3, 4, 2, 1, 0, 1, 3, 3, 3, 5, 0, 1, 1, 2}; /* row 3 = row 1 + row 2 */
  const double zero_row[16] = {1, 2, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 3, 0, 0, 1};
  const double s3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const double s2[4] = {2, 4, 1, 2};
  refused(4, ones4, "ones(4) (rank 1)");
  refused(4, rank3, "4x4 of rank 3 (a row the sum of two others)");
  refused(4, zero_row, "4x4 with a zero row");
  refused(3, s3, "3x3 of rank 2");
  refused(2, s2, "2x2 of rank 1");
  return t_done();
}
