/* t_newton.c: bdnewton and fbnewton on MCPLIB problems, the foundation's LCP classes (against lemke/enum), contact NCPs, failures, options, and the globalization (domain, boxed Kojima-Shindo, PSD LCPs, warm starts, restarts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "mcp_problems.h"
#include "testlib.h"

static const char *const solvers[] = {"bdnewton", "fbnewton", "ipm"}; /* ipm: last, not in every loop */

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Solve with `solver` from z0 (NULL: default start); aborts only on a failed allocation. */
static cpk_result *solve(const cpk_problem *p, const char *solver, const double *z0,
                         const cpk_settings *given, int *rc)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  if (given) s = *given;
  else cpk_settings_default(&s);
  s.z0 = z0;
  if (cpk_result_alloc(p->n, &r)) abort();
  *rc = cpk_solve(p, solver, &s, r, &err);
  if (*rc) t_diag("%s: %s", solver, err.message);
  return r;
}

/* An honest outcome: `solved` only with a checked solution, anything else above the tolerance. */
static int honest(const cpk_problem *p, const cpk_result *r, double check_tol)
{
  if (r->status == CPK_STATUS_SOLVED) return t_is_mcp_solution(p, r->z, check_tol);
  return r->residual > r->tolerance && r->message[0] != '\0';
}

static double dist_inf(const double *a, const double *b, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* ---- MCPLIB and the other small problems ------------------------------------------ */

/* Is z one of the problem's known solutions (the mathiesen ray counts as one)? */
static int known_solution(const cpk_mcp_info *info, const double *z)
{
  if (strcmp(info->name, "mathiesen") == 0)
    return fabs(z[0] - 3) < 1e-6 && fabs(z[1] - 6 * z[2]) < 1e-6 * (1 + z[1]) &&
           fabs(z[3] - 5 * z[2]) < 1e-6 * (1 + z[3]) && z[2] > 0;
  for (size_t k = 0; k < info->nsolutions; k++)
    if (dist_inf(z, info->solutions + k * info->n, info->n) < 1e-6) return 1;
  return info->nsolutions == 0;
}

static void test_small_problems(void)
{
  for (size_t k = 0; k < cpk_mcp_count(); k++) {
    const cpk_mcp_info *info = cpk_mcp_at(k);
    cpk_problem *p = NULL;
    if (cpk_mcp_problem(info, &p)) abort();
    for (size_t st = 0; st < info->nstarts; st++)
      for (int sv = 0; sv < 2; sv++) {
        int rc;
        cpk_result *r = solve(p, solvers[sv], info->starts + st * info->n, NULL, &rc);
        /* every start, Billups' trap from 0 and Kojima-Shindo from 0 and 100 e included: the
           restarts get them out of the local minimisers of the merit where they once stalled */
        t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
                 known_solution(info, r->z),
             "%s %s from start %zu: %s in %ld iterations, residual %.1e", solvers[sv], info->name,
             st + 1, cpk_status_name(r->status), r->iterations, r->residual);
        cpk_result_free(r);
      }
    cpk_problem_free(p);
  }
}

