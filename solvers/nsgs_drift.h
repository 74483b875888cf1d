/* nsgs_drift.h: private interface of nsgs's jump along a drift in W's null space to the first cone boundary. */
#ifndef CPK_SOLVERS_NSGS_DRIFT_H
#define CPK_SOLVERS_NSGS_DRIFT_H
#include <stddef.h>
#include <cpkit/problem.h>

/*
 * The largest t >= 0 (at most t_cap) for which every block r_c + t d_c stays in
 * its cone K_mu (dim = p->cone_dim). t_cap when no block ever leaves its cone
 * along d (the ray is unbounded), 0 when one leaves at once.
 */
double nsgs_drift_step_to_boundary(const cpk_problem *p, const double *r, const double *d,
                                   double t_cap);

/*
 * 1 when the change d of the last sweep repeats the one before (dprev) to
 * within a small share of |d| and W d is negligible beside |W| |d| (wd holds
 * W d on return): the sweeps then move r along a direction that changes no
 * velocity, at a constant rate, which is what Gauss-Seidel does on a redundant
 * system whose sticking equations W r = -q have no solution.
 */
int nsgs_drift_detected(const cpk_problem *p, const double *d, const double *dprev, double wmax,
                        double *wd);
#endif
