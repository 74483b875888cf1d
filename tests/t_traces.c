/* t_traces.c: tests of the time-stepping trace suites: sampled steps, problems that are the stepper's own (same impulses as the step), warm vs cold starts, error messages, --list. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cpkit/cpkit.h>
#include "harness.h"
#include "testlib.h"
#include "traces.h"

#define MAX_CONTACTS 16

static const char *examples(const char *scene)
{
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/../examples/%s.scene.json",
           getenv("CPK_TEST_SRCDIR") ? getenv("CPK_TEST_SRCDIR") : ".", scene);
  return buf;
}

static int starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The scene's world after k steps (k = 0: the initial state). */
static cpk_world *world_after(const char *path, size_t k, cpk_scene **scene)
{
  cpk_world *w = NULL;
  cpk_error err;
  int ok = cpk_scene_read_file(path, scene, &err) == CPK_OK &&
           cpk_scene_world(*scene, &w, &err) == CPK_OK;
  for (size_t i = 0; ok && i < k; i++) ok = cpk_world_step(w, NULL, &err) == CPK_OK;
  if (!ok) t_diag("%s after %zu steps: %s", path, k, err.message);
  return ok ? w : (cpk_world_free(w), NULL);
}

/* ---- suites ---------------------------------------------------------------------------- */

/* The instances of one family, in order. */
static size_t of_family(const cpk_bench_suite *s, const char *family, size_t *idx, size_t max)
{
  size_t m = 0;
  for (size_t i = 0; i < s->count; i++)
    if (strcmp(s->items[i].family, family) == 0 && m < max) idx[m++] = i;
  return m;
}

/*
 * The spinning sphere's samples, checked against a run of the scene that
 * counts the contacts of each step from the step's own report.
 */
static void check_spin_samples(const cpk_bench_suite *s)
{
  cpk_scene *scene = NULL;
  cpk_world *w = world_after(examples("seed000-spin-polyhedral"), 0, &scene);
  size_t idx[64], m = of_family(s, "warm/000-spin-polyhedral", idx, 64);
  size_t contact_steps[256], nk = 0, nsteps = 0;
  double h = w ? cpk_world_settings(w)->h : 1;
  if (w) nsteps = (size_t)ceil(cpk_scene_duration(scene) / h - 1e-9);
  for (size_t k = 0; w && k < nsteps && k < 256; k++) {
    cpk_sim_step_info info;
    if (cpk_world_step(w, &info, NULL) != CPK_OK) break;
    if (info.ncontacts) contact_steps[nk++] = k;
  }
  size_t want = nk < CPK_TRACE_SAMPLES ? nk : CPK_TRACE_SAMPLES;
  t_ok(w && nk > 0 && m == want, "spin: %zu samples of %zu steps with contacts", m, nk);
  int in_list = 1;
  for (size_t i = 0; i < m; i++) {
    int found = 0;
    for (size_t j = 0; j < nk; j++) found |= contact_steps[j] == s->items[idx[i]].param;
    in_list &= found && s->items[idx[i]].size == 1;
  }
  t_ok(in_list, "spin: every sample is a step with its one contact");
  t_ok(m > 1 && nk > 0 && s->items[idx[0]].param == contact_steps[0] &&
           s->items[idx[m - 1]].param == contact_steps[nk - 1],
       "spin: the first and the last step with contacts are sampled");
  cpk_world_free(w);
  cpk_scene_free(scene);
}

