/* t_problem.c: problem construction, validation, and the natural-map residual. */
#include <math.h>
#include <string.h>
#include "testlib.h"

static cpk_matrix *diag2(double a, double b)
{
  cpk_matrix *M = NULL;
  cpk_matrix_alloc_dense(2, 2, &M);
  gsl_matrix_set(M->dense, 0, 0, a);
  gsl_matrix_set(M->dense, 1, 1, b);
  return M;
}

static void test_residual(void)
{
  cpk_matrix *M = diag2(1, 1);
  double q[] = {-1, 2}, w[2], r;
  cpk_problem *p = NULL;
  cpk_problem_alloc_lcp(M, q, &p);
  double z[] = {1, 0};
  t_ok(cpk_problem_residual(p, z, w, &r) == CPK_OK && r == 0.0, "exact solution has residual 0");
  double z2[] = {0.5, 0}; /* w = (-0.5, 2): mid(0, inf, 0.5 + 0.5) = 1, |0.5 - 1| = 0.5 */
  cpk_problem_residual(p, z2, w, &r);
  t_near(r, 0.5, 1e-15, "residual of z = (0.5, 0) is 0.5");
  double z3[] = {1, 3}; /* w2 = 5: mid(0, inf, 3 - 5) = 0, |3 - 0| = 3 */
  cpk_problem_residual(p, z3, w, &r);
  t_near(r, 3.0, 1e-15, "complementarity violation measured: 3");
  double z4[] = {-2, 0}; /* below the bound: w1 = -3, mid(0, inf, 1) = 1, |-2 - 1| = 3 */
  cpk_problem_residual(p, z4, w, &r);
  t_near(r, 3.0, 1e-15, "bound violation measured: 3");
  double znan[] = {NAN, 0};
  t_ok(cpk_problem_residual(p, znan, w, &r) != CPK_OK && isinf(r), "NaN iterate: error and infinite residual");
  t_near(cpk_problem_tolerance(p, 1e-8), 2e-8, 1e-22, "tolerance scaled by ||q||_inf = 2");
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

static void test_validate(void)
{
  cpk_matrix *M = diag2(1, 1);
  double q[] = {0, 0}, l[] = {0, 2}, u[] = {1, 1};
  cpk_problem *p = NULL;
  cpk_error err;
  t_ok(cpk_problem_alloc_affine_mcp(M, q, l, u, &p) == CPK_OK, "MCP allocated");
  t_ok(cpk_problem_validate(p, &err) == CPK_EINVAL && strstr(err.message, "variable 2"),
       "crossed bounds rejected: %s", err.message);
  p->upper[1] = 3;
  t_ok(cpk_problem_validate(p, &err) == CPK_OK, "fixed bounds accepted");
  t_ok(!cpk_problem_has_lcp_bounds(p), "not LCP bounds");
  p->q[0] = INFINITY;
  t_ok(cpk_problem_validate(p, &err) == CPK_EINVAL, "infinite q rejected");
  cpk_problem *c = NULL;
  p->q[0] = 1;
  cpk_problem_set_name(p, "box");
  cpk_problem_set_var_name(p, 1, "p_n[1]");
  t_ok(cpk_problem_copy(p, &c) == CPK_OK && strcmp(c->name, "box") == 0 &&
           strcmp(c->var_names[1], "p_n[1]") == 0 && c->var_names[0] == NULL,
       "deep copy keeps names");
  gsl_matrix_set(p->M->dense, 0, 0, 5);
  t_ok(c && gsl_matrix_get(c->M->dense, 0, 0) == 1, "copy does not share M");
  t_ok(cpk_problem_set_var_name(p, 2, "x") == CPK_EINVAL, "variable index out of range");
  cpk_problem_free(c);
  cpk_problem_free(p);
  cpk_problem_free(NULL);
  cpk_matrix_free(M);
}

int main(void)
{
  test_residual();
  test_validate();
  return t_done();
}
