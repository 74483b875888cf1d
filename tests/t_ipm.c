/* t_ipm.c: the interior-point solver on LCPs and box MCPs (against lemke and known solutions), infeasible, nonlinear and non-monotone problems, crossover, warm start, options. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "mcp_problems.h"
#include "testlib.h"

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

static cpk_result *run(const cpk_problem *p, const char *solver, const cpk_settings *given, int *rc)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  if (given) s = *given;
  else cpk_settings_default(&s);
  if (cpk_result_alloc(p->n, &r)) abort();
  *rc = cpk_solve(p, solver, &s, r, &err);
  if (*rc) t_diag("%s: %s", solver, err.message);
  return r;
}

static cpk_problem *dense_problem(size_t n, const double *M, const double *q, const double *l,
                                  const double *u)
{
  cpk_matrix *A = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_alloc_dense(n, n, &A)) abort();
  memcpy(A->dense->data, M, n * n * sizeof *M);
  if (l || u) cpk_problem_alloc_affine_mcp(A, q, l, u, &p);
  else cpk_problem_alloc_lcp(A, q, &p);
  cpk_matrix_free(A);
  if (!p) abort();
  return p;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0.0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* w = Mz + q with our own loop. */
static void affine_w(const cpk_problem *p, const double *z, double *w)
{
  for (size_t i = 0; i < p->n; i++) {
    w[i] = p->q[i];
    for (size_t j = 0; j < p->n; j++) w[i] += cpk_matrix_get(p->M, i, j) * z[j];
  }
}

/* ---- small hand-solved problems -------------------------------------------- */

static void test_hand_solved(void)
{
  /* z = (4/3, 7/3) makes both rows of w = Mz + q zero. */
  double M[] = {2, 1, 1, 2}, q[] = {-5, -6};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && r->iterations > 0, "2x2 PD LCP solved (%s)",
       cpk_status_name(r->status));
  t_near(r->z[0], 4.0 / 3, 1e-12, "z1 = 4/3");
  t_near(r->z[1], 7.0 / 3, 1e-12, "z2 = 7/3");
  t_ok(stat(r, "factorizations") >= (double)r->iterations && stat(r, "mu") >= 0 &&
           stat(r, "factor_time_s") >= 0 && stat(r, "crossover") == 1.0 && stat(r, "method") == 1.0,
       "statistics: factorizations %g, mu %g, crossover %g", stat(r, "factorizations"),
       stat(r, "mu"), stat(r, "crossover"));
  cpk_result_free(r);
  cpk_problem_free(p);

  /* One variable fixed (l = u = 2), one free, one in [0, 1]; hand solution below. */
  double M3[] = {2, 0, 1, 0, 1, 0, 1, 0, 3}, q3[] = {1, -4, -1};
  double l3[] = {2, -INFINITY, 0}, u3[] = {2, INFINITY, 1};
  /* z1 = 2 fixed; z2 free: z2 - 4 = 0 -> 4; z3: 2 + 3 z3 - 1 = 1 + 3 z3 > 0 at z3 = 0 -> z3 = 0. */
  p = dense_problem(3, M3, q3, l3, u3);
  r = run(p, "ipm", NULL, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - 2) < 1e-14 &&
           fabs(r->z[1] - 4) < 1e-10 && fabs(r->z[2]) < 1e-10,
       "fixed, free and boxed variables: z = (2, 4, 0), got (%g, %g, %g)", r->z[0], r->z[1], r->z[2]);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* Skew-symmetric M (monotone, x'Mx = 0) stored without diagonal entries: K's pattern must add them. */
static void test_no_diagonal(void)
{
  /* w1 = z2 - 1 >= 0 forces z2 > 0, so w2 = 1 - z1 = 0; then z1 > 0 forces w1 = 0: z = (1, 1). */
  cpk_int ti[] = {0, 1}, tj[] = {1, 0};
  double tx[] = {1, -1}, q[] = {-1, 1};
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_triplets(2, 2, 2, ti, tj, tx, &M) || cpk_problem_alloc_lcp(M, q, &p)) abort();
  cpk_settings s;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_umfpack;
  int rc;
  cpk_result *r = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - 1) < 1e-10 && fabs(r->z[1] - 1) < 1e-10 &&
           stat(r, "sparse_linsys") == 1.0,
       "skew-symmetric LCP without stored diagonal (UMFPACK): z = (%g, %g)", r->z[0], r->z[1]);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

