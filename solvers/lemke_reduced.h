/* lemke_reduced.h: a Lemke basis that is mostly unit columns, solved through the small block of its other columns. */
#ifndef CPK_SOLVERS_LEMKE_REDUCED_H
#define CPK_SOLVERS_LEMKE_REDUCED_H
#include <stddef.h>
#include <cpkit/linsys.h>
#include <cpkit/matrix.h>

/*
 * A physics engine's basis (a contact LCP near rest) has few basic z: B is
 * mostly the unit columns e_r of basic slacks. With J the other columns and
 * R' the rows no unit column covers (|R'| = |J| = k), B x = b is
 * K x_J = b_R' with K = B(R', J), then x_r = b_r - B(r, J) x_J; B is
 * singular exactly when K is. K, padded with an identity to a fixed size
 * kmax, is factored densely: a sparse LU's fixed cost per factorization
 * (UMFPACK allocates and sets up its fronts) is most of a step's solve at
 * n ~ 100, and a re-solve must not allocate.
 */
typedef struct lemke_reduced {
  size_t n, kmax, k, size; /* size: K's padded order, LEMKE_REDUCED_SMALL or kmax */
  const cpk_csc *B;       /* the assembled basis (borrowed; valid while factored) */
  long *spos;             /* row r -> position of s_r's unit column at the factorization, or -1 */
  cpk_csc *K;             /* kmax x kmax: K and the identity padding */
  cpk_linsys *ls, *small; /* dense LU of K padded to kmax, or to LEMKE_REDUCED_SMALL */
  long *rmap;             /* row -> index in R', or -1 for a row a unit column covers */
  size_t *rows, *cols;    /* R' and J, in increasing order */
  double *w, *kx;         /* n (a copy of the right side), kmax */
  int factored;
} lemke_reduced;

/* kmax = min(n / 4, LEMKE_REDUCED_MAX = 32) when n >= LEMKE_REDUCED_MIN_N (0: never reduced). */
int lemke_reduced_alloc(lemke_reduced *R, size_t n);
void lemke_reduced_free(lemke_reduced *R);
/**
 * Factor B (head: position -> variable id, slacks s_r = n + r) through K when
 * B has at most kmax non-unit columns: CPK_OK, CPK_ESINGULAR (K, hence B, singular or too
 * ill-conditioned), or CPK_EUNSUP (not reducible: the caller factors B itself).
 */
int lemke_reduced_factor(lemke_reduced *R, const cpk_csc *B, const size_t *head);
/** x <- B^{-1} x, or B^{-T} x when transpose, with the factors of the last lemke_reduced_factor. */
int lemke_reduced_solve(lemke_reduced *R, double *x, int transpose);
#endif
