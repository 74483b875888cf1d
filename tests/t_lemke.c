/* t_lemke.c: Lemke's method on hand-solved LCPs and MCPs, rays, infeasibility, limits, warm starts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

static cpk_problem *dense_problem(size_t n, const double *M, const double *q, const double *l,
                                  const double *u)
{
  cpk_matrix *A = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_alloc_dense(n, n, &A)) return NULL;
  memcpy(A->dense->data, M, n * n * sizeof *M);
  if (l || u) cpk_problem_alloc_affine_mcp(A, q, l, u, &p);
  else cpk_problem_alloc_lcp(A, q, &p);
  cpk_matrix_free(A);
  return p;
}

static cpk_result *solve_with(const cpk_problem *p, const cpk_settings *s)
{
  cpk_result *r = NULL;
  cpk_error err;
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "lemke", s, r, &err)) {
    t_diag("solve failed: %s", err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static void test_hand_solved(void)
{
  /* w = Mz + q: z = (4/3, 7/3) makes both rows zero: 8/3 + 7/3 - 5 = 0, 4/3 + 14/3 - 6 = 0. */
  double M[] = {2, 1, 1, 2}, q[] = {-5, -6};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  cpk_result *r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED, "2x2 PD LCP solved");
  t_near(r ? r->z[0] : NAN, 4.0 / 3, 1e-12, "z1 = 4/3");
  t_near(r ? r->z[1] : NAN, 7.0 / 3, 1e-12, "z2 = 7/3");
  t_ok(r && r->has_basis && r->basis[0] == CPK_VAR_BASIC && r->basis[1] == CPK_VAR_BASIC,
       "both variables basic in the final basis");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* q >= 0: z = 0 with no pivot at all. */
  double q2[] = {1, 0};
  p = dense_problem(2, M, q2, NULL, NULL);
  r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && r->z[0] == 0 && r->z[1] == 0 && r->iterations == 0,
       "q >= 0 gives z = 0 without pivoting");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* Only the second variable active: z = (0, 3), w1 = 1*3 - 1 = 2 >= 0 with M = [[2,1],[1,2]]? 
     use M = [[1,1],[0,2]], q = (-1,-6): z2 = 3 gives w1 = 3 - 1 = 2 > 0, so z1 = 0. */
  double M3[] = {1, 1, 0, 2}, q3[] = {-1, -6};
  p = dense_problem(2, M3, q3, NULL, NULL);
  r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && fabs(r->z[0]) < 1e-14 && fabs(r->z[1] - 3) < 1e-12,
       "triangular LCP: z = (0, 3)");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* Check the ray certificate independently: y >= 0, M'y <= 0, q'y < 0. */
static int certificate_holds(const cpk_problem *p, const double *y)
{
  double qy = 0;
  for (size_t j = 0; j < p->n; j++) {
    double g = 0;
    if (y[j] < -1e-12) return 0;
    for (size_t i = 0; i < p->n; i++) g += cpk_matrix_get(p->M, i, j) * y[i];
    if (g > 1e-9) return 0;
    qy += p->q[j] * y[j];
  }
  return qy < -1e-9;
}

