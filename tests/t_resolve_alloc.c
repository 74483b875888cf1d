/* t_resolve_alloc.c: re-solves of a bound solver after updates make no heap allocation (counted by malloc/calloc/realloc wrappers in this program), answers checked here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "physics_mlcp.h"
#include "resolve_testlib.h"
#include "testlib.h"
#include "alloc_count.h"

#ifndef ALLOC_COUNT_NONE
enum { UPD_Q = 1, UPD_VALUES = 2, UPD_BOUNDS = 4 };

/* Next data of round k, prepared before counting: q, M and lower perturbed around the originals. */
static void prepare(const cpk_problem *p, const double *q0, const double *m0, const double *l0, int k,
                    double *q, double *m, double *l)
{
  size_t n = p->n;
  double eps = k == 0 ? 1e-7 : 0.05 * (double)(k % 3 + 1);
  for (size_t i = 0; i < n; i++) {
    q[i] = q0[i] * (1.0 + eps * (i % 2 ? 1.0 : -1.0));
    l[i] = isfinite(l0[i]) && l0[i] < 0.0 ? l0[i] * (1.0 - eps) : l0[i];
    for (size_t j = 0; j < n; j++) m[i * n + j] = m0[i * n + j] * (i == j ? 1.0 + eps : 1.0 - eps);
  }
}

static void apply(cpk_problem *p, int what, const double *q, const double *m, const double *l, int *rc)
{
  if (what & UPD_Q) *rc |= cpk_problem_update_q(p, q);
  if (what & UPD_VALUES) *rc |= cpk_problem_update_matrix_dense(p, m, p->n, 0);
  if (what & UPD_BOUNDS) *rc |= cpk_problem_update_bounds(p, l, NULL);
}

static const char *what_name(int what)
{
  static const char *names[] = {"nothing", "q", "M values", "q, M values", "bounds", "q, bounds",
                                "M values, bounds", "q, M values, bounds"};
  return names[what & 7];
}

static void run_solver(const cpk_solver_type *T)
{
  cpk_problem *p = NULL;
  cpk_physics_mlcp(16, 6, 2024, &p);
  size_t n = p->n;
  double *q0 = malloc(n * sizeof *q0), *l0 = malloc(n * sizeof *l0), *m0 = malloc(n * n * sizeof *m0);
  double *q = malloc(n * sizeof *q), *l = malloc(n * sizeof *l), *m = malloc(n * n * sizeof *m);
  memcpy(q0, p->q, n * sizeof *q0);
  memcpy(l0, p->lower, n * sizeof *l0);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) m0[i * n + j] = cpk_matrix_get(p->M, i, j);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  alloc_count_start();
  cpk_result_alloc(n, &r);
  int rc = cpk_solver_alloc(T, p, NULL, &s, &err);
  if (!rc) rc = cpk_solver_solve(s, r, &err);
  long first = alloc_count_stop();
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && resolve_natural_residual(p, r->z) <= 1e-7,
       "%s: first solve of the 48-variable MLCP (%ld allocations counted with alloc)", T->name, first);
  const int rounds[] = {UPD_Q, UPD_Q, UPD_VALUES, UPD_BOUNDS, UPD_Q | UPD_VALUES | UPD_BOUNDS, 0, UPD_VALUES};
  for (int k = 0; k < (int)(sizeof rounds / sizeof rounds[0]); k++) {
    prepare(p, q0, m0, l0, k, q, m, l);
    int urc = 0;
    alloc_count_start();
    apply(p, rounds[k], q, m, l, &urc);
    rc = cpk_solver_solve(s, r, &err);
    long made = alloc_count_stop();
    double res = rc ? INFINITY : resolve_natural_residual(p, r->z);
    t_ok(urc == 0 && rc == CPK_OK && r->status == CPK_STATUS_SOLVED && res <= 1e-7 && made == 0,
         "%s: update (%s) + re-solve %d: %ld allocations, %s in %ld iterations, residual %.2g "
         "(own loop)", T->name, what_name(rounds[k]), k, made, cpk_status_name(r->status),
         r->iterations, res);
  }
  alloc_count_start();
  rc = cpk_solver_set_warm_start(s, q0, NULL); /* arrays made here */
  long first_ws = alloc_count_stop();
  alloc_count_start();
  rc |= cpk_solver_set_warm_start(s, l0, NULL);
  rc |= cpk_solver_set_warm_start(s, NULL, NULL);
  long again_ws = alloc_count_stop();
  t_ok(rc == CPK_OK && again_ws == 0, "%s: set_warm_start once its array exists: %ld allocations "
       "(%ld the first time)", T->name, again_ws, first_ws);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
  free(q0), free(l0), free(m0), free(q), free(l), free(m);
}

