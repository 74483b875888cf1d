/* t_fcprox.c: the fcprox solver (proximal point around nsn) on a box standing on 8 redundant contact points (W of rank 6 in 24 unknowns), answers checked by hand-derived physics and independently; settings and re-solves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define NC 8 /* contact points: the 4 corners and the 4 edge midpoints of the box's bottom face */

/*
 * A box of mass m and inertia diag(I) whose centre is at height h over the contact plane,
 * contact normal z (unknowns n, t, o = z, x, y per contact). Row d of contact c of H maps
 * the body velocity (v, omega) to the point's velocity along d: [d, p_c x d]. W = H M^-1 H^T
 * (rank 6 at most), q = H v_free. Stored as CSC (its dense pattern) for the sparse path.
 */
static cpk_problem *standing_box(const double vfree[6], double mu, double Hm[3 * NC][6])
{
  const double m = 2.0, I[3] = {0.4, 0.7, 0.9}, h = 0.5;
  const double px[NC] = {-1, 1, 1, -1, 0, 1, 0, -1}, py[NC] = {-0.5, -0.5, 0.5, 0.5, -0.5, 0, 0.5, 0};
  const double minv[6] = {1 / m, 1 / m, 1 / m, 1 / I[0], 1 / I[1], 1 / I[2]};
  double dirs[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int c = 0; c < NC; c++)
    for (int k = 0; k < 3; k++) {
      double *row = Hm[3 * c + k], *d = dirs[k], p[3] = {px[c], py[c], -h};
      row[0] = d[0], row[1] = d[1], row[2] = d[2];
      row[3] = p[1] * d[2] - p[2] * d[1];
      row[4] = p[2] * d[0] - p[0] * d[2];
      row[5] = p[0] * d[1] - p[1] * d[0];
    }
  double W[3 * NC * 3 * NC], q[3 * NC], mus[NC];
  for (int i = 0; i < 3 * NC; i++) {
    q[i] = 0.0;
    for (int a = 0; a < 6; a++) q[i] += Hm[i][a] * vfree[a];
    for (int j = 0; j < 3 * NC; j++) {
      double s = 0.0;
      for (int a = 0; a < 6; a++) s += Hm[i][a] * minv[a] * Hm[j][a];
      W[i * 3 * NC + j] = s;
    }
  }
  for (int c = 0; c < NC; c++) mus[c] = mu;
  cpk_matrix *Wd = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(3 * NC, 3 * NC, W, 3 * NC, 0, &Wd)) {
    cpk_csc *csc = NULL;
    if (!cpk_matrix_to_csc(Wd, &csc)) {
      cpk_matrix *Wc = NULL;
      if (!cpk_matrix_from_csc(csc, &Wc)) cpk_problem_alloc_friction_cone(Wc, q, 3, mus, &p);
      cpk_matrix_free(Wc);
    }
    cpk_csc_free(csc);
  }
  cpk_matrix_free(Wd);
  return p;
}

/*
 * The box sticks when its push is inside the friction limit: then u = W r + q = 0 at every
 * contact, and the impulses stop the body: H^T r = -M v_free (6 equations), whatever the
 * split of r among the 8 contacts. Both checked here from the box's data, with the cone test.
 */
static int box_stands(const cpk_problem *p, const double *r, double Hm[3 * NC][6],
                      const double vfree[6], double *worst)
{
  const double mass[6] = {2.0, 2.0, 2.0, 0.4, 0.7, 0.9};
  double *u = malloc(p->n * sizeof *u), e = 0.0;
  if (!u) return 0;
  cpk_problem_eval(p, r, u);
  for (size_t i = 0; i < p->n; i++) e = fmax(e, fabs(u[i]));
  for (int a = 0; a < 6; a++) {
    double f = 0.0;
    for (int i = 0; i < 3 * NC; i++) f += Hm[i][a] * r[i];
    e = fmax(e, fabs(f + mass[a] * vfree[a]));
  }
  free(u);
  *worst = e;
  return e < 1e-6 && t_is_fc_solution(p, r, 1e-7);
}