static void test_suites(cpk_bench_suite *warm, cpk_bench_suite *cold)
{
  cpk_error err;
  int rc = cpk_bench_suite_add(warm, "traces", &err);
  t_ok(rc == CPK_OK && warm->count >= 7 && warm->count <= 7 * CPK_TRACE_SAMPLES,
       "traces: %zu instances%s%s", warm->count, rc ? ": " : "", rc ? err.message : "");
  rc = cpk_bench_suite_add(cold, "traces-cold", &err);
  t_ok(rc == CPK_OK && cold->count == warm->count, "traces-cold: the same %zu steps",
       cold->count);
  int named = warm->count > 0, same = cold->count == warm->count, ordered = 1;
  for (size_t i = 0; i < warm->count; i++) {
    const cpk_bench_instance *a = &warm->items[i];
    named &= starts_with(a->family, "warm/") && cpk_bench_family_is_trace(a->family) &&
             cpk_bench_family_is_contact(a->family) && starts_with(a->name, "trace-") &&
             strstr(a->path, ".scene.json") && a->size > 0 &&
             a->expect == CPK_BENCH_EXPECT_SOLUTION;
    if (i > 0 && strcmp(a->family, warm->items[i - 1].family) == 0)
      ordered &= a->param > warm->items[i - 1].param;
    if (!same) continue;
    const cpk_bench_instance *b = &cold->items[i];
    same &= starts_with(b->family, "cold/") && strcmp(a->family + 5, b->family + 5) == 0 &&
            b->param == a->param && b->size == a->size && starts_with(b->name, "trace-cold-");
  }
  t_ok(named, "warm instances: trace families of contacts, names trace-..., a solution expected");
  t_ok(ordered, "steps increase within each scene");
  t_ok(same, "cold instances: same scene, step and contacts, family cold/..., name trace-cold-...");
  size_t idx[CPK_TRACE_SAMPLES + 1];
  t_ok(of_family(warm, "warm/004-tripod", idx, CPK_TRACE_SAMPLES + 1) == CPK_TRACE_SAMPLES &&
           warm->items[idx[0]].size == 3 && strstr(warm->items[idx[0]].name, "-polyhedral-k"),
       "tripod: %d steps, 3 contacts, the model in the name", CPK_TRACE_SAMPLES);
  t_ok(of_family(warm, "warm/004-rotating-plate", idx, 2) > 0 &&
           strstr(warm->items[idx[0]].name, "rotating-plate-point-coulomb-k"),
       "rotating plate: the point-coulomb model in the name");
  check_spin_samples(warm);
}

/* ---- the problem is the step's ------------------------------------------------------------ */

/* The stepper's choice of solver and settings for this problem. */
static const char *stepper_solver(const cpk_sim_settings *st, const cpk_problem *p)
{
  if (st->solver[0]) return st->solver;
  if (p->kind == CPK_KIND_FRICTION_CONE) return "nsgs"; /* the cone form's default */
  return p->kind == CPK_KIND_NONLINEAR_MCP ? "fbnewton" : "lemke";
}

/* An independent check of z for either kind of problem. */
static int is_solution(const cpk_problem *p, const double *z)
{
  if (p->kind == CPK_KIND_FRICTION_CONE) return t_is_fc_solution(p, z, 1e-6);
  return t_is_mcp_solution(p, z, 1e-6);
}

/* Another solver that accepts the problem: the first of lemke, fbnewton, ipm, fcipm not `not`. */
static const char *other_solver(const cpk_problem *p, const char *not)
{
  static const char *const names[] = {"lemke", "fbnewton", "ipm", "fcipm"};
  for (size_t i = 0; i < 4; i++) {
    const cpk_solver_type *T = cpk_solver_find(names[i]);
    if (T && strcmp(names[i], not) != 0 && cpk_solver_accepts(T, p)) return names[i];
  }
  return NULL;
}

/* Solve p from z0 with `solver` and settings set; z receives the solution. */
static int solve(const cpk_problem *p, const char *solver, cpk_settings set, const double *z0,
                 double *z, long *iterations)
{
  cpk_result *r = NULL;
  cpk_error err;
  set.z0 = z0;
  int ok = cpk_result_alloc(p->n, &r) == CPK_OK && cpk_solve(p, solver, &set, r, &err) == CPK_OK &&
           r->status == CPK_STATUS_SOLVED;
  if (ok) memcpy(z, r->z, p->n * sizeof *z);
  if (iterations) *iterations = r ? r->iterations : -1;
  cpk_result_free(r);
  return ok;
}

/* Largest difference between the impulses P (4 per contact) and those the step reports. */
static double step_difference(const cpk_bench_instance *in, const double *P, size_t nc,
                              double *scale, int *driven)
{
  cpk_scene *scene = NULL;
  cpk_world *w = world_after(in->path, in->param, &scene);
  cpk_sim_step_info info;
  double diff = INFINITY;
  *scale = 1;
  for (size_t b = 0; w && b < cpk_world_nbodies(w); b++)
    if (cpk_world_body(w, b)->kind == CPK_BODY_DRIVEN) *driven = 1;
  if (w && cpk_world_step(w, &info, NULL) == CPK_OK && info.ncontacts == nc) {
    diff = 0;
    for (size_t c = 0; c < nc; c++)
      for (int a = 0; a < 4; a++) {
        diff = fmax(diff, fabs(info.contacts[c].P[a] - P[4 * c + a]));
        *scale = fmax(*scale, fabs(P[4 * c + a]));
      }
  }
  cpk_world_free(w);
  cpk_scene_free(scene);
  return diff;
}