/* Published equilibrium of the 5-firm example (Murphy, Sherali and Soyster 1982, gamma = 1.1). */
static void test_cournot_published(void)
{
  static const double q[5] = {36.933, 41.818, 43.707, 42.659, 39.179};
  const cpk_mcp_info *info = cpk_mcp_find("cournot5");
  cpk_problem *p = NULL;
  if (cpk_mcp_problem(info, &p)) abort();
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_result *r = solve(p, solvers[sv], info->starts, NULL, &rc);
    t_ok(r->status == CPK_STATUS_SOLVED && dist_inf(r->z, q, 5) < 2e-3,
         "%s cournot5: the published equilibrium (36.933, 41.818, 43.707, 42.659, 39.179)",
         solvers[sv]);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/*
 * Fallback paths: bdnewton's LM step (josephy from 0, F'(0) singular),
 * fbnewton's gradient step; with the proximal perturbation off, since it is
 * tried first and takes these steps by default (checked after).
 */
static void test_fallbacks(void)
{
  const cpk_mcp_info *info = cpk_mcp_find("josephy");
  cpk_problem *p = NULL;
  cpk_settings s;
  int rc;
  cpk_settings_default(&s);
  s.newton.proximal = 0.0;
  if (cpk_mcp_problem(info, &p)) abort();
  cpk_result *r = solve(p, "bdnewton", info->starts, &s, &rc);
  t_ok(r->status == CPK_STATUS_SOLVED && stat(r, "fallback_steps") >= 1,
       "bdnewton josephy from 0: solved through %g Levenberg-Marquardt step(s)",
       stat(r, "fallback_steps"));
  cpk_result_free(r);
  r = solve(p, "bdnewton", info->starts, NULL, &rc);
  t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
           stat(r, "proximal_steps") >= 1,
       "bdnewton josephy from 0, default settings: solved through %g proximal step(s)",
       stat(r, "proximal_steps"));
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_mcp_block b;
  cpk_mcp_data *d = NULL;
  cpk_mcp_block_default(&b, 0);
  if (cpk_mcp_block_on_plane(&b, &d, &p)) abort();
  r = solve(p, "fbnewton", NULL, &s, &rc);
  t_ok(r->status == CPK_STATUS_SOLVED && stat(r, "fallback_steps") >= 1,
       "fbnewton block from 0 (singular generalized Jacobian): solved through %g gradient step(s)",
       stat(r, "fallback_steps"));
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

/* ---- the foundation's LCP / affine MCP classes, against lemke and enum ------------- */

/* z of lemke (or enum) on p, into zref; 1 if it solved. */
static int reference(const cpk_problem *p, const char *solver, double *zref)
{
  int rc;
  cpk_settings s;
  cpk_settings_default(&s);
  s.max_iter = 1L << 20;
  cpk_result *r = solve(p, solver, NULL, &s, &rc);
  int ok = rc == CPK_OK && r->status == CPK_STATUS_SOLVED;
  if (ok && strcmp(solver, "enum") == 0) ok = r->nsolutions == 1;
  if (ok) memcpy(zref, r->z, p->n * sizeof *zref);
  cpk_result_free(r);
  return ok;
}

/*
 * Both Newton solvers must solve p; with zref (the unique solution, from the
 * family's construction or from lemke/enum) they must also find it.
 */
static void cross_check(cpk_problem *p, const double *zref, const char *what)
{
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_result *r = solve(p, solvers[sv], NULL, NULL, &rc);
    double tol = cpk_problem_tolerance(p, 1e-7), gap = zref ? dist_inf(r->z, zref, p->n) : 0.0;
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, tol) &&
             gap < 1e-6 * fmax(1.0, tol / 1e-7),
         "%s %s (n = %zu): %s in %ld iterations, residual %.1e, |z - z*| = %.1e", solvers[sv],
         what, p->n, cpk_status_name(r->status), r->iterations, r->residual, gap);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

static void test_classic_lcps(void)
{
  cpk_problem *p = NULL;
  double z[64];
  if (cpk_family_murty(10, &p)) abort();
  cpk_family_murty_solution(10, z);
  cross_check(p, z, "Murty (2^n pivots for Lemke)");
  if (cpk_family_fathi(10, &p)) abort();
  cpk_family_fathi_solution(10, z);
  cross_check(p, z, "Fathi");
}

