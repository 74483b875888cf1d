/* ipm_potential.c: the potential-reduction method of Wang, Monteiro and Pang for the MCP as a constrained equation, with a watchdog on its line search. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ipm.h"

/*
 * H(z, wl, wu) = (F(z) - wl + wu, sl o wl, su o wu) = 0 on the closed convex
 * set {l <= z <= u, wl, wu >= 0}; S = R^n x R^m_+ is the cone the values of
 * H live in. Potential (WMP 1996, eq. for the NCP case):
 *   p(r, c) = zeta log(|r|^2 + |c|^2) - sum_i log c_i,  zeta > m/2,
 * psi(x) = p(H(x)). Direction: H'(x) d = -H(x) + sigma (a'H / |a|^2) a with
 * a = (0, 1_m), i.e. complementarity targets sigma mu; the step is the
 * largest t = t0 rho^j (t0 = a fraction of the way to the boundary) with
 *   psi(x + t d) <= psi(x) + gamma t grad psi(x)' d.
 * With zeta > m/2 and sigma <= sigma_bar < 1 the slope is at most
 * -(1 - sigma)(2 zeta - m) < 0, so the line search always ends. A watchdog
 * (below) lets a sequence of full steps raise the potential for a while.
 */
#define PR_SIGMA_MAX 0.5     /* sigma_bar */
#define PR_ARMIJO 1e-4       /* gamma */
#define PR_BACKTRACK 0.5     /* rho */
#define PR_STEP_FRACTION 0.9995
#define PR_MIN_STEP 1e-12
/*
 * The watchdog (Chamberlain, Powell, Lemarechal and Pedersen 1982, the
 * non-monotone safeguard of PATH): when the full step fails the Armijo test
 * it is taken anyway, and so are up to PR_WATCHDOG_STEPS - 1 more full steps,
 * until the potential falls below the Armijo level of the first step from
 * the point where the sequence began; if it does not, the iterate returns
 * there and the next PR_WATCHDOG_PAUSE steps use the monotone search.
 * Why: the central path can turn sharply where complementarity is already
 * small. In the wedged ball of seed 000's explicit two-sphere scene
 * (point-coulomb, t = 0.1) the internal force along the seam, in W's null
 * space, goes from +0.02 to -0.04 while mu falls from 4e-6 to 1e-6; one
 * Newton step along that turn leaves a second-order residual (the cone's
 * |y|, the slip rows' y sigma) of 1e-2 against |c| ~ 1e-5, so the
 * potential's zeta log(|r|^2 + |c|^2) accepted steps of 1/64 to 1/256,
 * which crept toward the face where both contacts stick (sigma -> 0; its
 * equations have no solution) and stalled at residual 1e-6. Full Newton
 * steps follow the turn in 2 to 15 iterations (exact continuation along
 * the path needs 5 or 6 Newton steps per halving of mu there).
 */
#define PR_WATCHDOG_STEPS 16
#define PR_WATCHDOG_PAUSE 10

typedef struct pot_parts {
  double norm2;    /* |r|^2 + |c|^2 */
  double sum_c;    /* sum of the complementarity products */
  double sum_inv;  /* sum of their reciprocals */
} pot_parts;

static double zeta(const ipm_state *S) { return S->m > 0 ? (double)S->m : 1.0; }

/* Adds the pair (slack s, multiplier w); 0 if it is not strictly interior. */
static int add_pair(double sl, double w, pot_parts *pp, double *logs)
{
  double c = sl * w;
  if (!(sl > 0.0 && w > 0.0 && c > 0.0)) return 0;
  pp->norm2 += c * c;
  pp->sum_c += c;
  pp->sum_inv += 1.0 / c;
  *logs += log(c);
  return 1;
}