/* Build instance `in`, solve it as the stepper would and with another solver. */
static void check_instance(const cpk_bench_instance *in)
{
  cpk_bench_built b;
  cpk_error err;
  cpk_scene *scene = NULL;
  int rc = cpk_bench_build(in, &b, &err);
  t_ok(rc == CPK_OK && b.problem && b.z0 && b.ctx && b.size == in->size,
       "%s builds: %zu contacts and the stepper's start point%s%s", in->name, in->size,
       rc ? ": " : "", rc ? err.message : "");
  if (rc || cpk_scene_read_file(in->path, &scene, NULL)) return;
  const cpk_sim_settings *st = cpk_scene_settings(scene);
  const cpk_problem *p = b.problem;
  double *z = cpk_alloc_array(p->n, sizeof *z), P[4 * MAX_CONTACTS], scale = 1, tol = st->solve.tol;
  const char *name = stepper_solver(st, p), *other = other_solver(p, name);
  int ok = z && b.size <= MAX_CONTACTS && solve(p, name, st->solve, b.z0, z, NULL);
  t_ok(ok && is_solution(p, z), "%s: %s solves it from z0", in->name, name);
  ok = ok && cpk_varmap_impulses(b.ctx, z, P) == CPK_OK;
  if (st->implicit_iterations > 0) {
    t_diag("%s: implicit geometry: the step re-solves after this first solve; not compared",
           in->name);
  } else {
    int driven = 0;
    double d = ok ? step_difference(in, P, b.size, &scale, &driven) : INFINITY;
    if (!t_ok(d <= tol * scale, "%s: impulses = the step's (|diff| %.2e, tol %.1e)", in->name, d,
              tol * scale) && driven)
      t_diag("a driven body: does cpk_world_next_problem give driven bodies their mid-step "
             "velocity, as cpk_world_step does before collide?");
  }
  if (other) {
    cpk_settings set;
    cpk_settings_default(&set);
    ok = z && solve(p, other, set, b.z0, z, NULL);
    t_ok(ok && is_solution(p, z), "%s: %s solves it too", in->name, other);
  }
  free(z);
  cpk_scene_free(scene);
  cpk_bench_built_free(&b);
}

/* The middle sample of every scene. */
static void test_problems(const cpk_bench_suite *warm)
{
  for (size_t i = 0; i < warm->count; i++) {
    const cpk_bench_instance *in = &warm->items[i];
    size_t idx[CPK_TRACE_SAMPLES];
    if (i > 0 && strcmp(in->family, warm->items[i - 1].family) == 0) continue;
    size_t m = of_family(warm, in->family, idx, CPK_TRACE_SAMPLES);
    check_instance(&warm->items[idx[m / 2]]);
  }
}

/* ---- warm vs cold -------------------------------------------------------------------------- */

/* Lemke's pivots on one instance (-1 when it failed). */
static long lemke_pivots(const cpk_bench_instance *in, int *cold_start)
{
  cpk_bench_built b;
  cpk_settings set;
  long it = -1;
  if (cpk_bench_build(in, &b, NULL)) return -1;
  double *z = cpk_alloc_array(b.problem->n, sizeof *z);
  cpk_settings_default(&set);
  if (!(z && solve(b.problem, "lemke", set, b.z0, z, &it) && t_is_mcp_solution(b.problem, z, 1e-8)))
    it = -1;
  *cold_start = b.z0 == NULL;
  free(z);
  cpk_bench_built_free(&b);
  return it;
}

/* Impulses of the spinning sphere's contact at every step, from the steps' own reports. */
static size_t spin_impulses(double (*P)[4], size_t max)
{
  cpk_scene *scene = NULL;
  cpk_world *w = world_after(examples("seed000-spin-polyhedral"), 0, &scene);
  size_t n = 0;
  cpk_sim_step_info info;
  while (w && n < max && cpk_world_step(w, &info, NULL) == CPK_OK && info.ncontacts == 1)
    memcpy(P[n++], info.contacts[0].P, sizeof P[0]);
  cpk_world_free(w);
  cpk_scene_free(scene);
  return n;
}

