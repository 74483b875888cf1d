/* newton_start.c: where bdnewton and fbnewton start: a start moved into F's domain, the crash phase (projected-gradient steps), and the restart points. */
#include <math.h>
#include <string.h>
#include "newton.h"

/* Fractions t of the way from the start toward the interior point tried when F fails. */
static const double domain_steps[] = {1e-8, 1e-6, 1e-4, 1e-2, 0.1, 0.5, 1.0};
/* Backtracks per crash step, and the decrease below which the crash stops (it no longer pays). */
#define CRASH_BACKTRACKS 20
#define CRASH_MIN_DECREASE 0.1
/* Relative size of the restart perturbations, per restart. */
#define RESTART_SPREAD 0.1

static double clamp(double v, double l, double u) { return fmin(fmax(v, l), u); }

/*
 * A point strictly inside the bounds near z: the middle of a finite box,
 * max(1, |bound|) inside a one-sided bound (or z itself when it is strictly
 * inside already), 0 for a free variable.
 */
static double interior_value(double l, double u, double z)
{
  if (isfinite(l) && isfinite(u)) return l == u ? l : 0.5 * (l + u);
  if (isfinite(l)) return z > l ? z : l + fmax(1.0, fabs(l));
  if (isfinite(u)) return z < u ? z : u - fmax(1.0, fabs(u));
  return 0.0;
}

int newton_start_into_domain(newton_ws *ws, const cpk_problem *p)
{
  if (!newton_evaluate(ws, p, ws->z, ws->w, ws->phi, &ws->merit)) return CPK_OK;
  memcpy(ws->zt, ws->z, ws->n * sizeof *ws->zt); /* zt keeps the start while z moves */
  for (size_t k = 0; k < sizeof domain_steps / sizeof domain_steps[0]; k++) {
    double t = domain_steps[k];
    for (size_t i = 0; i < ws->n; i++) {
      double c = interior_value(p->lower[i], p->upper[i], ws->zt[i]);
      ws->z[i] = clamp(ws->zt[i] + t * (c - ws->zt[i]), p->lower[i], p->upper[i]);
    }
    if (!newton_evaluate(ws, p, ws->z, ws->w, ws->phi, &ws->merit)) return CPK_OK;
  }
  /* A huge but finite warm start is its own "interior" point and its merit overflows:
   * fall back to the cold start (0 on the bounds), then to the interior point near it. */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < ws->n; i++) {
      double c = clamp(0.0, p->lower[i], p->upper[i]);
      ws->z[i] = pass ? clamp(interior_value(p->lower[i], p->upper[i], c), p->lower[i], p->upper[i]) : c;
    }
    if (!newton_evaluate(ws, p, ws->z, ws->w, ws->phi, &ws->merit)) return CPK_OK;
  }
  return CPK_EBADFUNC;
}

/* Barzilai-Borwein step |s|^2 / s.y from the last crash step (s = dz, y = dF), or t when s.y <= 0. */
static double bb_step(const newton_ws *ws, double t)
{
  double ss = 0.0, sy = 0.0;
  for (size_t i = 0; i < ws->n; i++) {
    double si = ws->z[i] - ws->zt[i], yi = ws->w[i] - ws->wt[i];
    ss += si * si;
    sy += si * yi;
  }
  return sy > 0.0 && ss > 0.0 ? fmin(fmax(ss / sy, 1e-12), 1e12) : t;
}

/*
 * The crash phase: projected-gradient steps z <- P(z - t F(z)) on the box,
 * t backtracked from a Barzilai-Borwein estimate until the merit decreases.
 * Cheap (F only) and good at finding the active set from a poor start; it
 * stops when a step gains less than CRASH_MIN_DECREASE of the merit, where
 * Newton's method does better.
 */
