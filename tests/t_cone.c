/* t_cone.c: the friction-cone problem object: projection on the Coulomb cone, one contact's natural map, residual, FCLIB merit, validation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static void test_projection(void)
{
  double y[3];
  double in[] = {1, 0.3, 0.4};
  cpk_cone_project(3, 1.0, in, y);
  t_ok(y[0] == 1 && y[1] == 0.3 && y[2] == 0.4, "a point inside the cone is its own projection");
  double polar[] = {-1, 0.1, 0};
  cpk_cone_project(3, 1.0, polar, y);
  t_ok(y[0] == 0 && y[1] == 0 && y[2] == 0, "a point in the polar cone projects on the apex");
  double side[] = {0, 1, 0}; /* by hand: (0.5, 0.5, 0), and x - y is orthogonal to y */
  cpk_cone_project(3, 1.0, side, y);
  t_ok(fabs(y[0] - 0.5) < 1e-15 && fabs(y[1] - 0.5) < 1e-15 && y[2] == 0,
       "a point beside the cone projects on its boundary: (%g, %g, %g)", y[0], y[1], y[2]);
  double frictionless[] = {2, 1, -1};
  cpk_cone_project(3, 0.0, frictionless, y);
  t_ok(y[0] == 2 && y[1] == 0 && y[2] == 0, "mu = 0: the cone is the normal half-line");
  double below[] = {-1, 0, 0}; /* mu = 0, straight below the apex: the apex, not the point itself */
  cpk_cone_project(3, 0.0, below, y);
  t_ok(y[0] == 0 && y[1] == 0 && y[2] == 0, "mu = 0: a point below the apex projects on the apex");
  double twist[] = {1, 3, 0, 4}; /* dim 4: |x_T| = 5, mu 0.5: a = (1 + 2.5)/1.25 = 2.8 */
  double y4[4];
  cpk_cone_project(4, 0.5, twist, y4);
  t_near(y4[0], 2.8, 1e-14, "dim 4: normal part of the projection");
  t_near(hypot(y4[1], y4[3]), 1.4, 1e-14, "dim 4: projection on the cone's boundary");
}

/* A one-contact problem W = I (3x3), mu = 0.5, free velocity q. */
static cpk_problem *one_contact(double qn, double qt, double qo)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  double q[] = {qn, qt, qo}, mu = 0.5;
  cpk_matrix_alloc_dense(3, 3, &W);
  for (int i = 0; i < 3; i++) gsl_matrix_set(W->dense, i, i, 1.0);
  cpk_problem_alloc_friction_cone(W, q, 3, &mu, &p);
  cpk_matrix_free(W);
  return p;
}

static double residual_at(const cpk_problem *p, const double *r)
{
  double u[3], res;
  cpk_problem_residual(p, r, u, &res);
  return res;
}

static void test_hand_solutions(void)
{
  cpk_problem *p = one_contact(1, 0, 0);
  double sep[] = {0, 0, 0};
  t_ok(p && p->kind == CPK_KIND_FRICTION_CONE && p->nc == 1 && p->cone_dim == 3, "object built");
  t_ok(residual_at(p, sep) == 0 && t_is_fc_solution(p, sep, 1e-12), "separating: r = 0 solves it");
  cpk_problem_free(p);
  p = one_contact(-1, 0.2, 0);
  double stick[] = {1, -0.2, 0}, wrong[] = {1, -0.5, 0};
  t_ok(residual_at(p, stick) < 1e-15 && t_is_fc_solution(p, stick, 1e-12), "sticking: r = (1, -0.2, 0)");
  t_ok(residual_at(p, wrong) > 0.1 && !t_is_fc_solution(p, wrong, 1e-9), "a sliding answer to a sticking problem is refused");
  cpk_problem_free(p);
  p = one_contact(-1, 2, 0);
  double slide[] = {1, -0.5, 0}, zero[] = {0, 0, 0}, u[3];
  t_ok(residual_at(p, slide) < 1e-15 && t_is_fc_solution(p, slide, 1e-12), "sliding: r = (1, -0.5, 0)");
  /* by hand: u^ = (0, 2, 0), proj(-u^) = (0.8, -0.4, 0), e = (-0.8, 0.4, 0), |e| = sqrt(0.8);
     the residual also counts the approach velocity -u_n = 1, the larger */
  t_near(residual_at(p, zero), 1.0, 1e-14, "residual of r = 0 on the sliding problem");
  cpk_problem_eval(p, zero, u);
  t_near(cpk_fc_merit(p, zero, u), sqrt(0.8) / (1 + sqrt(sqrt(5.0))), 1e-14, "FCLIB merit of r = 0");
  t_near(cpk_problem_tolerance(p, 1e-8), 2e-8, 1e-22, "tolerance scaled by |q|_inf = 2");
  cpk_problem_free(p);
  p = one_contact(0, 1, 0);
  t_ok(residual_at(p, zero) == 0 && t_is_fc_solution(p, zero, 1e-12), "apex: r = 0 with tangential motion");
  cpk_problem_free(p);
}

static void test_validation(void)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL, *c = NULL;
  cpk_error err;
  double q[6] = {0}, mu[2] = {0.3, -0.1};
  cpk_matrix_alloc_dense(6, 6, &W);
  t_ok(cpk_problem_alloc_friction_cone(W, q, 4, mu, &p) == CPK_EINVAL && !p, "n not a multiple of dim refused");
  t_ok(cpk_problem_alloc_friction_cone(W, q, 3, mu, &p) == CPK_OK, "two contacts of 3");
  t_ok(cpk_problem_validate(p, &err) == CPK_EINVAL && strstr(err.message, "contact 2"),
       "negative mu rejected: %s", err.message);
  p->mu[1] = NAN;
  t_ok(cpk_problem_validate(p, &err) == CPK_EINVAL, "NaN mu rejected");
  p->mu[1] = 0.2;
  t_ok(cpk_problem_validate(p, &err) == CPK_OK, "valid problem accepted");
  t_ok(cpk_problem_copy(p, &c) == CPK_OK && c->nc == 2 && c->mu[1] == 0.2 && c->cone_dim == 3,
       "copy keeps the cone data");
  t_ok(strcmp(cpk_problem_kind_name(p->kind), "friction_cone") == 0, "kind name");
  cpk_solver *s = NULL;
  t_ok(cpk_solver_alloc(cpk_solver_lemke, p, NULL, &s, &err) == CPK_EUNSUP && !s,
       "box solvers do not take cone problems: %s", err.message);
  cpk_problem_free(c);
  cpk_problem_free(p);
  cpk_matrix_free(W);
}

static void test_fclib_sample(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/Rover1040.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  double *r = calloc(p->n, sizeof *r), *u = calloc(p->n, sizeof *u), res;
  t_ok(p->nc == 5 && p->cone_dim == 3 && p->n == 15, "Rover1040 read as 5 contacts of 3");
  cpk_problem_residual(p, r, u, &res);
  t_ok(res > 0 && !t_is_fc_solution(p, r, 1e-8), "r = 0 does not solve Rover1040 (residual %g)", res);
  free(r);
  free(u);
  cpk_problem_free(p);
}

int main(void)
{
  test_fclib_sample();
  test_projection();
  test_hand_solutions();
  test_validation();
  return t_done();
}