static int same_impulses(const double a[4], const double b[4])
{
  for (int i = 0; i < 4; i++)
    if (fabs(a[i] - b[i]) > 1e-12 * fmax(1, fabs(a[i]))) return 0;
  return 1;
}

/*
 * The spinning sphere keeps its one contact. Where a step's impulses are the
 * previous step's (steady spin, then rest), the warm start is the solution
 * and Lemke must stop without a pivot; where they change (the spin stops),
 * it may pivot, but never more than from a cold start.
 */
static void test_warm_cold(const cpk_bench_suite *warm, const cpk_bench_suite *cold)
{
  size_t iw[CPK_TRACE_SAMPLES], ic[CPK_TRACE_SAMPLES], steady = 0;
  size_t m = of_family(warm, "warm/000-spin-polyhedral", iw, CPK_TRACE_SAMPLES);
  size_t mc = of_family(cold, "cold/000-spin-polyhedral", ic, CPK_TRACE_SAMPLES);
  double P[256][4];
  int le = m > 1 && m == mc, zero = 1, starts = 1;
  size_t np = spin_impulses(P, 256);
  long sw = 0, sc = 0;
  for (size_t i = 0; le && i < m; i++) {
    int cw = 1, cc = 0;
    size_t k = warm->items[iw[i]].param;
    long a = lemke_pivots(&warm->items[iw[i]], &cw), b = lemke_pivots(&cold->items[ic[i]], &cc);
    le &= a >= 0 && b >= 0 && a <= b;
    starts &= !cw && cc;
    if (k > 0 && k < np && same_impulses(P[k], P[k - 1])) zero &= a == 0, steady++;
    sw += a, sc += b;
  }
  t_ok(starts, "spin: warm instances carry z0, cold ones none");
  t_ok(le, "spin: lemke warm pivots <= cold pivots on every step (%ld vs %ld in all)", sw, sc);
  t_ok(le && zero && steady >= m / 2 && sc > 0,
       "spin: 0 pivots warm on the %zu sampled steps whose impulses persist (cold: %ld in all)",
       steady, sc);
}

/* The harness runs a warm and a cold instance (built in the parent, solved in a child). */
static void test_harness(const cpk_bench_suite *warm, const cpk_bench_suite *cold)
{
  cpk_bench_suite s = {NULL, 0, 0};
  const cpk_solver_type *solvers[] = {cpk_solver_lemke};
  cpk_bench_job job;
  cpk_bench_record *r = NULL;
  size_t m = 0, iw[CPK_TRACE_SAMPLES];
  size_t k = of_family(warm, "warm/000-spin-polyhedral", iw, CPK_TRACE_SAMPLES);
  if (k > 1) {
    cpk_bench_suite_push(&s, &warm->items[iw[k / 2]]);
    cpk_bench_suite_push(&s, &cold->items[iw[k / 2]]);
  }
  memset(&job, 0, sizeof job);
  job.suite = &s;
  job.solvers = solvers;
  job.nsolvers = 1;
  cpk_bench_options_default(&job.options);
  job.options.repeat = 1;
  job.options.time_limit = 10;
  int rc = cpk_bench_main(&job, &r, &m, NULL, NULL);
  t_ok(rc == CPK_OK && m == 2 && r[0].status == CPK_STATUS_SOLVED &&
           r[1].status == CPK_STATUS_SOLVED && starts_with(r[0].family, "warm/") &&
           starts_with(r[1].family, "cold/") && r[0].size == 1 &&
           r[0].iterations <= r[1].iterations,
       "cpk_bench_main: warm and cold runs solved, warm pivots %ld <= cold %ld",
       m == 2 ? r[0].iterations : -1L, m == 2 ? r[1].iterations : -1L);
  free(r);
  cpk_bench_suite_clear(&s);
}

/* ---- paths and errors ---------------------------------------------------------------------- */

