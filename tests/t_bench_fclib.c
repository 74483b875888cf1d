/* t_bench_fclib.c: the bench's fclib suite on the sample files: cone and compiled instances, FCLIB's merit column checked independently, the comparison's best runs, and Siconos entries judged by cpkit's merit. */
#define _POSIX_C_SOURCE 200809L
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "testlib.h"

/* ---- a cone "solver" that answers a fixed, wrong reaction and says so ------------------------ */

/* r_c = (1, 0.3, -0.4) for every contact: inside, on and off the cones of the sample files. */
static void fixed_reaction(size_t nc, double *r)
{
  for (size_t c = 0; c < nc; c++) r[3 * c] = 1.0, r[3 * c + 1] = 0.3, r[3 * c + 2] = -0.4;
}

static int fixed_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  (void)p, (void)s, (void)err;
  *state = NULL;
  return CPK_OK;
}

static int fixed_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  (void)st, (void)s, (void)mon;
  fixed_reaction(p->nc, r->z);
  r->status = CPK_STATUS_MAX_ITERATIONS;
  r->iterations = 1;
  return CPK_OK;
}

static void fixed_free(void *st) { (void)st; }

static const cpk_solver_type fixed = {.name = "fixed",
                                      .description = "a fixed reaction",
                                      .kinds = (unsigned)CPK_KIND_FRICTION_CONE,
                                      .alloc = fixed_alloc,
                                      .solve = fixed_solve,
                                      .free = fixed_free};

/* ---- FCLIB's merit, computed here without the library's cone functions ----------------------- */

/*
 * Distance from x (3 values, normal first) to K_mu = {|x_T| <= mu x_n}: in
 * the plane of e_n and x_T, K is the wedge between the rays at angle
 * atan(mu) on each side of e_n; the nearest point is x (inside), the apex
 * (beyond the polar wedge) or the foot on the ray d = (1, mu) / |(1, mu)|.
 */
static void project_by_geometry(double mu, const double x[3], double y[3])
{
  double t = sqrt(x[1] * x[1] + x[2] * x[2]);
  double len = sqrt(1.0 + mu * mu), dn = 1.0 / len, dt = mu / len;
  double along = x[0] * dn + t * dt; /* x . d in the (n, |t|) plane */
  if (t <= mu * x[0]) {
    y[0] = x[0], y[1] = x[1], y[2] = x[2];
  } else if (along <= 0.0) {
    y[0] = y[1] = y[2] = 0.0;
  } else {
    y[0] = along * dn;
    y[1] = t > 0 ? along * dt * x[1] / t : 0.0;
    y[2] = t > 0 ? along * dt * x[2] / t : 0.0;
  }
}

static double merit_by_hand(const cpk_problem *p, const double *r)
{
  size_t n = p->n;
  double sum = 0.0, qq = 0.0, *u = malloc(n * sizeof *u);
  if (!u) return NAN;
  for (size_t i = 0; i < n; i++) {
    u[i] = p->q[i];
    for (size_t j = 0; j < n; j++) u[i] += cpk_matrix_get(p->M, i, j) * r[j];
    qq += p->q[i] * p->q[i];
  }
  for (size_t c = 0; c < p->nc; c++) {
    const double *rc = r + 3 * c, *uc = u + 3 * c;
    double mu = p->mu[c], x[3], y[3];
    double slip = sqrt(uc[1] * uc[1] + uc[2] * uc[2]);
    x[0] = rc[0] - (uc[0] + mu * slip), x[1] = rc[1] - uc[1], x[2] = rc[2] - uc[2];
    project_by_geometry(mu, x, y);
    for (int d = 0; d < 3; d++) sum += (rc[d] - y[d]) * (rc[d] - y[d]);
  }
  free(u);
  return sqrt(sum) / (1.0 + sqrt(sqrt(qq)));
}

/* ---- helpers --------------------------------------------------------------------------------- */

static const cpk_bench_record *find(const cpk_bench_record *r, size_t m, const char *problem_end,
                                    const char *solver)
{
  size_t le = strlen(problem_end);
  for (size_t k = 0; k < m; k++) {
    size_t lp = strlen(r[k].problem);
    if (lp >= le && strcmp(r[k].problem + lp - le, problem_end) == 0 &&
        strcmp(r[k].solver, solver) == 0)
      return &r[k];
  }
  return NULL;
}

static int run_job(cpk_bench_suite *s, const cpk_solver_type *const *solvers, size_t ns,
                   cpk_bench_record **r, size_t *m)
{
  cpk_bench_job job;
  cpk_bench_tally tally;
  memset(&job, 0, sizeof job);
  job.suite = s;
  job.solvers = solvers;
  job.nsolvers = ns;
  cpk_bench_options_default(&job.options);
  job.options.repeat = 1;
  job.options.time_limit = 20.0;
  return cpk_bench_main(&job, r, m, &tally, NULL);
}