static void test_random_classes(void)
{
  unsigned long seed = t_seed();
  double z[400], zl[400];
  cpk_problem *p = NULL;
  if (cpk_family_random_pd(40, seed, CPK_FAMILY_DENSE, &p, z)) abort();
  cross_check(p, z, "random PD dense");
  if (cpk_family_random_pd(400, seed, CPK_FAMILY_SPARSE, &p, z)) abort();
  t_ok(reference(p, "lemke", zl) && dist_inf(z, zl, 400) < 1e-8, "lemke agrees on random PD sparse");
  cross_check(p, z, "random PD sparse (UMFPACK)");
  if (cpk_family_random_p(12, seed, &p, z)) abort();
  t_ok(reference(p, "enum", zl) && dist_inf(z, zl, 12) < 1e-8, "enum: the P-matrix LCP has exactly z*");
  cross_check(p, z, "random P (not PD)");
  if (cpk_family_random_box_mcp(24, seed, &p, z)) abort();
  cross_check(p, z, "random box MCP");
  if (cpk_family_degenerate(12, seed, &p)) abort();
  t_ok(reference(p, "enum", zl), "enum: the degenerate PD LCP has one solution");
  cross_check(p, zl, "degenerate (ties, q_i = 0)");
  if (cpk_family_known_degenerate(12, seed, &p, z)) abort();
  t_ok(reference(p, "enum", zl) && dist_inf(z, zl, 12) < 1e-8, "enum: known degenerate solution");
  cross_check(p, z, "known degenerate (strict complementarity fails)");
}

/*
 * PSD: the solution set may be a continuum but w = Mz + q is the same on it
 * (M symmetric: a convex QP's gradient). fbnewton solves it; bdnewton needs
 * its pieces nonsingular (b-regularity) and may stall, honestly.
 */
static void test_psd(void)
{
  cpk_problem *p = NULL;
  double zl[16], wl[16], w[16];
  if (cpk_family_random_psd(16, 5, t_seed(), 1, &p, NULL)) abort();
  t_ok(reference(p, "lemke", zl), "lemke solves the feasible PSD LCP");
  cpk_problem_eval(p, zl, wl);
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_result *r = solve(p, solvers[sv], NULL, NULL, &rc);
    int same_w = r->status == CPK_STATUS_SOLVED && !cpk_problem_eval(p, r->z, w) &&
                 dist_inf(w, wl, 16) < 1e-6;
    if (sv == 1) t_ok(same_w, "fbnewton PSD rank 5: solved, w = lemke's w");
    else t_ok(rc == CPK_OK && honest(p, r, 1e-7) && (r->status != CPK_STATUS_SOLVED || same_w),
              "bdnewton PSD rank 5: honest %s", cpk_status_name(r->status));
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  if (cpk_family_random_psd(16, 5, t_seed(), 0, &p, NULL)) abort();
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_result *r = solve(p, solvers[sv], NULL, NULL, &rc);
    t_ok(rc == CPK_OK && r->status != CPK_STATUS_SOLVED && honest(p, r, 1e-7),
         "%s infeasible PSD LCP: not solved (%s: %s)", solvers[sv], cpk_status_name(r->status),
         r->message);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

static void test_contact_lcps(void)
{
  unsigned long seed = t_seed();
  cpk_problem *p = NULL;
  double *zl = malloc(2000 * sizeof *zl);
  if (!zl || cpk_family_delassus(300, 150, seed, &p)) abort();
  t_ok(reference(p, "lemke", zl), "lemke solves the Delassus LCP");
  cross_check(p, zl, "Delassus LCP (UMFPACK)");
  if (cpk_family_contact_kkt(10, 20, seed, &p)) abort();
  t_ok(reference(p, "lemke", zl), "lemke solves the contact KKT MCP");
  cross_check(p, zl, "contact KKT affine MCP (free velocities)");
  if (cpk_family_contact_kkt_box(10, 20, 0.5, seed, &p)) abort();
  cross_check(p, NULL, "contact KKT with box friction");
  free(zl);
  /* the block LCP: not unique (4 contacts, 3 dof), compare the invariants */
  double z[40], zs[40];
  if (cpk_family_block_on_plane_lcp(8, &p) || cpk_family_block_on_plane_solution(8, zs)) abort();
  /*
   * M is singular (4 contacts, 3 dof) and so are bdnewton's first Newton matrices
   * (rcond ~1e-18): an LU backend (lapack, the default, or umfpack) calls them
   * singular and bdnewton's regularized fallback stalls, honestly; dense QR
   * accepts them and the steps happen to converge. So bdnewton runs on dense QR
   * here, and on the default backend it must at least be honest.
   */
  cpk_settings qr;
  cpk_settings_default(&qr);
  qr.linsys = cpk_linsys_dense;
  int rc0;
  cpk_result *r0 = solve(p, "bdnewton", NULL, NULL, &rc0);
  t_ok(rc0 == CPK_OK && honest(p, r0, 1e-7),
       "bdnewton block-on-plane LCP, default backend: honest %s", cpk_status_name(r0->status));
  cpk_result_free(r0);
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_result *r = solve(p, solvers[sv], NULL, sv == 0 ? &qr : NULL, &rc);
    double pn = 0, pns = 0, pt = 0, pts = 0;
    memcpy(z, r->z, sizeof z);
    for (int i = 0; i < 4; i++) pn += z[i], pns += zs[i];
    for (int i = 4; i < 36; i++) pt += z[i], pts += zs[i];
    /* z is accurate to about the residual tolerance (1e-8) times the conditioning */
    t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, z, 1e-7) && fabs(pn - pns) < 1e-7 &&
             fabs(pt - pts) < 1e-7 && dist_inf(z + 36, zs + 36, 4) < 1e-7,
         "%s block-on-plane LCP: total normal and friction impulses and sigma as derived "
         "(%.1e, %.1e, %.1e)", solvers[sv], fabs(pn - pns), fabs(pt - pts),
         dist_inf(z + 36, zs + 36, 4));
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/* ---- failures: no solution, NaN, failing callbacks ------------------------------- */