static void test_scene_path(const cpk_bench_suite *warm)
{
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_error err;
  size_t idx[CPK_TRACE_SAMPLES];
  size_t m = of_family(warm, "warm/000-spin-polyhedral", idx, CPK_TRACE_SAMPLES);
  int rc = cpk_bench_suite_add(&s, examples("seed000-spin-polyhedral"), &err);
  int same = rc == CPK_OK && s.count == m;
  for (size_t i = 0; same && i < m; i++)
    same = strcmp(s.items[i].name, warm->items[idx[i]].name) == 0 &&
           s.items[i].param == warm->items[idx[i]].param;
  t_ok(same, "a .scene.json path adds that scene's traces (%zu instances)", s.count);
  cpk_bench_suite_clear(&s);
}

/* A directory holding a malformed scene file. */
static int write_bad_scene(char *dir, char *path, size_t size)
{
  FILE *f;
  if (!mkdtemp(dir)) return 0;
  snprintf(path, size, "%s/bad.scene.json", dir);
  if (!(f = fopen(path, "w"))) return 0;
  fputs("{\"cpkit_scene\": 1,\n \"step\": -1}\n", f);
  return fclose(f) == 0;
}

static void test_errors(void)
{
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_error err;
  const char *missing = "/nonexistent/dir/none.scene.json";
  int rc = cpk_bench_suite_add(&s, missing, &err);
  t_ok(rc != CPK_OK && s.count == 0 && strstr(err.message, missing),
       "missing scene file: error naming it (%s)", err.message);
  char dir[] = "/tmp/t_traces_XXXXXX", path[256];
  int made = write_bad_scene(dir, path, sizeof path);
  rc = made ? cpk_bench_suite_add(&s, path, &err) : CPK_OK;
  t_ok(made && rc != CPK_OK && s.count == 0 && strstr(err.message, "bad.scene.json"),
       "malformed scene: error naming the file (%s)", err.message);
  if (made) remove(path), rmdir(dir);
  cpk_bench_instance in;
  cpk_bench_built b;
  memset(&in, 0, sizeof in);
  snprintf(in.name, sizeof in.name, "trace-none-k0001");
  snprintf(in.family, sizeof in.family, "warm/none");
  snprintf(in.path, sizeof in.path, "%s", missing);
  in.param = 1;
  rc = cpk_bench_build(&in, &b, &err);
  t_ok(rc != CPK_OK && !b.problem && strstr(err.message, missing),
       "building from a missing scene: error naming it");
  setenv("CPK_EXAMPLES_DIR", "/nonexistent/examples", 1);
  rc = cpk_bench_suite_add(&s, "traces", &err);
  t_ok(rc != CPK_OK && strstr(err.message, "/nonexistent/examples") &&
           strstr(err.message, "CPK_EXAMPLES_DIR"),
       "traces with a wrong CPK_EXAMPLES_DIR: error says where it looked (%s)", err.message);
  unsetenv("CPK_EXAMPLES_DIR");
  cpk_bench_suite_clear(&s);
}

/* `cpkit bench --list` names the trace suites. */
static void test_list(void)
{
  int lib = 0, cli = 0, cold = 0;
  const char *const *n = cpk_bench_suite_names();
  for (size_t i = 0; n[i]; i++)
    lib += (strcmp(n[i], "traces") == 0 || strcmp(n[i], "traces-cold") == 0) &&
           cpk_bench_suite_description(i) != NULL;
  t_ok(lib == 2, "the suite list holds traces and traces-cold with descriptions");
  const char *cpkit = getenv("CPKIT");
  char cmd[4200], line[512];
  if (!cpkit) {
    t_diag("CPKIT not set: `cpkit bench --list` not run");
    return;
  }
  snprintf(cmd, sizeof cmd, "'%s' bench --list", cpkit);
  FILE *f = popen(cmd, "r");
  while (f && fgets(line, sizeof line, f)) {
    cli |= starts_with(line, "traces ");
    cold |= starts_with(line, "traces-cold ");
  }
  t_ok(f && pclose(f) == 0 && cli && cold, "cpkit bench --list lists traces and traces-cold");
}

int main(void)
{
  cpk_bench_suite warm = {NULL, 0, 0}, cold = {NULL, 0, 0};
  unsetenv("CPK_EXAMPLES_DIR");
  test_suites(&warm, &cold);
  test_problems(&warm);
  test_warm_cold(&warm, &cold);
  test_harness(&warm, &cold);
  test_scene_path(&warm);
  test_errors();
  test_list();
  cpk_bench_suite_clear(&warm);
  cpk_bench_suite_clear(&cold);
  return t_done();
}
