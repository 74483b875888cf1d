/* lu_solve1.c: one right-hand side through dgetrf's factors: plain substitution for small n, two dtrsv calls above (see lu_solve1.h). */
#include <stddef.h>
#include "lu_solve1.h"

/* BLAS's dtrsv (Fortran symbol, gfortran's hidden lengths last). */
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx, size_t uplo_len, size_t trans_len,
            size_t diag_len);

static void swap_rows(double *x, const int *ipiv, int i)
{
  double t = x[i];
  x[i] = x[ipiv[i] - 1];
  x[ipiv[i] - 1] = t;
}

/* x <- U^{-1} L^{-1} x by columns (L unit lower, U upper, both in lu): the arithmetic of
 * dtrsv's unblocked column sweeps, without its fixed cost of argument checks and a buffer. */
static void solve_small(size_t n, const double *lu, double *x)
{
  for (size_t j = 0; j < n; j++) {
    const double *col = lu + j * n;
    double xj = x[j];
    for (size_t i = j + 1; i < n; i++) x[i] -= col[i] * xj;
  }
  for (size_t j = n; j-- > 0;) {
    const double *col = lu + j * n;
    double xj = x[j] / col[j];
    x[j] = xj;
    for (size_t i = 0; i < j; i++) x[i] -= col[i] * xj;
  }
}

/* x <- L^{-T} U^{-T} x: each unknown is a dot product with a column of lu (contiguous). */
static void solve_small_t(size_t n, const double *lu, double *x)
{
  for (size_t j = 0; j < n; j++) {
    const double *col = lu + j * n;
    double s = x[j];
    for (size_t i = 0; i < j; i++) s -= col[i] * x[i];
    x[j] = s / col[j];
  }
  for (size_t j = n; j-- > 0;) {
    const double *col = lu + j * n;
    double s = x[j];
    for (size_t i = j + 1; i < n; i++) s -= col[i] * x[i];
    x[j] = s;
  }
}

void cpk_lu_solve1(int n, const double *lu, const int *ipiv, double *x, int transpose)
{
  int one = 1;
  if (n <= 0) return;
  if (!transpose) {
    for (int i = 0; i < n; i++) swap_rows(x, ipiv, i);
    if (n <= CPK_LU_SOLVE1_SMALL) {
      solve_small((size_t)n, lu, x);
      return;
    }
    dtrsv_("L", "N", "U", &n, lu, &n, x, &one, 1, 1, 1);
    dtrsv_("U", "N", "N", &n, lu, &n, x, &one, 1, 1, 1);
    return;
  }
  if (n <= CPK_LU_SOLVE1_SMALL) {
    solve_small_t((size_t)n, lu, x);
  } else {
    dtrsv_("U", "T", "N", &n, lu, &n, x, &one, 1, 1, 1);
    dtrsv_("L", "T", "U", &n, lu, &n, x, &one, 1, 1, 1);
  }
  for (int i = n; i-- > 0;) swap_rows(x, ipiv, i);
}
