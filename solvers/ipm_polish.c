/* ipm_polish.c: finish a nonlinear solve that the interior iterations and the crossover left short of the tolerance with the registered bdnewton from the best point. */
#include <math.h>
#include <string.h>
#include "ipm.h"

/* Newton iterations the polish may take: it starts close or not at all. */
#define POLISH_MAX_ITER 50

/*
 * Potential reduction converges linearly near a degenerate solution, and the
 * crossover's active-set system is singular there (a grazing contact leaves
 * its slip variable free; redundant contacts leave impulses undetermined):
 * on FCLIB's Capsules-i101-404 ipm stalls at natural residual 2.7e-8 with the
 * tolerance at 1e-8. Pang's B-differentiable Newton method, whose proximal
 * perturbation handles a singular Newton matrix, started from the best
 * interior point, reaches the tolerance in one or two steps there. Its answer
 * is kept only when its natural residual is smaller. Not run when the monitor
 * stopped ipm (time limit or callback), nor without crossover.
 */
int ipm_polish(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r)
{
  const cpk_solver_type *T = cpk_solver_find("bdnewton");
  if (!T || p->kind != CPK_KIND_NONLINEAR_MCP || !s->ipm.crossover || !isfinite(S->best_res) ||
      r->status == CPK_STATUS_SOLVED || r->status == CPK_STATUS_NO_SOLUTION ||
      (S->stopped && S->stopped != CPK_STATUS_MAX_ITERATIONS))
    return CPK_OK;
  cpk_settings ss = *s;
  ss.z0 = S->zbest;
  ss.max_iter = POLISH_MAX_ITER;
  ss.callback = NULL;
  ss.verbose = 0;
  ss.newton.restarts = 0; /* a polish, not a new search */
  if (s->time_limit > 0.0) {
    ss.time_limit = s->time_limit - cpk_monitor_elapsed(mon);
    if (!(ss.time_limit > 0.0)) return CPK_OK;
  }
  cpk_solver *nt = NULL;
  cpk_result *rr = NULL;
  int rc = cpk_result_alloc(S->n, &rr);
  if (!rc) rc = cpk_solver_alloc(T, p, &ss, &nt, NULL);
  if (!rc) rc = cpk_solver_solve(nt, rr, NULL);
  if (!rc) {
    S->polish_iter = rr->iterations;
    if (rr->residual < S->best_res) {
      S->best_res = rr->residual;
      memcpy(S->zbest, rr->z, S->n * sizeof *S->zbest);
      S->polished = 1;
      S->crossed = 0;
      if (rr->status == CPK_STATUS_SOLVED) {
        r->status = CPK_STATUS_SOLVED;
        r->message[0] = '\0';
      }
    }
  }
  cpk_solver_free(nt);
  cpk_result_free(rr);
  return rc == CPK_ENOMEM ? rc : CPK_OK;
}
