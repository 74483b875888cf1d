/* traces.c: the time-stepping trace suites of `cpkit bench`: sampled steps of the experiment scenes, rebuilt by re-simulating the scene up to the step. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "traces.h"

#define SCENE_SUFFIX ".scene.json"
#define MAX_STEPS 100000000.0 /* a scene asking for more steps is a mistake, not a benchmark */

/*
 * One experiment per contact model and scheme of doc/experiments.md: a
 * persistent polyhedral contact (spin), the elliptic-torsional NCP, the
 * implicit geometry (whose first solve per step is traced), the
 * kelvin-voigt compliant core, seed 004's point-coulomb NCP and its LCP on a
 * driven plate, and the three-footed tripod.
 */
static const char *const trace_scenes[] = {
    "seed000-spin-polyhedral", "seed000-translating-elliptic", "seed000-two-spheres-implicit",
    "seed003-disc-core",       "seed004-rotating-plate",       "seed004-rotating-plate-lcp",
    "seed004-tripod"};
#define NTRACE_SCENES (sizeof trace_scenes / sizeof trace_scenes[0])

static int has_suffix(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int cpk_bench_family_is_trace(const char *family)
{
  return strncmp(family, "warm/", 5) == 0 || strncmp(family, "cold/", 5) == 0;
}

int cpk_bench_is_trace_suite(const char *name)
{
  return strcmp(name, "traces") == 0 || strcmp(name, "traces-cold") == 0 ||
         has_suffix(name, SCENE_SUFFIX);
}

const char *cpk_bench_examples_dir(void)
{
  const char *env = getenv("CPK_EXAMPLES_DIR");
  if (env && env[0]) return env;
#ifdef CPK_EXAMPLES_SRCDIR
  if (access(CPK_EXAMPLES_SRCDIR, R_OK) == 0) return CPK_EXAMPLES_SRCDIR; /* a build tree */
#endif
#ifdef CPK_EXAMPLES_INSTALLED
  return CPK_EXAMPLES_INSTALLED; /* an installed cpkit without its sources */
#else
  return NULL;
#endif
}

/* The file name of a scene path without its directory and ".scene.json". */
static void scene_label(const char *path, char *label, size_t size)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (has_suffix(base, SCENE_SUFFIX)) len -= strlen(SCENE_SUFFIX);
  snprintf(label, size, "%.*s", (int)(len < size ? len : size - 1), base);
}

/* Read the scene and make its world; err says which file failed. */
static int open_world(const char *path, cpk_scene **scene, cpk_world **world, cpk_error *err)
{
  cpk_error e;
  *scene = NULL;
  *world = NULL;
  cpk_error_clear(&e);
  int rc = cpk_scene_read_file(path, scene, &e);
  if (!rc) rc = cpk_scene_world(*scene, world, &e);
  if (!rc) return CPK_OK;
  cpk_scene_free(*scene);
  *scene = NULL;
  if (strstr(e.message, path)) return cpk_error_set(err, rc, "%s", e.message);
  return cpk_error_set(err, rc, "%s: %s", path, e.message[0] ? e.message : cpk_strerror(rc));
}

/* Step the world n times, as `cpkit simulate` does (warm starts as the scene says). */
static int step_world(cpk_world *w, const char *path, size_t n, cpk_error *err)
{
  cpk_error e;
  cpk_error_clear(&e);
  for (size_t k = 0; k < n; k++) {
    int rc = cpk_world_step(w, NULL, &e);
    if (rc) return cpk_error_set(err, rc, "%s: step %zu: %s", path, k, e.message);
  }
  return CPK_OK;
}

/* Contacts at the start of the step that follows. */
static int count_contacts(cpk_world *w, size_t *nc, cpk_error *err)
{
  cpk_contact_system *sys = NULL;
  int rc = cpk_world_contact_system(w, &sys, err);
  *nc = rc ? 0 : sys->nc;
  cpk_contact_system_free(sys);
  return rc;
}