/* psi at (z, wl, wu) with f = F(z); INFINITY outside the interior. */
static double potential(const ipm_state *S, const cpk_problem *p, const double *z, const double *f,
                        const double *wl, const double *wu, pot_parts *pp)
{
  double logs = 0.0;
  pp->norm2 = pp->sum_c = pp->sum_inv = 0.0;
  for (size_t i = 0; i < S->n; i++) {
    int t = S->type[i];
    if (t == IPM_FIXED) continue;
    double ri = f[i] - wl[i] + wu[i];
    pp->norm2 += ri * ri;
    if (IPM_HAS_L(t) && !add_pair(z[i] - p->lower[i], wl[i], pp, &logs)) return INFINITY;
    if (IPM_HAS_U(t) && !add_pair(p->upper[i] - z[i], wu[i], pp, &logs)) return INFINITY;
  }
  if (!isfinite(pp->norm2)) return INFINITY;
  if (!(pp->norm2 > 0.0)) return -INFINITY;
  return zeta(S) * log(pp->norm2) - logs;
}

/* grad psi(x)' d for the direction with targets sigma mu: (-H + sigma mu a)' grad p(H). */
static double slope(const ipm_state *S, const pot_parts *pp, double sigma)
{
  double z2 = 2.0 * zeta(S), m = (double)S->m;
  if (S->m == 0) return -z2;
  double mu = pp->sum_c / m;
  return -(z2 - m) + sigma * mu * (z2 * pp->sum_c / pp->norm2 - pp->sum_inv);
}

/*
 * sigma_k in [0, sigma_bar], as the method allows, chosen by Mehrotra's
 * heuristic: the affine-scaling direction (target 0, one more solve with the
 * same factors) shows how far complementarity can fall in one step, and
 * sigma = (mu_aff / mu)^3 centres strongly only when it cannot fall far.
 */
static int choose_sigma(ipm_state *S, const cpk_problem *p, double mu, double *sigma)
{
  memset(S->tl, 0, S->n * sizeof *S->tl);
  memset(S->tu, 0, S->n * sizeof *S->tu);
  int rc = ipm_direction(S, p, S->tl, S->tu, S->az, S->awl, S->awu);
  if (rc) return rc;
  double a = fmin(1.0, ipm_max_step(S, p, S->az, S->awl, S->awu));
  for (size_t i = 0; i < S->n; i++) {
    S->zt[i] = S->z[i] + a * S->az[i];
    S->wlt[i] = S->wl[i] + a * S->awl[i];
    S->wut[i] = S->wu[i] + a * S->awu[i];
  }
  double mu_aff = ipm_mu(S, p, S->zt, S->wlt, S->wut);
  *sigma = mu > 0.0 ? fmin(PR_SIGMA_MAX, pow(fmin(1.0, mu_aff / mu), 3)) : 0.0;
  return CPK_OK;
}

static void swap(double **a, double **b)
{
  double *t = *a;
  *a = *b;
  *b = t;
}

/* The trial point x + t d and its potential (INFINITY where F fails or outside the interior). */
static int trial(ipm_state *S, const cpk_problem *p, double t, double *psi)
{
  pot_parts pp;
  for (size_t i = 0; i < S->n; i++) {
    S->zt[i] = S->z[i] + t * S->dz[i];
    S->wlt[i] = S->wl[i] + t * S->dwl[i];
    S->wut[i] = S->wu[i] + t * S->dwu[i];
  }
  *psi = INFINITY;
  int rc = ipm_eval(S, p, S->zt, S->ft);
  if (rc == CPK_EBADFUNC) return CPK_OK;
  if (!rc) *psi = potential(S, p, S->zt, S->ft, S->wlt, S->wut, &pp);
  return rc;
}

/* The trial point becomes the iterate. */
static void accept(ipm_state *S, double t)
{
  swap(&S->z, &S->zt);
  swap(&S->wl, &S->wlt);
  swap(&S->wu, &S->wut);
  swap(&S->f, &S->ft);
  S->step = t;
}

/* Backtrack from t until the Armijo condition on psi holds; the accepted point becomes the iterate. */
static int line_search(ipm_state *S, const cpk_problem *p, double psi0, double dpsi, double t)
{
  for (; t >= PR_MIN_STEP; t *= PR_BACKTRACK, S->backtracks++) {
    double psi;
    int rc = trial(S, p, t, &psi);
    if (rc) return rc;
    if (psi <= psi0 + PR_ARMIJO * t * dpsi) {
      accept(S, t);
      return CPK_OK;
    }
  }
  return IPM_NO_STEP;
}

