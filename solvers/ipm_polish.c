/* ipm_polish.c: finish a nonlinear solve that the interior iterations and the crossover left short of the tolerance with the registered bdnewton from the best point. */
#include <math.h>
#include "ipm.h"
#include "polish.h"

/*
 * Potential reduction converges linearly near a degenerate solution, and the
 * crossover's active-set system is singular there (a grazing contact leaves
 * its slip variable free; redundant contacts leave impulses undetermined):
 * on FCLIB's Capsules-i101-404 ipm stalls at natural residual 2.7e-8 with the
 * tolerance at 1e-8. Pang's B-differentiable Newton method, whose proximal
 * perturbation handles a singular Newton matrix, started from the best
 * interior point, reaches the tolerance in one step there. Its answer is
 * kept only when its natural residual is smaller. Not run when the monitor
 * stopped ipm (time limit or callback), nor without crossover. ipm_iterate
 * also tries it once while the iterations converge slowly (Capsules-i125-1213:
 * 902 interior iterations at steps of 3e-3, or 30 and 44 bdnewton iterations).
 */
int ipm_polish_from_best(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                         int *solved)
{
  long it = 0;
  double res = S->best_res;
  *solved = 0;
  if (p->kind != CPK_KIND_NONLINEAR_MCP || !s->ipm.crossover || !isfinite(res)) return CPK_OK;
  int rc = polish_run("bdnewton", p, s, mon, S->zbest, &res, solved, &it);
  S->polish_iter += it;
  if (res < S->best_res) {
    S->best_res = res;
    S->polished = 1;
    S->crossed = 0;
  }
  return rc;
}

int ipm_polish(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r)
{
  int solved = 0;
  if (r->status == CPK_STATUS_SOLVED)
    return S->best_res > IPM_FINISH_MARGIN * S->tol ? ipm_polish_from_best(S, p, s, mon, &solved)
                                                     : CPK_OK;
  if (r->status == CPK_STATUS_NO_SOLUTION ||
      (S->stopped && S->stopped != CPK_STATUS_MAX_ITERATIONS))
    return CPK_OK;
  int rc = ipm_polish_from_best(S, p, s, mon, &solved);
  if (solved) {
    r->status = CPK_STATUS_SOLVED;
    r->message[0] = '\0';
  }
  return rc;
}
