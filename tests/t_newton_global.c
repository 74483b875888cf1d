/* t_newton_global.c: the globalization of bdnewton and fbnewton: warm starts, starts on the boundary of F's domain, the boxed Kojima-Shindo NCP, PSD LCPs, restarts and the new settings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_problems.h"
#include "testlib.h"

static const char *const solvers[] = {"bdnewton", "fbnewton"};

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Solve with `solver` from z0 (NULL: default start) with settings s (NULL: defaults). */
static cpk_result *solve(const cpk_problem *p, const char *solver, const double *z0,
                         const cpk_settings *given)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  if (given) s = *given;
  else cpk_settings_default(&s);
  s.z0 = z0;
  if (cpk_result_alloc(p->n, &r)) abort();
  if (cpk_solve(p, solver, &s, r, &err)) t_diag("%s: %s", solver, err.message);
  return r;
}

static double dist_inf(const double *a, const double *b, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* ---- an NCP whose F is defined only for z1 > 0 (log) and z1 >= 0 (sqrt) ---------------- */

/*
 * F1 = log z1 + z2 - 2, F2 = z2 - 1 + (sqrt z1 - sqrt e) / 2, F3 = z3 + 1 + sqrt z1.
 * Unique solution z* = (e, 1, 0): z1 > 0 forces F1 = 0; z2 = 0 would give
 * z1 = e^2 and F2 < 0, so F2 = 0, and log z1 - 1 - (sqrt z1 - sqrt e)/2 = 0
 * has the roots e and one near 62, where z2 = 1 - (sqrt z1 - sqrt e)/2 < 0.
 * At z1 = 0 (the boundary of the NCP's box) F1 = -inf: F fails there.
 */
static int log_f(const double *z, double *f, void *params)
{
  (void)params;
  if (z[0] < 0.0) return -1;
  f[0] = log(z[0]) + z[1] - 2.0;
  f[1] = z[1] - 1.0 + 0.5 * (sqrt(z[0]) - sqrt(M_E));
  f[2] = z[2] + 1.0 + sqrt(z[0]);
  return 0;
}

/* Dense 3x3 pattern, column-major. */
static int log_j(const double *z, cpk_csc *J, void *params)
{
  (void)params;
  double s = sqrt(z[0]);
  const double x[9] = {1.0 / z[0], 0.25 / s, 0.5 / s, 1, 1, 0, 0, 0, 1};
  memcpy(J->x, x, sizeof x);
  return 0;
}

static cpk_problem *log_problem(void)
{
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  double l[3] = {0, 0, 0}, u[3] = {INFINITY, INFINITY, INFINITY};
  if (cpk_csc_alloc(3, 3, 9, &pat)) abort();
  for (int j = 0; j <= 3; j++) pat->p[j] = 3 * j;
  for (int k = 0; k < 9; k++) pat->i[k] = k % 3, pat->x[k] = 0.0;
  if (cpk_problem_alloc_nonlinear_mcp(3, log_f, log_j, pat, NULL, l, u, &p)) abort();
  cpk_csc_free(pat);
  return p;
}

static void test_domain_boundary(void)
{
  static const double starts[3][3] = {{0, 0, 0}, {0, 1, 0}, {0, 5, 2}};
  const double zs[3] = {M_E, 1.0, 0.0};
  cpk_problem *p = log_problem();
  for (int sv = 0; sv < 2; sv++)
    for (int st = 0; st < 3; st++) {
      cpk_result *r = solve(p, solvers[sv], starts[st], NULL);
      t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
               dist_inf(r->z, zs, 3) < 1e-6,
           "%s: log/sqrt NCP from (%g, %g, %g) on the boundary of F's domain: z* = (e, 1, 0) "
           "(%s, %ld iterations)",
           solvers[sv], starts[st][0], starts[st][1], starts[st][2], cpk_status_name(r->status),
           r->iterations);
      cpk_result_free(r);
    }
  cpk_result *r = solve(p, "fbnewton", zs, NULL);
  t_ok(r->iterations == 0 && r->status == CPK_STATUS_SOLVED && memcmp(r->z, zs, sizeof zs) == 0,
       "fbnewton warm-started at z* of the log/sqrt NCP: 0 iterations, the same point");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* ---- Kojima-Shindo boxed in [0, 10]^4 ---------------------------------------------- */

/* MCPLIB's kojshin with the upper bounds 10 (inactive at both solutions). */
static cpk_problem *boxed_kojshin(const cpk_mcp_info **info)
{
  cpk_problem *p = NULL;
  *info = cpk_mcp_find("kojshin");
  if (!*info || cpk_mcp_problem(*info, &p)) abort();
  for (size_t i = 0; i < 4; i++) p->upper[i] = 10.0;
  return p;
}

static int kojshin_solution(const cpk_mcp_info *info, const double *z)
{
  for (size_t k = 0; k < info->nsolutions; k++)
    if (dist_inf(z, info->solutions + 4 * k, 4) < 1e-6) return 1;
  return 0;
}

static void test_boxed_kojshin(void)
{
  const cpk_mcp_info *info;
  cpk_problem *p = boxed_kojshin(&info);
  for (int sv = 0; sv < 2; sv++)
    for (size_t st = 0; st < info->nstarts; st++) {
      cpk_result *r = solve(p, solvers[sv], info->starts + 4 * st, NULL);
      t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
               kojshin_solution(info, r->z),
           "%s: Kojima-Shindo in [0, 10]^4 from MCPLIB start %zu: a known solution (%s, %ld "
           "iterations, %g restarts)",
           solvers[sv], st + 1, cpk_status_name(r->status), r->iterations, stat(r, "restarts"));
      cpk_result_free(r);
    }
  for (size_t k = 0; k < info->nsolutions; k++) {
    const double *zs = info->solutions + 4 * k;
    cpk_result *r = solve(p, "fbnewton", zs, NULL);
    t_ok(r->iterations == 0 && r->status == CPK_STATUS_SOLVED && memcmp(r->z, zs, 4 * sizeof *zs) == 0,
         "fbnewton warm-started at Kojima-Shindo solution %zu (boxed): 0 iterations, the same point",
         k + 1);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/* ---- 4x4 PSD LCPs M = B B^T with a planted solution ----------------------------------- */

static unsigned long long lcg(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/*
 * M = B B^T with B 4x4 of integers in [-3, 3] whose last 4 - rank columns are
 * zero (rank <= 3: singular PSD), z* >= 0 with about a third of its entries
 * zero, w* >= 0 zero where z* > 0, q = w* - M z*. Exact in floating point.
 */
static cpk_problem *psd_lcp(unsigned long long seed, double *zs)
{
  double B[16], w[4], q[4];
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  unsigned long long s = seed;
  int rank = 1 + (int)(lcg(&s) % 3);
  for (int k = 0; k < 16; k++) B[k] = k % 4 < rank ? (double)(lcg(&s) % 7) - 3.0 : 0.0;
  if (cpk_matrix_alloc_dense(4, 4, &M)) abort();
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double v = 0.0;
      for (int k = 0; k < 4; k++) v += B[4 * i + k] * B[4 * j + k];
      gsl_matrix_set(M->dense, (size_t)i, (size_t)j, v);
    }
  for (int i = 0; i < 4; i++) zs[i] = lcg(&s) % 3 == 0 ? 0.0 : (double)(lcg(&s) % 4);
  for (int i = 0; i < 4; i++) {
    double mz = 0.0;
    for (int j = 0; j < 4; j++) mz += gsl_matrix_get(M->dense, (size_t)i, (size_t)j) * zs[j];
    w[i] = zs[i] > 0.0 ? 0.0 : (double)(lcg(&s) % 3);
    q[i] = w[i] - mz;
  }
  if (cpk_problem_alloc_lcp(M, q, &p)) abort();
  cpk_matrix_free(M);
  return p;
}

static void test_psd_lcps(void)
{
  enum { COUNT = 120 };
  int solved[2] = {0, 0}, warm = 0;
  for (unsigned long long k = 1; k <= COUNT; k++) {
    double zs[4];
    cpk_problem *p = psd_lcp(k, zs);
    if (!t_is_mcp_solution(p, zs, 1e-12)) t_diag("PSD LCP %llu: planted z* does not check", k);
    double tol = 1e-7 * fmax(1.0, cpk_problem_tolerance(p, 1.0));
    for (int sv = 0; sv < 2; sv++) {
      cpk_result *r = solve(p, solvers[sv], NULL, NULL);
      int ok = r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, tol);
      if (!ok)
        t_diag("%s PSD LCP %llu: %s (%s)", solvers[sv], k, cpk_status_name(r->status), r->message);
      solved[sv] += ok;
      cpk_result_free(r);
    }
    cpk_result *r = solve(p, "fbnewton", zs, NULL);
    warm += r->iterations == 0 && memcmp(r->z, zs, sizeof zs) == 0;
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  for (int sv = 0; sv < 2; sv++)
    t_ok(solved[sv] == COUNT, "%s: %d of %d random 4x4 PSD LCPs (M = B B^T, rank 1-3) solved, "
         "checked independently", solvers[sv], solved[sv], COUNT);
  t_ok(warm == COUNT, "fbnewton warm-started at the planted solutions: %d of %d returned at once "
       "with the same point", warm, COUNT);
}

/* ---- the settings ---------------------------------------------------------------------- */

static void test_settings(void)
{
  cpk_settings s;
  cpk_error err;
  cpk_settings_default(&s);
  t_ok(s.newton.proximal == CPK_DEFAULT_NEWTON_PROXIMAL &&
           s.newton.watchdog == CPK_DEFAULT_NEWTON_WATCHDOG &&
           s.newton.restarts == CPK_DEFAULT_NEWTON_RESTARTS &&
           s.newton.crash == CPK_DEFAULT_NEWTON_CRASH && cpk_settings_validate(&s, &err) == CPK_OK,
       "defaults: proximal %g, watchdog %d, restarts %d, crash %d", s.newton.proximal,
       s.newton.watchdog, s.newton.restarts, s.newton.crash);
  s.newton.proximal = -1.0;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "negative proximal scale refused: %s",
       err.message);
  s.newton.proximal = NAN;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "NaN proximal scale refused");
  cpk_settings_default(&s);
  s.newton.restarts = CPK_MAX_NEWTON_RESTARTS + 1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "too many restarts refused: %s", err.message);
  cpk_settings_default(&s);
  s.newton.watchdog = -1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "negative watchdog refused");
  cpk_settings_default(&s);
  s.newton.crash = -1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "negative crash steps refused");
}

