/* lapack_equilibrate.h: dgeequb's power-of-two row and column scalings, computed in C (the lapack backend's equilibration). */
#ifndef CPK_LINALG_LAPACK_EQUILIBRATE_H
#define CPK_LINALG_LAPACK_EQUILIBRATE_H

/**
 * The row scales r and column scales c of the column-major n x n matrix a that LAPACK's
 * dgeequb computes, bit for bit: r_i = 1 / 2^INT(log2 max_j |a_ij|), then
 * c_j = 1 / 2^INT(log2 max_i r_i |a_ij|) (INT truncates toward zero; both clamped as
 * dgeequb clamps them). *amax: the largest row maximum rounded to its power of two
 * (dgeequb's amax; infinite when an entry is). Returns dgeequb's info: 0, i + 1 for the
 * first zero row i, n + j + 1 for the first zero column j (r, c then incomplete).
 */
int lapack_equilibrate(int n, const double *a, double *r, double *c, double *amax);

#endif
