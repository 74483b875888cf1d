/* t_warm_huge.c: huge but finite warm starts (issue 16 item 6): every solver that takes a start ends as from its default start (solved: checked by t_is_mcp_solution and against the planted solution), never with a non-finite z. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "families.h"
#include "testlib.h"

#define N 40

static double dist_inf(const double *a, const double *b, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* Three starts far out of range: alternating +-1e300, every entry DBL_MAX, one entry 1e308. */
static void fill_start(int kind, double *z0)
{
  for (size_t i = 0; i < N; i++)
    z0[i] = kind == 0 ? (i % 2 ? 1e300 : -1e300) : kind == 1 ? DBL_MAX : (i == 3 ? 1e308 : 0.0);
}

static int all_finite(const double *z, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(z[i])) return 0;
  return 1;
}

/* Status of a solve from z0 (NULL: the solver's default start); r->z holds its answer. */
static int run(const cpk_problem *p, const char *solver, const double *z0, cpk_result *r,
               cpk_error *err)
{
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = z0;
  return cpk_solve(p, solver, &s, r, err);
}

static void one(const cpk_problem *p, const double *zstar, const char *solver, int kind,
                const char *storage)
{
  static const char *const what[] = {"+-1e300", "DBL_MAX", "one 1e308"};
  double z0[N];
  cpk_result *cold = NULL, *r = NULL;
  cpk_error err;
  fill_start(kind, z0);
  if (cpk_result_alloc(p->n, &cold) || cpk_result_alloc(p->n, &r)) abort();
  int rc = run(p, solver, NULL, cold, &err) || run(p, solver, z0, r, &err);
  /* Solved from the default start: solved from this one too, checked here; else the same end. */
  int ok = !rc && all_finite(r->z, N) &&
           (cold->status == CPK_STATUS_SOLVED
                ? t_is_mcp_solution(p, r->z, 1e-6) && dist_inf(r->z, zstar, N) < 1e-6
                : r->status == cold->status);
  t_ok(ok, "%s, %s M, warm start %s: %s in %ld iterations, z finite (cold start: %s)", solver,
       storage, what[kind], rc ? err.message : cpk_status_name(r->status), r->iterations,
       cpk_status_name(cold->status));
  cpk_result_free(cold);
  cpk_result_free(r);
}

int main(void)
{
  static const char *const solvers[] = {"ipm", "bdnewton", "fbnewton", "pgs", "lemke"};
  for (int storage = 0; storage < 2; storage++) {
    cpk_problem *p = NULL;
    double zstar[N];
    if (cpk_family_random_pd(N, t_seed() + (unsigned long)storage, storage, &p, zstar)) abort();
    for (size_t k = 0; k < sizeof solvers / sizeof solvers[0]; k++)
      for (int kind = 0; kind < 3; kind++)
        one(p, zstar, solvers[k], kind, storage == CPK_FAMILY_SPARSE ? "sparse" : "dense");
    cpk_problem_free(p);
  }
  return t_done();
}
