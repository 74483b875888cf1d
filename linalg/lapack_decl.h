/* lapack_decl.h: the Fortran LAPACK routines the "lapack" linsys backend calls (LP64, gfortran ABI). */
#ifndef CPK_LINALG_LAPACK_DECL_H
#define CPK_LINALG_LAPACK_DECL_H
#include <stddef.h>

/*
 * Declared here rather than through LAPACKE: the Fortran symbols are in every
 * LAPACK Debian ships (reference, OpenBLAS, ATLAS), the C wrapper library is a
 * separate package. Character arguments carry their hidden length last, as
 * gfortran passes it (and LAPACKE's own prototypes declare it).
 */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t norm_len);

#endif