/*
 * A cone solver on a friction-cone problem: re-solves after q, W and mu updates allocate
 * nothing. With settings st (NULL: defaults) whose path runs a helper, `path` names a
 * statistic that must be positive after every solve, so the helper's path is the one counted.
 */
static void run_cone(const cpk_solver_type *T, const cpk_settings *st, const char *path)
{
  cpk_problem *p = resolve_small_cone();
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_result_alloc(p->n, &r);
  int rc = cpk_solver_alloc(T, p, st, &s, NULL);
  if (!rc) rc = cpk_solver_solve(s, r, NULL);
  double on_path = path ? 0.0 : 1.0;
  if (!rc && path) cpk_result_get_stat(r, path, &on_path);
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-6) &&
           on_path > 0.0,
       "%s%s: first solve of the cone problem", T->name, path ? " (with its finish)" : "");
  for (int k = 1; k <= 3; k++) {
    double q[9], w[81], mu[3];
    for (size_t i = 0; i < 9; i++) q[i] = p->q[i] * (i % 2 ? 1.2 : 0.9);
    for (size_t i = 0; i < 9; i++)
      for (size_t j = 0; j < 9; j++) w[i * 9 + j] = cpk_matrix_get(p->M, i, j) * (i == j ? 1.1 : 0.9);
    for (size_t c = 0; c < 3; c++) mu[c] = p->mu[c] * 0.8;
    alloc_count_start();
    int urc = k == 1 ? cpk_problem_update_q(p, q)
              : k == 2 ? cpk_problem_update_matrix_values(p, w) : cpk_problem_update_mu(p, mu);
    rc = cpk_solver_solve(s, r, NULL);
    long made = alloc_count_stop();
    on_path = path ? 0.0 : 1.0;
    if (!rc && path) cpk_result_get_stat(r, path, &on_path);
    t_ok(urc == 0 && rc == CPK_OK && r->status == CPK_STATUS_SOLVED && made == 0 &&
             t_is_fc_solution(p, r->z, 1e-6) && on_path > 0.0,
         "%s%s: update (%s) + re-solve: %ld allocations, solution checked independently", T->name,
         path ? " (with its finish)" : "", k == 1 ? "q" : k == 2 ? "W values" : "mu", made);
  }
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * enum on a small mixed problem (n = 6: two free, two boxed, two sign-constrained
 * unknowns; M = A A^T + I): re-solves after q, M-value and bound updates allocate
 * nothing, its list of solutions included (one solution: M is positive definite).
 */
static void run_enum(void)
{
  enum { N = 6 };
  double M[N * N], q[N], lo[N], hi[N];
  for (size_t i = 0; i < N; i++) {
    q[i] = cos(3.0 * (double)i) - 0.3;
    lo[i] = i < 2 ? -INFINITY : (i < 4 ? -0.5 : 0.0);
    hi[i] = i < 2 ? INFINITY : (i < 4 ? 0.5 : INFINITY);
    for (size_t j = 0; j < N; j++) {
      M[i * N + j] = i == j ? 1.0 : 0.0;
      for (size_t k = 0; k < N; k++) M[i * N + j] += sin((double)(i * N + k + 1)) * sin((double)(j * N + k + 1));
    }
  }
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  int rc = cpk_matrix_from_dense_array(N, N, M, N, 0, &Mm);
  if (!rc) rc = cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  if (!rc) rc = cpk_result_alloc(N, &r);
  if (!rc) rc = cpk_solver_alloc(cpk_solver_enum, p, NULL, &s, NULL);
  if (!rc) rc = cpk_solver_solve(s, r, NULL);
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 &&
           resolve_natural_residual(p, r->z) <= 1e-9,
       "enum: first solve of the 6-variable mixed problem");
  for (int k = 1; !rc && k <= 4; k++) { /* round 4 frees unknown 4: its states change */
    for (size_t i = 0; i < N; i++) q[i] *= 1.0 + 0.1 * (double)k * (i % 2 ? 1.0 : -1.0);
    for (size_t i = 0; i < N * N; i++) M[i] *= i % (N + 1) == 0 ? 1.1 : 0.95;
    for (size_t i = 2; i < 4; i++) lo[i] = -0.5 + 0.1 * (double)k, hi[i] = 0.5 + 0.1 * (double)k;
    lo[4] = k == 4 ? -INFINITY : 0.0;
    alloc_count_start();
    int urc = k == 1 ? cpk_problem_update_q(p, q)
              : k == 2 ? cpk_problem_update_matrix_dense(p, M, N, 0) : cpk_problem_update_bounds(p, lo, hi);
    rc = cpk_solver_solve(s, r, NULL);
    long made = alloc_count_stop();
    t_ok(urc == 0 && !rc && r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 && made == 0 &&
             resolve_natural_residual(p, r->z) <= 1e-9,
         "enum: update (%s) + re-solve: %ld allocations, residual checked here",
         k == 1 ? "q" : k == 2 ? "M values" : k == 3 ? "bounds" : "a bound to -inf", made);
  }
  cpk_matrix_free(Mm);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * lemke on a dense problem with friction-index rows (4 contacts: a normal and two friction
 * rows each, M = J J^T + 0.1 I): re-solves after q and fcoef updates, answered by the
 * principal pivoting in the problem's own unknowns (lemke_box.c), allocate nothing.
 */
