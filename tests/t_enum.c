/* t_enum.c: the enum solver on hand-solved LCPs, random classes with known answers, limits, infeasibility proofs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "families.h"
#include "testlib.h"

#define TOL 1e-9

/* Dense LCP (or box MCP when l/u given) from a row-major array; aborts on failure (test setup). */
static cpk_problem *make_problem(size_t n, const double *m, const double *q, const double *l,
                                 const double *u)
{
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_alloc_dense(n, n, &M)) abort();
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) gsl_matrix_set(M->dense, i, j, m[i * n + j]);
  int rc = l || u ? cpk_problem_alloc_affine_mcp(M, q, l, u, &p) : cpk_problem_alloc_lcp(M, q, &p);
  if (rc) abort();
  cpk_matrix_free(M);
  return p;
}

/* Solve with enum; every listed solution is checked independently. Returns the result. */
static cpk_result *run(const cpk_problem *p, const cpk_settings *s, const char *what)
{
  cpk_result *r = NULL;
  cpk_error err;
  if (cpk_result_alloc(p->n, &r)) abort();
  int rc = cpk_solve(p, "enum", s, r, &err);
  t_ok(rc == CPK_OK, "%s: enum ran (%s)", what, rc ? err.message : "ok");
  int all = 1;
  for (size_t k = 0; k < r->nsolutions; k++)
    all &= t_is_mcp_solution(p, &r->solutions[k * p->n], 1e-8);
  t_ok(all, "%s: each of the %zu listed solutions solves the problem", what, r->nsolutions);
  return r;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Is z (length n) among the listed solutions? */
static int listed(const cpk_result *r, const double *z, double tol)
{
  for (size_t k = 0; k < r->nsolutions; k++) {
    size_t i = 0;
    while (i < r->n && fabs(r->solutions[k * r->n + i] - z[i]) <= tol) i++;
    if (i == r->n) return 1;
  }
  return 0;
}

static void test_hand_2x2(void)
{
  /* M = [2 1; 1 2] (symmetric PD: unique solution), q = (-5, -6).
   * All basic: 2 z1 + z2 = 5, z1 + 2 z2 = 6 -> z1 = 4/3, z2 = 7/3, both > 0: the solution. */
  const double m[] = {2, 1, 1, 2}, q[] = {-5, -6}, want[] = {4.0 / 3.0, 7.0 / 3.0};
  cpk_problem *p = make_problem(2, m, q, NULL, NULL);
  cpk_result *r = run(p, NULL, "2x2 interior");
  t_ok(r->status == CPK_STATUS_SOLVED && r->nsolutions == 1, "2x2 interior: one solution");
  t_near(r->z[0], want[0], TOL, "2x2 interior: z1 = 4/3");
  t_near(r->z[1], want[1], TOL, "2x2 interior: z2 = 7/3");
  t_ok(stat(r, "index_sets") == 4.0, "2x2: 2^2 index sets visited");
  t_ok(r->has_basis && r->basis[0] == CPK_VAR_BASIC && r->basis[1] == CPK_VAR_BASIC,
       "2x2 interior: both variables basic");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* Same M, q = (1, -4): z1 = 0, z2 basic: 2 z2 = 4 -> z2 = 2; w1 = 1 + 2 = 3 >= 0. */
  const double q2[] = {1, -4};
  p = make_problem(2, m, q2, NULL, NULL);
  r = run(p, NULL, "2x2 boundary");
  t_ok(r->nsolutions == 1 && fabs(r->z[0]) <= TOL && fabs(r->z[1] - 2.0) <= TOL,
       "2x2 boundary: z = (0, 2)");
  t_ok(r->basis[0] == CPK_VAR_AT_LOWER, "2x2 boundary: z1 at its bound");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_hand_3x3(void)
{
  /* M = tridiag(-1, 2, -1) (symmetric PD), q = (-1, 1, -3). All basic: z2 = 2 z1 - 1 (row 1),
   * z3 = (3 + z2)/2 = 1 + z1 (row 3), row 2: -z1 + 2(2 z1 - 1) - (1 + z1) = -1 -> z1 = 1,
   * so z = (1, 1, 2) > 0. (Guessing z2 = 0 instead gives z1 = 1/2, z3 = 3/2, w2 = -1 < 0.) */
  const double m[] = {2, -1, 0, -1, 2, -1, 0, -1, 2}, q[] = {-1, 1, -3}, want[] = {1, 1, 2};
  cpk_problem *p = make_problem(3, m, q, NULL, NULL);
  cpk_result *r = run(p, NULL, "3x3");
  t_ok(r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 && listed(r, want, TOL),
       "3x3: the unique solution (1, 1, 2)");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* q = (-1, 2, -3): z2 = 0, z1 = 1/2, z3 = 3/2 and w2 = -1/2 + 2 - 3/2 = 0: degenerate, reached
   * from {1,3} basic and from {1,2,3} basic (z2 = 0 there too): listed once. */
  const double qd[] = {-1, 2, -3}, wantd[] = {0.5, 0, 1.5};
  p = make_problem(3, m, qd, NULL, NULL);
  r = run(p, NULL, "3x3 degenerate");
  t_ok(r->nsolutions == 1 && listed(r, wantd, TOL), "3x3 degenerate: one solution (1/2, 0, 3/2)");
  t_ok(stat(r, "solutions") == 1.0 && stat(r, "index_sets") == 8.0, "3x3 degenerate: stats");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_two_and_none(void)
{
  /* M = [-1 1; 0 1], q = (2, -1). w2 = z2 - 1 forces z2 = 1. Then w1 = 3 - z1: z1 = 0 or z1 = 3.
   * Sets: {} w2 = -1 no; {1} z1 = 2, w2 = -1 no; {2} (0, 1) yes; {1,2} (3, 1) yes. */
  const double m[] = {-1, 1, 0, 1}, q[] = {2, -1}, s1[] = {0, 1}, s2[] = {3, 1};
  cpk_problem *p = make_problem(2, m, q, NULL, NULL);
  cpk_result *r = run(p, NULL, "two solutions");
  t_ok(r->status == CPK_STATUS_SOLVED && r->nsolutions == 2, "two solutions: exactly two found");
  t_ok(listed(r, s1, TOL) && listed(r, s2, TOL), "two solutions: (0, 1) and (3, 1)");
  cpk_result_free(r);
  cpk_problem_free(p);

  /* M = [-1 0; 1 1], q = (-1, 0): w1 = -z1 - 1 < 0 for every z1 >= 0, and every principal
   * submatrix ([-1], [1], det = -1) is nonsingular: a proof of no solution. */
  const double mn[] = {-1, 0, 1, 1}, qn[] = {-1, 0};
  p = make_problem(2, mn, qn, NULL, NULL);
  r = run(p, NULL, "no solution");
  t_ok(r->status == CPK_STATUS_NO_SOLUTION && r->nsolutions == 0, "no solution: no_solution");
  t_ok(stat(r, "singular_sets") == 0.0, "no solution: no singular subsystem met");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_singular(void)
{
  /* M = [1 1; 1 1], q = (-1, -1): every z >= 0 with z1 + z2 = 1 solves (a segment). The vertices
   * come from {1} and {2}; the all-basic set is singular but consistent. */
  const double m[] = {1, 1, 1, 1}, q[] = {-1, -1}, a[] = {1, 0}, b[] = {0, 1};
  cpk_problem *p = make_problem(2, m, q, NULL, NULL);
  cpk_result *r = run(p, NULL, "segment");
  t_ok(r->status == CPK_STATUS_SOLVED && listed(r, a, TOL) && listed(r, b, TOL),
       "segment: both end points listed");
  t_ok(stat(r, "singular_sets") == 1.0 && stat(r, "singular_consistent") == 1.0,
       "segment: the singular consistent set is reported");
  t_ok(strstr(r->message, "continua") != NULL, "segment: the message warns about continua");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_random_classes(unsigned long seed)
{
  for (unsigned long k = 0; k < 4; k++) {
    double z[9];
    cpk_problem *p = NULL;
    if (cpk_family_random_p(9, seed + k, &p, z)) abort();
    cpk_result *r = run(p, NULL, "random P");
    t_ok(r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 && listed(r, z, 1e-8),
         "random P (seed %lu): the unique solution is the planted z*", seed + k);
    cpk_result_free(r);
    cpk_problem_free(p);

    if (cpk_family_random_psd(9, 4, seed + k, 0, &p, NULL)) abort();
    r = run(p, NULL, "infeasible PSD");
    t_ok(r->status == CPK_STATUS_NO_SOLUTION && r->nsolutions == 0,
         "infeasible PSD (seed %lu): no_solution", seed + k);
    t_ok(stat(r, "singular_sets") > 0.0 && stat(r, "singular_consistent") == 0.0,
         "infeasible PSD: singular sets met, all inconsistent");
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* Symmetric PSD M: w = Mz + q is the same at every solution (M(z1 - z2) = 0). */
static void test_psd_feasible(unsigned long seed)
{
  double z[8], w[8];
  cpk_problem *p = NULL;
  if (cpk_family_random_psd(8, 3, seed, 1, &p, z)) abort();
  for (size_t i = 0; i < 8; i++) {
    w[i] = p->q[i];
    for (size_t j = 0; j < 8; j++) w[i] += cpk_matrix_get(p->M, i, j) * z[j];
  }
  cpk_result *r = run(p, NULL, "feasible PSD");
  int same = r->nsolutions > 0;
  for (size_t k = 0; k < r->nsolutions; k++)
    for (size_t i = 0; i < 8; i++) {
      double wi = p->q[i];
      for (size_t j = 0; j < 8; j++) wi += cpk_matrix_get(p->M, i, j) * r->solutions[k * 8 + j];
      same &= fabs(wi - w[i]) <= 1e-8;
    }
  t_ok(r->status == CPK_STATUS_SOLVED && same, "feasible PSD: solved, w equal to w* at all %zu",
       r->nsolutions);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_box_mcp(unsigned long seed)
{
  double z[10];
  cpk_problem *p = NULL;
  if (cpk_family_random_box_mcp(10, seed, &p, z)) abort();
  double sets = 1.0; /* free: basic only; one finite bound: 2 states; two: 3 states */
  for (size_t i = 0; i < 10; i++) sets *= 1 + isfinite(p->lower[i]) + isfinite(p->upper[i]);
  cpk_result *r = run(p, NULL, "box MCP");
  t_ok(r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 && listed(r, z, 1e-8),
       "box MCP: the unique solution is the planted z*");
  t_ok(stat(r, "index_sets") == sets, "box MCP: %.0f index sets (free variables always basic)",
       sets);
  cpk_result_free(r);
  cpk_problem_free(p);

  /* Fixed variable: z1 in [2, 2] whatever F1 is; F2 = z1 + z2 - 5 with z2 free -> z2 = 3. */
  const double m[] = {1, 0, 1, 1}, q[] = {-10, -5}, l[] = {2, -INFINITY}, u[] = {2, INFINITY};
  const double want[] = {2, 3};
  p = make_problem(2, m, q, l, u);
  r = run(p, NULL, "fixed variable");
  t_ok(r->nsolutions == 1 && listed(r, want, TOL), "fixed variable: z = (2, 3) though F1 = -8");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_classics(void)
{
  double z[9];
  cpk_problem *p = NULL;
  if (cpk_family_murty(7, &p)) abort();
  cpk_family_murty_solution(7, z);
  cpk_result *r = run(p, NULL, "Murty 7");
  t_ok(r->nsolutions == 1 && listed(r, z, 1e-9), "Murty 7: unique solution 2^7 e_1");
  cpk_result_free(r);
  cpk_problem_free(p);
  if (cpk_family_known_degenerate(9, 5, &p, z)) abort();
  r = run(p, NULL, "known degenerate");
  t_ok(r->nsolutions == 1 && listed(r, z, 1e-9), "known degenerate: one solution, the planted one");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_limits(void)
{
  cpk_problem *p = NULL;
  cpk_solver *s = NULL;
  cpk_error err;
  cpk_settings st;
  if (cpk_family_random_pd(25, 1, CPK_FAMILY_DENSE, &p, NULL)) abort();
  int rc = cpk_solver_alloc(cpk_solver_enum, p, NULL, &s, &err);
  t_ok(rc == CPK_ETOOBIG && s == NULL, "n = 25 refused with CPK_ETOOBIG");
  t_ok(strcmp(err.message,
              "enum: n = 25 exceeds the enumeration limit 20 (settings.enumeration.max_n)") == 0,
       "n = 25: message '%s'", err.message);
  cpk_settings_default(&st);
  st.enumeration.max_n = 30;
  rc = cpk_solver_alloc(cpk_solver_enum, p, &st, &s, &err);
  t_ok(rc == CPK_ETOOBIG && strstr(err.message, "2^24") != NULL,
       "n = 25 with max_n = 30: 2^25 index sets refused (%s)", err.message);
  cpk_problem_free(p);
}

static int stop_now(const cpk_iteration_info *info, void *data)
{
  (void)info;
  ++*(int *)data;
  return 1;
}

static void test_stops(void)
{
  cpk_problem *p = NULL;
  cpk_settings st;
  int calls = 0;
  if (cpk_family_random_pd(13, 3, CPK_FAMILY_DENSE, &p, NULL)) abort();
  cpk_settings_default(&st);
  st.max_iter = 10;
  cpk_result *r = run(p, &st, "iteration limit");
  t_ok(r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 10,
       "max_iter = 10: stopped after 10 index sets");
  cpk_result_free(r);
  cpk_settings_default(&st);
  st.callback = stop_now;
  st.callback_data = &calls;
  r = run(p, &st, "callback stop");
  t_ok(r->status == CPK_STATUS_STALLED && r->iterations == 4096 && calls == 1,
       "callback asked to stop at the first check (4096 sets)");
  cpk_result_free(r);
  cpk_settings_default(&st);
  r = run(p, &st, "full run");
  t_ok(r->status == CPK_STATUS_SOLVED && r->iterations == 8192 && r->nsolutions == 1,
       "n = 13: all 8192 sets, one solution (PD)");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static cpk_result *run_enum(const cpk_problem *p)
{
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  if (cpk_result_alloc(p->n, &r) || cpk_solve(p, "enum", &s, r, NULL)) abort();
  return r;
}

/*
 * w1 = -z2 - z3 - 1e-4 < 0 for every z >= 0: no solution. Rows 2 and 3 are
 * equal, so the index sets {2, 3} and {1, 2, 3} have singular, consistent
 * blocks (z2 + z3 = 1); enumeration alone could not exclude them (`stalled`).
 */
static void test_three_variables(void)
{
  double m[] = {0, -1, -1, 1, 1, 1, 1, 1, 1}, q[] = {-1e-4, -1, -1};
  cpk_problem *p = make_problem(3, m, q, NULL, NULL);
  cpk_result *r = run_enum(p);
  double v = 0;
  cpk_result_get_stat(r, "lp_infeasible_sets", &v);
  t_ok(r->status == CPK_STATUS_NO_SOLUTION && r->nsolutions == 0,
       "3-variable LCP with w1 = -z2 - z3 - 1e-4: %s (%s), %g singular sets proved empty",
       cpk_status_name(r->status), r->message, v);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * Random n = 4..7 LCPs: row 1 is w1 = -a'z + q1 with a >= 0, M_11 = 0, and
 * the other rows come in equal pairs (singular blocks everywhere). With
 * q1 = -1e-4 no solution exists (w1 < 0): enum must say no_solution. With
 * q1 = +1e-4 a solution may exist: enum must never claim no_solution when
 * Lemke (whose answer is checked here) finds one, and its listed solutions must hold.
 */
static void test_random_pairs(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  int proved = 1, sound = 1;
  for (unsigned long seed = 1; seed <= 30; seed++) {
    gsl_rng_set(g, seed);
    size_t n = 4 + seed % 4;
    double m[49], q[7];
    for (size_t j = 0; j < n; j++) m[j] = j == 0 ? 0.0 : -(double)gsl_rng_uniform_int(g, 3);
    for (size_t i = 1; i < n; i++) {
      for (size_t j = 0; j < n; j++)
        m[i * n + j] = i % 2 == 0 ? m[(i - 1) * n + j] : (double)gsl_rng_uniform_int(g, 5) - 1.0;
      q[i] = i % 2 == 0 ? q[i - 1] : (double)gsl_rng_uniform_int(g, 5) - 3.0;
    }
    for (int sign = -1; sign <= 1; sign += 2) {
      q[0] = sign * 1e-4;
      cpk_problem *p = make_problem(n, m, q, NULL, NULL);
      cpk_result *r = run_enum(p);
      for (size_t k = 0; k < r->nsolutions; k++) sound &= t_is_mcp_solution(p, &r->solutions[k * n], 1e-8);
      if (sign < 0) {
        proved &= r->status == CPK_STATUS_NO_SOLUTION;
        if (r->status != CPK_STATUS_NO_SOLUTION) t_diag("seed %lu: %s", seed, r->message);
      } else if (r->status == CPK_STATUS_NO_SOLUTION) {
        cpk_result *l = NULL;
        cpk_settings s;
        cpk_settings_default(&s);
        if (cpk_result_alloc(n, &l) || cpk_solve(p, "lemke", &s, l, NULL)) abort();
        if (l->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, l->z, 1e-9))
          sound = 0, t_diag("seed %lu: false no_solution", seed);
        cpk_result_free(l);
      }
      cpk_result_free(r);
      cpk_problem_free(p);
    }
  }
  gsl_rng_free(g);
  t_ok(proved, "30 infeasible LCPs with paired rows: every one proved no_solution");
  t_ok(sound, "their feasible twins: no false no_solution, every listed solution holds");
}

int main(void)
{
  unsigned long seed = t_seed();
  test_hand_2x2();
  test_hand_3x3();
  test_two_and_none();
  test_singular();
  test_three_variables();
  test_random_pairs();
  test_random_classes(seed);
  test_psd_feasible(seed);
  test_box_mcp(seed);
  test_classics();
  test_limits();
  test_stops();
  return t_done();
}
