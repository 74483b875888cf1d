/* nsn_finish.c: finish a cone solve (nsgs, fcipm) that stopped short of the tolerance with nsn iterations from its best point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "monitor.h"
#include "nsn_finish.h"

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
 * the workspace lives as long as the calling solver (a time-stepper's re-solves
 * allocate nothing), and each run gets its own start and the caller's clock, as the
 * friction-index encoding runs its inner solver (findex.c).
 *
 * fcipm uses the same finish (settings.fcipm.finish): its interior iterates
 * bring the forces of a redundant wall near the solution set, where its own
 * steps shrink to nothing while Newton's regularized steps converge (the
 * 225-brick wall of doc/petsc.md).
 */
struct nsn_finisher {
  const cpk_solver_type *T; /* nsn */
  void *state;              /* its workspace for the problem */
  cpk_result *r;            /* its answer */
  double *start;            /* the caller's point, kept while z takes the runs' answers */
  int refused;              /* nsn refused the problem: no finish for this solver's life */
};

void nsn_finisher_free(nsn_finisher *w)
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
static int finisher_alloc(nsn_finisher **out, const cpk_solver_type *T, const cpk_problem *p,
                          const cpk_settings *ss)
{
  nsn_finisher *w = calloc(1, sizeof *w);
  if (!w) return CPK_ENOMEM;
  w->T = T;
  w->start = cpk_alloc_array(p->n ? p->n : 1, sizeof *w->start);
  int rc = w->start ? cpk_result_alloc(p->n, &w->r) : CPK_ENOMEM;
  if (!rc) rc = T->alloc(&w->state, p, ss, NULL);
  if (rc == CPK_ENOMEM) {
    nsn_finisher_free(w);
    return rc;
  }
  w->refused = rc != CPK_OK;
  *out = w;
  return CPK_OK;
}

/*
 * One nsn run from z0 (NULL: its cold start) on the caller's clock; its answer
 * replaces z when its residual, measured here as the solve driver does, is lower.
 */
static int nsn_from(nsn_finisher *w, const cpk_problem *p, const cpk_settings *ss,
                    const cpk_monitor *mon, const double *z0, double *z, double *res, int *solved,
                    long *iterations, long *factorizations)
{
  cpk_settings run = *ss;
  cpk_monitor inner = *mon; /* same start, so s->time_limit bounds the caller and nsn together */
  run.z0 = z0;
  inner.settings = &run;
  inner.solver = w->T->name;
  inner.max_iter = run.max_iter;
  inner.log_header_done = 0;
  inner.seen_factorizations = -1; /* nsn's linear solver is not the caller's */
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
 * From the caller's point first. Sweeps that crept a long way along W's null
 * space can leave nsn a point from which its merit stalls (a box at rest on
 * four corners, elliptic model: 6e-8 after 60 iterations), while its own cold
 * start solves the problem in 10: nsgs tries that start second (o->cold_too).
 */
int nsn_finish(nsn_finisher **w, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               const nsn_finish_opts *o, double *z, double *res, int *solved, long *iterations,
               long *factorizations)
{
  const cpk_solver_type *T = cpk_solver_find("nsn");
  *solved = 0;
  *iterations = *factorizations = 0;
  if (!T || o->max_iter <= 0 || !cpk_monitor_fits(mon, 0.0)) return CPK_OK;
  cpk_settings ss = *s;
  ss.max_iter = o->max_iter;
  ss.callback = NULL;
  ss.verbose = o->verbose ? s->verbose : 0;
  if (!o->restarts) ss.nsn.restart = 0; /* from nsgs's finish they would run nsgs again */
  ss.z0 = NULL;
  ss.basis0 = NULL;
  if (!*w) {
    int rc = finisher_alloc(w, T, p, &ss);
    if (rc) return rc;
  }
  if ((*w)->refused) return CPK_OK;
  cpk_monitor at = *mon;
  at.offset += o->offset; /* the log and the callback go on counting */
  memcpy((*w)->start, z, p->n * sizeof *z);
  int rc = nsn_from(*w, p, &ss, &at, (*w)->start, z, res, solved, iterations, factorizations);
  if (!rc && !*solved && o->cold_too && cpk_monitor_fits(mon, 0.0))
    rc = nsn_from(*w, p, &ss, &at, NULL, z, res, solved, iterations, factorizations);
  return rc;
}

void nsn_finish_outcome(cpk_result *r, int solved, long iterations, double res)
{
  if (solved) {
    r->status = CPK_STATUS_SOLVED;
    r->message[0] = '\0';
  } else if (iterations > 0) {
    size_t used = strlen(r->message);
    snprintf(r->message + used, sizeof r->message - used,
             "; nsn's finish (%ld iterations) ended at residual %.3g", iterations, res);
  }
}