/* Dense 1x1 pattern. */
static cpk_problem *scalar_problem(cpk_function F, cpk_jacobian J, void *params, double l, double u)
{
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  if (cpk_csc_alloc(1, 1, 1, &pat)) abort();
  pat->p[1] = 1, pat->i[0] = 0, pat->x[0] = 0.0;
  if (cpk_problem_alloc_nonlinear_mcp(1, F, J, pat, params, &l, &u, &p)) abort();
  cpk_csc_free(pat);
  return p;
}

/* F(x) = x^2 + 1 with x free: no zero, so no solution. */
static int f_nosol(const double *x, double *f, void *params)
{
  (void)params;
  f[0] = x[0] * x[0] + 1.0;
  return 0;
}
static int j_nosol(const double *x, cpk_csc *J, void *params)
{
  (void)params;
  J->x[0] = 2.0 * x[0];
  return 0;
}

/* F(x) = atan(x) - 1, x free; F fails (returns non-zero or NaN, by *mode) for x > 3. */
static int f_atan(const double *x, double *f, void *params)
{
  const int *mode = params;
  if (x[0] > 3.0 && *mode == 1) return -1;
  f[0] = x[0] > 3.0 && *mode == 2 ? NAN : atan(x[0]) - 1.0;
  return 0;
}
static int j_atan(const double *x, cpk_csc *J, void *params)
{
  const int *mode = params;
  J->x[0] = *mode == 3 ? NAN : 1.0 / (1.0 + x[0] * x[0]);
  return *mode == 4 ? -1 : 0;
}