/* ---- monotone LCPs against lemke ----------------------------------------------- */

static void check_against_lemke(cpk_problem *p, const double *zstar, const char *what, int crossover)
{
  int rc1, rc2;
  cpk_settings s;
  cpk_settings_default(&s);
  s.ipm.crossover = crossover;
  cpk_result *r = run(p, "ipm", &s, &rc1), *rl = run(p, "lemke", NULL, &rc2);
  double tol = crossover ? 1e-9 : 1e-5;
  t_ok(rc1 == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
       "%s (crossover %d): solved in %ld iterations, residual %.1e", what, crossover, r->iterations,
       r->residual);
  t_ok(rc2 == 0 && rl->status == CPK_STATUS_SOLVED && max_diff(r->z, rl->z, p->n) < tol,
       "%s: agrees with lemke to %.1e (|diff| %.1e)", what, tol, max_diff(r->z, rl->z, p->n));
  if (zstar)
    t_ok(max_diff(r->z, zstar, p->n) < tol, "%s: equals the constructed solution (|diff| %.1e)", what,
         max_diff(r->z, zstar, p->n));
  if (crossover)
    t_ok(r->residual <= 1e-4 * r->tolerance, "%s: crossover makes the residual %.1e, far below %.1e",
         what, r->residual, r->tolerance);
  cpk_result_free(r);
  cpk_result_free(rl);
}

static void test_pd_lcps(void)
{
  size_t sizes[] = {5, 20, 60};
  double zstar[200];
  for (size_t k = 0; k < 3; k++) {
    cpk_problem *p = NULL;
    char what[64];
    cpk_family_random_pd(sizes[k], 10 + k, CPK_FAMILY_DENSE, &p, zstar);
    snprintf(what, sizeof what, "dense PD LCP n = %zu", sizes[k]);
    check_against_lemke(p, zstar, what, 1);
    check_against_lemke(p, zstar, what, 0);
    cpk_problem_free(p);
  }
  cpk_problem *p = NULL;
  cpk_family_random_pd(200, 3, CPK_FAMILY_SPARSE, &p, zstar);
  check_against_lemke(p, zstar, "sparse PD LCP n = 200", 1);
  cpk_problem_free(p);
}

/* Sparse problems go through UMFPACK with one symbolic analysis for the whole solve. */
static void test_sparse_path(void)
{
  cpk_problem *p = NULL;
  cpk_family_delassus(400, 201, 5, &p);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
       "Delassus LCP n = 400 solved in %ld iterations", r->iterations);
  t_ok(stat(r, "sparse_linsys") == 1.0 && stat(r, "symbolic_analyses") == 1.0 &&
           stat(r, "factorizations") > 3.0,
       "UMFPACK: %g factorizations on one symbolic analysis", stat(r, "factorizations"));
  cpk_settings s;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_dense;
  cpk_result *rd = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && rd->status == CPK_STATUS_SOLVED && stat(rd, "sparse_linsys") == 0.0 &&
           max_diff(r->z, rd->z, p->n) < 1e-9,
       "settings.linsys = dense gives the same solution (|diff| %.1e)", max_diff(r->z, rd->z, p->n));
  cpk_result_free(rd);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* Rank-deficient PSD: many solutions; any one is fine, and w = Mz + q is the same for all (M symmetric PSD). */
static void test_psd_nonunique(void)
{
  size_t n[] = {8, 30}, rank[] = {3, 10};
  for (int k = 0; k < 2; k++) {
    cpk_problem *p = NULL;
    double w1[30], w2[30];
    cpk_family_random_psd(n[k], rank[k], 20 + (unsigned long)k, 1, &p, NULL);
    for (int cross = 0; cross < 2; cross++) {
      int rc1, rc2;
      cpk_settings s;
      cpk_settings_default(&s);
      s.ipm.crossover = cross;
      cpk_result *r = run(p, "ipm", &s, &rc1), *rl = run(p, "lemke", NULL, &rc2);
      t_ok(rc1 == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
           "PSD rank %zu of %zu (crossover %d): solved, checked independently", rank[k], n[k], cross);
      affine_w(p, r->z, w1);
      affine_w(p, rl->z, w2);
      t_ok(max_diff(w1, w2, p->n) < 1e-6, "  w = Mz + q agrees with lemke's (|diff| %.1e)",
           max_diff(w1, w2, p->n));
      cpk_result_free(r);
      cpk_result_free(rl);
    }
    cpk_problem_free(p);
  }
}

