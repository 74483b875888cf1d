/* profiles.c: Dolan-More performance profiles and log-log scaling fits over benchmark records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "harness.h"

/*
 * E. D. Dolan and J. J. More, "Benchmarking optimization software with
 * performance profiles", Math. Programming 91 (2002) 201-213: for each
 * problem, a solver's cost divided by the best solver's cost on it; the
 * profile rho_s(tau) is the fraction of problems solver s solves within a
 * factor tau of the best. rho_s(1) is how often s wins; rho_s(large) its
 * success rate.
 */

static double metric_of(const cpk_bench_record *r, cpk_bench_metric metric)
{
  if (!cpk_bench_success(r->status, r->expect)) return INFINITY;
  if (metric == CPK_BENCH_ITERATIONS) return r->iterations > 1 ? (double)r->iterations : 1.0;
  return r->time_s > 1e-9 ? r->time_s : 1e-9; /* ratios need a positive cost */
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Index of every record's problem in the list of distinct problems. */
static size_t index_problems(const cpk_bench_record *recs, size_t count, size_t *which)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    size_t j = 0;
    while (j < k && strcmp(recs[j].problem, recs[k].problem) != 0) j++;
    which[k] = j < k ? which[j] : m++;
  }
  return m;
}

int cpk_bench_profile(const cpk_bench_record *recs, size_t count, const char *const *solvers,
                      size_t nsolvers, cpk_bench_metric metric, double **ratio, size_t *nprob)
{
  size_t *which = cpk_alloc_array(count ? count : 1, sizeof *which);
  if (!which) return CPK_ENOMEM;
  size_t np = index_problems(recs, count, which), cells;
  double *t = NULL, *best = NULL;
  if (!cpk_size_mul(np ? np : 1, nsolvers ? nsolvers : 1, &cells)) {
    t = cpk_alloc_array(cells, sizeof *t);
    best = cpk_alloc_array(np ? np : 1, sizeof *best);
  }
  if (!t || !best) {
    free(which), free(t), free(best);
    return CPK_ENOMEM;
  }
  for (size_t k = 0; k < cells; k++) t[k] = INFINITY;
  for (size_t k = 0; k < np; k++) best[k] = INFINITY;
  for (size_t k = 0; k < count; k++)
    for (size_t s = 0; s < nsolvers; s++)
      if (strcmp(recs[k].solver, solvers[s]) == 0) {
        double x = metric_of(&recs[k], metric);
        t[s * np + which[k]] = x;
        if (x < best[which[k]]) best[which[k]] = x;
      }
  for (size_t s = 0; s < nsolvers; s++) {
    for (size_t p = 0; p < np; p++) t[s * np + p] /= isfinite(best[p]) ? best[p] : 1.0;
    qsort(t + s * np, np, sizeof *t, compare_doubles);
  }
  free(which), free(best);
  *ratio = t, *nprob = np;
  return CPK_OK;
}

int cpk_bench_loglog_fit(const double *x, const double *y, size_t m, double *slope,
                         double *intercept)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  if (m < 2) return CPK_EINVAL;
  for (size_t k = 0; k < m; k++) {
    if (!(x[k] > 0 && y[k] > 0)) return CPK_EINVAL;
    double a = log(x[k]), b = log(y[k]);
    sx += a, sy += b, sxx += a * a, sxy += a * b;
  }
  double det = (double)m * sxx - sx * sx;
  if (!(fabs(det) > 1e-12 * (double)m * sxx)) return CPK_EINVAL; /* all x equal */
  *slope = ((double)m * sxy - sx * sy) / det;
  *intercept = (sy - *slope * sx) / (double)m;
  return CPK_OK;
}