/* The number of steps of a run of the scene (the same rounding as cpk_scene_run). */
static int scene_steps(const cpk_scene *scene, const cpk_world *w, const char *path, size_t *n,
                       cpk_error *err)
{
  double steps = ceil(cpk_scene_duration(scene) / cpk_world_settings(w)->h - 1e-9);
  if (!(steps >= 0 && steps <= MAX_STEPS))
    return cpk_error_set(err, CPK_EINVAL, "%s: %g steps: too many for a trace", path, steps);
  *n = (size_t)steps;
  return CPK_OK;
}

/* contacts[k] = contacts of step k, over one run of the scene. */
static int scan_scene(cpk_scene *scene, cpk_world *w, const char *path, size_t **contacts,
                      size_t *nsteps, cpk_error *err)
{
  cpk_error e;
  int rc = scene_steps(scene, w, path, nsteps, err);
  *contacts = NULL;
  if (rc) return rc;
  *contacts = cpk_alloc_array(*nsteps ? *nsteps : 1, sizeof **contacts);
  if (!*contacts) return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", path);
  cpk_error_clear(&e);
  for (size_t k = 0; !rc && k < *nsteps; k++) {
    rc = count_contacts(w, &(*contacts)[k], &e);
    if (!rc) rc = cpk_world_step(w, NULL, &e);
    if (rc) rc = cpk_error_set(err, rc, "%s: step %zu: %s", path, k, e.message);
  }
  return rc;
}

/* What every instance of one scene shares. */
typedef struct trace_recipe {
  const char *path, *label, *suite;
  char model[32];
  double h;
  int warm;
} trace_recipe;

static int push_trace(cpk_bench_suite *s, const trace_recipe *r, size_t k, size_t nc)
{
  cpk_bench_instance in;
  const char *short_label = strncmp(r->label, "seed", 4) == 0 ? r->label + 4 : r->label;
  int says_model = strstr(r->label, r->model) != NULL;
  memset(&in, 0, sizeof in);
  if (strlen(r->path) >= sizeof in.path) return CPK_EINVAL;
  snprintf(in.path, sizeof in.path, "%s", r->path);
  snprintf(in.suite, sizeof in.suite, "%s", r->suite);
  snprintf(in.family, sizeof in.family, "%s/%.26s", r->warm ? "warm" : "cold", short_label);
  snprintf(in.name, sizeof in.name, "trace-%s%.120s%s%s-k%04zu", r->warm ? "" : "cold-", r->label,
           says_model ? "" : "-", says_model ? "" : r->model, k);
  in.source = CPK_BENCH_SRC_FAMILY;
  in.size = nc;
  in.param = k;
  in.h = r->h;
  /* the stepper solved every sampled step when the suite was made */
  in.expect = CPK_BENCH_EXPECT_SOLUTION;
  return cpk_bench_suite_push(s, &in);
}

/* Up to `samples` of the steps with contacts, evenly spread, first and last included. */
static int push_samples(cpk_bench_suite *s, const trace_recipe *r, const size_t *contacts,
                        size_t nsteps, size_t samples)
{
  size_t m = 0, taken = 0, seen = 0;
  for (size_t k = 0; k < nsteps; k++) m += contacts[k] > 0;
  if (samples > m) samples = m;
  for (size_t k = 0; k < nsteps && taken < samples; k++) {
    if (!contacts[k]) continue;
    /* the j-th wanted contact step is round(j (m - 1) / (samples - 1)) */
    size_t want = samples == 1 ? 0
                               : (size_t)floor((double)taken * (double)(m - 1) /
                                                   (double)(samples - 1) + 0.5);
    if (seen++ != want) continue;
    int rc = push_trace(s, r, k, contacts[k]);
    if (rc) return rc;
    taken++;
  }
  return CPK_OK;
}

