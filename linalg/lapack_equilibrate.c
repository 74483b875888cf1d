/* lapack_equilibrate.c: dgeequb's power-of-two row and column scalings, computed in C (the lapack backend's equilibration). */
#include <float.h>
#include <math.h>
#include "lapack_equilibrate.h"

/*
 * Why not dgeequb itself: on the 9 x 9 matrices of a contact step it cost about
 * 3,400 instructions a call, most of them its LOG and the power of each scale;
 * the exponent of a double gives the same power of two. INT(LOG(x) / LOG(2)) is
 * floor(log2 x) for x >= 1 and ceil(log2 x) below 1, which frexp's exponent gives
 * exactly unless x is within rounding of a power of two: there the quotient of the
 * two rounded logarithms can land on either side of the integer, so it is
 * computed as dgeequb computes it (t_lapack_equilibrate compares with dgeequb).
 */
static double pow2_of(double x)
{
  if (!(x < INFINITY)) return x; /* inf: the caller's amax says so */
  int e;
  double m = frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
  int k = x >= 1.0 ? e - 1 : e;
  if (m < 0.5 + 1e-9 || m > 1.0 - 1e-9) k = (int)(log(x) / log(2.0));
  return k <= -1024 ? 0.0 : ldexp(1.0, k); /* Fortran's 2**k is 1 / 2**(-k): 1 / inf there */
}

/* 1 / s clamped to [DBL_MIN, 1 / DBL_MIN] as dgeequb clamps (its SMLNUM, BIGNUM). */
static double inverse_clamped(double s)
{
  return 1.0 / fmin(fmax(s, DBL_MIN), 1.0 / DBL_MIN);
}

/* Row maxima rounded to powers of two into r (NaN entries skipped, as MAX skips them). */
static int row_scales(int n, const double *a, double *r, double *amax)
{
  for (int i = 0; i < n; i++) r[i] = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double v = fabs(a[i + (long)j * n]);
      if (v > r[i]) r[i] = v;
    }
  double top = 0.0;
  for (int i = 0; i < n; i++) {
    if (r[i] > 0.0) r[i] = pow2_of(r[i]);
    top = r[i] > top ? r[i] : top;
  }
  *amax = top;
  for (int i = 0; i < n; i++)
    if (r[i] == 0.0) return i + 1;
  for (int i = 0; i < n; i++) r[i] = inverse_clamped(r[i]);
  return 0;
}

int lapack_equilibrate(int n, const double *a, double *r, double *c, double *amax)
{
  int info = row_scales(n, a, r, amax);
  if (info) return info;
  for (int j = 0; j < n; j++) {
    const double *col = a + (long)j * n;
    double m = 0.0;
    for (int i = 0; i < n; i++) {
      double v = fabs(col[i]) * r[i];
      if (v > m) m = v;
    }
    c[j] = m > 0.0 ? pow2_of(m) : 0.0;
  }
  for (int j = 0; j < n; j++)
    if (c[j] == 0.0) return n + j + 1;
  for (int j = 0; j < n; j++) c[j] = inverse_clamped(c[j]);
  return 0;
}