static void test_no_solution(void)
{
  cpk_problem *p = scalar_problem(f_nosol, j_nosol, NULL, -INFINITY, INFINITY);
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    const double z0 = 1.0;
    cpk_result *r = solve(p, solvers[sv], &z0, NULL, &rc);
    t_ok(rc == CPK_OK && r->status != CPK_STATUS_SOLVED && honest(p, r, 1e-7),
         "%s x^2 + 1 = 0 (no solution): %s (%s)", solvers[sv], cpk_status_name(r->status), r->message);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

static void test_bad_functions(void)
{
  int mode = 0;
  cpk_problem *p = scalar_problem(f_atan, j_atan, &mode, -INFINITY, INFINITY);
  cpk_settings s;
  cpk_settings_default(&s);
  s.newton.restarts = 0; /* the failing callbacks' own statuses, not a restart's way around them */
  for (int sv = 0; sv < 2; sv++) {
    for (mode = 1; mode <= 2; mode++) {
      int rc;
      double z0 = -2.0; /* the full Newton step overshoots into x > 3, where F fails */
      cpk_result *r = solve(p, solvers[sv], &z0, NULL, &rc);
      t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - tan(1.0)) < 1e-8,
           "%s: F %s beyond x = 3: the line search backs off and solves", solvers[sv],
           mode == 1 ? "fails" : "is NaN");
      cpk_result_free(r);
      z0 = 4.0; /* F fails at the start: moved toward the interior point 0 until it does not */
      r = solve(p, solvers[sv], &z0, NULL, &rc);
      t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - tan(1.0)) < 1e-8,
           "%s: F %s at the start: moved into F's domain and solved (%s)", solvers[sv],
           mode == 1 ? "fails" : "is NaN", cpk_status_name(r->status));
      cpk_result_free(r);
    }
    for (mode = 3; mode <= 4; mode++) {
      int rc;
      double z0 = -2.0;
      cpk_result *r = solve(p, solvers[sv], &z0, &s, &rc);
      t_ok(rc == CPK_OK && r->status == CPK_STATUS_STALLED && strstr(r->message, "Jacobian"),
           "%s: Jacobian %s: stalled (%s)", solvers[sv], mode == 3 ? "NaN" : "fails", r->message);
      cpk_result_free(r);
      r = solve(p, solvers[sv], &z0, NULL, &rc);
      t_ok(rc == CPK_OK && honest(p, r, 1e-7) &&
               (r->status == CPK_STATUS_SOLVED || strstr(r->message, "Jacobian")),
           "%s: Jacobian %s, with restarts: honest %s", solvers[sv], mode == 3 ? "NaN" : "fails",
           cpk_status_name(r->status));
      cpk_result_free(r);
    }
  }
  cpk_problem_free(p);
}

/* ---- contact NCPs (seed 004 eq. (9)) ------------------------------------------------ */

static void test_block_ncp(void)
{
  for (int sliding = 0; sliding <= 1; sliding++) {
    cpk_mcp_block b;
    cpk_mcp_data *d = NULL;
    cpk_problem *p = NULL;
    double zs[7], z0[7];
    int sl;
    cpk_mcp_block_default(&b, sliding);
    if (cpk_mcp_block_on_plane(&b, &d, &p) || cpk_mcp_block_solution(&b, zs, &sl)) abort();
    cpk_mcp_block_start(&b, z0);
    for (int sv = 0; sv < 2; sv++)
      for (int hot = 0; hot <= 1; hot++) {
        int rc;
        cpk_result *r = solve(p, solvers[sv], hot ? z0 : NULL, NULL, &rc);
        t_ok(r->status == CPK_STATUS_SOLVED && dist_inf(r->z, zs, 7) < 1e-6, /* ~100 tol */
             "%s block %s from a %s start: the hand-derived answer (%ld iterations, |z - z*| = "
             "%.1e)", solvers[sv], sliding ? "sliding" : "sticking", hot ? "hot" : "cold",
             r->iterations, dist_inf(r->z, zs, 7));
        cpk_result_free(r);
      }
    cpk_problem_free(p);
    cpk_mcp_data_free(d);
  }
}

static void test_chain(void)
{
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  if (cpk_mcp_contact_chain(60, t_seed(), &d, &p)) abort();
  double *z0 = malloc(p->n * sizeof *z0), pn[60];
  if (!z0) abort();
  cpk_mcp_contact_chain_start(d, z0);
  cpk_mcp_contact_chain_normal(d, pn);
  for (int sv = 0; sv < 2; sv++) {
    int rc, ok = 1;
    cpk_result *r = solve(p, solvers[sv], z0, NULL, &rc);
    for (size_t i = 0; i < 60; i++) ok &= fabs(r->z[7 * i + 3] - pn[i]) < 1e-9;
    t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) && ok,
         "%s contact chain n = %zu: solved in %ld iterations, p_n = m g h", solvers[sv], p->n,
         r->iterations);
    t_ok(stat(r, "sparse_linsys") == 1.0 && stat(r, "symbolic_analyses") == 1.0 &&
             stat(r, "factorizations") >= (double)r->iterations,
         "%s contact chain: UMFPACK, one symbolic analysis for %g factorizations", solvers[sv],
         stat(r, "factorizations"));
    cpk_result_free(r);
  }
  free(z0);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

