/* nsgs_polish.c: finish an nsgs solve that stopped short of the tolerance with a few nsn iterations from its best sweep. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "nsgs_polish.h"

/*
 * Gauss-Seidel converges linearly, and on redundant contacts at rest (a box or
 * a rod lying on several contacts with torsion, whose W has a null space of
 * several dimensions) the rate can be so close to 1 that 1000 sweeps end at
 * twice the tolerance. From there a semismooth Newton method converges in a
 * few iterations: nsgs's point is nsn's ideal start, as ipm's is bdnewton's
 * (polish.c; that helper projects on MCP bounds and judges by the MCP
 * residual, which is not the cone problem's).
 */
/* One nsn run from z0 (NULL: its cold start); its answer replaces z when its residual is lower. */
static int nsn_from(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *ss,
                    const double *z0, double *z, double *res, int *solved, long *iterations)
{
  cpk_settings run = *ss;
  cpk_solver *sv = NULL;
  cpk_result *rr = NULL;
  run.z0 = z0;
  int rc = cpk_result_alloc(p->n, &rr);
  if (!rc) rc = cpk_solver_alloc(T, p, &run, &sv, NULL);
  if (!rc) rc = cpk_solver_solve(sv, rr, NULL);
  if (!rc) {
    *iterations += rr->iterations;
    if (rr->residual < *res) {
      *res = rr->residual;
      memcpy(z, rr->z, p->n * sizeof *z);
      *solved = rr->status == CPK_STATUS_SOLVED;
    }
  }
  cpk_solver_free(sv);
  cpk_result_free(rr);
  return rc == CPK_ENOMEM ? rc : CPK_OK;
}

/*
 * From nsgs's best point first. Sweeps that crept a long way along W's null
 * space can leave nsn a point from which its merit stalls (a box at rest on
 * four corners, elliptic model: 6e-8 after 60 iterations), while its own cold
 * start solves the problem in 10: that start is tried second.
 */
int nsgs_polish(const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon, double *z,
                double *res, int *solved, long *iterations)
{
  const cpk_solver_type *T = cpk_solver_find("nsn");
  *solved = 0;
  *iterations = 0;
  if (!T || !s->nsgs.polish) return CPK_OK;
  cpk_settings ss = *s;
  ss.max_iter = NSGS_POLISH_MAX_ITER;
  ss.callback = NULL;
  ss.verbose = 0;
  ss.nsn.restart = 0;
  if (s->time_limit > 0.0) {
    ss.time_limit = s->time_limit - cpk_monitor_elapsed(mon);
    if (!(ss.time_limit > 0.0)) return CPK_OK;
  }
  double *start = cpk_alloc_array(p->n ? p->n : 1, sizeof *start);
  if (!start) return CPK_ENOMEM;
  memcpy(start, z, p->n * sizeof *z);
  int rc = nsn_from(T, p, &ss, start, z, res, solved, iterations);
  if (!rc && !*solved && s->time_limit > 0.0)
    ss.time_limit = s->time_limit - cpk_monitor_elapsed(mon);
  if (!rc && !*solved && !(s->time_limit > 0.0 && !(ss.time_limit > 0.0)))
    rc = nsn_from(T, p, &ss, NULL, z, res, solved, iterations);
  free(start);
  return rc;
}
