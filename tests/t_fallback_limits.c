/* t_fallback_limits.c: the time limit and the iteration callback bound lemke's fallbacks: Murty's principal pivoting and the friction-index box method. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "testlib.h"

/*
 * What the callback saw. Lemke's path reports its artificial variable as the
 * merit, the box method its count of broken conditions: finite both; Murty's
 * moves have neither figure (NaN), which is how `at` finds the first of them.
 */
typedef struct watch {
  long calls, nan_calls;
  int stop_at;  /* 1-based call to stop at (0: never) */
  int sleep_at; /* 1-based call to sleep at (0: never) */
  int nan_only; /* count stop_at / sleep_at among the NaN-merit calls only */
} watch;

static void nap(double seconds)
{
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) == -1) continue;
}

static int on_iteration(const cpk_iteration_info *info, void *data)
{
  watch *w = data;
  w->calls++;
  w->nan_calls += isnan(info->merit);
  long k = w->nan_only ? (isnan(info->merit) ? w->nan_calls : 0) : w->calls;
  if (k && k == w->sleep_at) nap(0.2); /* past the time limit (0.05 s): the next check stops */
  return k && k == w->stop_at;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = -1.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

static cpk_problem *dense_problem(size_t n, const double *M, const double *q, const double *lo,
                                  const double *hi)
{
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(n, n, M, n, 0, &Mm)) {
    if (lo) cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
    else cpk_problem_alloc_lcp(Mm, q, &p);
  }
  cpk_matrix_free(Mm);
  return p;
}

