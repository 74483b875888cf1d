/* lu_solve1.h: one right-hand side through a dense LU factorization of LAPACK's dgetrf, on the calling thread. */
#ifndef CPK_BASE_LU_SOLVE1_H
#define CPK_BASE_LU_SOLVE1_H

/*
 * x <- (P L U)^{-1} x, or (P L U)^{-T} x when transpose is nonzero, for the n x n factors lu
 * (column-major, leading dimension n) and 1-based row interchanges ipiv that dgetrf wrote:
 * what dgetrs does for one right-hand side (its interchanges and two triangular solves),
 * through dtrsv. OpenBLAS's dgetrs hands even n = 3 to its threaded path, which wakes its
 * thread pool on every call (about 15% of a tripod cone run's samples were its workers
 * spinning); dtrsv runs on the calling thread. Up to CPK_LU_SOLVE1_SMALL the two triangular
 * solves are plain loops here: dtrsv's fixed cost was most of a call at n = 3..9 (about 800
 * instructions a call at n = 6..9, a tenth of a tripod step). The factors must be nonsingular
 * (dgetrf's info == 0); nothing is checked here.
 */
#define CPK_LU_SOLVE1_SMALL 32

void cpk_lu_solve1(int n, const double *lu, const int *ipiv, double *x, int transpose);

#endif