/* ---- the suite ------------------------------------------------------------------------------- */

static void test_suite(void)
{
  cpk_bench_suite s = {NULL, 0, 0};
  size_t cone = 0, pc = 0, poly = 0;
  int rc = cpk_bench_suite_add(&s, "fclib", NULL);
  t_ok(rc == CPK_OK, "the fclib suite is a suite name");
  for (size_t k = 0; k < s.count; k++) {
    cone += strcmp(s.items[k].family, "fclib-cone") == 0;
    pc += strcmp(s.items[k].family, "fclib-point-coulomb") == 0;
    poly += strcmp(s.items[k].family, "fclib-polyhedral") == 0;
  }
  t_ok(s.count == 21 && cone == 7 && pc == 7 && poly == 7,
       "7 sample files, each as a cone problem and compiled by two models (%zu instances)",
       s.count);
  cpk_bench_suite_clear(&s);
}

/* The merit column of a cone run and of a compiled run, against the merit computed here. */
static void test_merit_column(void)
{
  cpk_bench_suite s = {NULL, 0, 0};
  const cpk_solver_type *solvers[] = {&fixed, cpk_solver_ipm};
  cpk_bench_record *r = NULL;
  size_t m = 0;
  cpk_problem *p = t_fclib_problem("data/fclib/Rover4396.hdf5");
  int rc = cpk_bench_suite_add(&s, t_srcpath("data/fclib/Rover4396.hdf5"), NULL);
  if (!rc) rc = run_job(&s, solvers, 2, &r, &m);
  t_ok(rc == CPK_OK && p && m == 3, "Rover4396: fixed on the cone, ipm on two models (%zu runs)",
       m);
  const cpk_bench_record *fx = find(r, m, ":cone", "fixed");
  double *z = p ? malloc(p->n * sizeof *z) : NULL, *u = p ? malloc(p->n * sizeof *u) : NULL;
  if (fx && z && u) {
    fixed_reaction(p->nc, z);
    double hand = merit_by_hand(p, z);
    t_ok(hand > 1e-3, "the fixed reaction is far from a solution (merit %.3g)", hand);
    t_near(fx->merit, hand, 1e-12 * (1 + hand), "cone run: the merit column is FCLIB's merit");
    cpk_problem_eval(p, z, u);
    t_ok(fx->merit == cpk_fc_merit(p, z, u), "and it is the library's cpk_fc_merit, to the bit");
    t_ok(fx->status == CPK_STATUS_MAX_ITERATIONS && fx->residual > 1e-3,
         "its status and the parent's cone residual %.3g", fx->residual);
  } else
    t_ok(0, "a record of the fixed solver on Rover4396:cone");
  const cpk_bench_record *ip = find(r, m, ":polyhedral", "ipm");
  t_ok(ip && isfinite(ip->merit) && ip->merit > 1e-3,
       "compiled route: a polyhedral answer has a finite merit of its approximation (%.3g)",
       ip ? ip->merit : NAN);
  free(z), free(u), free(r);
  cpk_problem_free(p);
  cpk_bench_suite_clear(&s);
}

/* The comparison picks, per file and side, the lowest merit class, then the fastest. */
static void test_best(void)
{
  cpk_bench_record r[4];
  memset(r, 0, sizeof r);
  const char *names[4][2] = {{"d/a.hdf5:cone", "nsgs"},
                             {"d/a.hdf5:point-coulomb", "ipm"},
                             {"d/a.hdf5:cone", "siconos-nsgs"},
                             {"d/b.hdf5:cone", "nsgs"}};
  double merit[4] = {1e-9, 1e-12, 1e-7, 1e-10}, time[4] = {2.0, 3.0, 0.1, 0.5};
  for (int k = 0; k < 4; k++) {
    snprintf(r[k].problem, sizeof r[k].problem, "%s", names[k][0]);
    snprintf(r[k].solver, sizeof r[k].solver, "%s", names[k][1]);
    snprintf(r[k].family, sizeof r[k].family, "fclib-x");
    r[k].merit = merit[k], r[k].time_s = time[k];
  }
  const cpk_bench_record *b;
  cpk_bench_fclib_best(r, 4, "d/a.hdf5:polyhedral", 0, &b);
  t_ok(b == &r[0], "cpkit side of a.hdf5: both at <= 1e-8, the faster one");
  cpk_bench_fclib_best(r, 4, "d/a.hdf5", 1, &b);
  t_ok(b == &r[2], "Siconos side of a.hdf5: its only run");
  cpk_bench_fclib_best(r, 4, "d/b.hdf5", 1, &b);
  t_ok(b == NULL, "no Siconos run on b.hdf5");
  r[0].merit = 1e-5;
  cpk_bench_fclib_best(r, 4, "d/a.hdf5", 0, &b);
  t_ok(b == &r[1], "a slower run at 1e-12 beats a faster one at 1e-5");
  cpk_bench_record out[4];
  size_t m = cpk_bench_fclib_by_file(r, 4, 1e-8, out);
  t_ok(m == 4 && strcmp(out[0].problem, "d/a.hdf5") == 0 && strcmp(out[3].problem, "d/b.hdf5") == 0,
       "profiles by file: one record per (file, solver), named by the file (%zu)", m);
  t_ok(m == 4 && out[0].status == CPK_STATUS_STALLED && out[1].status == CPK_STATUS_SOLVED &&
           out[2].status == CPK_STATUS_STALLED && out[3].status == CPK_STATUS_SOLVED,
       "a success there is a merit <= 1e-8 (1e-5, 1e-12, 1e-7, 1e-10)");
}

