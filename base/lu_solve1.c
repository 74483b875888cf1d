/* lu_solve1.c: one right-hand side through dgetrf's factors by two dtrsv calls (see lu_solve1.h). */
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

void cpk_lu_solve1(int n, const double *lu, const int *ipiv, double *x, int transpose)
{
  int one = 1;
  if (n <= 0) return;
  if (n == 1) { /* what the interchange and the two solves do for a 1 x 1 matrix */
    x[0] /= lu[0];
    return;
  }
  if (!transpose) {
    for (int i = 0; i < n; i++) swap_rows(x, ipiv, i);
    dtrsv_("L", "N", "U", &n, lu, &n, x, &one, 1, 1, 1);
    dtrsv_("U", "N", "N", &n, lu, &n, x, &one, 1, 1, 1);
    return;
  }
  dtrsv_("U", "T", "N", &n, lu, &n, x, &one, 1, 1, 1);
  dtrsv_("L", "T", "U", &n, lu, &n, x, &one, 1, 1, 1);
  for (int i = n; i-- > 0;) swap_rows(x, ipiv, i);
}
