/* lemke_crash.h: a starting basis for Lemke when the free variables' block of M is singular. */
#ifndef CPK_SOLVERS_LEMKE_CRASH_H
#define CPK_SOLVERS_LEMKE_CRASH_H
#include <cpkit/problem.h>

/**
 * Find a set S holding every free variable and as few bounded ones as
 * needed for M_SS to be nonsingular (greedy, rank by GSL's pivoted QR).
 * On success *found = 1 and basis[i] = CPK_VAR_BASIC for i in S,
 * CPK_VAR_AT_LOWER otherwise (Lemke coerces it to the bound that exists).
 * Dense work O(|S|^3) per candidate: refused (*found = 0) above max_set.
 */
int lemke_crash_free_block(const cpk_problem *p, size_t max_set, int *basis, int *found);
#endif
