/* lemke_murty.h: Murty's least-index principal pivoting, Lemke's fallback when its path breaks down. */
#ifndef CPK_SOLVERS_LEMKE_MURTY_H
#define CPK_SOLVERS_LEMKE_MURTY_H
#include <cpkit/problem.h>
#include <cpkit/solver.h>
#include "lemke_basis.h"

/* What a run of lemke_murty did. */
typedef struct lemke_murty_run {
  long first; /* in: the iteration number the monitor gets for the first move (the path's pivots) */
  long moves; /* moves made */
  int solved; /* 1: z and state are a solution */
  int stop;   /* the monitor's stop status (limits, callback), 0 if it did not stop the run */
} lemke_murty_run;

/**
 * Murty's Bard-type method (least-index single principal pivoting) on the
 * complementary bases of b: from every bounded z at a bound, repeatedly solve
 * the complementary basis fresh and move the lowest-indexed variable that
 * violates its bound or its sign condition; no artificial variable, no
 * covering vector. Finite on P-matrices (on a triangular one at most n moves:
 * a forward substitution). Stops after max_moves, or when mon (asked before
 * each move and each factorization, as Lemke's pivots ask it) says so.
 * run->solved = 1 with z (length n) and state (length n, cpk_var_state) the
 * solution's when no variable violates anything. Returns CPK_OK, CPK_ENOMEM,
 * or CPK_ESINGULAR from a basis that cannot be factored.
 */
int lemke_murty(lemke_basis *b, const cpk_problem *p, cpk_monitor *mon, long max_moves, int *state,
                double *z, lemke_murty_run *run);
#endif