/* ---- infeasible problems ------------------------------------------------------ */

/* Independent check of the certificate in r->ray (LCP: y >= 0, M'y <= 0, q'y < 0). */
static int lcp_certificate_holds(const cpk_problem *p, const double *y)
{
  double qy = 0.0;
  for (size_t j = 0; j < p->n; j++) {
    double g = 0.0;
    if (y[j] < -1e-12) return 0;
    for (size_t i = 0; i < p->n; i++) g += cpk_matrix_get(p->M, i, j) * y[i];
    if (g > 1e-8) return 0;
    qy += p->q[j] * y[j];
  }
  return qy < -1e-8;
}

static void check_infeasible(cpk_problem *p, int method, const char *what)
{
  int rc;
  cpk_settings s;
  cpk_settings_default(&s);
  s.ipm.method = method;
  cpk_result *r = run(p, "ipm", &s, &rc);
  int ok = rc == 0 && r->status != CPK_STATUS_SOLVED;
  if (r->status == CPK_STATUS_NO_SOLUTION) ok = ok && r->has_ray && lcp_certificate_holds(p, r->ray);
  else ok = ok && (r->status == CPK_STATUS_STALLED || r->status == CPK_STATUS_MAX_ITERATIONS);
  t_ok(ok, "%s (method %d): %s after %ld iterations: %s", what, method, cpk_status_name(r->status),
       r->iterations, r->message);
  if (method == CPK_IPM_PATH_FOLLOWING)
    t_ok(r->status == CPK_STATUS_NO_SOLUTION, "  path following finds the certificate");
  cpk_result_free(r);
}

static void test_infeasible(void)
{
  for (unsigned long seed = 1; seed <= 3; seed++) {
    cpk_problem *p = NULL;
    char what[80];
    cpk_family_random_psd(12 * seed, 4 * seed, seed, 0, &p, NULL);
    snprintf(what, sizeof what, "infeasible PSD LCP n = %lu", 12 * seed);
    check_infeasible(p, CPK_IPM_PATH_FOLLOWING, what);
    check_infeasible(p, CPK_IPM_POTENTIAL, what);
    cpk_problem_free(p);
  }
  /* Not monotone, infeasible: w = -z - 1 < 0 for every z >= 0; y = 1 is a certificate. */
  double M[] = {-1}, q[] = {-1};
  cpk_problem *p = dense_problem(1, M, q, NULL, NULL);
  check_infeasible(p, CPK_IPM_AUTO, "1x1 LCP w = -z - 1");
  cpk_problem_free(p);
}

