/* t_nsgs.c: the nsgs solver on friction-cone problems: hand-derived one-contact answers, random problems, FCLIB samples, warm starts, honest statuses, settings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/* A friction-cone problem with dense W (row-major, n x n), n = dim * nc. */
static cpk_problem *cone_problem(size_t dim, size_t nc, const double *W, const double *q,
                                 const double *mu, int sparse)
{
  size_t n = dim * nc;
  cpk_matrix *M = NULL, *S = NULL;
  cpk_problem *p = NULL;
  cpk_csc *csc = NULL;
  if (cpk_matrix_alloc_dense(n, n, &M)) return NULL;
  memcpy(M->dense->data, W, n * n * sizeof *W);
  if (sparse && !cpk_matrix_to_csc(M, &csc) && !cpk_matrix_from_csc(csc, &S))
    cpk_problem_alloc_friction_cone(S, q, dim, mu, &p);
  if (!sparse) cpk_problem_alloc_friction_cone(M, q, dim, mu, &p);
  cpk_csc_free(csc);
  cpk_matrix_free(S);
  cpk_matrix_free(M);
  return p;
}

/* Solve with nsgs; NULL settings means defaults with tol. */
static cpk_result *run(const cpk_problem *p, const cpk_settings *given, double tol)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  if (given) s = *given;
  else {
    cpk_settings_default(&s);
    s.tol = tol;
  }
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "nsgs", &s, r, &err)) {
    t_diag("nsgs: %s", err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static double stat_of(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0.0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* One contact: solve, compare with the hand-derived answer, check the law independently. */
static void one_contact(const char *what, size_t dim, const double *W, const double *q, double mu,
                        const double *expected)
{
  cpk_problem *p = cone_problem(dim, 1, W, q, &mu, 0);
  cpk_result *r = p ? run(p, NULL, 1e-12) : NULL;
  if (!r) {
    t_ok(0, "%s: solved", what);
    cpk_problem_free(p);
    return;
  }
  t_ok(r->status == CPK_STATUS_SOLVED && r->iterations <= 1, "%s: solved in %ld sweep(s)", what,
       r->iterations);
  t_ok(max_diff(r->z, expected, dim) < 1e-10, "%s: the hand-derived answer (off by %.2g)", what,
       max_diff(r->z, expected, dim));
  t_ok(t_is_fc_solution(p, r->z, 1e-10), "%s: the Coulomb law holds", what);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_one_contact(void)
{
  double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double sep_q[3] = {1, 0.3, -0.2}, sep[3] = {0, 0, 0};
  one_contact("dim 3 separating", 3, I3, sep_q, 0.5, sep);
  double stick_q[3] = {-1, 0.2, 0}, stick[3] = {1, -0.2, 0};
  one_contact("dim 3 sticking", 3, I3, stick_q, 0.5, stick);
  double slide_q[3] = {-1, 2, 0}, slide[3] = {1, -0.5, 0};
  one_contact("dim 3 sliding", 3, I3, slide_q, 0.5, slide);
  double apex_q[3] = {0, 1, 0}, apex[3] = {0, 0, 0}; /* u_n = 0, slipping at zero force */
  one_contact("dim 3 apex", 3, I3, apex_q, 0.5, apex);
  /* coupled W: r = (r_n, -mu r_n, 0), u_n = (2 - 0.5 mu) r_n - 1.75 = 0 gives r_n = 1, u_t = 3 > 0;
     W r = -q gives r = (1.857, -3.929, 0), outside the cone, so not sticking */
  double Wc[9] = {2, 0.5, 0, 0.5, 1, 0, 0, 0, 1};
  double coupled_q[3] = {-1.75, 3, 0}, coupled[3] = {1, -0.5, 0};
  one_contact("dim 3 sliding, coupled W", 3, Wc, coupled_q, 0.5, coupled);
  /* mu = 0: r_T = 0 and 2 r_n - 4 = 0 */
  double W0[9] = {2, 1, 0, 1, 2, 0, 0, 0, 1}, fl_q[3] = {-4, 1, 1}, fl[3] = {2, 0, 0};
  one_contact("dim 3 frictionless (mu = 0)", 3, W0, fl_q, 0.0, fl);
  /* W singular (a rigid, redundant direction): u_n = r_n + r_t - 1 = 0 and u_t = 0.1 > 0 sliding,
     so r_t = -r_n / 2 and r_n = 2 */
  double Ws[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}, sing_q[3] = {-1, 0.1, 0}, sing[3] = {2, -1, 0};
  one_contact("dim 3 sliding, singular W", 3, Ws, sing_q, 0.5, sing);
  double I2[4] = {1, 0, 0, 1}, q2[2] = {-2, 1}, slide2[2] = {2, -0.6}; /* u_t = 0.4 > 0 */
  one_contact("dim 2 sliding", 2, I2, q2, 0.3, slide2);
  double q2s[2] = {-2, -0.5}, stick2[2] = {2, 0.5};
  one_contact("dim 2 sticking", 2, I2, q2s, 0.3, stick2);
  double q2sep[2] = {0.5, 1}, sep2[2] = {0, 0};
  one_contact("dim 2 separating", 2, I2, q2sep, 0.3, sep2);
  double I4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double q4[4] = {-1, 3, 0, 4}, slide4[4] = {1, -0.3, 0, -0.4}; /* u_T = (2.7, 0, 3.6) along q_T */
  one_contact("dim 4 sliding", 4, I4, q4, 0.5, slide4);
  double q4s[4] = {-2, 0.3, 0, 0.4}, stick4[4] = {2, -0.3, 0, -0.4};
  one_contact("dim 4 sticking", 4, I4, q4s, 0.5, stick4);
  double q4sep[4] = {0.1, 1, 2, 3}, sep4[4] = {0, 0, 0, 0};
  one_contact("dim 4 separating", 4, I4, q4sep, 0.5, sep4);
}

/*
 * A nearly rank-one block (a a' + 1e-5 I, a random) with mu = 1.24: the answer slides
 * with r ~ 1e4, and Newton on the Alart-Curnier function fails from every start;
 * the search over slip directions finds it.
 */
static void test_ill_conditioned_contact(void)
{
  const double W[9] = {0.09582843168743381, 0.23598200501934541, 0.15597113427388418,
                       0.23598200501934541, 0.58118739679362275, 0.38412631414337511,
                       0.15597113427388418, 0.38412631414337511, 0.2538963796689796};
  const double q[3] = {-0.0070367851294577122, 0.57233504531905055, -0.24396732542663813};
  double mu = 1.2411022595129906;
  cpk_problem *p = cone_problem(3, 1, W, q, &mu, 0);
  cpk_result *r = p ? run(p, NULL, 1e-10) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && stat_of(r, "local_failures") == 0,
       "ill-conditioned one-contact block: solved (residual %.3g, r_n %.6g)", r ? r->residual : NAN,
       r ? r->z[0] : NAN);
  t_ok(r && t_is_fc_solution(p, r->z, 1e-8), "ill-conditioned block: the Coulomb law holds");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* W_nn = 0 with q_n < 0: no reaction helps; the contact is given up and the status says so. */
static void test_degenerate_block(void)
{
  double W[9] = {0, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu = 0.5;
  cpk_problem *p = cone_problem(3, 1, W, q, &mu, 0);
  cpk_result *r = p ? run(p, NULL, 1e-10) : NULL;
  t_ok(r && r->status == CPK_STATUS_STALLED && stat_of(r, "degenerate_contacts") == 1.0,
       "a zero normal block: stalled, the contact counted as given up (%s)", r ? r->message : "");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* W = J J^T + eps I with J (n x m), m < n: a Delassus matrix with redundant contacts. */
static cpk_problem *random_problem(gsl_rng *g, size_t dim, size_t nc, double eps, int sparse)
{
  size_t n = dim * nc, m = n / 2 + 2;
  double *J = malloc(n * m * sizeof *J), *W = calloc(n * n, sizeof *W), *q = malloc(n * sizeof *q);
  double *mu = malloc(nc * sizeof *mu);
  cpk_problem *p = NULL;
  if (J && W && q && mu) {
    for (size_t i = 0; i < n * m; i++) J[i] = 2 * gsl_rng_uniform(g) - 1;
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) {
        double v = i == j ? eps : 0.0;
        for (size_t k = 0; k < m; k++) v += J[i * m + k] * J[j * m + k];
        W[i * n + j] = v;
      }
    for (size_t c = 0; c < nc; c++) {
      mu[c] = 0.1 + 0.9 * gsl_rng_uniform(g);
      q[dim * c] = 2 * gsl_rng_uniform(g) - 1.5; /* most contacts pressed */
      for (size_t k = 1; k < dim; k++) q[dim * c + k] = 2 * gsl_rng_uniform(g) - 1;
    }
    p = cone_problem(dim, nc, W, q, mu, sparse);
  }
  free(J);
  free(W);
  free(q);
  free(mu);
  return p;
}

static void test_random(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  unsigned long seed = t_seed();
  int solved = 0, checked = 0, wrong = 0, trials = 0, same = 1;
  gsl_rng_set(g, seed);
  for (int t = 0; t < 24; t++) {
    size_t nc = 1 + (size_t)(t % 8);
    double eps = t % 3 == 0 ? 1e-3 : 0.1;
    gsl_rng *g1 = gsl_rng_clone(g);
    size_t dim = t < 16 ? 3 : 2 + (size_t)(t % 2) * 2; /* the last 8 trials: dim 2 and 4 */
    cpk_problem *pd = random_problem(g, dim, nc, eps, 0), *ps = random_problem(g1, dim, nc, eps, 1);
    gsl_rng_free(g1);
    cpk_settings st;
    cpk_settings_default(&st);
    st.tol = 1e-12;
    st.max_iter = 20000;
    cpk_result *rd = pd ? run(pd, &st, 0) : NULL, *rs = ps ? run(ps, &st, 0) : NULL;
    trials++;
    if (rd && rd->status == CPK_STATUS_SOLVED) {
      solved++;
      /* the driver's tolerance is absolute: 1e-12 max(1, |q|_inf) with |q|_inf <= 1.5; the
         check's slip direction is sensitive as 1 / |u_T|, hence the margin */
      if (t_is_fc_solution(pd, rd->z, 1e-8)) checked++;
      else t_diag("seed %lu trial %d: solved but the law fails", seed, t);
    }
    if (rd && rd->status != CPK_STATUS_SOLVED)
      t_diag("seed %lu trial %d (%zu contacts of %zu, eps %g): %s at residual %.3g after %ld "
             "sweeps, %g local failures",
             seed, t, nc, dim, eps, cpk_status_name(rd->status), rd->residual, rd->iterations,
             stat_of(rd, "local_failures"));
    if (rd && rd->status == CPK_STATUS_SOLVED && !(rd->residual <= rd->tolerance)) wrong++;
    if (!rd || !rs || rs->status != rd->status || max_diff(rd->z, rs->z, pd->n) > 1e-9) same = 0;
    cpk_result_free(rd);
    cpk_result_free(rs);
    cpk_problem_free(pd);
    cpk_problem_free(ps);
  }
  gsl_rng_free(g);
  t_ok(solved >= trials - 2, "random W = J J' + eps I: %d of %d solved to 1e-12 (seed %lu)", solved,
       trials, seed);
  t_ok(checked == solved, "every solved random problem passes the independent check (%d of %d)",
       checked, solved);
  t_ok(wrong == 0, "no solved claim above the tolerance");
  t_ok(same, "dense and CSC storage of W give the same iterates");
}

/*
 * Three contacts (a random W = J J' + 0.1 I, rounded) on which plain Gauss-Seidel
 * cycles at residual 0.53 for ever; lowering omega to 0.7 solves it.
 */
static void test_cycling(void)
{
  static const double W[81] = {
      2.50961, -0.271522, -0.741864, 0.492644, 0.137893, -1.00495, 0.132113, 0.368829, 0.313249,
      -0.271522, 2.6461, -1.28335, -1.10978, -1.00533, -1.40123, 0.178359, -0.953951, -0.201884,
      -0.741864, -1.28335, 2.72338, 0.282847, 0.130061, 1.14409, 0.0349963, 0.390016, -0.466317,
      0.492644, -1.10978, 0.282847, 1.222, 0.597908, 0.5092, 0.209506, 0.979924, 0.465777,
      0.137893, -1.00533, 0.130061, 0.597908, 0.736726, 0.613209, 0.0866482, 0.737171, -0.275103,
      -1.00495, -1.40123, 1.14409, 0.5092, 0.613209, 1.75892, -0.0468776, 0.519928, -0.46192,
      0.132113, 0.178359, 0.0349963, 0.209506, 0.0866482, -0.0468776, 0.417207, 0.452113, -0.455645,
      0.368829, -0.953951, 0.390016, 0.979924, 0.737171, 0.519928, 0.452113, 1.43611, -0.550455,
      0.313249, -0.201884, -0.466317, 0.465777, -0.275103, -0.46192, -0.455645, -0.550455, 2.71202};
  static const double q[9] = {-1.11711, -0.747637, -0.00441176, -1.13511, 0.371176,
                              0.836766, -0.636356,  -0.368653,   0.660376};
  static const double mu[3] = {0.829814, 0.168136, 0.952367};
  cpk_problem *p = cone_problem(3, 3, W, q, mu, 1);
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = 1e-12;
  s.nsgs.handoff = 0.0; /* the damping, not nsn's early finish (which solves it at sweep 100) */
  cpk_result *r = p ? run(p, &s, 0.0) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-9),
       "cycling sweeps detected and damped: solved in %ld sweeps, omega lowered %g time(s) to %g",
       r ? r->iterations : -1L, r ? stat_of(r, "dampings") : NAN, r ? stat_of(r, "omega") : NAN);
  t_ok(r && stat_of(r, "dampings") >= 1, "the damping is reported");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* FCLIB sample files: solve as tight as nsgs reaches in a unit test, check independently. */
static void fclib_file(const char *rel, double tol, long max_iter, double check_tol)
{
  cpk_problem *p = t_fclib_problem(rel);
  if (!p) {
    t_ok(1, "# SKIP %s not readable (no HDF5?)", rel);
    return;
  }
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = tol;
  s.max_iter = max_iter;
  cpk_result *r = run(p, &s, 0);
  t_ok(r && r->status == CPK_STATUS_SOLVED, "%s: solved to %g in %ld sweeps (residual %.3g)", rel,
       tol, r ? r->iterations : -1L, r ? r->residual : NAN);
  t_ok(r && t_is_fc_solution(p, r->z, check_tol), "%s: the Coulomb law holds to %g", rel,
       check_tol);
  if (r) t_diag("%s: FCLIB merit %.3g", rel, cpk_fc_merit(p, r->z, r->w));
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_fclib(void)
{
  fclib_file("data/fclib/FrictionContact3D_1c.hdf5", 1e-12, 0, 1e-10);
  fclib_file("data/fclib/Rover4396.hdf5", 1e-12, 0, 1e-10);
  fclib_file("data/fclib/Rover1040.hdf5", 1e-12, 0, 1e-10);
  fclib_file("data/fclib/FC3D_Example1_SBM.hdf5", 1e-12, 0, 1e-10);
  fclib_file("data/fclib/NESpheres_30_1.hdf5", 1e-12, 0, 1e-10);
  fclib_file("data/fclib/OneObject-i1028-138.hdf5", 1e-10, 5000, 1e-9);
  /* a stack of boxes: nsgs converges slowly, so a looser target */
  fclib_file("data/fclib/local_problem_test.hdf5", 1e-5, 20000, 1e-4);
}

/* Started at a solution, nsgs needs at most one sweep. */
static void test_warm_start(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/Rover1040.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = 1e-13;
  cpk_result *r = run(p, &s, 0), *w = NULL;
  s.tol = 1e-10;
  s.z0 = r ? r->z : NULL;
  w = r ? run(p, &s, 0) : NULL;
  t_ok(w && w->status == CPK_STATUS_SOLVED && w->iterations <= 1,
       "warm start at a solution: solved in %ld sweep(s)", w ? w->iterations : -1L);
  cpk_result_free(w);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* What nsn does: restart nsgs from a point through the registry and get a point no worse. */
static void test_restart(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/local_problem_test.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  const cpk_solver_type *T = cpk_solver_find("nsgs");
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = 1e-12;
  s.max_iter = 7;
  s.nsgs.polish = 0; /* as nsn's restarts run it: sweeps only */
  cpk_solver *solver = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int ok = T && !cpk_result_alloc(p->n, &r) && !cpk_solver_alloc(T, p, &s, &solver, &err) &&
           !cpk_solver_solve(solver, r, &err);
  t_ok(ok && r->status == CPK_STATUS_MAX_ITERATIONS && r->iterations == 7,
       "a tight target in 7 sweeps: max_iterations, never solved");
  double before = ok ? r->residual : NAN;
  double *z = ok ? malloc(p->n * sizeof *z) : NULL;
  if (z) memcpy(z, r->z, p->n * sizeof *z);
  ok = z && !cpk_solver_set_warm_start(solver, z, NULL) && !cpk_solver_solve(solver, r, &err);
  t_ok(ok && r->residual < before, "restarted from its own point: residual %.3g -> %.3g", before,
       ok ? r->residual : NAN);
  free(z);
  cpk_solver_free(solver);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static int stop_now(const cpk_iteration_info *info, void *data)
{
  (void)data;
  return info->iteration >= 3;
}

static void test_statuses(void)
{
  cpk_problem *p = t_fclib_problem("data/fclib/local_problem_test.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_settings s;
  cpk_settings_default(&s);
  s.tol = 1e-10;
  s.callback = stop_now;
  cpk_result *r = run(p, &s, 0);
  t_ok(r && r->status == CPK_STATUS_STALLED && r->iterations == 3,
       "the callback stops the solve: stalled after 3 sweeps");
  t_ok(r && stat_of(r, "sweeps") == 3 && stat_of(r, "local_failures") >= 0 &&
           stat_of(r, "merit") > 0,
       "statistics: sweeps, local failures, merit");
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_settings(void)
{
  double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu = 0.3;
  cpk_problem *p = cone_problem(3, 1, I3, q, &mu, 0);
  cpk_settings s;
  cpk_solver *solver = NULL;
  cpk_error err;
  const double omegas[] = {0.0, 2.0, -1.0, NAN};
  for (size_t k = 0; k < sizeof omegas / sizeof omegas[0]; k++) {
    cpk_settings_default(&s);
    s.nsgs.omega = omegas[k];
    t_ok(cpk_solver_alloc(cpk_solver_nsgs, p, &s, &solver, &err) == CPK_EINVAL && !solver,
         "omega %g refused: %s", omegas[k], err.message);
  }
  const double tols[] = {0.0, -1e-9, 1.0, NAN};
  for (size_t k = 0; k < sizeof tols / sizeof tols[0]; k++) {
    cpk_settings_default(&s);
    s.nsgs.local_tol = tols[k];
    t_ok(cpk_solver_alloc(cpk_solver_nsgs, p, &s, &solver, &err) == CPK_EINVAL && !solver,
         "local tolerance %g refused", tols[k]);
  }
  cpk_settings_default(&s);
  s.nsgs.local_max_iter = 0;
  t_ok(cpk_solver_alloc(cpk_solver_nsgs, p, &s, &solver, &err) == CPK_EINVAL && !solver,
       "local iteration limit 0 refused");
  cpk_settings_default(&s);
  s.nsgs.polish = 2;
  t_ok(cpk_solver_alloc(cpk_solver_nsgs, p, &s, &solver, &err) == CPK_EINVAL && !solver,
       "polish 2 refused (0 or 1)");
  cpk_settings_default(&s);
  s.nsgs.omega = 1.5;
  cpk_result *r = run(p, &s, 0);
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-8),
       "over-relaxation 1.5 still solves a one-contact problem");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix *M = NULL;
  double one = 1.0;
  cpk_matrix_alloc_dense(1, 1, &M);
  gsl_matrix_set(M->dense, 0, 0, 1.0);
  cpk_problem_alloc_lcp(M, &one, &p);
  t_ok(cpk_solver_alloc(cpk_solver_nsgs, p, NULL, &solver, &err) == CPK_EUNSUP,
       "an LCP is refused: %s", err.message);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  t_ok(cpk_solver_find("nsgs") == cpk_solver_nsgs, "registered as nsgs");
}

int main(void)
{
  test_one_contact();
  test_ill_conditioned_contact();
  test_degenerate_block();
  test_random();
  test_cycling();
  test_fclib();
  test_warm_start();
  test_restart();
  test_statuses();
  test_settings();
  return t_done();
}