int cpk_bench_trace_scene_add(cpk_bench_suite *s, const char *path, int warm, size_t samples,
                              const char *suite, cpk_error *err)
{
  cpk_scene *scene = NULL;
  cpk_world *w = NULL;
  size_t *contacts = NULL, nsteps = 0;
  char name[CPK_BENCH_NAME_MAX];
  trace_recipe r = {path, name, suite, "", 0, warm};
  scene_label(path, name, sizeof name);
  int rc = open_world(path, &scene, &w, err);
  if (!rc) {
    snprintf(r.model, sizeof r.model, "%s", cpk_world_settings(w)->model);
    r.h = cpk_world_settings(w)->h;
    rc = scan_scene(scene, w, path, &contacts, &nsteps, err);
  }
  if (!rc) rc = push_samples(s, &r, contacts, nsteps, samples);
  if (rc && err && !err->message[0]) cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc));
  free(contacts);
  cpk_world_free(w);
  cpk_scene_free(scene);
  return rc;
}

/* The experiment scenes of the examples directory. */
static int add_examples(cpk_bench_suite *s, const char *suite, int warm, cpk_error *err)
{
  const char *dir = cpk_bench_examples_dir();
  if (!dir)
    return cpk_error_set(err, CPK_ENOTFOUND,
                         "%s: no examples directory: set CPK_EXAMPLES_DIR to cpkit's examples/",
                         suite);
  for (size_t i = 0; i < NTRACE_SCENES; i++) {
    char path[1024];
    if (snprintf(path, sizeof path, "%s/%s%s", dir, trace_scenes[i], SCENE_SUFFIX) >=
        (int)sizeof path)
      return cpk_error_set(err, CPK_EINVAL, "%s: examples directory path too long", suite);
    int rc = cpk_bench_trace_scene_add(s, path, warm, CPK_TRACE_SAMPLES, suite, err);
    if (rc == CPK_EIO || rc == CPK_ENOTFOUND) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "%s", err ? err->message : "");
      return cpk_error_set(err, rc, "%s (examples directory %s; set CPK_EXAMPLES_DIR)", msg, dir);
    }
    if (rc) return rc;
  }
  return CPK_OK;
}

int cpk_bench_trace_suite_add(cpk_bench_suite *s, const char *name, cpk_error *err)
{
  cpk_error_clear(err);
  if (strcmp(name, "traces") == 0) return add_examples(s, name, 1, err);
  if (strcmp(name, "traces-cold") == 0) return add_examples(s, name, 0, err);
  if (has_suffix(name, SCENE_SUFFIX))
    return cpk_bench_trace_scene_add(s, name, 1, CPK_TRACE_SAMPLES, "traces", err);
  return cpk_error_set(err, CPK_ENOTFOUND, "'%s' is not a trace suite", name);
}

static void free_map(void *map) { cpk_varmap_free(map); }

int cpk_bench_build_trace(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  cpk_scene *scene = NULL;
  cpk_world *w = NULL;
  cpk_varmap *map = NULL;
  double *z0 = NULL;
  size_t nc = 0;
  cpk_error e;
  memset(out, 0, sizeof *out);
  cpk_error_clear(&e);
  if (!cpk_bench_family_is_trace(in->family))
    return cpk_error_set(err, CPK_EINVAL, "%s: not a trace family", in->family);
  int rc = open_world(in->path, &scene, &w, err);
  if (!rc) rc = step_world(w, in->path, in->param, err);
  if (!rc && (rc = cpk_world_next_problem(w, &out->problem, &map, &z0, &nc, &e)))
    cpk_error_set(err, rc, "%s: step %zu: %s", in->path, in->param, e.message);
  out->ctx = map;
  out->ctx_free = free_map;
  out->size = nc;
  if (strncmp(in->family, "warm/", 5) == 0)
    out->z0 = z0;
  else
    free(z0);
  if (!rc && (rc = cpk_problem_set_name(out->problem, in->name)))
    cpk_error_set(err, rc, "%s: %s", in->name, cpk_strerror(rc));
  if (rc) cpk_bench_built_free(out);
  cpk_world_free(w);
  cpk_scene_free(scene);
  return rc;
}
