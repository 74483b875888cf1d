/* linsys_refine.h: internal to linalg/, used by solvers/ (ipm and fcipm): a solve through diagonally scaled factors with one step of iterative refinement. */
#ifndef CPK_LINALG_LINSYS_REFINE_H
#define CPK_LINALG_LINSYS_REFINE_H
#include <stddef.h>
#include <cpkit/linsys.h>

/*
 * L holds the factors of K~ = S K S (S = diag(sc), K~ stored in Kt). In place:
 * x <- K^{-1} x = S K~^{-1} S x, refined once against Kt. b and r are n-long
 * work arrays. CPK_ESINGULAR when the answer is not finite.
 */
int linsys_solve_scaled_refined(cpk_linsys *L, const cpk_csc *Kt, const double *sc, size_t n,
                                double *x, double *b, double *r);
#endif