/* Box MCP whose free variable cannot satisfy its equation: F_1 = 0 z + 1 != 0. */
static void test_infeasible_mcp(void)
{
  double M[] = {0, 0, 0, 1}, q[] = {1, -1}, l[] = {-INFINITY, 0}, u[] = {INFINITY, 2};
  cpk_problem *p = dense_problem(2, M, q, l, u);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  int ok = rc == 0 && r->status != CPK_STATUS_SOLVED;
  /* A certificate here needs y_2 = 0 (boxed), y_1 < 0 (free, q_1 > 0), M'y = 0. */
  if (r->status == CPK_STATUS_NO_SOLUTION) ok = ok && r->has_ray && r->ray[0] < 0 && r->ray[1] == 0;
  t_ok(ok, "inconsistent free equation in a box MCP: %s (%s)", cpk_status_name(r->status), r->message);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* ---- box MCPs ----------------------------------------------------------------- */

static void test_box_mcps(void)
{
  size_t sizes[] = {8, 12, 40};
  double zstar[40];
  for (size_t k = 0; k < 3; k++) {
    cpk_problem *p = NULL;
    char what[64];
    cpk_family_random_box_mcp(sizes[k], 30 + k, &p, zstar);
    snprintf(what, sizeof what, "box MCP n = %zu (mixed bounds)", sizes[k]);
    check_against_lemke(p, zstar, what, 1);
    cpk_settings s;
    cpk_settings_default(&s);
    s.ipm.method = CPK_IPM_POTENTIAL;
    int rc;
    cpk_result *r = run(p, "ipm", &s, &rc);
    t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && max_diff(r->z, zstar, p->n) < 1e-8 &&
             stat(r, "method") == 2.0,
         "%s: potential reduction agrees (|diff| %.1e)", what, max_diff(r->z, zstar, p->n));
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* ---- nonlinear MCPs ------------------------------------------------------------- */

/*
 * A monotone NCP with an analytic answer: F1 = z1^3 + z1 - 2 + z2,
 * F2 = z2 + exp(z2) - z1 + 1/2; F' = [3 z1^2 + 1, 1; -1, 1 + exp(z2)] has a
 * positive definite symmetric part. z = (1, 0) gives F = (0, 1/2): solved.
 * With z1 in [0, 1/2]: z1 = 1/2 (F1 = -11/8 <= 0 at the upper bound), z2 = 0
 * (F2 = 1 > 0).
 */
static int small_f(const double *z, double *f, void *params)
{
  (void)params;
  f[0] = z[0] * z[0] * z[0] + z[0] - 2.0 + z[1];
  f[1] = z[1] + exp(z[1]) - z[0] + 0.5;
  return 0;
}

static int small_j(const double *z, cpk_csc *J, void *params)
{
  (void)params; /* column-major dense pattern: (0,0) (1,0) (0,1) (1,1) */
  J->x[0] = 3.0 * z[0] * z[0] + 1.0;
  J->x[1] = -1.0;
  J->x[2] = 1.0;
  J->x[3] = 1.0 + exp(z[1]);
  return 0;
}

static cpk_problem *small_ncp(const double *l, const double *u)
{
  cpk_int ti[] = {0, 1, 0, 1}, tj[] = {0, 0, 1, 1};
  double tx[] = {0, 0, 0, 0};
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  if (cpk_csc_from_triplets(2, 2, 4, ti, tj, tx, &pat)) abort();
  cpk_problem_alloc_nonlinear_mcp(2, small_f, small_j, pat, NULL, l, u, &p);
  cpk_csc_free(pat);
  if (!p) abort();
  return p;
}

static void test_small_nonlinear(void)
{
  double l1[] = {0, 0}, u1[] = {0.5, INFINITY}, l2[] = {-INFINITY, 0}, u2[] = {INFINITY, INFINITY};
  double l3[] = {-1, -INFINITY}, u3[] = {3, 0};
  const double *ls[] = {NULL, l1, l2, l3}, *us[] = {NULL, u1, u2, u3};
  const double want[][2] = {{1, 0}, {0.5, 0}, {1, 0}, {NAN, NAN}};
  const char *what[] = {"NCP", "z1 in [0, 1/2]", "z1 free", "z1 in [-1, 3], z2 <= 0"};
  for (int k = 0; k < 4; k++) {
    cpk_problem *p = small_ncp(ls[k], us[k]);
    for (int cross = 0; cross < 2; cross++) {
      int rc;
      cpk_settings s;
      cpk_settings_default(&s);
      s.ipm.crossover = cross;
      cpk_result *r = run(p, "ipm", &s, &rc);
      int ok = rc == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7);
      if (!isnan(want[k][0])) ok = ok && fabs(r->z[0] - want[k][0]) < 1e-7 && fabs(r->z[1] - want[k][1]) < 1e-7;
      t_ok(ok && stat(r, "method") == 2.0, "monotone NCP, %s (crossover %d): z = (%.9g, %.9g) in %ld iterations",
           what[k], cross, r->z[0], r->z[1], r->iterations);
      t_ok(stat(r, "jacobian_evaluations") >= (double)r->iterations &&
               stat(r, "function_evaluations") > (double)r->iterations,
           "  %g F and %g Jacobian evaluations counted", stat(r, "function_evaluations"),
           stat(r, "jacobian_evaluations"));
      cpk_result_free(r);
    }
    cpk_problem_free(p);
  }
}

/* F_i = (A z)_i + z_i^3 + sin(i), A = tridiag(-1, 2, -1): strongly monotone, n = 200 (UMFPACK). */
static int tri_f(const double *z, double *f, void *params)
{
  size_t n = *(const size_t *)params;
  for (size_t i = 0; i < n; i++)
    f[i] = 2 * z[i] - (i > 0 ? z[i - 1] : 0) - (i + 1 < n ? z[i + 1] : 0) + z[i] * z[i] * z[i] + sin((double)i);
  return 0;
}

static int tri_j(const double *z, cpk_csc *J, void *params)
{
  size_t n = *(const size_t *)params;
  for (size_t j = 0; j < n; j++)
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++)
      J->x[k] = (size_t)J->i[k] == j ? 2.0 + 3.0 * z[j] * z[j] : -1.0;
  return 0;
}

