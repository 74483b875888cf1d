/* t_ipm_watchdog.c: ipm's potential-reduction watchdog on a free nonlinear equation: a relaxed step that lands on an exact solution is taken. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

/*
 * One free unknown (no bounds: no complementarity pairs, the potential is
 * log F(z)^2). F(z) = z on [-1, 1], and on z > 1 the line through F(3) = 0.2
 * with slope 0.2 / 3.5, whose own root is -0.5. Newton from z = 3 lands near
 * -0.5, where |F| is 0.5 > 0.2: the potential rises, the watchdog takes the
 * step as the first of a relaxed sequence; from there F is linear and the full
 * step lands on z = 0 exactly, where the potential is -infinity. Two
 * iterations in all, by hand.
 */
#define SLOPE (0.2 / 3.5)

static int kink_f(const double *z, double *f, void *params)
{
  (void)params;
  f[0] = z[0] <= 1.0 ? (z[0] >= -1.0 ? z[0] : -1.0) : 0.2 + SLOPE * (z[0] - 3.0);
  return 0;
}

static int kink_j(const double *z, cpk_csc *J, void *params)
{
  (void)params;
  J->x[0] = z[0] <= 1.0 ? (z[0] >= -1.0 ? 1.0 : 0.0) : SLOPE;
  return 0;
}

static void test_exact_landing(void)
{
  cpk_int ti[1] = {0}, tj[1] = {0};
  double tx[1] = {0}, lo[1] = {-INFINITY}, hi[1] = {INFINITY}, z0[1] = {3.0};
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  if (!cpk_csc_from_triplets(1, 1, 1, ti, tj, tx, &pat))
    cpk_problem_alloc_nonlinear_mcp(1, kink_f, kink_j, pat, NULL, lo, hi, &p);
  cpk_csc_free(pat);
  cpk_settings s;
  cpk_settings_default(&s);
  s.ipm.method = CPK_IPM_POTENTIAL;
  s.ipm.crossover = 0;
  s.z0 = z0;
  cpk_result *r = NULL;
  double steps = -1.0;
  if (p && !cpk_result_alloc(1, &r) && cpk_solve(p, "ipm", &s, r, NULL)) {
    cpk_result_free(r);
    r = NULL;
  }
  if (r) cpk_result_get_stat(r, "watchdog_steps", &steps);
  t_ok(r && r->z[0] == 0.0 && steps >= 1.0,
       "the watchdog's sequence lands on z = 0 (z = %g, %g relaxed steps)", r ? r->z[0] : NAN, steps);
  t_ok(r && r->iterations == 2, "in two iterations, as by hand (%ld)", r ? r->iterations : -1L);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  cpk_init();
  test_exact_landing();
  return t_done();
}