/* The watchdog's reference point: saved from the iterate, or the iterate restored from it. */
static void reference_point(ipm_state *S, int save)
{
  double *from[4] = {S->z, S->wl, S->wu, S->f}, *to[4] = {S->zw, S->wlw, S->wuw, S->fw};
  for (int k = 0; k < 4; k++) memcpy(save ? to[k] : from[k], save ? from[k] : to[k], S->n * sizeof *S->z);
}

/*
 * One step of a relaxed sequence (the watchdog, above): the full step t0,
 * whatever the potential does. The sequence ends when the potential falls
 * below the reference's Armijo level; after PR_WATCHDOG_STEPS steps without
 * that, the iterate returns to the reference point and the next
 * PR_WATCHDOG_PAUSE steps are monotone.
 */
static int relaxed_step(ipm_state *S, const cpk_problem *p, double t0)
{
  double psi;
  int rc = trial(S, p, t0, &psi);
  if (rc) return rc;
  S->wd_steps++;
  if (psi < INFINITY) accept(S, t0); /* -INFINITY: an exact solution, the best step of all */
  if (psi <= S->wd_need) {
    S->wd_left = 0;
  } else if (--S->wd_left == 0 || !isfinite(psi)) {
    S->wd_left = 0;
    reference_point(S, 0);
    S->wd_pause = PR_WATCHDOG_PAUSE;
    S->wd_returns++;
    S->step = 0.0;
  }
  return CPK_OK;
}

/*
 * The full step t0 when its potential passes the Armijo test, else (the
 * watchdog allowing) the full step anyway as the first of a relaxed
 * sequence from this point as reference, else the backtracking search.
 */
static int watched_search(ipm_state *S, const cpk_problem *p, double psi0, double dpsi, double t0)
{
  double psi;
  if (S->wd_left > 0) return relaxed_step(S, p, t0);
  int rc = trial(S, p, t0, &psi);
  if (rc) return rc;
  if (psi <= psi0 + PR_ARMIJO * t0 * dpsi) {
    accept(S, t0);
    S->wd_pause -= S->wd_pause > 0;
    return CPK_OK;
  }
  if (S->wd_pause == 0 && isfinite(psi)) {
    reference_point(S, 1);
    S->wd_need = psi0 + PR_ARMIJO * t0 * dpsi;
    S->wd_left = PR_WATCHDOG_STEPS - 1;
    S->wd_steps++;
    accept(S, t0);
    return CPK_OK;
  }
  S->wd_pause -= S->wd_pause > 0;
  S->backtracks++;
  return line_search(S, p, psi0, dpsi, t0 * PR_BACKTRACK);
}

int ipm_pr_step(ipm_state *S, const cpk_problem *p)
{
  pot_parts pp;
  int rc = p->kind == CPK_KIND_NONLINEAR_MCP ? ipm_jacobian(S, p, S->z) : CPK_OK;
  if (rc) return rc;
  ipm_barrier_diagonal(S, p);
  if ((rc = ipm_factor(S, S->D))) return rc;
  double psi0 = potential(S, p, S->z, S->f, S->wl, S->wu, &pp);
  double sigma, mu = S->m ? pp.sum_c / (double)S->m : 0.0;
  if ((rc = choose_sigma(S, p, mu, &sigma))) return rc;
  for (size_t i = 0; i < S->n; i++) S->tl[i] = S->tu[i] = sigma * mu;
  if ((rc = ipm_direction(S, p, S->tl, S->tu, S->dz, S->dwl, S->dwu))) return rc;
  S->sigma = sigma;
  double t0 = fmin(1.0, PR_STEP_FRACTION * ipm_max_step(S, p, S->dz, S->dwl, S->dwu));
  return watched_search(S, p, psi0, slope(S, &pp, sigma), t0);
}

