/* polish.c: finish a nonlinear solve that stopped short of the tolerance with another registered solver started at its best point. */
#include <math.h>
#include <string.h>
#include "monitor.h"
#include "polish.h"

/*
 * The polish's answer projected onto the bounds (bdnewton's iterates may
 * leave them: its equation is defined everywhere) and its natural residual
 * there, in rr->residual; the caller's answers stay within the bounds.
 */
static void project(const cpk_problem *p, cpk_result *rr)
{
  int moved = 0;
  for (size_t i = 0; i < p->n; i++) {
    double v = fmin(fmax(rr->z[i], p->lower[i]), p->upper[i]);
    moved |= v != rr->z[i];
    rr->z[i] = v;
  }
  if (!moved) return;
  rr->residual = cpk_problem_eval(p, rr->z, rr->w) ? INFINITY : cpk_natural_residual(p, rr->z, rr->w);
  rr->status = rr->residual <= rr->tolerance ? CPK_STATUS_SOLVED : CPK_STATUS_STALLED;
}

int polish_run(const char *name, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               double *z, double *res, int *solved, long *iterations)
{
  const cpk_solver_type *T = cpk_solver_find(name);
  *solved = 0;
  *iterations = 0;
  if (!T) return CPK_OK;
  cpk_settings ss = *s;
  ss.z0 = z;
  ss.max_iter = POLISH_MAX_ITER;
  ss.callback = NULL;
  ss.verbose = 0;
  ss.newton.restarts = 0; /* a finishing step, not a new search */
  if (!cpk_monitor_nested_limit(mon, &ss.time_limit)) return CPK_OK; /* alike on every rank */
  cpk_solver *sv = NULL;
  cpk_result *rr = NULL;
  int rc = cpk_result_alloc(p->n, &rr);
  if (!rc) rc = cpk_solver_alloc(T, p, &ss, &sv, NULL);
  if (!rc) rc = cpk_solver_solve(sv, rr, NULL);
  if (!rc) {
    project(p, rr);
    *iterations = rr->iterations;
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