/* ---- options, statistics, warm starts, reuse --------------------------------------- */

typedef struct trace {
  long calls, last_iter, stop_at;
  double last_merit;
} trace;

static int on_iteration(const cpk_iteration_info *info, void *data)
{
  trace *t = data;
  t->calls++;
  t->last_iter = info->iteration;
  t->last_merit = info->merit;
  return t->stop_at > 0 && info->iteration >= t->stop_at;
}

static void test_monitor(void)
{
  const cpk_mcp_info *info = cpk_mcp_find("nash");
  cpk_problem *p = NULL;
  if (cpk_mcp_problem(info, &p)) abort();
  for (int sv = 0; sv < 2; sv++) {
    cpk_settings s;
    trace t = {0, 0, 0, NAN};
    int rc;
    cpk_settings_default(&s);
    s.callback = on_iteration, s.callback_data = &t;
    cpk_result *r = solve(p, solvers[sv], info->starts, &s, &rc);
    t_ok(r->status == CPK_STATUS_SOLVED && t.calls == r->iterations && t.last_iter == r->iterations &&
             t.last_merit <= r->tolerance,
         "%s: callback once per iteration (%ld), last merit = natural residual %.1e", solvers[sv],
         t.calls, t.last_merit);
    t_ok(stat(r, "function_evaluations") >= r->iterations + 1 &&
             stat(r, "jacobian_evaluations") == r->iterations &&
             stat(r, "linesearch_backtracks") >= 0 && stat(r, "factor_time_s") >= 0,
         "%s: statistics (F evaluations %g, Jacobians %g, backtracks %g)", solvers[sv],
         stat(r, "function_evaluations"), stat(r, "jacobian_evaluations"),
         stat(r, "linesearch_backtracks"));
    cpk_result_free(r);
    t.stop_at = 2;
    r = solve(p, solvers[sv], info->starts + info->n, &s, &rc); /* from 10 e: needs > 2 */
    t_ok(r->status == CPK_STATUS_STALLED && r->iterations == 2, "%s: callback stops the solve",
         solvers[sv]);
    cpk_result_free(r);
    s.callback = NULL, s.max_iter = 2;
    r = solve(p, solvers[sv], info->starts + info->n, &s, &rc);
    t_ok(r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 2, "%s: iteration limit",
         solvers[sv]);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/* Warm starts, solver reuse (UMFPACK's analysis is kept across solves), forced backends. */
static void test_warm_and_reuse(void)
{
  cpk_problem *p = NULL;
  double z[300];
  if (cpk_family_random_pd(300, t_seed(), CPK_FAMILY_SPARSE, &p, z)) abort();
  for (int sv = 0; sv < 2; sv++) {
    cpk_solver *S = NULL;
    cpk_result *r = NULL;
    cpk_error err;
    int ok = !cpk_solver_alloc(cpk_solver_find(solvers[sv]), p, NULL, &S, &err) &&
             !cpk_result_alloc(p->n, &r) && !cpk_solver_solve(S, r, &err);
    t_ok(ok && r->status == CPK_STATUS_SOLVED && stat(r, "symbolic_analyses") == 1.0,
         "%s: first solve, one symbolic analysis", solvers[sv]);
    ok = ok && !cpk_solver_set_warm_start(S, z, NULL) && !cpk_solver_solve(S, r, &err);
    t_ok(ok && r->status == CPK_STATUS_SOLVED && r->iterations == 0,
         "%s: warm start at the solution: solved in 0 iterations", solvers[sv]);
    double zp[300];
    for (size_t i = 0; i < 300; i++) zp[i] = z[i] + 0.01 * (double)(i % 7) - 0.02;
    ok = ok && !cpk_solver_set_warm_start(S, zp, NULL) && !cpk_solver_solve(S, r, &err);
    t_ok(ok && r->status == CPK_STATUS_SOLVED && stat(r, "symbolic_analyses") == 0.0 &&
             dist_inf(r->z, z, 300) < 1e-6,
         "%s: perturbed warm start (some entries < 0, projected): solved in %ld iterations, no "
         "new symbolic analysis", solvers[sv], r->iterations);
    double zh[300]; /* huge but finite: the merit overflows there, so the cold start is used */
    for (size_t i = 0; i < 300; i++) zh[i] = i % 2 ? 1e300 : -1e300;
    ok = ok && !cpk_solver_set_warm_start(S, zh, NULL) && !cpk_solver_solve(S, r, &err);
    t_ok(ok && r->status == CPK_STATUS_SOLVED && dist_inf(r->z, z, 300) < 1e-6,
         "%s: a warm start of +-1e300 falls back to the cold start and solves (%s)", solvers[sv],
         cpk_status_name(r->status));
    cpk_result_free(r);
    cpk_solver_free(S);
    cpk_settings s;
    int rc;
    cpk_settings_default(&s);
    s.linsys = cpk_linsys_dense;
    r = solve(p, solvers[sv], NULL, &s, &rc);
    t_ok(r->status == CPK_STATUS_SOLVED && stat(r, "sparse_linsys") == 0.0 &&
             dist_inf(r->z, z, 300) < 1e-6,
         "%s: the dense backend on request gives the same solution", solvers[sv]);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

static void test_settings(void)
{
  cpk_settings s;
  cpk_error err;
  cpk_settings_default(&s);
  t_ok(s.newton.nonmonotone == 0 && s.newton.fb_lambda == CPK_DEFAULT_NEWTON_FB_LAMBDA,
       "defaults: monotone line search, lambda = %g", CPK_DEFAULT_NEWTON_FB_LAMBDA);
  s.newton.nonmonotone = -1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "negative non-monotone memory refused");
  s.newton.nonmonotone = CPK_MAX_NEWTON_NONMONOTONE + 1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "too long non-monotone memory refused");
  s.newton.nonmonotone = 5, s.newton.fb_lambda = 1.5;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "lambda > 1 refused: %s", err.message);
  s.newton.fb_lambda = 0.0;
  t_ok(cpk_settings_validate(&s, &err) == CPK_OK, "lambda = 0 accepted (the default)");
  /* the options at work: non-monotone search, plain FB (lambda = 1) */
  cpk_problem *p = NULL;
  cpk_mcp_data *d = NULL;
  if (cpk_mcp_contact_chain(20, t_seed(), &d, &p)) abort();
  double z0[140];
  cpk_mcp_contact_chain_start(d, z0);
  for (int sv = 0; sv < 2; sv++) {
    int rc;
    cpk_settings_default(&s);
    s.newton.nonmonotone = 5;
    if (sv == 1) s.newton.fb_lambda = 1.0;
    cpk_result *r = solve(p, solvers[sv], z0, &s, &rc);
    t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
         "%s with a non-monotone line search (m = 5)%s: solved", solvers[sv],
         sv ? " on plain FB" : "");
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

static void test_registry(void)
{
  for (int sv = 0; sv < 2; sv++) {
    const cpk_solver_type *T = cpk_solver_find(solvers[sv]);
    unsigned all = CPK_KIND_LCP | CPK_KIND_AFFINE_MCP | CPK_KIND_NONLINEAR_MCP;
    t_ok(T && (T->kinds & all) == all && T->description && T->default_max_iter,
         "%s: registered for LCP, affine and nonlinear MCP", solvers[sv]);
  }
  t_ok(cpk_solver_find("bdnewton") == cpk_solver_bdnewton &&
           cpk_solver_find("fbnewton") == cpk_solver_fbnewton,
       "public handles match the registry");
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
  int rc;
  static const double starts[3][3] = {{0, 0, 0}, {0, 1, 0}, {0, 5, 2}};
  const double zs[3] = {M_E, 1.0, 0.0};
  cpk_problem *p = log_problem();
  for (int sv = 0; sv < 3; sv++)
    for (int st = 0; st < 3; st++) {
      cpk_result *r = solve(p, solvers[sv], starts[st], NULL, &rc);
      t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
               dist_inf(r->z, zs, 3) < 1e-6,
           "%s: log/sqrt NCP from (%g, %g, %g) on the boundary of F's domain: z* = (e, 1, 0) "
           "(%s, %ld iterations)",
           solvers[sv], starts[st][0], starts[st][1], starts[st][2], cpk_status_name(r->status),
           r->iterations);
      cpk_result_free(r);
    }
  cpk_result *r = solve(p, "fbnewton", zs, NULL, &rc);
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
  int rc;
  const cpk_mcp_info *info;
  cpk_problem *p = boxed_kojshin(&info);
  for (int sv = 0; sv < 3; sv++)
    for (size_t st = 0; st < info->nstarts; st++) {
      cpk_result *r = solve(p, solvers[sv], info->starts + 4 * st, NULL, &rc);
      t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
               kojshin_solution(info, r->z),
           "%s: Kojima-Shindo in [0, 10]^4 from MCPLIB start %zu: a known solution (%s, %ld "
           "iterations, %g restarts)",
           solvers[sv], st + 1, cpk_status_name(r->status), r->iterations, stat(r, "restarts"));
      cpk_result_free(r);
    }
  for (size_t k = 0; k < info->nsolutions; k++) {
    const double *zs = info->solutions + 4 * k;
    cpk_result *r = solve(p, "fbnewton", zs, NULL, &rc);
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
  int rc;
  enum { COUNT = 120 };
  int solved[2] = {0, 0}, warm = 0;
  for (unsigned long long k = 1; k <= COUNT; k++) {
    double zs[4];
    cpk_problem *p = psd_lcp(k, zs);
    if (!t_is_mcp_solution(p, zs, 1e-12)) t_diag("PSD LCP %llu: planted z* does not check", k);
    double tol = 1e-7 * fmax(1.0, cpk_problem_tolerance(p, 1.0));
    for (int sv = 0; sv < 2; sv++) {
      cpk_result *r = solve(p, solvers[sv], NULL, NULL, &rc);
      int ok = r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, tol);
      if (!ok)
        t_diag("%s PSD LCP %llu: %s (%s)", solvers[sv], k, cpk_status_name(r->status), r->message);
      solved[sv] += ok;
      cpk_result_free(r);
    }
    cpk_result *r = solve(p, "fbnewton", zs, NULL, &rc);
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

/* ---- the globalization's settings ---------------------------------------------------------------------- */

static void test_global_settings(void)
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
  int rc;
  const cpk_mcp_info *info;
  cpk_problem *p = boxed_kojshin(&info);
  cpk_settings s;
  cpk_settings_default(&s);
  s.newton.restarts = 0;
  cpk_result *r = solve(p, "fbnewton", info->starts, &s, &rc); /* from 0: the old stall */
  t_ok(r->status != CPK_STATUS_SOLVED && r->residual > r->tolerance && stat(r, "restarts") == 0.0,
       "fbnewton boxed Kojima-Shindo from 0 without restarts: honest %s (%s)",
       cpk_status_name(r->status), r->message);
  cpk_result_free(r);
  r = solve(p, "fbnewton", info->starts, NULL, &rc);
  t_ok(r->status == CPK_STATUS_SOLVED && stat(r, "restarts") >= 1.0 && stat(r, "crash_steps") >= 1.0,
       "... with restarts: solved after %g restart(s), %g crash step(s)", stat(r, "restarts"),
       stat(r, "crash_steps"));
  cpk_result_free(r);
  cpk_settings_default(&s);
  s.newton.nonmonotone = 10;
  for (int sv = 0; sv < 2; sv++) {
    int ok = 1;
    for (size_t st = 0; st < info->nstarts; st++) {
      r = solve(p, solvers[sv], info->starts + 4 * st, &s, &rc);
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
  test_registry();
  test_small_problems();
  test_cournot_published();
  test_fallbacks();
  test_classic_lcps();
  test_random_classes();
  test_psd();
  test_contact_lcps();
  test_no_solution();
  test_bad_functions();
  test_block_ncp();
  test_chain();
  test_monitor();
  test_warm_and_reuse();
  test_settings();
  test_domain_boundary();
  test_boxed_kojshin();
  test_psd_lcps();
  test_global_settings();
  test_pieces();
  return t_done();
}
