/* lapack_equilibrate.c: dgeequb's power-of-two row and column scalings, computed in C (the lapack backend's equilibration). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "lapack_equilibrate.h"

/*
 * Why not dgeequb itself: on the 9 x 9 matrices of a contact step it cost about
 * 3,400 instructions a call with its LOG calls (one a row and a column), this about
 * 3,000: the exponent bits of a double give the same power of two. INT(LOG(x) / LOG(2)) is
 * floor(log2 x) for x >= 1 and ceil(log2 x) below 1, which the exponent gives
 * exactly unless x is within rounding of a power of two: there the quotient of the
 * two rounded logarithms can land on either side of the integer, so it is
 * computed as dgeequb computes it (t_lapack_equilibrate compares with dgeequb).
 */
static double pow2_of(double x)
{
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  const uint64_t ones = (UINT64_C(1) << 52) - 1, near = UINT64_C(1) << 22;
  uint64_t frac = bits & ones;
  int biased = (int)(bits >> 52 & 0x7ff); /* x > 0: no sign bit */
  if (biased == 0x7ff) return x;            /* inf: the caller's amax says so */
  /* x = (1 + f) 2^(biased - 1023): within 2^-30 (relative) of a power of two, or subnormal,
   * the quotient of logarithms decides as in dgeequb */
  if (x == 1.0) return 1.0; /* log(1) = +0 exactly (C99 F.9.3.7): k = 0; the unit rows of a
                             * Newton matrix, half of a cone step's calls to log here */
  if (biased == 0 || frac < near || frac > ones - near) {
    int k = (int)(log(x) / log(2.0));
    return k <= -1024 ? 0.0 : ldexp(1.0, k); /* Fortran's 2**k is 1 / 2**(-k): 1 / inf there */
  }
  int k = x >= 1.0 ? biased - 1023 : biased - 1022; /* floor of log2 x, its ceiling below 1 */
  bits = (uint64_t)(k + 1023) << 52;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* 1 / s clamped to [DBL_MIN, 1 / DBL_MIN] as dgeequb clamps (its SMLNUM, BIGNUM); s > 0. */
static double inverse_clamped(double s)
{
  return 1.0 / (s < DBL_MIN ? DBL_MIN : s > 1.0 / DBL_MIN ? 1.0 / DBL_MIN : s);
}

/* Row maxima rounded to powers of two into r (NaN entries skipped, as MAX skips them). */
static int row_scales(int n, const double *restrict a, double *restrict r, double *amax)
{
  for (int i = 0; i < n; i++) r[i] = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double v = fabs(a[i + (long)j * n]);
      r[i] = v > r[i] ? v : r[i];
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

int lapack_equilibrate(int n, const double *restrict a, double *restrict r, double *restrict c,
                       double *amax)
{
  int info = row_scales(n, a, r, amax);
  if (info) return info;
  for (int j = 0; j < n; j++) {
    const double *col = a + (long)j * n;
    double m = 0.0;
    for (int i = 0; i < n; i++) {
      double v = fabs(col[i]) * r[i];
      m = v > m ? v : m;
    }
    c[j] = m > 0.0 ? pow2_of(m) : 0.0;
  }
  for (int j = 0; j < n; j++)
    if (c[j] == 0.0) return n + j + 1;
  for (int j = 0; j < n; j++) c[j] = inverse_clamped(c[j]);
  return 0;
}
