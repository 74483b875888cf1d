/* nsgs_polish.c: finish an nsgs solve that stopped short of the tolerance with a few nsn iterations from its best sweep. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "monitor.h"
#include "nsgs_polish.h"

/*
 * Gauss-Seidel converges linearly, and on redundant contacts at rest (a box or
 * a rod lying on several contacts with torsion, whose W has a null space of
 * several dimensions) the rate can be so close to 1 that 1000 sweeps end at
 * twice the tolerance. From there a semismooth Newton method converges in a
 * few iterations: nsgs's point is nsn's ideal start, as ipm's is bdnewton's
 * (polish.c; that helper projects on MCP bounds and judges by the MCP
 * residual, which is not the cone problem's).
 *
 * nsn runs on its own workspace through its type, not through a cpk_solver:
 * the workspace lives as long as the nsgs solver (a time-stepper's re-solves
 * allocate nothing), and each run gets its own start and nsgs's clock, as the
 * friction-index encoding runs its inner solver (findex.c).
 */
struct nsgs_polisher {
  const cpk_solver_type *T; /* nsn */
  void *state;              /* its workspace for the problem */
  cpk_result *r;            /* its answer */
  double *start;            /* nsgs's point, kept while z takes the runs' answers */
  int refused;              /* nsn refused the problem: no finish for this solver's life */
};

void nsgs_polisher_free(nsgs_polisher *w)
{
  if (!w) return;
  if (w->state) w->T->free(w->state);
  cpk_result_free(w->r);
  free(w->start);
  free(w);
}

/*
 * The workspace for p, or CPK_ENOMEM (asked again at the next finish). When nsn refuses p
 * (another code: a problem too large, a linear solver that refuses) the workspace says so
 * (refused) and is kept: a time-stepper's every later solve would otherwise ask again.
 */
static int polisher_alloc(nsgs_polisher **out, const cpk_solver_type *T, const cpk_problem *p,
                          const cpk_settings *ss)
{
  nsgs_polisher *w = calloc(1, sizeof *w);
  if (!w) return CPK_ENOMEM;
  w->T = T;
  w->start = cpk_alloc_array(p->n ? p->n : 1, sizeof *w->start);
  int rc = w->start ? cpk_result_alloc(p->n, &w->r) : CPK_ENOMEM;
  if (!rc) rc = T->alloc(&w->state, p, ss, NULL);
  if (rc == CPK_ENOMEM) {
    nsgs_polisher_free(w);
    return rc;
  }
  w->refused = rc != CPK_OK;
  *out = w;
  return CPK_OK;
}

/*
 * One nsn run from z0 (NULL: its cold start) on nsgs's clock; its answer
 * replaces z when its residual, measured here as the solve driver does, is lower.
 */
static int nsn_from(nsgs_polisher *w, const cpk_problem *p, const cpk_settings *ss,
                    const cpk_monitor *mon, const double *z0, double *z, double *res, int *solved,
                    long *iterations, long *factorizations)
{
  cpk_settings run = *ss;
  cpk_monitor inner = *mon; /* same start, so s->time_limit bounds nsgs and nsn together */
  run.z0 = z0;
  inner.settings = &run;
  inner.solver = w->T->name;
  inner.max_iter = run.max_iter;
  inner.seen_factorizations = -1; /* nsn's linear solver is not nsgs's */
  inner.modes = NULL;
  cpk_result *rr = w->r;
  cpk_result_reset(rr);
  rr->solver = w->T->name;
  int rc = w->T->solve(w->state, p, &run, &inner, rr);
  double r_res;
  if (!rc) rc = cpk_problem_residual(p, rr->z, rr->w, &r_res);
  if (rc) return rc == CPK_ENOMEM ? rc : CPK_OK;
  double nf = 0.0;
  cpk_result_get_stat(rr, "factorizations", &nf);
  *iterations += rr->iterations;
  *factorizations += (long)nf;
  if (r_res < *res) {
    *res = r_res;
    memcpy(z, rr->z, p->n * sizeof *z);
    *solved = rr->status == CPK_STATUS_SOLVED && r_res <= cpk_problem_tolerance(p, run.tol);
  }
  return CPK_OK;
}

/*
 * From nsgs's best point first. Sweeps that crept a long way along W's null
 * space can leave nsn a point from which its merit stalls (a box at rest on
 * four corners, elliptic model: 6e-8 after 60 iterations), while its own cold
 * start solves the problem in 10: that start is tried second.
 */
int nsgs_polish(nsgs_polisher **w, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                double *z, double *res, int *solved, long *iterations, long *factorizations)
{
  const cpk_solver_type *T = cpk_solver_find("nsn");
  *solved = 0;
  *iterations = *factorizations = 0;
  if (!T || !s->nsgs.polish || !cpk_monitor_fits(mon, 0.0)) return CPK_OK;
  cpk_settings ss = *s;
  ss.max_iter = NSGS_POLISH_MAX_ITER;
  ss.callback = NULL;
  ss.verbose = 0;
  ss.nsn.restart = 0;
  ss.z0 = NULL;
  ss.basis0 = NULL;
  if (!*w) {
    int rc = polisher_alloc(w, T, p, &ss);
    if (rc) return rc;
  }
  if ((*w)->refused) return CPK_OK;
  memcpy((*w)->start, z, p->n * sizeof *z);
  int rc = nsn_from(*w, p, &ss, mon, (*w)->start, z, res, solved, iterations, factorizations);
  if (!rc && !*solved && cpk_monitor_fits(mon, 0.0))
    rc = nsn_from(*w, p, &ss, mon, NULL, z, res, solved, iterations, factorizations);
  return rc;
}
