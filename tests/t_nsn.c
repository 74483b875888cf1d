/* t_nsn.c: the nsn solver (Alart-Curnier semismooth Newton) on one-contact problems with hand-derived answers, random and FCLIB problems checked independently, warm starts, a singular W, limits and settings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/* A cone problem with W = w I (dense, n = dim * nc), free velocity q, one mu for all contacts. */
static cpk_problem *scaled_identity(size_t dim, size_t nc, double w, const double *q, double mu)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  double *mus = malloc(nc * sizeof *mus);
  for (size_t c = 0; mus && c < nc; c++) mus[c] = mu;
  if (mus && !cpk_matrix_alloc_dense(dim * nc, dim * nc, &W)) {
    for (size_t i = 0; i < dim * nc; i++) gsl_matrix_set(W->dense, i, i, w);
    cpk_problem_alloc_friction_cone(W, q, dim, mus, &p);
  }
  cpk_matrix_free(W);
  free(mus);
  return p;
}

/* Solve with nsn (settings s or defaults) into a fresh result; NULL on a call error. */
static cpk_result *run(const cpk_problem *p, const cpk_settings *s)
{
  cpk_result *r = NULL;
  cpk_error err;
  if (!p || cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "nsn", s, r, &err)) {
    t_diag("nsn: %s", err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* One contact, W = w I: solve and compare with the hand-derived reaction. */
static void one_contact(const char *what, size_t dim, double w, const double *q, double mu,
                        const double *expect)
{
  cpk_problem *p = scaled_identity(dim, 1, w, q, mu);
  cpk_result *r = run(p, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && max_diff(r->z, expect, dim) < 1e-9 * (1 + 1 / w) &&
           t_is_fc_solution(p, r->z, 1e-9 * fmax(1.0, w)),
       "%s (dim %zu, W = %g I): %s in %ld iterations", what, dim, w,
       r ? cpk_status_name(r->status) : "error", r ? r->iterations : -1L);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * By hand, W = I, mu = 0.5: u = r + q. Sticking: u = 0, r = -q inside the cone.
 * Sliding: u_n = 0, r_n = -q_n, r_T = -mu r_n q_T/|q_T| when |q_T| > mu r_n.
 * Separating (q_n > 0): r = 0. Apex (q_n = 0): r = 0 whatever q_T.
 */
static void test_one_contact(void)
{
  double sep[] = {1, 0.3, 0}, stick[] = {-1, 0.2, 0}, slide[] = {-1, 2, 0}, apex[] = {0, 1, 0};
  double zero[4] = {0}, r_stick[] = {1, -0.2, 0}, r_slide[] = {1, -0.5, 0};
  one_contact("separating", 3, 1, sep, 0.5, zero);
  one_contact("sticking", 3, 1, stick, 0.5, r_stick);
  one_contact("sliding", 3, 1, slide, 0.5, r_slide);
  one_contact("apex", 3, 1, apex, 0.5, zero);
  double q2[] = {-1, 2}, r2[] = {1, -0.5}, q2s[] = {-1, -0.1}, r2s[] = {1, 0.1};
  one_contact("sliding", 2, 1, q2, 0.5, r2);
  one_contact("sticking", 2, 1, q2s, 0.5, r2s);
  /* dim 4: |q_T| = 5 > mu r_n = 0.5: r_T = -0.5 (3, 0, 4)/5 */
  double q4[] = {-1, 3, 0, 4}, r4[] = {1, -0.3, 0, -0.4}, q4s[] = {-2, 0.1, 0.2, -0.3};
  double r4s[] = {2, -0.1, -0.2, 0.3};
  one_contact("sliding", 4, 1, q4, 0.5, r4);
  one_contact("sticking", 4, 1, q4s, 0.5, r4s);
  double r_frictionless[] = {1, 0, 0};
  one_contact("mu = 0", 3, 1, slide, 0.0, r_frictionless);
  /* units: W = 1e6 I and q in the same units give r = -q/1e6 on the same path */
  double big[] = {-1e6, 2e5, 0}, r_big[] = {1, -0.2, 0};
  one_contact("sticking, W in other units", 3, 1e6, big, 0.5, r_big);
  double small[] = {-1e-6, 2e-6, 0}, r_small[] = {1, -0.5, 0};
  one_contact("sliding, W in other units", 3, 1e-6, small, 0.5, r_small);
}

/* W = J J^T + eps I (nc contacts of 3 on nb bodies of 6 dofs), q and mu random. */
static cpk_problem *random_problem(gsl_rng *g, size_t nc, size_t nb, double eps)
{
  size_t n = 3 * nc, m = 6 * nb;
  double *J = calloc(n * m, sizeof *J), *q = malloc(n * sizeof *q), *mu = malloc(nc * sizeof *mu);
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  if (J && q && mu && !cpk_matrix_alloc_dense(n, n, &W)) {
    for (size_t c = 0; c < nc; c++) { /* each contact touches one or two bodies */
      size_t b1 = gsl_rng_uniform_int(g, nb), b2 = gsl_rng_uniform_int(g, nb);
      for (size_t a = 0; a < 3; a++)
        for (size_t k = 0; k < 6; k++) {
          J[(3 * c + a) * m + 6 * b1 + k] += gsl_rng_uniform(g) - 0.5;
          if (b2 != b1) J[(3 * c + a) * m + 6 * b2 + k] -= gsl_rng_uniform(g) - 0.5;
        }
      mu[c] = 0.1 + 0.9 * gsl_rng_uniform(g);
    }
    for (size_t i = 0; i < n; i++) {
      q[i] = 2.0 * gsl_rng_uniform(g) - (i % 3 == 0 ? 1.3 : 1.0);
      for (size_t j = 0; j < n; j++) {
        double s = i == j ? eps : 0.0;
        for (size_t k = 0; k < m; k++) s += J[i * m + k] * J[j * m + k];
        gsl_matrix_set(W->dense, i, j, s);
      }
    }
    cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  }
  cpk_matrix_free(W);
  free(J);
  free(q);
  free(mu);
  return p;
}

static void test_random(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed());
  int solved = 0, checked = 0, honest = 1, total = 12;
  for (int k = 0; k < total; k++) {
    size_t nc = 2 + (size_t)k * 3, nb = 1 + (size_t)k;
    cpk_problem *p = random_problem(g, nc, nb, k % 2 ? 1e-3 : 1e-8);
    cpk_result *r = run(p, NULL);
    if (r && r->status == CPK_STATUS_SOLVED) {
      solved++;
      checked += t_is_fc_solution(p, r->z, 1e-6 * cpk_problem_tolerance(p, 1.0));
    } else if (r) {
      honest &= !(r->residual <= r->tolerance);
      t_diag("random %d (%zu contacts): %s, %s", k, nc, cpk_status_name(r->status), r->message);
    }
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(solved >= total - 1, "random W = J J^T + eps I: %d of %d solved", solved, total);
  t_ok(checked == solved, "every answer claimed solved passes the independent Coulomb check");
  t_ok(honest, "an unsolved status comes with a residual above the tolerance");
  gsl_rng_free(g);
}

static void test_fclib_samples(void)
{
  const char *files[] = {"data/fclib/FrictionContact3D_1c.hdf5", "data/fclib/Rover4396.hdf5",
                         "data/fclib/FC3D_Example1_SBM.hdf5", "data/fclib/Rover1040.hdf5",
                         "data/fclib/OneObject-i1028-138.hdf5", "data/fclib/NESpheres_30_1.hdf5",
                         "data/fclib/local_problem_test.hdf5"};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
    cpk_problem *p = t_fclib_problem(files[f]);
    if (!p) {
      t_ok(1, "# SKIP %s not readable (no HDF5?)", files[f]);
      continue;
    }
    cpk_result *r = run(p, NULL);
    double u_merit = NAN;
    if (r) u_merit = cpk_fc_merit(p, r->z, r->w);
    t_ok(r && r->status == CPK_STATUS_SOLVED && u_merit <= 1e-8 &&
             t_is_fc_solution(p, r->z, 1e-6 * cpk_problem_tolerance(p, 1.0)),
         "%s (%zu contacts): %s in %ld iterations, FCLIB merit %.3g", files[f], p->nc,
         r ? cpk_status_name(r->status) : "error", r ? r->iterations : -1L, u_merit);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

static void test_warm_start(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/Rover1040.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_settings s;
  cpk_settings_default(&s);
  cpk_result *r = run(p, NULL);
  s.z0 = r ? r->z : NULL;
  cpk_result *w = r ? run(p, &s) : NULL;
  t_ok(w && w->status == CPK_STATUS_SOLVED && w->iterations == 0 &&
           max_diff(w->z, r->z, p->n) == 0.0,
       "warm start at a solution: solved in %ld iterations, point unchanged",
       w ? w->iterations : -1L);
  cpk_result_free(w);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* One solver object, two solves: the second reuses UMFPACK's symbolic analysis. */
static void test_reuse(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/OneObject-i1028-138.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_settings s;
  cpk_solver *sv = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  double sym1 = -1, sym2 = -1;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_umfpack;
  int ok = !cpk_solver_alloc(cpk_solver_nsn, p, &s, &sv, &err) && !cpk_result_alloc(p->n, &r) &&
           !cpk_solver_solve(sv, r, &err) && r->status == CPK_STATUS_SOLVED &&
           !cpk_result_get_stat(r, "symbolic_analyses", &sym1);
  for (size_t i = 0; ok && i < p->n; i++) r->z[i] *= 1.01; /* near, not at, the solution */
  ok = ok && !cpk_solver_set_warm_start(sv, r->z, NULL) && !cpk_solver_solve(sv, r, &err) &&
       r->status == CPK_STATUS_SOLVED && !cpk_result_get_stat(r, "symbolic_analyses", &sym2) &&
       t_is_fc_solution(p, r->z, 1e-6 * cpk_problem_tolerance(p, 1.0));
  t_ok(ok && sym1 == 1 && sym2 == 0,
       "second solve from a nearby warm start: solved in %ld iterations, symbolic analyses %g then %g",
       r ? r->iterations : -1L, sym1, sym2);
  cpk_result_free(r);
  cpk_solver_free(sv);
  cpk_problem_free(p);
}

/* Two identical contacts: W = [A A; A A] is singular and r is not unique (only r1 + r2 is). */
static void test_redundant_contacts(void)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  double q[] = {-1, 0.2, 0, -1, 0.2, 0}, mu[] = {0.5, 0.5};
  double A[3][3] = {{2, 0.1, 0}, {0.1, 1, 0}, {0, 0, 1}};
  cpk_matrix_alloc_dense(6, 6, &W);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) gsl_matrix_set(W->dense, i, j, A[i % 3][j % 3]);
  cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  cpk_result *r = run(p, NULL);
  if (r && r->status == CPK_STATUS_SOLVED)
    t_ok(t_is_fc_solution(p, r->z, 1e-8), "redundant contacts: solved, and the answer checks (%ld iterations)",
         r->iterations);
  else
    t_ok(r && !(r->residual <= r->tolerance),
         "redundant contacts: reported %s honestly (residual %.3g)",
         r ? cpk_status_name(r->status) : "error", r ? r->residual : NAN);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(W);
}

static void test_limits(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/local_problem_test.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_settings s;
  cpk_settings_default(&s);
  s.max_iter = 2;
  cpk_result *r = run(p, &s);
  t_ok(r && r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations <= 2,
       "iteration limit 2: %s after %ld", r ? cpk_status_name(r->status) : "error",
       r ? r->iterations : -1L);
  cpk_result_free(r);
  s.max_iter = 0;
  s.time_limit = 1e-9;
  r = run(p, &s);
  t_ok(r && r->status == CPK_STATUS_TIME_LIMIT && r->iterations <= 1,
       "time limit: %s after %ld iterations", r ? cpk_status_name(r->status) : "error",
       r ? r->iterations : -1L);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_settings(void)
{
  cpk_settings s;
  cpk_error err;
  double q[] = {-1, 2, 0};
  cpk_settings_default(&s);
  t_ok(s.nsn.rho == CPK_NSN_RHO_SPLIT && s.nsn.nonmonotone == CPK_DEFAULT_NSN_NONMONOTONE &&
           s.nsn.restart == 1 && s.nsn.restart_sweeps == CPK_DEFAULT_NSN_RESTART_SWEEPS,
       "defaults");
  s.nsn.rho = 3;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "unknown rho policy refused: %s", err.message);
  cpk_settings_default(&s);
  s.nsn.nonmonotone = CPK_MAX_NEWTON_NONMONOTONE + 1;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "memory too long refused: %s", err.message);
  cpk_settings_default(&s);
  s.nsn.restart = 2;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "restart switch 0/1: %s", err.message);
  cpk_problem *p = scaled_identity(3, 1, 4.0, q, 0.5);
  for (int rho = CPK_NSN_RHO_SPLIT; rho <= CPK_NSN_RHO_UNIT; rho++) {
    cpk_settings_default(&s);
    s.nsn.rho = rho;
    s.nsn.nonmonotone = 1;
    cpk_result *r = run(p, &s);
    t_ok(r && r->status == CPK_STATUS_SOLVED && max_diff(r->z, (double[]){0.25, -0.125, 0}, 3) < 1e-12,
         "rho policy %d, monotone search: sliding contact with W = 4 I solved", rho);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
}

/* The same problem with W dense and W sparse gives the same answer. */
static void test_sparse_dense(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed() + 7);
  cpk_problem *pd = random_problem(g, 40, 12, 1e-3), *ps = NULL;
  cpk_matrix *Ws = NULL;
  cpk_csc *csc = NULL;
  if (pd && !cpk_matrix_to_csc(pd->M, &csc) && !cpk_matrix_from_csc(csc, &Ws))
    cpk_problem_alloc_friction_cone(Ws, pd->q, 3, pd->mu, &ps);
  cpk_settings s;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_umfpack;
  cpk_result *rd = run(pd, NULL), *rs = run(ps, &s);
  t_ok(rd && rs && rd->status == CPK_STATUS_SOLVED && rs->status == CPK_STATUS_SOLVED &&
           max_diff(rd->z, rs->z, pd->n) < 1e-6 && t_is_fc_solution(ps, rs->z, 1e-6),
       "40 contacts: dense W (dense LU) and sparse W (UMFPACK) agree");
  cpk_result_free(rd);
  cpk_result_free(rs);
  cpk_problem_free(pd);
  cpk_problem_free(ps);
  cpk_matrix_free(Ws);
  cpk_csc_free(csc);
  gsl_rng_free(g);
}

/* One contact whose tangential block is anisotropic and not symmetric (the split policy's
 * rho_t is 1 / the 2 x 2 norm of its symmetric part, in closed form), sliding: solved under
 * both rho policies, the answer checked independently. */
static void test_anisotropic_tangent(void)
{
  double A[3][3] = {{2, 0.3, -0.1}, {0.3, 5, 1.2}, {-0.1, 0.8, 0.5}};
  double q[3] = {-1, 2, -3}, mu[1] = {0.6};
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_alloc_dense(3, 3, &W)) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) gsl_matrix_set(W->dense, i, j, A[i][j]);
    cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  }
  for (int policy = CPK_NSN_RHO_SPLIT; policy <= CPK_NSN_RHO_SPECTRAL; policy++) {
    cpk_settings s;
    cpk_settings_default(&s);
    s.nsn.rho = policy;
    cpk_result *r = run(p, &s);
    t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-9),
         "anisotropic tangent block, rho policy %d: solved and checked (%ld iterations)", policy,
         r ? r->iterations : -1L);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  cpk_matrix_free(W);
}

int main(void)
{
  test_anisotropic_tangent();
  test_one_contact();
  test_random();
  test_fclib_samples();
  test_warm_start();
  test_reuse();
  test_redundant_contacts();
  test_limits();
  test_settings();
  test_sparse_dense();
  return t_done();
}