void newton_crash(newton_ws *ws, const cpk_problem *p, int steps)
{
  double t = 1.0, mt;
  for (int k = 0; k < steps; k++) {
    int ok = 0;
    for (int b = 0; b < CRASH_BACKTRACKS && !ok; b++, t *= 0.5) {
      for (size_t i = 0; i < ws->n; i++)
        ws->zt[i] = clamp(ws->z[i] - t * ws->w[i], p->lower[i], p->upper[i]);
      ok = !newton_evaluate(ws, p, ws->zt, ws->wt, ws->phit, &mt) && mt < ws->merit;
    }
    if (!ok) break;
    double before = ws->merit;
    newton_accept_trial(ws, mt); /* zt, wt now hold the previous point */
    ws->crash_steps++;
    newton_save_best(ws, 0);
    t = bb_step(ws, 2.0 * t);
    if (mt > (1.0 - CRASH_MIN_DECREASE) * before) break;
  }
}

/* Deterministic numbers in [-1, 1] (a 64-bit LCG): restarts are reproducible. */
static double spread(unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/*
 * F at the base of restart k into ws->wt (the best point's is kept in wg; the
 * interior point has no component at a bound). 0 when F fails there.
 */
static int restart_base_values(newton_ws *ws, const cpk_problem *p, int k)
{
  double merit;
  if (k % 3 == 1) {
    memcpy(ws->wt, ws->wg, ws->n * sizeof *ws->wt);
    return 1;
  }
  return k % 3 == 2 && !newton_evaluate(ws, p, ws->zs, ws->wt, ws->phit, &merit);
}

/* 1 when z_i sits on a bound that F_i pushes it off (z_i = l_i and F_i < 0, or z_i = u_i and F_i > 0). */
static int pushed_off(double l, double u, double z, double f) { return (z == l && f < 0) || (z == u && f > 0); }

/*
 * Restart k: from the best point so far (zg; k = 1, 4, ...), the start (k = 2, 5, ...)
 * or the interior point of the bounds (k = 3, 6, ...), each perturbed
 * componentwise by RESTART_SPREAD k (1 + |z_i|) and projected onto the bounds.
 * A problem with row scales (a compiled contact problem) says its unknowns are
 * not in units of 1: from restart RELATIVE_FROM on, its perturbation is
 * RESTART_SPREAD k |z_i|, relative, as an absolute 1 is a huge or a negligible
 * change depending on the units (a twist impulse p_r = e_r y_r with e_r = 0.01 m
 * moved by 0.1 is a friction of 10 N s on a pile of 0.1 kg spheres: no absolute
 * restart solved bench's pile-b4-elliptic-torsional-h0.001-mu1.0, the fifth,
 * relative, does). The first ones stay absolute: they solve steps that the
 * relative ones do not (bdnewton on issue 14's thrown rod at t = 0.609).
 * A relative perturbation of 0 is 0: a component on its bound would never move
 * (restart 5 from a cold start at the bounds would repeat the start), and an
 * answer that needs it off the bound stays out of reach (tests/t_restart_floor).
 * Such a component, when F pushes it off the bound, gets the floor
 * RESTART_FLOOR s_i, s_i = p->row_scale[i], the size of row i in z_i's unit.
 * Only those: giving every zero component a floor (1e-4 s_i already) cost
 * fbnewton the jams of tests/t_pile_restarts, which its restart 4 or 5 solves
 * there by the relative perturbation alone.
 */
#define RELATIVE_FROM 4
#define RESTART_FLOOR 0.1
int newton_restart_point(newton_ws *ws, const cpk_problem *p, int k)
{
  unsigned long long state = 0x9e3779b97f4a7c15ULL * (unsigned long long)k;
  double delta = RESTART_SPREAD * k;
  int relative = p->row_scale && k >= RELATIVE_FROM;
  int floors = relative && restart_base_values(ws, p, k);
  for (size_t i = 0; i < ws->n; i++) {
    double l = p->lower[i], u = p->upper[i];
    double base = k % 3 == 1   ? ws->zg[i]
                  : k % 3 == 2 ? ws->zs[i]
                               : interior_value(l, u, ws->zs[i]);
    double size = relative ? fabs(base) : 1.0 + fabs(base);
    if (floors && pushed_off(l, u, base, ws->wt[i])) size = fmax(size, RESTART_FLOOR * p->row_scale[i]);
    ws->z[i] = clamp(base + delta * spread(&state) * size, l, u);
  }
  return newton_start_into_domain(ws, p);
}