static void test_sparse_nonlinear(void)
{
  size_t n = 200, nt = 0;
  cpk_int ti[600], tj[600];
  double tx[600] = {0};
  for (size_t j = 0; j < n; j++)
    for (size_t i = j > 0 ? j - 1 : 0; i <= j + 1 && i < n; i++) ti[nt] = (cpk_int)i, tj[nt++] = (cpk_int)j;
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  if (cpk_csc_from_triplets((cpk_int)n, (cpk_int)n, (cpk_int)nt, ti, tj, tx, &pat)) abort();
  cpk_problem_alloc_nonlinear_mcp(n, tri_f, tri_j, pat, &n, NULL, NULL, &p);
  cpk_csc_free(pat);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) &&
           stat(r, "sparse_linsys") == 1.0 && stat(r, "symbolic_analyses") == 1.0,
       "monotone sparse NCP n = 200: solved in %ld iterations on one symbolic analysis", r->iterations);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* The problems of bench/mcp_problems.h: monotone ones must be solved; every outcome must be honest. */
static void test_mcp_library(void)
{
  for (size_t k = 0; k < cpk_mcp_count(); k++) {
    const cpk_mcp_info *info = cpk_mcp_at(k);
    cpk_problem *p = NULL;
    if (cpk_mcp_problem(info, &p)) abort();
    int solved = 0, honest = 1;
    for (size_t st = 0; st <= info->nstarts; st++) {
      int rc;
      cpk_settings s;
      cpk_settings_default(&s);
      s.z0 = st < info->nstarts ? info->starts + st * info->n : NULL;
      cpk_result *r = run(p, "ipm", &s, &rc);
      if (r->status == CPK_STATUS_SOLVED) {
        solved++;
        honest &= t_is_mcp_solution(p, r->z, 1e-6);
      } else {
        honest &= rc == 0 && r->residual > r->tolerance && r->message[0] != '\0';
      }
      cpk_result_free(r);
    }
    t_ok(honest, "%s: every outcome honest (%d of %zu runs solved)", info->name, solved, info->nstarts + 1);
    if (info->monotonicity == CPK_MCP_STRONGLY_MONOTONE)
      t_ok(solved == (int)info->nstarts + 1, "%s (strongly monotone): solved from every start", info->name);
    cpk_problem_free(p);
  }
}

/* The contact NCP of seed 004 (not monotone, the method's main user): against the hand-derived answer. */
static void test_contact_ncp(void)
{
  for (int sliding = 0; sliding < 2; sliding++) {
    cpk_mcp_block b;
    cpk_mcp_data *d = NULL;
    cpk_problem *p = NULL;
    double want[7];
    int slide, rc;
    cpk_mcp_block_default(&b, sliding);
    if (cpk_mcp_block_on_plane(&b, &d, &p) || cpk_mcp_block_solution(&b, want, &slide)) abort();
    cpk_result *r = run(p, "ipm", NULL, &rc);
    t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && max_diff(r->z, want, 7) < 1e-7,
         "block on plane, %s: hand-derived answer (|diff| %.1e, %ld iterations)",
         slide ? "sliding" : "sticking", max_diff(r->z, want, 7), r->iterations);
    cpk_result_free(r);
    cpk_problem_free(p);
    cpk_mcp_data_free(d);
  }
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  double pn[30];
  if (cpk_mcp_contact_chain(30, 2, &d, &p)) abort();
  cpk_mcp_contact_chain_normal(d, pn);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  double worst = 0.0;
  for (size_t i = 0; i < 30; i++) worst = fmax(worst, fabs(r->z[7 * i + 3] - pn[i]));
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-6) && worst < 1e-7,
       "contact chain of 30 particles: solved, normal impulses m g h (|diff| %.1e)", worst);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

/* ---- non-monotone P-matrix LCPs --------------------------------------------------- */

/*
 * M = P T P^T (bench/families.h) is a P-matrix whose symmetric part is
 * indefinite, and T's random entries make it ill-conditioned as n grows.
 * What the method does (documented in doc/solvers.md): path following solves
 * the small ones; on larger ones it wanders and stalls, and the automatic
 * choice then restarts with potential reduction, which solves most of them;
 * the rest end stalled or at the iteration limit, never with a false answer.
 */
