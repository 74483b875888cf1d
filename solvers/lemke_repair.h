/* lemke_repair.h: a singular warm basis made factorizable by sending dependent basic variables to a bound. */
#ifndef CPK_SOLVERS_LEMKE_REPAIR_H
#define CPK_SOLVERS_LEMKE_REPAIR_H
#include <stddef.h>
#include <cpkit/problem.h>

/** Largest n whose repair workspace (n * n doubles) Lemke allocates. */
#define LEMKE_REPAIR_MAX_N 400

/**
 * The basis of `state` (z_i basic where state[i] == CPK_VAR_BASIC, its slack
 * elsewhere) is singular exactly when M_BB is. Eliminate M_BB with diagonal
 * pivots, the largest first; the basic variables left when every remaining
 * pivot is below a relative tolerance go to their lower (else upper) bound.
 * work holds n * n doubles, idx n entries. *dropped counts the changes;
 * CPK_ESINGULAR when a free variable would have to leave (nothing changed then).
 */
int lemke_repair_basis(const cpk_problem *p, int *state, double *work, size_t *idx, size_t *dropped);
#endif