static void test_infeasible(void)
{
  /* PSD with null vector y = (1,1) and q'y = -2 < 0: no z >= 0 has Mz + q >= 0. */
  double M[] = {1, -1, -1, 1}, q[] = {-1, -1};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  cpk_result *r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_NO_SOLUTION, "infeasible PSD LCP: no_solution");
  t_ok(r && r->has_ray && certificate_holds(p, r->ray), "the returned ray is a Farkas certificate");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* M = -1, q = -1: w = -z - 1 < 0 for every z >= 0. */
  double M1[] = {-1}, q1[] = {-1};
  p = dense_problem(1, M1, q1, NULL, NULL);
  r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_NO_SOLUTION && certificate_holds(p, r->ray),
       "1x1 infeasible: no_solution with certificate");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_ray_not_proved(void)
{
  /*
   * M = [[-1, 1], [1, -1]]... we want a ray where no certificate exists.
   * M = [[0, -1], [1, 0]] would be PSD; instead M = [[-1, 2], [2, -1]], q = (-1, -1):
   * z = (1, 1) gives w = (0, 0): a solution exists, but M is not copositive-plus, so
   * Lemke may end on a ray; whatever it says, it must not claim no_solution.
   */
  double M[] = {-1, 2, 2, -1}, q[] = {-1, -1};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  cpk_result *r = solve_with(p, NULL);
  t_ok(r && r->status != CPK_STATUS_NO_SOLUTION, "solvable non-copositive LCP never reported infeasible (got %s)",
       r ? cpk_status_name(r->status) : "?");
  if (r && r->status == CPK_STATUS_SOLVED) t_ok(t_is_mcp_solution(p, r->z, 1e-9), "and its solution checks");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_mcp_free_and_box(void)
{
  /* Velocity-level contact with one body: v free, p >= 0; F1 = v - p + 1 (gravity impulse 1), F2 = v + gap/h. */
  double M[] = {1, -1, 1, 0}, q[] = {1, 0}, l[] = {-INFINITY, 0}, u[] = {INFINITY, INFINITY};
  cpk_problem *p = dense_problem(2, M, q, l, u);
  cpk_result *r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && fabs(r->z[0]) < 1e-12 && fabs(r->z[1] - 1) < 1e-12,
       "resting contact: v = 0, p = 1 (the gravity impulse)");
  cpk_result_free(r);
  cpk_problem_free(p);

  double q2[] = {1, 5}; /* gap/h = 5: the body falls freely, v = -1, p = 0 */
  p = dense_problem(2, M, q2, l, u);
  r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] + 1) < 1e-12 && fabs(r->z[1]) < 1e-12,
       "separating contact: v = -1, p = 0");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* 1-D box MCPs, l = -1, u = 1: F = 2z + b. b = 3 -> z = -1; b = -3 -> z = 1; b = -1 -> z = 0.5. */
  double M1[] = {2}, lb[] = {-1}, ub[] = {1}, bs[] = {3, -3, -1}, want[] = {-1, 1, 0.5};
  for (int k = 0; k < 3; k++) {
    p = dense_problem(1, M1, &bs[k], lb, ub);
    r = solve_with(p, NULL);
    t_ok(r && r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - want[k]) < 1e-12,
         "box MCP F = 2z%+g on [-1,1]: z = %g", bs[k], want[k]);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* Random dense nonsymmetric PD matrix B B' + S + I and a q from a known complementary pair. */
static cpk_problem *random_pd(gsl_rng *rng, size_t n, int boxed, double *zstar)
{
  double *M = calloc(n * n, sizeof *M), *q = calloc(n, sizeof *q), *l = calloc(n, sizeof *l),
         *u = calloc(n, sizeof *u);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double b = gsl_rng_uniform(rng) - 0.5, s = gsl_rng_uniform(rng) - 0.5;
      M[i * n + j] += b * (i == j ? 2 * (double)n : 1.0);
      M[i * n + j] += s;
      M[j * n + i] -= s; /* skew part: does not change x'Mx */
    }
  for (size_t i = 0; i < n; i++) M[i * n + i] += (double)n;
  for (size_t i = 0; i < n; i++) {
    double v = gsl_rng_uniform(rng) * 4 - 2;
    l[i] = boxed && i % 3 == 1 ? -INFINITY : (boxed ? -1 : 0);
    u[i] = boxed && i % 2 == 0 ? 1 : INFINITY;
    zstar[i] = fmin(fmax(v, l[i]), u[i]);
    if (boxed && i % 3 == 1 && i % 2 == 1) zstar[i] = v; /* free */
  }
  for (size_t i = 0; i < n; i++) { /* w* = F(z*) chosen with the right sign at the bound */
    double w = zstar[i] == l[i] ? gsl_rng_uniform(rng) : (zstar[i] == u[i] ? -gsl_rng_uniform(rng) : 0);
    q[i] = w;
    for (size_t j = 0; j < n; j++) q[i] -= M[i * n + j] * zstar[j];
  }
  cpk_problem *p = dense_problem(n, M, q, boxed ? l : NULL, boxed ? u : NULL);
  free(M);
  free(q);
  free(l);
  free(u);
  return p;
}