static void run_findex_lemke(void)
{
  enum { N = 12, NV = 8 };
  double J[N * NV], M[N * N], q[N], lo[N], hi[N], fc[N];
  int fi[N];
  for (size_t a = 0; a < N; a++) {
    for (size_t k = 0; k < NV; k++) J[a * NV + k] = sin((double)(a * NV + k + 1));
    fi[a] = a % 3 ? (int)(a - a % 3) : -1;
    fc[a] = a % 3 ? 0.4 : 0.0;
    lo[a] = a % 3 ? -INFINITY : 0.0;
    hi[a] = INFINITY;
    q[a] = a % 3 ? 0.05 * cos((double)a) : -0.1 - 0.01 * (double)a;
  }
  for (size_t a = 0; a < N; a++)
    for (size_t b = 0; b < N; b++) {
      M[a * N + b] = a == b ? 0.1 : 0.0;
      for (size_t k = 0; k < NV; k++) M[a * N + b] += J[a * NV + k] * J[b * NV + k];
    }
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int rc = cpk_matrix_from_dense_array(N, N, M, N, 0, &Mm);
  if (!rc) rc = cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  if (!rc) rc = cpk_problem_set_friction_index(p, fi, fc);
  if (!rc) rc = cpk_result_alloc(N, &r);
  if (!rc) rc = cpk_solver_alloc(cpk_solver_lemke, p, NULL, &s, &err);
  if (!rc) rc = cpk_solver_solve(s, r, &err);
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && resolve_natural_residual(p, r->z) <= 1e-7,
       "lemke, friction-index rows: first solve");
  for (int k = 0; !rc && k < 4; k++) {
    for (size_t a = 0; a < N; a++) q[a] *= 1.0 + 1e-4 * (double)(k + 1);
    for (size_t a = 0; a < N; a++) fc[a] = a % 3 ? 0.4 + 0.01 * (double)k : 0.0;
    alloc_count_start();
    int urc = cpk_problem_update_q(p, q) | cpk_problem_update_fcoef(p, fc);
    rc = cpk_solver_solve(s, r, &err);
    long made = alloc_count_stop();
    double res = rc ? INFINITY : resolve_natural_residual(p, r->z), box = -1.0;
    if (!rc) cpk_result_get_stat(r, "box_pivots", &box);
    t_ok(urc == 0 && !rc && r->status == CPK_STATUS_SOLVED && res <= 1e-7 && made == 0 && box >= 0.0,
         "lemke, friction-index rows: update (q, fcoef) + re-solve %d: %ld allocations, %ld moves "
         "in the problem's unknowns, residual %.2g (own loop)", k, made, r->iterations, res);
  }
  cpk_matrix_free(Mm);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* A ball resting on the ground, one contact, compiled in the cone form: cpk_varmap_check
 * (the stepper's check every step) allocates nothing, and its verdicts are the hand-derived
 * ones: P_n = m g h holds the ball (U = 0), no impulse lets it sink (U_n = -g h). Then the
 * system is reset and refilled as the stepper does every step: no allocation either. */
static void run_physics_check(void)
{
  double m = 2.0, h = 1e-3, g = 9.81, vals[6] = {m, m, m, 0.4, 0.4, 0.4}, v[6] = {0};
  double k[6] = {0, 0, -m * g, 0, 0, 0}, r[3] = {0, 0, -0.5}, n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  double wn[6], wt[6], wo[6], wr[6];
  cpk_int ti[6] = {0, 1, 2, 3, 4, 5};
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  cpk_contact_params par;
  cpk_contact_params_default(&par);
  par.mu = 0.5;
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_CONE;
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  int rc = cpk_csc_from_triplets(6, 6, 6, ti, ti, vals, &M) ||
           cpk_contact_system_alloc_body(6, M, v, k, h, &s, NULL) ||
           cpk_rigid_contact_wrenches(r, n, t, wn, wt, wo, wr) ||
           cpk_contact_system_add_contact(s, &par, 6, ti, wn, wt, wo, wr, NULL) ||
           cpk_compile(s, "point-coulomb", &o, &p, &map, NULL);
  if (t_ok(!rc && p->n == 3, "ball on the ground: compiled in the cone form (n = 3)")) {
    double held[3] = {m * g * h, 0, 0}, none[3] = {0, 0, 0};
    cpk_physics_check c1, c2, c3;
    alloc_count_start();
    int crc = cpk_varmap_check(map, held, 0, &c1, NULL) | cpk_varmap_check(map, none, 0, &c2, NULL) |
              cpk_varmap_check(map, held, 0, &c3, NULL);
    long made = alloc_count_stop();
    t_ok(crc == 0 && made == 0, "physical check: 3 checks, %ld allocations", made);
    t_ok(c1.ok && c1.normal <= 1e-12 && c1.cone == 0.0, "P_n = m g h holds the ball: passes (%g)",
         c1.normal);
    t_ok(!c2.ok && c2.contact == 0 && c2.normal > 0.5, "no impulse: the ball sinks, fails (%g)",
         c2.normal);
    t_ok(memcmp(&c1, &c3, sizeof c1) == 0, "the same z checked again: the same figures");
    k[2] = -2.0 * m * g; /* the stepper's next system: new values, the same sizes */
    alloc_count_start();
    rc = cpk_contact_system_reset_body(s, 6, M, v, k, h, NULL) ||
         cpk_contact_system_add_contact(s, &par, 6, ti, wn, wt, wo, wr, NULL);
    made = alloc_count_stop();
    t_ok(!rc && made == 0 && s->nc == 1 && s->k[2] == k[2],
         "contact system reset and refilled: %ld allocations", made);
  }
  cpk_problem_free(p);
  cpk_varmap_free(map);
  cpk_contact_system_free(s);
  cpk_csc_free(M);
}

int main(void)
{
  cpk_init();
  alloc_count_start(); /* the counter itself must see allocations, or the test proves nothing */
  void *probe = malloc(16);
  cpk_result *r = NULL;
  cpk_result_alloc(4, &r);
  long seen = alloc_count_stop();
  t_ok(seen >= 5, "the counter sees this program's and libcpkit's allocations (%ld)", seen);
  free(probe);
  cpk_result_free(r);
  const cpk_solver_type *types[] = {cpk_solver_lemke, cpk_solver_pgs, cpk_solver_bdnewton,
                                    cpk_solver_fbnewton, cpk_solver_ipm};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) run_solver(types[k]);
  run_cone(cpk_solver_nsgs, NULL, NULL);
  run_cone(cpk_solver_nsn, NULL, NULL);
  cpk_settings few_sweeps; /* nsgs stops after 2 sweeps, nsn finishes (settings.nsgs.polish) */
  cpk_settings_default(&few_sweeps);
  few_sweeps.max_iter = 2;
  run_cone(cpk_solver_nsgs, &few_sweeps, "polished");
  run_findex_lemke();
  run_enum();
  run_cone(cpk_solver_fcipm, NULL, NULL);
  run_physics_check();
  return t_done();
}
#else
int main(void)
{
  printf("1..0 # SKIP counting allocations needs glibc's allocator (AddressSanitizer replaces it)\n");
  return 0;
}
#endif
