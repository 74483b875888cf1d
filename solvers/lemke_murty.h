/* lemke_murty.h: Murty's least-index principal pivoting, Lemke's fallback when its path breaks down. */
#ifndef CPK_SOLVERS_LEMKE_MURTY_H
#define CPK_SOLVERS_LEMKE_MURTY_H
#include <cpkit/problem.h>
#include "lemke_basis.h"

/**
 * Murty's Bard-type method (least-index single principal pivoting) on the
 * complementary bases of b: from every bounded z at a bound, repeatedly solve
 * the complementary basis fresh and move the lowest-indexed variable that
 * violates its bound or its sign condition; no artificial variable, no
 * covering vector. Finite on P-matrices (on a triangular one at most n moves:
 * a forward substitution). Stops after max_moves. *solved = 1 with z (length
 * n) and state (length n, cpk_var_state) the solution's when no variable
 * violates anything. Returns CPK_OK, CPK_ENOMEM, or CPK_ESINGULAR from a
 * basis that cannot be factored.
 */
int lemke_murty(lemke_basis *b, const cpk_problem *p, long max_moves, int *state, double *z,
                long *moves, int *solved);
#endif