static void test_random(gsl_rng *rng)
{
  size_t sizes[] = {3, 10, 40, 120};
  cpk_settings s;
  cpk_settings_default(&s);
  for (size_t t = 0; t < 4; t++)
    for (int boxed = 0; boxed < 2; boxed++)
      for (int sparse = 0; sparse < 2; sparse++) {
        size_t n = sizes[t];
        double *zs = calloc(n, sizeof *zs);
        cpk_problem *p = random_pd(rng, n, boxed, zs);
        s.linsys = sparse ? cpk_linsys_umfpack : cpk_linsys_dense;
        cpk_result *r = solve_with(p, &s);
        double err = 0;
        for (size_t i = 0; r && i < n; i++) err = fmax(err, fabs(r->z[i] - zs[i]));
        t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-8) && err < 1e-7,
             "random PD %s n=%zu with %s basis: solved, |z - z*| = %.1e", boxed ? "box MCP" : "LCP",
             n, sparse ? "umfpack" : "dense", err);
        cpk_result_free(r);
        cpk_problem_free(p);
        free(zs);
      }
}

static void test_warm_start_and_limits(gsl_rng *rng)
{
  size_t n = 30;
  double *zs = calloc(n, sizeof *zs);
  cpk_problem *p = random_pd(rng, n, 0, zs);
  cpk_result *r = solve_with(p, NULL);
  cpk_settings s;
  cpk_settings_default(&s);
  s.basis0 = r ? r->basis : NULL;
  cpk_result *r2 = solve_with(p, &s);
  t_ok(r && r2 && r2->status == CPK_STATUS_SOLVED && r2->iterations == 0,
       "warm start from the final basis: solved with 0 pivots (cold: %ld)", r ? r->iterations : -1);
  cpk_settings_default(&s);
  s.z0 = zs;
  cpk_result *r3 = solve_with(p, &s);
  t_ok(r3 && r3->status == CPK_STATUS_SOLVED && r3->iterations <= 1,
       "warm start from the solution point: solved in %ld pivots", r3 ? r3->iterations : -1);
  cpk_settings_default(&s);
  s.max_iter = 1;
  cpk_result *r4 = solve_with(p, &s);
  t_ok(r4 && r4->status == CPK_STATUS_MAX_ITERATIONS, "max_iter = 1: status max_iterations (%s)",
       r4 ? cpk_status_name(r4->status) : "?");
  cpk_result_free(r);
  cpk_result_free(r2);
  cpk_result_free(r3);
  cpk_result_free(r4);
  cpk_problem_free(p);
  free(zs);
}

static int stop_at_3(const cpk_iteration_info *info, void *data)
{
  (*(long *)data)++;
  return info->iteration >= 3;
}

static void test_callback(gsl_rng *rng)
{
  size_t n = 20;
  double *zs = calloc(n, sizeof *zs);
  cpk_problem *p = random_pd(rng, n, 0, zs);
  cpk_settings s;
  long calls = 0;
  cpk_settings_default(&s);
  s.callback = stop_at_3;
  s.callback_data = &calls;
  cpk_result *r = solve_with(p, &s);
  t_ok(r && r->status == CPK_STATUS_STALLED && calls == 3, "callback stop after 3 iterations: stalled");
  cpk_result_free(r);
  cpk_problem_free(p);
  free(zs);
}

static cpk_problem *read_data(const char *name)
{
  char rel[256];
  cpk_problem *p = NULL;
  cpk_error err;
  snprintf(rel, sizeof rel, "data/lemke/%s", name);
  if (cpk_problem_read_file(t_srcpath(rel), &p, &err)) t_diag("%s", err.message);
  return p;
}