static void test_p_matrix(void)
{
  double zstar[30];
  for (unsigned long seed = 40; seed < 42; seed++) {
    cpk_problem *p = NULL;
    cpk_family_random_p(10, seed, &p, zstar);
    int rc;
    cpk_result *r = run(p, "ipm", NULL, &rc);
    t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && max_diff(r->z, zstar, p->n) < 1e-8 &&
             stat(r, "fallback") == 0.0,
         "P-matrix (not PSD) LCP n = 10: path following finds the unique solution in %ld iterations",
         r->iterations);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  int solved = 0, honest = 1, fallbacks = 0;
  for (unsigned long seed = 40; seed < 50; seed++) {
    cpk_problem *p = NULL;
    cpk_family_random_p(30, seed, &p, zstar);
    int rc;
    cpk_result *r = run(p, "ipm", NULL, &rc);
    fallbacks += stat(r, "fallback") == 1.0;
    if (r->status == CPK_STATUS_SOLVED) solved++, honest &= max_diff(r->z, zstar, p->n) < 1e-7;
    else honest &= rc == 0 && (r->status == CPK_STATUS_STALLED || r->status == CPK_STATUS_MAX_ITERATIONS);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(honest, "P-matrix LCPs n = 30: every answer is the unique solution, every failure a stall");
  t_ok(solved >= 5 && fallbacks >= 5, "  %d of 10 solved, %d through the potential-reduction fallback", solved,
       fallbacks);
}

/* ---- crossover, warm start, callback, limits, options ------------------------------ */

static void test_crossover_degenerate(void)
{
  cpk_problem *p = NULL;
  double zstar[25];
  cpk_family_known_degenerate(25, 7, &p, zstar);
  for (int cross = 0; cross < 2; cross++) {
    int rc;
    cpk_settings s;
    cpk_settings_default(&s);
    s.ipm.crossover = cross;
    cpk_result *r = run(p, "ipm", &s, &rc);
    t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && max_diff(r->z, zstar, p->n) < (cross ? 1e-12 : 1e-5),
         "degenerate LCP (z*_i = w*_i = 0 somewhere), crossover %d: |z - z*| = %.1e, residual %.1e", cross,
         max_diff(r->z, zstar, p->n), r->residual);
    t_ok(stat(r, "crossover") == cross, "  crossover statistic %g", stat(r, "crossover"));
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

static void test_warm_start(void)
{
  cpk_problem *p = NULL;
  cpk_family_delassus(300, 151, 9, &p);
  int rc;
  cpk_result *r = run(p, "ipm", NULL, &rc);
  double z0[300];
  memcpy(z0, r->z, sizeof z0);
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = z0;
  cpk_result *rw = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && rw->status == CPK_STATUS_SOLVED && rw->iterations == 0 && stat(rw, "warm_start") == 1.0 &&
           max_diff(rw->z, r->z, p->n) < 1e-12,
       "warm start at the solution: solved by its crossover with 0 iterations (cold: %ld)", r->iterations);
  cpk_result_free(rw);
  for (size_t i = 0; i < 300; i++) z0[i] = fmax(0.0, z0[i] + 1e-2 * sin((double)i));
  rw = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && rw->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, rw->z, 1e-7),
       "warm start near the solution: solved in %ld iterations (cold %ld)", rw->iterations, r->iterations);
  cpk_result_free(rw);
  /* A time step later: q changed; the old solution as warm start against a cold start. */
  double q2[300];
  cpk_problem *p2 = NULL;
  for (size_t i = 0; i < 300; i++) q2[i] = p->q[i] + 0.05 * cos(5.0 * (double)i);
  if (cpk_problem_alloc_lcp(p->M, q2, &p2)) abort();
  memcpy(z0, r->z, sizeof z0);
  cpk_result *rc2 = run(p2, "ipm", NULL, &rc);
  rw = run(p2, "ipm", &s, &rc);
  t_ok(rc == 0 && rw->status == CPK_STATUS_SOLVED && rc2->status == CPK_STATUS_SOLVED &&
           t_is_mcp_solution(p2, rw->z, 1e-7) && rw->iterations <= rc2->iterations,
       "q changed: warm start from the old solution %ld iterations, cold %ld", rw->iterations,
       rc2->iterations);
  cpk_result_free(rw);
  cpk_result_free(rc2);
  cpk_problem_free(p2);
  cpk_result_free(r);
  cpk_problem_free(p);
}

