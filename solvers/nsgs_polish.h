/* nsgs_polish.h: private interface of the nsn finish of an nsgs solve that stopped short of the tolerance. */
#ifndef CPK_SOLVERS_NSGS_POLISH_H
#define CPK_SOLVERS_NSGS_POLISH_H
#include <cpkit/solver.h>

/* Iterations the finish may take: it starts near a solution, where Newton takes a few. */
#define NSGS_POLISH_MAX_ITER 50

/* nsn's workspace, result and start point, kept by the nsgs solver between solves. */
typedef struct nsgs_polisher nsgs_polisher;

/*
 * Run the registered "nsn" on the friction-cone problem p from z (n = p->n),
 * then, unless that solved it, from nsn's cold start, each for at most
 * NSGS_POLISH_MAX_ITER iterations, within s->time_limit on mon's clock, with
 * no callback, no log and no restarts (which would run nsgs again). When a
 * run's cone residual is below *res, z and *res take its answer and *solved
 * says whether it solved; *iterations gets the iterations both took, *factorizations nsn's
 * factorizations of its Newton matrix (its statistic "factorizations"). Nothing runs (CPK_OK)
 * when s->nsgs.polish is 0, nsn is not registered, no time is left, or nsn refused p
 * (remembered in *w: not asked again). *w is nsn's workspace for p, made at the first run
 * (start with NULL) and reused by the next, so a re-solve allocates nothing;
 * release it with nsgs_polisher_free. Returns CPK_ENOMEM only.
 */
int nsgs_polish(nsgs_polisher **w, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                double *z, double *res, int *solved, long *iterations, long *factorizations);
/* Release the workspace (NULL is a no-op). */
void nsgs_polisher_free(nsgs_polisher *w);
#endif