/* Regressions from review: each input once broke a guarantee. */
static void test_regressions(void)
{
  cpk_settings s;
  cpk_problem *p = read_data("refactor-box4.cpk");
  cpk_settings_default(&s);
  s.lemke.refactor_interval = 1; /* refactor at every pivot: leaving bounds must be in place */
  s.linsys = cpk_linsys_umfpack;
  cpk_result *r = p ? solve_with(p, &s) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-9),
       "box MCP refactored at every pivot: solved");
  cpk_result_free(r);
  cpk_problem_free(p);

  p = read_data("refactor-box120.cpk");
  r = p ? solve_with(p, NULL) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-8),
       "n = 120 box MCP past the refactorization interval: solved in %ld pivots", r ? r->iterations : -1);
  cpk_result_free(r);
  cpk_problem_free(p);

  p = read_data("scaled-1e9.cpk"); /* PD with entries ~1e9: small ratios must not tie with t */
  r = p ? solve_with(p, NULL) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED, "PD LCP scaled by 1e9: solved");
  cpk_result_free(r);
  cpk_problem_free(p);

  p = read_data("tiny-m.cpk"); /* has the solution z = (3e11, 0, 0): never "no_solution" */
  r = p ? solve_with(p, NULL) : NULL;
  t_ok(r && r->status != CPK_STATUS_NO_SOLUTION, "M ~ 1e-11 with a solution: not reported infeasible (%s)",
       r ? cpk_status_name(r->status) : "?");
  cpk_result_free(r);
  cpk_problem_free(p);

  double zero[] = {0}, qneg[] = {-3};
  p = dense_problem(1, zero, qneg, NULL, NULL); /* w = -3 < 0 always: y = 1 certifies */
  r = solve_with(p, NULL);
  t_ok(r && r->status == CPK_STATUS_NO_SOLUTION, "M = 0, q = -3: no_solution (%s)",
       r ? cpk_status_name(r->status) : "?");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* Warm starts that cannot start a valid Lemke path must fall back to a cold start. */
static void test_bad_warm_starts(void)
{
  const char *cases[][2] = {{"warm-cycle.cpk", "warm-cycle.json"},
                            {"warm-cycle2.cpk", "warm-cycle2.json"},
                            {"warm-ray.cpk", "warm-ray.txt"}};
  for (size_t c = 0; c < 3; c++) {
    char rel[256];
    cpk_problem *p = read_data(cases[c][0]);
    int basis[8], has_basis = 0;
    double z0[8];
    snprintf(rel, sizeof rel, "data/lemke/%s", cases[c][1]);
    if (!p || cpk_warm_start_read_file(t_srcpath(rel), p->n, z0, basis, &has_basis, NULL)) {
      t_ok(0, "read %s", cases[c][0]);
      cpk_problem_free(p);
      continue;
    }
    cpk_settings s;
    cpk_settings_default(&s);
    s.z0 = z0;
    s.basis0 = has_basis ? basis : NULL;
    cpk_result *r = solve_with(p, &s);
    double rejected = 0;
    if (r) cpk_result_get_stat(r, "warm_start_rejected", &rejected);
    t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-9) && rejected == 1 &&
             r->iterations < 50,
         "%s: bad warm start detected and dropped, solved cold (%ld pivots in all)", cases[c][0],
         r ? r->iterations : -1);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

static void test_set_warm_start(void)
{
  double M[] = {2, 1, 1, 2}, q[] = {-5, -6}, bad_z[] = {NAN, 0};
  int bad_basis[] = {7, 2};
  cpk_problem *p = dense_problem(2, M, q, NULL, NULL);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_result_alloc(2, &r);
  cpk_solver_alloc(cpk_solver_lemke, p, NULL, &s, NULL);
  t_ok(s && cpk_solver_set_warm_start(s, bad_z, bad_basis) == CPK_EINVAL, "invalid warm start refused");
  double rejected = 0;
  int ok = s && cpk_solver_solve(s, r, NULL) == CPK_OK;
  cpk_result_get_stat(r, "warm_start_rejected", &rejected);
  t_ok(ok && r->status == CPK_STATUS_SOLVED && rejected == 0, "and not installed: the next solve is cold");
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, t_seed());
  test_hand_solved();
  test_infeasible();
  test_ray_not_proved();
  test_mcp_free_and_box();
  test_random(rng);
  test_warm_start_and_limits(rng);
  test_callback(rng);
  test_regressions();
  test_bad_warm_starts();
  test_set_warm_start();
  gsl_rng_free(rng);
  return t_done();
}