typedef struct trace {
  long calls, last, stop_at;
  int increasing;
} trace;

static int on_iteration(const cpk_iteration_info *info, void *data)
{
  trace *t = data;
  t->increasing &= info->iteration == t->last + 1 && strcmp(info->solver, "ipm") == 0 && info->merit >= 0;
  t->last = info->iteration;
  t->calls++;
  return t->stop_at > 0 && info->iteration >= t->stop_at;
}

static void test_callback_and_limits(void)
{
  cpk_problem *p = NULL;
  cpk_family_random_pd(30, 4, CPK_FAMILY_DENSE, &p, NULL);
  trace t = {0, 0, 0, 1};
  cpk_settings s;
  cpk_settings_default(&s);
  s.callback = on_iteration;
  s.callback_data = &t;
  int rc;
  cpk_result *r = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_SOLVED && t.calls == r->iterations && t.increasing,
       "callback called once per iteration (%ld calls, %ld iterations)", t.calls, r->iterations);
  cpk_result_free(r);
  t = (trace){0, 0, 2, 1};
  r = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_STALLED && r->iterations == 2, "callback stops the solve: %s at %ld",
       cpk_status_name(r->status), r->iterations);
  cpk_result_free(r);
  cpk_settings_default(&s);
  s.max_iter = 3;
  s.ipm.crossover = 0;
  r = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 3, "max_iter 3: %s after %ld",
       cpk_status_name(r->status), r->iterations);
  cpk_result_free(r);
  cpk_settings_default(&s);
  s.time_limit = 1e-12;
  r = run(p, "ipm", &s, &rc);
  t_ok(rc == 0 && r->status == CPK_STATUS_TIME_LIMIT && r->iterations == 1, "time limit: %s after %ld",
       cpk_status_name(r->status), r->iterations);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static int failing_f(const double *z, double *f, void *params)
{
  (void)z, (void)f, (void)params;
  return 1;
}

static void test_options(void)
{
  cpk_problem *p = small_ncp(NULL, NULL), *q = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings s;
  cpk_result_alloc(2, &r);
  cpk_settings_default(&s);
  t_ok(s.ipm.crossover == 1 && s.ipm.method == CPK_IPM_AUTO, "defaults: crossover on, automatic method");
  s.ipm.method = 7;
  t_ok(cpk_solve(p, "ipm", &s, r, &err) == CPK_EINVAL, "bad method rejected: %s", err.message);
  cpk_settings_default(&s);
  s.ipm.crossover = 2;
  t_ok(cpk_solve(p, "ipm", &s, r, &err) == CPK_EINVAL, "bad crossover flag rejected: %s", err.message);
  cpk_settings_default(&s);
  s.ipm.method = CPK_IPM_PATH_FOLLOWING;
  t_ok(cpk_solve(p, "ipm", &s, r, &err) == CPK_EUNSUP, "path following refuses a nonlinear MCP: %s", err.message);
  t_ok(cpk_solver_find("ipm") == cpk_solver_ipm && cpk_solver_accepts(cpk_solver_ipm, p),
       "ipm registered and takes nonlinear MCPs");
  cpk_int ti[] = {0, 1}, tj[] = {0, 1};
  double tx[] = {0, 0};
  cpk_csc *pat = NULL;
  cpk_csc_from_triplets(2, 2, 2, ti, tj, tx, &pat);
  cpk_problem_alloc_nonlinear_mcp(2, failing_f, small_j, pat, NULL, NULL, NULL, &q);
  cpk_csc_free(pat);
  t_ok(q && cpk_solve(q, "ipm", NULL, r, &err) == CPK_OK && r->status == CPK_STATUS_STALLED,
       "F failing at the start: stalled (%s)", r->message);
  cpk_problem_free(q);
  cpk_problem_free(p);
  cpk_result_free(r);
}

int main(void)
{
  test_hand_solved();
  test_no_diagonal();
  test_pd_lcps();
  test_sparse_path();
  test_psd_nonunique();
  test_infeasible();
  test_infeasible_mcp();
  test_box_mcps();
  test_small_nonlinear();
  test_sparse_nonlinear();
  test_mcp_library();
  test_contact_ncp();
  test_p_matrix();
  test_crossover_degenerate();
  test_warm_start();
  test_callback_and_limits();
  test_options();
  return t_done();
}
