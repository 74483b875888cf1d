/* t_lu_solve1.c: cpk_lu_solve1 against LAPACK's dgetrs on both sides of its small-n threshold (random, badly scaled, pivoting, transposed systems), by residual and by agreement. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lapack_decl.h"
#include "lu_solve1.h"
#include "testlib.h"

/* LAPACK's reference solve with the same factors. */
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);

#define NMAX 40

static double uniform(void)
{
  return 2.0 * (double)rand() / RAND_MAX - 1.0;
}

/* kind 0: diagonally weighted, 1: rows and columns scaled by 2^[-20, 20], 2: the large entries
 * below the diagonal (every column pivots). Column-major. */
static void make_matrix(int n, int kind, double *a)
{
  double rs[NMAX], cs[NMAX];
  for (int i = 0; i < n; i++) {
    rs[i] = kind == 1 ? ldexp(1.0, rand() % 41 - 20) : 1.0;
    cs[i] = kind == 1 ? ldexp(1.0, rand() % 41 - 20) : 1.0;
  }
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double x = uniform();
      if (kind != 2 && i == j) x += (double)n;
      if (kind == 2 && i == (j + 1) % n) x += 4.0 * (double)n;
      a[i + j * n] = rs[i] * x * cs[j];
    }
}

/* Oettli-Prager's componentwise backward error max_i |b - op(A) x|_i / (|op(A)| |x| + |b|)_i,
 * computed here (long double residual), not by the solver: meaningful under any row and column
 * scaling, where a normwise error is dominated by the largest scale. */
static double backward_error(int n, const double *a, const double *x, const double *b, int trans)
{
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    long double s = b[i], den = fabs(b[i]);
    for (int j = 0; j < n; j++) {
      double aij = trans ? a[j + i * n] : a[i + j * n];
      s -= (long double)aij * x[j];
      den += fabsl((long double)aij * x[j]);
    }
    worst = fmax(worst, den > 0 ? (double)(fabsl(s) / den) : 0.0);
  }
  return worst;
}

/* One system: residuals of both solves small, and the two answers close (relative to x). */
static int check_one(int n, int kind, int trans)
{
  double a[NMAX * NMAX], lu[NMAX * NMAX], b[NMAX], x[NMAX], y[NMAX];
  int ipiv[NMAX], info = 0, one = 1;
  make_matrix(n, kind, a);
  memcpy(lu, a, (size_t)(n * n) * sizeof *a);
  dgetrf_(&n, &n, lu, &n, ipiv, &info);
  if (info != 0) return t_ok(0, "n=%d kind %d: dgetrf info %d", n, kind, info);
  for (int i = 0; i < n; i++) b[i] = uniform() * ldexp(1.0, rand() % 21 - 10);
  memcpy(x, b, (size_t)n * sizeof *b);
  memcpy(y, b, (size_t)n * sizeof *b);
  cpk_lu_solve1(n, lu, ipiv, x, trans);
  dgetrs_(trans ? "T" : "N", &n, &one, lu, &n, ipiv, y, &n, &info, 1);
  double ex = backward_error(n, a, x, b, trans), ey = backward_error(n, a, y, b, trans);
  double diff = 0.0, size = 0.0;
  for (int i = 0; i < n; i++) {
    diff = fmax(diff, fabs(x[i] - y[i]));
    size = fmax(size, fabs(y[i]));
  }
  diff /= size;
  /* Kinds 0 and 2: both backward stable and close. Kind 1: partial pivoting on rows scaled
   * over 2^40 is itself not componentwise stable (dgetrs's own error reaches 1e-12), so the
   * small solve must do as well as dgetrs with the same factors, and agree with it normwise. */
  double bound = 64.0 * n * DBL_EPSILON;
  int ok = info == 0 && ex <= (kind == 1 ? 16.0 * ey + bound : bound) &&
           diff <= (kind == 1 ? 1e6 : 1e3) * n * DBL_EPSILON;
  return t_ok(ok, "n=%d kind %d %s: backward error %.2g (dgetrs %.2g), difference %.2g", n, kind,
              trans ? "transposed" : "plain", ex, ey, diff);
}

int main(void)
{
  static const int sizes[] = {1, 2, 3, 6, 9, 16, CPK_LU_SOLVE1_SMALL, CPK_LU_SOLVE1_SMALL + 1, NMAX};
  srand((unsigned)t_seed());
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (int kind = 0; kind < 3; kind++)
      for (int trans = 0; trans < 2; trans++) check_one(sizes[s], kind, trans);
  return t_done();
}
