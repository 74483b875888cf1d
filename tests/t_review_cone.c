/* t_review_cone.c: regression tests of review findings on the friction-cone problem, its solvers and files (each names what it once got wrong). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define N_CONE_SOLVERS 3
static const char *const cone_solvers[N_CONE_SOLVERS] = {"nsgs", "nsn", "fcipm"};

/* nc contacts of dimension 3, W = w * I (w = 0 allowed), q and mu given. */
static cpk_problem *diagonal_problem(size_t nc, double w, const double *q, double mu)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  double *m = malloc(nc * sizeof *m);
  if (!m || cpk_matrix_alloc_dense(3 * nc, 3 * nc, &W)) {
    free(m);
    return NULL;
  }
  for (size_t i = 0; i < 3 * nc; i++) gsl_matrix_set(W->dense, i, i, w);
  for (size_t c = 0; c < nc; c++) m[c] = mu;
  cpk_problem_alloc_friction_cone(W, q, 3, m, &p);
  cpk_matrix_free(W);
  free(m);
  return p;
}

/* Solve with the named solver and settings s (NULL: the defaults); the result or NULL. */
static cpk_result *solve_with(const cpk_problem *p, const char *name, const cpk_settings *s)
{
  cpk_result *r = NULL;
  cpk_error err;
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, name, s, r, &err)) {
    t_diag("%s: %s", name, err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

/* A huge reaction used to absorb u in r - u: the residual came out 0 on a problem with no
 * solution (W = 0, approaching normal velocity), and fcipm's r_n = 1e19 was reported solved. */
static void test_residual_huge_reaction(void)
{
  double q[] = {-1, 0.5, 0};
  cpk_problem *p = diagonal_problem(1, 0.0, q, 0.5);
  double r[] = {1e19, 0, 0}, u[3], e[3];
  double res;
  cpk_problem_residual(p, r, u, &res);
  /* by hand: r - u^ is inside K, so e = u^ = (-1 + 0.25, 0.5, 0), |e| = sqrt(0.8125) */
  t_ok(res >= sqrt(0.8125) - 1e-12, "W = 0, r_n = 1e19: the residual is at least |u^|, not 0 (%g)",
       res);
  t_near(cpk_cone_natural_map(3, 0.5, r, u, e), sqrt(0.8125), 1e-12, "the same for one contact");
  for (int k = 0; k < N_CONE_SOLVERS; k++) {
    cpk_result *R = solve_with(p, cone_solvers[k], NULL);
    t_ok(R && R->status != CPK_STATUS_SOLVED,
         "%s: W = 0 with an approaching contact is not solved (%s)", cone_solvers[k],
         R ? cpk_status_name(R->status) : "error");
    cpk_result_free(R);
  }
  cpk_problem_free(p);
}

/* fcipm said "no progress in 40 iterations" after 0 iterations when its start was not finite. */
static void test_fcipm_nonfinite_message(void)
{
  double q[] = {-1, 0.2, 0, -1, 0, 0.3};
  cpk_problem *p = diagonal_problem(2, 1.0, q, 0.5);
  double z0[] = {1e300, -1e300, 0, 1e300, 0, 0};
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = z0;
  cpk_result *R = solve_with(p, "fcipm", &s);
  t_ok(R != NULL, "fcipm ran from a warm start of 1e300");
  if (R && R->status != CPK_STATUS_SOLVED)
    t_ok(strstr(R->message, "no progress in") == NULL || R->iterations >= 40,
         "a stalled fcipm's message agrees with its %ld iterations: %s", R->iterations, R->message);
  else
    t_ok(R && t_is_fc_solution(p, R->z, 1e-6), "or it solved the problem");
  cpk_result_free(R);
  cpk_problem_free(p);
}

/* With a huge mu the natural map at r = 0 is about |u_n| / mu: r = 0 with u_n = -1 (the contact
 * moving into the obstacle) was `solved` by every solver for mu >= 1e8. By hand: the contact
 * sticks, r = -q = (1, -0.2, 0), u = 0. */
static void test_huge_mu(void)
{
  double q[] = {-1, 0.2, 0}, mus[] = {1e8, 1e10, 1e12};
  for (int m = 0; m < 3; m++) {
    cpk_problem *p = diagonal_problem(1, 1.0, q, mus[m]);
    double zero[3] = {0, 0, 0}, u[3], res;
    cpk_problem_residual(p, zero, u, &res);
    t_ok(res >= 1.0, "mu = %g: r = 0 with u_n = -1 has residual >= 1 (%g)", mus[m], res);
    for (int k = 0; k < N_CONE_SOLVERS; k++) {
      cpk_result *R = solve_with(p, cone_solvers[k], NULL);
      int right =
          R && fabs(R->z[0] - 1) < 1e-6 && fabs(R->z[1] + 0.2) < 1e-6 && fabs(R->z[2]) < 1e-6;
      t_ok(R && (R->status != CPK_STATUS_SOLVED || right),
           "mu = %g, %s: %s at r = (%g, %g, %g)", mus[m], cone_solvers[k],
           R ? cpk_status_name(R->status) : "error", R ? R->z[0] : NAN, R ? R->z[1] : NAN,
           R ? R->z[2] : NAN);
      cpk_result_free(R);
    }
    cpk_problem_free(p);
  }
}

/* fcipm moved a warm start that already solved the problem inside the cones and took 7
 * iterations to come back; nsgs and nsn return it at once. */
static void test_warm_start_at_solution(void)
{
  double q[] = {-1, 0.2, 0, -1, 2, 0, 1, 0.5, 0}; /* sticking, sliding, separating */
  cpk_problem *p = diagonal_problem(3, 1.0, q, 0.5);
  double sol[] = {1, -0.2, 0, 1, -0.5, 0, 0, 0, 0}; /* by hand, W = I */
  t_ok(t_is_fc_solution(p, sol, 1e-12), "the hand solution holds");
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = sol;
  for (int k = 0; k < N_CONE_SOLVERS; k++) {
    cpk_result *R = solve_with(p, cone_solvers[k], &s);
    t_ok(R && R->status == CPK_STATUS_SOLVED && R->iterations == 0 &&
             memcmp(R->z, sol, sizeof sol) == 0,
         "%s: a warm start at the solution is returned as it is (%ld iterations)", cone_solvers[k],
         R ? R->iterations : -1L);
    cpk_result_free(R);
  }
  cpk_problem_free(p);
}

/* The boundary projection divided by 1 + mu^2: for mu > 1e154 that overflowed and the
 * projection of (-1, 1, 0) came out 0. By hand: K is then nearly the half-space x_n >= 0,
 * y = (1/mu + ..., 1 - ..., 0) to within 1e-15. */
static void test_projection_huge_mu(void)
{
  double x[] = {-1, 1, 0}, y[3];
  cpk_cone_project(3, 1e200, x, y);
  t_ok(y[0] >= 0 && y[0] < 1e-199 && fabs(y[1] - 1) < 1e-15 && y[2] == 0,
       "mu = 1e200: the projection of (-1, 1, 0) is about (0, 1, 0): (%g, %g, %g)", y[0], y[1],
       y[2]);
  double z[] = {2, 3, 4}, w[3]; /* mu = 2 by the scaled branch: a = (2 + 10) / 5 = 2.4 */
  cpk_cone_project(3, 2.0, z, w);
  t_near(w[0], 2.4, 1e-15, "mu = 2: normal part by hand");
  t_near(hypot(w[1], w[2]), 4.8, 1e-14, "mu = 2: on the boundary |y_T| = mu y_n");
}

static int stop_at_once(const cpk_iteration_info *info, void *data)
{
  (void)info;
  (void)data;
  return 1;
}

/* A callback's stop gave `stalled` with an empty message from nsgs and fcipm (nsn said it). */
static void test_callback_stop_message(void)
{
  double q[] = {-1, 0.2, 0, -1, 2, 0};
  cpk_problem *p = diagonal_problem(2, 1.0, q, 0.5);
  cpk_settings s;
  cpk_settings_default(&s);
  s.callback = stop_at_once;
  for (int k = 0; k < N_CONE_SOLVERS; k++) {
    cpk_result *R = solve_with(p, cone_solvers[k], &s);
    t_ok(R && R->status == CPK_STATUS_STALLED && strstr(R->message, "stopped"),
         "%s: a callback's stop is `stalled` and says so: '%s'", cone_solvers[k],
         R ? R->message : "");
    cpk_result_free(R);
  }
  cpk_problem_free(p);
}

int main(void)
{
  test_callback_stop_message();
  test_projection_huge_mu();
  test_warm_start_at_solution();
  test_huge_mu();
  test_residual_huge_reaction();
  test_fcipm_nonfinite_message();
  return t_done();
}