/* ---- Siconos --------------------------------------------------------------------------------- */

#ifdef HAVE_SICONOS
/*
 * Siconos Numerics 4.4's solver_options_delete leaves the two option blocks
 * solver_options_create allocated for NSGS (its own leak). The harness's
 * children end with _exit; the in-process solve below is checked under
 * LeakSanitizer, which reads its suppressions from this hook.
 */
const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
  return "leak:libsiconos_numerics.so\n";
}

/* Siconos' answer, solved in this process, checked by the independent Coulomb-law test. */
static void check_in_process(const cpk_solver_type *T, const cpk_problem *p, double merit)
{
  cpk_result *res = NULL;
  double *u = malloc(p->n * sizeof *u);
  cpk_solver *sv = NULL;
  int rc = u ? cpk_result_alloc(p->n, &res) : CPK_ENOMEM;
  if (!rc) rc = cpk_solver_alloc(T, p, NULL, &sv, NULL);
  if (!rc) rc = cpk_solver_solve(sv, res, NULL);
  t_ok(rc == CPK_OK && t_is_fc_solution(p, res->z, 1e-8),
       "%s: its reaction satisfies the Coulomb law (independent check)", T->name);
  if (!rc && !cpk_problem_eval(p, res->z, u))
    t_near(merit, cpk_fc_merit(p, res->z, u), 1e-15,
           "%s: the bench's merit is cpk_fc_merit of its reaction", T->name);
  cpk_solver_free(sv);
  cpk_result_free(res);
  free(u);
}

static void test_siconos(void)
{
  const cpk_solver_type *T = cpk_bench_solver_find("siconos-nsgs");
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_bench_record *r = NULL;
  size_t m = 0;
  t_ok(T != NULL && cpk_bench_extra_solver_count() >= 3, "Siconos entries offered");
  if (!T) return;
  int rc = cpk_bench_suite_add(&s, t_srcpath("data/fclib/FrictionContact3D_1c.hdf5"), NULL);
  if (!rc) rc = run_job(&s, &T, 1, &r, &m);
  const cpk_bench_record *rec = find(r, m, ":cone", "siconos-nsgs");
  t_ok(rc == CPK_OK && m == 1 && rec, "siconos-nsgs runs on the cone instance only");
  t_ok(rec && rec->status == CPK_STATUS_SOLVED && rec->merit <= 1e-8,
       "siconos-nsgs: solved, FCLIB merit %.3g", rec ? rec->merit : NAN);
  cpk_problem *p = t_fclib_problem("data/fclib/FrictionContact3D_1c.hdf5");
  if (p && rec) check_in_process(T, p, rec->merit);
  cpk_problem_free(p);
  free(r);
  cpk_bench_suite_clear(&s);
}
#else
static void test_siconos(void)
{
  t_ok(cpk_bench_extra_solver_count() == 0 && cpk_bench_solver_find("siconos-nsgs") == NULL,
       "built without Siconos: no Siconos entries");
}
#endif

int main(void)
{
#ifdef HAVE_HDF5
  const int have_hdf5 = 1;
#else
  const int have_hdf5 = 0;
#endif
  if (have_hdf5) {
    setenv("CPK_FCLIB_DIR", t_srcpath("data/fclib"), 1);
    test_suite();
    test_merit_column();
    test_siconos();
  } else
    t_diag("built without HDF5: the FCLIB files cannot be read");
  test_best();
  return t_done();
}