static cpk_result *solve(const cpk_problem *p, watch *w, double time_limit)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.callback = on_iteration;
  s.callback_data = w;
  s.time_limit = time_limit;
  if (cpk_result_alloc(p->n, &r) || cpk_solve(p, "lemke", &s, r, NULL)) {
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

/*
 * An LCP with a positive diagonal that is not a P-matrix, found by a search over
 * small integer matrices: Lemke's path ends on a ray that proves nothing, and
 * Murty's method, which has no reason to end on such a matrix, would make its whole
 * budget of 4n + 100 = 112 moves (each a fresh factorization: on n = 200, 900 of them).
 */
static void test_murty(void)
{
  const double M[9] = {2, 5, -2, -5, 2, -3, 1, -4, 2}, q[3] = {-1.8, -0.4, 1};
  cpk_problem *p = dense_problem(3, M, q, NULL, NULL);
  watch all = {0, 0, 0, 0, 0};
  cpk_result *r = p ? solve(p, &all, 0.0) : NULL;
  t_ok(r && r->status == CPK_STATUS_RAY_TERMINATION && stat(r, "murty_moves") >= 100 &&
           stat(r, "murty_moves") <= 4 * 3 + 100,
       "murty: unlimited, the path ends on a ray and Murty's method makes %g moves, at most "
       "4n + 100 = 112 (%s)",
       r ? stat(r, "murty_moves") : -1.0, r ? cpk_status_name(r->status) : "no result");
  t_ok(r && r->iterations == (long)(stat(r, "pivots") + stat(r, "bound_flips") + stat(r, "murty_moves")) &&
           all.calls <= r->iterations + 3,
       "murty: its moves count in the iterations (%ld), as the callback saw them (%ld calls)",
       r ? r->iterations : -1L, all.calls);
  cpk_result_free(r);
  watch stop = {0, 0, 2, 0, 1};
  r = p ? solve(p, &stop, 0.0) : NULL;
  t_ok(r && r->status == CPK_STATUS_STALLED && stop.nan_calls == 2 && stat(r, "murty_moves") == 1.0,
       "murty: the callback stops it at its second move (%g moves, %ld calls in it, %s)",
       r ? stat(r, "murty_moves") : -1.0, stop.nan_calls, r ? cpk_status_name(r->status) : "-");
  cpk_result_free(r);
  watch slow = {0, 0, 0, 1, 1};
  r = p ? solve(p, &slow, 0.05) : NULL;
  t_ok(r && r->status == CPK_STATUS_TIME_LIMIT && stat(r, "murty_moves") <= 1.0 && slow.nan_calls <= 2,
       "murty: the time limit passed during its first move stops it (%g moves, %s)",
       r ? stat(r, "murty_moves") : -1.0, r ? cpk_status_name(r->status) : "-");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * The 2 x 2 friction-index problem of t_lemke_box (z = (1, 0.5)): the box method
 * answers it from the cold start after moves of its own, which the callback and the
 * clock must be able to stop, as they stop Lemke's pivots.
 */
static void test_box(void)
{
  const double M[4] = {1, 0, 0, 1}, q[2] = {-1, -2}, lo[2] = {0, -INFINITY};
  const double hi[2] = {INFINITY, INFINITY}, fc[2] = {0, 0.5};
  const int fi[2] = {-1, 0};
  cpk_problem *p = dense_problem(2, M, q, lo, hi);
  if (p && cpk_problem_set_friction_index(p, fi, fc)) {
    cpk_problem_free(p);
    p = NULL;
  }
  watch all = {0, 0, 0, 0, 0};
  cpk_result *r = p ? solve(p, &all, 0.0) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && stat(r, "box_pivots") >= 1.0 && all.calls >= 1 &&
           fabs(r->z[0] - 1.0) < 1e-10 && fabs(r->z[1] - 0.5) < 1e-10,
       "box: unlimited, solved in %g moves of its own, each reported (%ld calls)",
       r ? stat(r, "box_pivots") : -1.0, all.calls);
  cpk_result_free(r);
  watch stop = {0, 0, 1, 0, 0};
  r = p ? solve(p, &stop, 0.0) : NULL;
  t_ok(r && r->status == CPK_STATUS_STALLED && stop.calls == 1 && stat(r, "box_fallback") < 0.0 &&
           r->iterations == 0,
       "box: the callback stops it before its first move, and Lemke's path does not run "
       "(%s, %ld calls, %ld iterations)", r ? cpk_status_name(r->status) : "-", stop.calls,
       r ? r->iterations : -1L);
  cpk_result_free(r);
  watch slow = {0, 0, 0, 1, 0};
  r = p ? solve(p, &slow, 0.05) : NULL;
  t_ok(r && (r->status == CPK_STATUS_TIME_LIMIT || (r->status == CPK_STATUS_SOLVED && slow.calls == 1)) &&
           stat(r, "box_fallback") < 0.0,
       "box: past the time limit after its first move it stops there, or has already solved "
       "(%s after %ld calls)", r ? cpk_status_name(r->status) : "-", slow.calls);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * The iteration limit that cuts Murty's method is no reason to drop what the path
 * found: with max_iter = 32 the path's 12 pivots end on the same ray as without a
 * limit, and the result keeps it (ray_termination, the ray) and says the fallback was cut.
 */
static void test_murty_budget(void)
{
  const double M[9] = {2, 5, -2, -5, 2, -3, 1, -4, 2}, q[3] = {-1.8, -0.4, 1};
  cpk_problem *p = dense_problem(3, M, q, NULL, NULL);
  cpk_result *free_run = NULL, *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  if (p && !cpk_result_alloc(3, &free_run) && cpk_solve(p, "lemke", &s, free_run, NULL)) {
    cpk_result_free(free_run);
    free_run = NULL;
  }
  s.max_iter = 32;
  if (p && !cpk_result_alloc(3, &r) && cpk_solve(p, "lemke", &s, r, NULL)) {
    cpk_result_free(r);
    r = NULL;
  }
  double diff = INFINITY;
  if (r && free_run && r->has_ray && free_run->has_ray) {
    diff = 0.0;
    for (size_t i = 0; i < 3; i++) diff = fmax(diff, fabs(r->ray[i] - free_run->ray[i]));
  }
  t_ok(r && r->status == CPK_STATUS_RAY_TERMINATION && r->iterations <= 32 && diff == 0.0,
       "murty cut by max_iter = 32: the path's ray stands (%s, %ld iterations, has_ray %d, "
       "ray differs from the unlimited run's by %g)", r ? cpk_status_name(r->status) : "-",
       r ? r->iterations : -1L, r ? r->has_ray : -1, diff);
  t_ok(r && strstr(r->message, "iteration limit") != NULL, "murty cut by max_iter: said (%s)",
       r ? r->message : "-");
  cpk_result_free(free_run);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  cpk_init();
  test_murty();
  test_murty_budget();
  test_box();
  return t_done();
}