/* The pieces at work, each seen in the statistics and switched off by its setting. */
static void test_pieces(void)
{
  const cpk_mcp_info *info;
  cpk_problem *p = boxed_kojshin(&info);
  cpk_settings s;
  cpk_settings_default(&s);
  s.newton.restarts = 0;
  cpk_result *r = solve(p, "fbnewton", info->starts, &s); /* from 0: the old stall */
  t_ok(r->status != CPK_STATUS_SOLVED && r->residual > r->tolerance && stat(r, "restarts") == 0.0,
       "fbnewton boxed Kojima-Shindo from 0 without restarts: honest %s (%s)",
       cpk_status_name(r->status), r->message);
  cpk_result_free(r);
  r = solve(p, "fbnewton", info->starts, NULL);
  t_ok(r->status == CPK_STATUS_SOLVED && stat(r, "restarts") >= 1.0 && stat(r, "crash_steps") >= 1.0,
       "... with restarts: solved after %g restart(s), %g crash step(s)", stat(r, "restarts"),
       stat(r, "crash_steps"));
  cpk_result_free(r);
  cpk_settings_default(&s);
  s.newton.nonmonotone = 10;
  for (int sv = 0; sv < 2; sv++) {
    int ok = 1;
    for (size_t st = 0; st < info->nstarts; st++) {
      r = solve(p, solvers[sv], info->starts + 4 * st, &s);
      ok &= r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7);
      cpk_result_free(r);
    }
    t_ok(ok, "%s: non-monotone search (m = 10) with the watchdog: boxed Kojima-Shindo from every "
         "start", solvers[sv]);
  }
  cpk_problem_free(p);
}

int main(void)
{
  test_domain_boundary();
  test_boxed_kojshin();
  test_psd_lcps();
  test_settings();
  test_pieces();
  return t_done();
}
