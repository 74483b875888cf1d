/* t_iteration_totals.c: a result's iterations are the work of every stage of a solve (first attempt, restart, fallback), counted against the iteration callback's calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "slip_reversal.h"
#include "testlib.h"

/*
 * Each stage reports every iteration to the callback before making it (a run that
 * ends on a ray or a stall reports once more, and Lemke's first pivot is made before
 * its loop reports), so over a solve of a few stages the calls and the result's
 * iterations agree to within a few: a stage whose iterations the result drops shows
 * as a gap of all of them.
 */
#define SLACK_PER_STAGE 2

static int count_calls(const cpk_iteration_info *info, void *data)
{
  (void)info;
  ++*(long *)data;
  return 0;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = -1.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Solve with a counting callback; NULL on an error. */
static cpk_result *solve(const cpk_problem *p, const char *solver, const double *z0, long *calls)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.z0 = z0;
  s.callback = count_calls;
  s.callback_data = calls;
  *calls = 0;
  if (cpk_result_alloc(p->n, &r) || cpk_solve(p, solver, &s, r, NULL)) {
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static int agree(long iterations, long calls, int stages)
{
  return labs(iterations - calls) <= SLACK_PER_STAGE * stages;
}

/*
 * fcipm warm-started on the wrong side of a slip reversal (t_cone_stops: seed 004's
 * particle on the rotating plate) stalls, and its cold restart solves: the
 * iterations are both runs'.
 */
static void test_fcipm_restart(void)
{
  cpk_problem *p = slip_reversal_problem();
  long calls = 0;
  cpk_result *r = p ? solve(p, "fcipm", slip_reversal_z0, &calls) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-9) &&
           stat(r, "cold_restart") == 1.0,
       "fcipm: the warm run stalls, the cold restart solves (%s)",
       r ? cpk_status_name(r->status) : "no result");
  t_ok(r && agree(r->iterations, calls, 2),
       "fcipm: %ld iterations for the two runs, %ld reported to the callback",
       r ? r->iterations : -1L, calls);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * Random friction-index problems (nc contacts: a normal row and two friction rows
 * each; M = J J^T in float precision, q of either sign, so that many have no
 * solution): lemke's box method fails from the cold start, Lemke's path runs on
 * M + reg I, the box method fails to finish from its basis, and the path runs again
 * on M. The first `want` such problems are checked.
 */
static cpk_problem *random_findex(gsl_rng *g, size_t nc, size_t nv)
{
  enum { NMAX = 12, NVMAX = 8 };
  size_t n = 3 * nc;
  double J[NMAX * NVMAX], M[NMAX * NMAX], q[NMAX], lo[NMAX], hi[NMAX], fc[NMAX];
  int fi[NMAX];
  for (size_t a = 0; a < n; a++) {
    for (size_t k = 0; k < nv; k++) J[a * nv + k] = 2.0 * gsl_rng_uniform(g) - 1.0;
    fi[a] = a % 3 ? (int)(a - a % 3) : -1;
    fc[a] = a % 3 ? 0.1 + 0.1 * (double)gsl_rng_uniform_int(g, 10) : 0.0;
    lo[a] = a % 3 ? -INFINITY : 0.0;
    hi[a] = INFINITY;
    q[a] = 2.0 * gsl_rng_uniform(g) - 1.0;
  }
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++) {
      double v = 0.0;
      for (size_t k = 0; k < nv; k++) v += J[a * nv + k] * J[b * nv + k];
      M[a * n + b] = (float)v;
    }
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(n, n, M, n, 0, &Mm)) cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  cpk_matrix_free(Mm);
  if (p && cpk_problem_set_friction_index(p, fi, fc)) {
    cpk_problem_free(p);
    p = NULL;
  }
  return p;
}

static void test_findex_second_path(void)
{
  const int want = 3;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 2026);
  int found = 0, agreed = 0, tried = 0;
  long worst_gap = 0;
  for (; g && tried < 2000 && found < want; tried++) {
    cpk_problem *p = random_findex(g, 1 + (size_t)tried % 4, 3 + gsl_rng_uniform_int(g, 6));
    long calls = 0;
    cpk_result *r = p ? solve(p, "lemke", NULL, &calls) : NULL;
    if (r && stat(r, "box_fallback") == 1.0 && stat(r, "box_polish") < 0.0 &&
        r->status != CPK_STATUS_TIME_LIMIT && r->status != CPK_STATUS_MAX_ITERATIONS) {
      found++;
      agreed += agree(r->iterations, calls, 4); /* box, path, box, path */
      if (labs(r->iterations - calls) > worst_gap) worst_gap = labs(r->iterations - calls);
    }
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  gsl_rng_free(g);
  t_ok(found == want, "findex: %d problems of %d went through the second path on M", found, tried);
  t_ok(found > 0 && agreed == found,
       "findex: their iterations count all four stages (%d of %d agree with the callback's "
       "count; largest gap %ld)", agreed, found, worst_gap);
}

/* The callback's iteration numbers: how many calls, the last number, the times it did not go up. */
typedef struct order {
  long calls, last, not_up;
} order;

static int watch_order(const cpk_iteration_info *info, void *data)
{
  order *o = data;
  o->not_up += o->calls > 0 && info->iteration <= o->last;
  o->last = info->iteration;
  o->calls++;
  return 0;
}

/*
 * max_iter bounds the whole solve, not each stage: on the random friction-index
 * problems (box method, path on M + reg I, box polish, path on M) the iterations
 * never pass it, and the callback's iteration numbers go on from one stage to the
 * next instead of starting again at 0.
 */
static void test_findex_budget(void)
{
  static const long limits[] = {1, 2, 3, 5, 8, 13, 22, 40};
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 2026);
  int runs = 0, over = 0, restarts = 0;
  long worst = -1, worst_limit = 0; /* the run closest to its limit (or over it) */
  for (int tried = 0; g && tried < 60; tried++) {
    cpk_problem *p = random_findex(g, 1 + (size_t)tried % 4, 3 + gsl_rng_uniform_int(g, 6));
    for (size_t k = 0; p && k < sizeof limits / sizeof *limits; k++) {
      cpk_settings s;
      cpk_result *r = NULL;
      order o = {0, 0, 0};
      cpk_settings_default(&s);
      s.max_iter = limits[k];
      s.callback = watch_order;
      s.callback_data = &o;
      if (!cpk_result_alloc(p->n, &r) && !cpk_solve(p, "lemke", &s, r, NULL)) {
        runs++;
        if (r->iterations > limits[k]) over++;
        if (worst < 0 || r->iterations - limits[k] > worst - worst_limit) {
          worst = r->iterations;
          worst_limit = limits[k];
        }
        restarts += o.not_up > 0;
      }
      cpk_result_free(r);
    }
    cpk_problem_free(p);
  }
  gsl_rng_free(g);
  t_ok(runs == 60 * 8 && over == 0,
       "findex: max_iter bounds all stages together (%d of %d runs over; closest %ld "
       "iterations with max_iter %ld)", over, runs, worst, worst_limit);
  t_ok(runs == 60 * 8 && restarts == 0,
       "findex: the callback's iteration numbers rise across the stages (%d of %d runs restart "
       "them)", restarts, runs);
}

int main(void)
{
  cpk_init();
  test_fcipm_restart();
  test_findex_second_path();
  test_findex_budget();
  return t_done();
}
