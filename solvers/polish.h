/* polish.h: private helper: finish a nonlinear solve that stopped short of the tolerance with another registered solver started at its best point. */
#ifndef CPK_SOLVERS_POLISH_H
#define CPK_SOLVERS_POLISH_H
#include <cpkit/solver.h>

/* Iterations a polish may take: it starts close to a solution or not at all. */
#define POLISH_MAX_ITER 50

/*
 * Run the registered solver `name` on p from z (n = p->n) for at most
 * POLISH_MAX_ITER iterations, within what is left of s->time_limit, with no
 * callback, no log and no restarts. When its natural residual is below *res,
 * z and *res take its answer and *solved says whether it solved. *iterations
 * gets the iterations it took; its answer is projected onto the bounds (and its
 * residual computed there) first. Nothing runs (CPK_OK) when the solver is not
 * registered or no time is left. Returns CPK_ENOMEM only.
 */
int polish_run(const char *name, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               double *z, double *res, int *solved, long *iterations);
#endif
