/* enumerate_lp.h: enum's feasibility LP for an index set whose basic block is singular. */
#ifndef CPK_SOLVERS_ENUMERATE_LP_H
#define CPK_SOLVERS_ENUMERATE_LP_H
#include <cpkit/problem.h>

enum { ENUM_LP_INFEASIBLE = 0, ENUM_LP_FEASIBLE = 1, ENUM_LP_UNDECIDED = 2 };

/**
 * Does some point z have the index set `state` (basic z_i within bounds with
 * F_i = 0, nonbasic ones at their bound with F_i of the right sign)? Settled
 * by Lemke on the LCP of the feasibility LP (skew-symmetric, so Lemke either
 * solves it or ends on a checked Farkas certificate). *verdict: FEASIBLE (z
 * then holds such a point), INFEASIBLE (proved), UNDECIDED (numerical
 * trouble). Returns CPK_OK or an allocation error.
 */
int enum_lp_settle(const cpk_problem *p, const int *state, double *z, int *verdict);
#endif
