/* ipm_affine.c: infeasible primal-dual path following with Mehrotra's predictor-corrector, for monotone affine MCPs. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ipm.h"

/* Fraction of the way to the boundary a step may go. */
#define PF_STEP_FRACTION 0.995

/* mu at (z, wl, wu) + alpha (dz, dwl, dwu), in the trial arrays. */
static double trial_mu(ipm_state *S, const cpk_problem *p, double alpha, const double *dz,
                       const double *dwl, const double *dwu)
{
  for (size_t i = 0; i < S->n; i++) {
    S->zt[i] = S->z[i] + alpha * dz[i];
    S->wlt[i] = S->wl[i] + alpha * dwl[i];
    S->wut[i] = S->wu[i] + alpha * dwu[i];
  }
  return ipm_mu(S, p, S->zt, S->wlt, S->wut);
}

/*
 * Mehrotra's predictor-corrector (Wright 1997, ch. 10; the LCP form of
 * ch. 8): the affine-scaling direction (target 0) predicts how far
 * complementarity can fall; sigma = (mu_aff / mu)^3 sets the centering, and
 * the corrector adds the second-order term -dS_aff dW_aff. One factorization
 * serves both solves. Primal and dual move with the same step (w is tied to
 * z by the equations), at most PF_STEP_FRACTION of the way to the boundary.
 */
int ipm_pc_step(ipm_state *S, const cpk_problem *p)
{
  size_t n = S->n;
  ipm_barrier_diagonal(S, p);
  int rc = ipm_factor(S, S->D);
  if (rc) return rc;
  memset(S->tl, 0, n * sizeof *S->tl);
  memset(S->tu, 0, n * sizeof *S->tu);
  if ((rc = ipm_direction(S, p, S->tl, S->tu, S->az, S->awl, S->awu))) return rc;
  double a_aff = fmin(1.0, ipm_max_step(S, p, S->az, S->awl, S->awu));
  double mu_aff = trial_mu(S, p, a_aff, S->az, S->awl, S->awu);
  double sigma = S->mu > 0.0 ? pow(fmin(1.0, mu_aff / S->mu), 3) : 0.0;
  for (size_t i = 0; i < n; i++) {
    S->tl[i] = sigma * S->mu - S->az[i] * S->awl[i];
    S->tu[i] = sigma * S->mu + S->az[i] * S->awu[i]; /* dsu = -dz */
  }
  if ((rc = ipm_direction(S, p, S->tl, S->tu, S->dz, S->dwl, S->dwu))) return rc;
  double alpha = fmin(1.0, PF_STEP_FRACTION * ipm_max_step(S, p, S->dz, S->dwl, S->dwu));
  for (size_t i = 0; i < n; i++) {
    S->z[i] += alpha * S->dz[i];
    S->wl[i] += alpha * S->dwl[i];
    S->wu[i] += alpha * S->dwu[i];
  }
  S->sigma = sigma;
  S->step = alpha;
  return ipm_eval(S, p, S->z, S->f);
}

