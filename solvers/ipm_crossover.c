/* ipm_crossover.c: finish an interior iterate with Newton steps on the identified active set. */
#include <math.h>
#include <string.h>
#include "ipm.h"

enum { ACT_BASIC = 0, ACT_LOWER = 1, ACT_UPPER = 2 };

/* Newton steps on the active-set equations: one for affine F (exact), a few for nonlinear F. */
#define CROSSOVER_STEPS_AFFINE 2
#define CROSSOVER_STEPS_NONLINEAR 4

/*
 * A bound is taken as active when its slack is below its multiplier: near
 * the central path s*w ~ mu, so for a strictly complementary solution the
 * comparison becomes exact once mu is small enough.
 */
static int classify(const ipm_state *S, const cpk_problem *p, size_t i)
{
  int t = S->type[i];
  if (t == IPM_FIXED) return ACT_LOWER;
  double sl = IPM_HAS_L(t) ? S->z[i] - p->lower[i] : INFINITY;
  double su = IPM_HAS_U(t) ? p->upper[i] - S->z[i] : INFINITY;
  if (IPM_HAS_L(t) && sl < S->wl[i] && sl <= su) return ACT_LOWER;
  if (IPM_HAS_U(t) && su < S->wu[i]) return ACT_UPPER;
  return ACT_BASIC;
}

/* Fills act[]; returns 1 if it differs from the last attempt's. */
static int identify(ipm_state *S, const cpk_problem *p)
{
  int changed = 0;
  for (size_t i = 0; i < S->n; i++) {
    S->act[i] = (unsigned char)classify(S, p, i);
    changed |= S->act[i] != S->last_act[i];
  }
  return changed;
}

/* zt: z with the active variables at their bounds; pinned marks them. */
static void start_trial(ipm_state *S, const cpk_problem *p)
{
  for (size_t i = 0; i < S->n; i++) {
    S->pinned[i] = S->act[i] != ACT_BASIC;
    S->zt[i] = S->act[i] == ACT_LOWER ? p->lower[i]
               : S->act[i] == ACT_UPPER ? p->upper[i] : S->z[i];
  }
}

/*
 * One Newton step on F_B(z) = 0 with z_N fixed: K is J with the active rows
 * replaced by the identity, on the same pattern as the interior steps (so
 * the symbolic analysis is reused). The result is clipped to the bounds.
 */
static int newton_step(ipm_state *S, const cpk_problem *p, int refactor)
{
  int rc = CPK_OK;
  if (p->kind == CPK_KIND_NONLINEAR_MCP) rc = ipm_jacobian(S, p, S->zt);
  memset(S->D, 0, S->n * sizeof *S->D);
  if (!rc && refactor) rc = ipm_factor(S, S->D);
  if (rc) return rc;
  for (size_t i = 0; i < S->n; i++) S->rhs[i] = S->pinned[i] ? 0.0 : -S->ft[i];
  if ((rc = ipm_solve_reduced(S, S->rhs))) return rc;
  for (size_t i = 0; i < S->n; i++) {
    double v = S->zt[i] + (S->pinned[i] ? 0.0 : S->rhs[i]);
    S->zt[i] = fmin(fmax(v, p->lower[i]), p->upper[i]);
  }
  return CPK_OK;
}

/* Newton steps while the natural residual improves; the best point goes to zbest. */
static int newton_steps(ipm_state *S, const cpk_problem *p)
{
  int steps = p->kind == CPK_KIND_NONLINEAR_MCP ? CROSSOVER_STEPS_NONLINEAR : CROSSOVER_STEPS_AFFINE;
  double prev = INFINITY;
  int rc = ipm_eval(S, p, S->zt, S->ft);
  for (int k = 0; !rc && k < steps; k++) {
    rc = newton_step(S, p, k == 0 || p->kind == CPK_KIND_NONLINEAR_MCP);
    if (!rc) rc = ipm_eval(S, p, S->zt, S->ft);
    if (rc) break;
    double res = cpk_natural_residual(p, S->zt, S->ft);
    if (res < S->best_res) {
      S->best_res = res;
      memcpy(S->zbest, S->zt, S->n * sizeof *S->zt);
      S->crossed = 1;
    }
    if (res <= S->tol || !(res < 0.5 * prev)) break;
    prev = res;
  }
  return rc;
}

int ipm_crossover(ipm_state *S, const cpk_problem *p, int force)
{
  if (!identify(S, p) && !force) return 0;
  memcpy(S->last_act, S->act, S->n);
  S->crossover_tries++;
  start_trial(S, p);
  int rc = newton_steps(S, p);
  for (size_t i = 0; i < S->n; i++) S->pinned[i] = S->type[i] == IPM_FIXED;
  /* A singular reduced system or a failed evaluation only means this active set does not work. */
  if (rc == CPK_ESINGULAR || rc == CPK_EBADFUNC) rc = CPK_OK;
  if (rc) return -rc;
  return S->best_res <= S->tol;
}