static void test_standing_box(void)
{
  double Hm[3 * NC][6], vfree[6] = {0.1, -0.05, -1.0, 0.0, 0.0, 0.02}, worst = -1;
  cpk_problem *p = standing_box(vfree, 0.5, Hm);
  cpk_settings s;
  cpk_solver *sv = NULL;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_umfpack;
  int ok = p && !cpk_solver_alloc(cpk_solver_fcprox, p, &s, &sv, NULL) &&
           !cpk_result_alloc(p->n, &r) && !cpk_solver_solve(sv, r, NULL);
  double outer = -1;
  if (ok) cpk_result_get_stat(r, "outer_iterations", &outer);
  int stands = ok && box_stands(p, r->z, Hm, vfree, &worst);
  t_ok(ok && r->status == CPK_STATUS_SOLVED && r->residual <= cpk_problem_tolerance(p, s.tol) &&
           stands,
       "box on 8 redundant contacts: solved, u = 0 and H^T r = -M v_free (worst %.2g; %ld "
       "Newton iterations, %g proximal steps)",
       worst, r ? r->iterations : -1L, outer);
  /* a re-solve with another push (q updated in place) follows the problem */
  double v2[6] = {-0.12, 0.08, -2.0, 0.0, 0.0, -0.03}, H2[3 * NC][6];
  cpk_problem *p2 = standing_box(v2, 0.5, H2);
  ok = ok && p2 && !cpk_problem_update_q(p, p2->q) && !cpk_solver_solve(sv, r, NULL);
  stands = ok && box_stands(p, r->z, H2, v2, &worst);
  t_ok(ok && r->status == CPK_STATUS_SOLVED && stands,
       "re-solve after cpk_problem_update_q: solved and the box stands (worst %.2g)", worst);
  cpk_problem_free(p2);
  cpk_result_free(r);
  cpk_solver_free(sv);
  cpk_problem_free(p);
}

/* A push beyond the friction limit (mu |v_z| < |v_x|): the box slides, u != 0; the answer passes the cone check. */
static void test_sliding_box(void)
{
  double Hm[3 * NC][6], vfree[6] = {2.0, 0.0, -0.5, 0.0, 0.0, 0.0};
  cpk_problem *p = standing_box(vfree, 0.3, Hm);
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  int ok = p && !cpk_result_alloc(p->n, &r) && !cpk_solve(p, "fcprox", &s, r, NULL);
  double umax = 0.0;
  for (size_t i = 0; ok && i < p->n; i++) umax = fmax(umax, fabs(r->w[i]));
  t_ok(ok && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-7) && umax > 1e-2,
       "sliding box: solved, cone check, and it slides (|u|inf %.3g)", umax);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* Bad settings are refused; a tiny iteration budget never reports solved when unsolved. */
static void test_settings_and_limits(void)
{
  double Hm[3 * NC][6], vfree[6] = {0.1, -0.05, -1.0, 0.0, 0.0, 0.02};
  cpk_problem *p = standing_box(vfree, 0.5, Hm);
  cpk_settings s;
  cpk_solver *sv = NULL;
  cpk_settings_default(&s);
  s.fcprox.sigma = 0.0;
  t_ok(p && cpk_solver_alloc(cpk_solver_fcprox, p, &s, &sv, NULL) == CPK_EINVAL,
       "sigma 0 refused");
  cpk_settings_default(&s);
  s.fcprox.inner_max_iter = 0;
  t_ok(p && cpk_solver_alloc(cpk_solver_fcprox, p, &s, &sv, NULL) == CPK_EINVAL,
       "inner_max_iter 0 refused");
  cpk_settings_default(&s);
  s.max_iter = 1;
  cpk_result *r = NULL;
  int ok = p && !cpk_result_alloc(p->n, &r) && !cpk_solve(p, "fcprox", &s, r, NULL);
  int honest = ok && (r->status != CPK_STATUS_SOLVED ||
                      cpk_fc_residual(p, r->z, r->w) <= cpk_problem_tolerance(p, s.tol));
  t_ok(honest, "one iteration: status %s agrees with the residual %.3g",
       ok ? cpk_status_name(r->status) : "?", ok ? r->residual : -1.0);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_standing_box();
  test_sliding_box();
  test_settings_and_limits();
  return t_done();
}
