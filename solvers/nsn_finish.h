/* nsn_finish.h: private interface of the nsn finish of a cone solve (nsgs, fcipm) that stopped short of the tolerance. */
#ifndef CPK_SOLVERS_NSN_FINISH_H
#define CPK_SOLVERS_NSN_FINISH_H
#include <cpkit/solver.h>

/* nsn's workspace, result and start point, kept by the calling solver between solves. */
typedef struct nsn_finisher nsn_finisher;

/* How the finish runs. */
typedef struct nsn_finish_opts {
  long max_iter; /* nsn's iterations per run (> 0; 0 or less: nothing runs) */
  long offset;   /* the caller's iterations: the log and the callback go on counting from there */
  int cold_too;  /* unless the run from z solved, run again from nsn's cold start */
  int verbose;   /* nsn logs (settings.verbose) under the caller's; 0: silent */
  int restarts;  /* nsn restarts from nsgs as settings.nsn.restart says; 0: never (nsgs's own finish) */
} nsn_finish_opts;

/*
 * Run the registered "nsn" on the friction-cone problem p from z (n = p->n),
 * then, with o->cold_too and unless that solved it, from nsn's cold start,
 * each for at most o->max_iter iterations, within s->time_limit on mon's clock,
 * with no callback, and restarts from nsgs only with o->restarts. When a run's
 * cone residual (cpk_problem_residual, the driver's) is below *res, z and *res
 * take its answer and *solved says whether it solved; *iterations gets the
 * iterations the runs took, *factorizations nsn's factorizations of its Newton
 * matrix (its statistic "factorizations"). Nothing runs (CPK_OK) when nsn is
 * not registered, no time is left, or nsn refused p (remembered in *w: not
 * asked again). *w is nsn's workspace for p, made at the first run (start with
 * NULL) and reused by the next, so a re-solve allocates nothing; release it
 * with nsn_finisher_free. Returns CPK_ENOMEM only.
 */
int nsn_finish(nsn_finisher **w, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               const nsn_finish_opts *o, double *z, double *res, int *solved, long *iterations,
               long *factorizations);
/*
 * The caller's result after the finish: `solved` with no message when it
 * solved, else the caller's status with "; nsn's finish (N iterations) ended
 * at residual R" added to its message when nsn ran.
 */
void nsn_finish_outcome(cpk_result *r, int solved, long iterations, double res);
/* Release the workspace (NULL is a no-op). */
void nsn_finisher_free(nsn_finisher *w);
#endif
