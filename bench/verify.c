/* verify.c: the parent's own check of every answer a benchmark run sends back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cpkit/util.h>
#include "harness.h"

/*
 * Why a second check when the solve driver already recomputes the residual:
 * the answer crossed a process boundary, and the driver is part of what is
 * being measured. Here w = F(z) comes from the problem, and the natural map is
 * evaluated by this file's own loop, not by cpk_natural_residual.
 */
static double natural_residual(const cpk_problem *p, const double *z, const double *w)
{
  double r = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double l = p->lower[i], u = p->upper[i], y = z[i] - w[i];
    double mid = y < l ? l : (y > u ? u : y);
    double d = fabs(z[i] - mid);
    if (!(d <= r)) r = d; /* NaN wins, so it is never taken for small */
  }
  return isnan(r) ? INFINITY : r;
}

/*
 * A friction-cone problem is judged by its own residual, the per-contact
 * natural map of the Coulomb cone: the library's (cpk_fc_residual), as the
 * cone's projection exists once; w is still recomputed here from z.
 */
static double residual_of(const cpk_problem *p, const double *z, const double *w)
{
  if (p->kind != CPK_KIND_FRICTION_CONE) return natural_residual(p, z, w);
  double r = cpk_fc_residual(p, z, w);
  return isnan(r) ? INFINITY : r;
}

void cpk_bench_verify(const cpk_problem *p, const double *z, cpk_bench_record *rec)
{
  double *w = cpk_alloc_array(p->n, sizeof *w);
  double r = INFINITY;
  if (w && cpk_problem_eval(p, z, w) == CPK_OK) r = residual_of(p, z, w);
  free(w);
  rec->residual = r;
  int claims_solution = rec->claimed == CPK_STATUS_SOLVED || rec->status == CPK_STATUS_SOLVED;
  if (claims_solution && !(r <= rec->tolerance)) {
    rec->status = CPK_BENCH_REJECTED;
    snprintf(rec->message, sizeof rec->message,
             "claimed solved, but the parent's check finds the natural "
             "residual %.3g above the "
             "tolerance %.3g",
             r, rec->tolerance);
  } else if (rec->status == CPK_STATUS_NO_SOLUTION && rec->expect == CPK_BENCH_EXPECT_SOLUTION) {
    rec->status = CPK_BENCH_REJECTED;
    snprintf(rec->message, sizeof rec->message,
             "claimed no_solution on a problem that has a solution by construction");
  }
}
