/* suite_files.c: suites of external files: problem files in the text format and FCLIB local problems (as cone problems and compiled by contact models), with FCLIB's merit. */
#define _POSIX_C_SOURCE 200809L
#include <config.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/contact.h>
#include <cpkit/fclib.h>
#include <cpkit/util.h>
#include "harness.h"
#ifdef HAVE_HDF5
#include <hdf5.h>
#endif

#define MAX_DEPTH 4 /* directory levels searched below the given one */

/*
 * An FCLIB local problem is read as the cone problem itself (FCLIB_CONE, for
 * the cone solvers) and compiled by these models (MCP and LCP solvers).
 */
#define FCLIB_CONE "cone"
static const char *const fclib_models[] = {FCLIB_CONE, "point-coulomb", "polyhedral"};
#define FCLIB_DIRECTIONS 8

static int has_suffix(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int push_file(cpk_bench_suite *s, const char *path, const char *family, const char *model)
{
  cpk_bench_instance in;
  memset(&in, 0, sizeof in);
  in.source = model ? CPK_BENCH_SRC_FCLIB : CPK_BENCH_SRC_FILE;
  in.expect = CPK_BENCH_EXPECT_UNKNOWN;
  if (strlen(path) >= sizeof in.path) return CPK_EINVAL;
  snprintf(in.path, sizeof in.path, "%s", path);
  snprintf(in.suite, sizeof in.suite, "%s", model ? "fclib" : "files");
  snprintf(in.family, sizeof in.family, "%s", family);
  if (model)
    snprintf(in.name, sizeof in.name, "%.*s:%s", (int)(sizeof in.name - 24), path, model);
  else
    snprintf(in.name, sizeof in.name, "%s", path);
  return cpk_bench_suite_push(s, &in);
}

/*
 * 0 when an HDF5 file has no /fclib_local group (an FCLIB global problem: not
 * read here), 1 when it has one or cannot be looked into (the build says why).
 */
static int has_fclib_local(const char *path)
{
  int found = 1;
#ifdef HAVE_HDF5
  H5E_auto2_t func = NULL;
  void *data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* no HDF5 error stack on stderr */
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    found = H5Lexists(f, "/fclib_local", H5P_DEFAULT) > 0;
    H5Fclose(f);
  }
  H5Eset_auto2(H5E_DEFAULT, func, data);
#endif
  return found;
}

static int add_file(cpk_bench_suite *s, const char *path)
{
  cpk_error probe;
  if (!cpk_file_is_hdf5(path)) return push_file(s, path, "file", NULL);
  /* A corrupt file can crash libhdf5 itself: read it in a child process first. */
  if (cpk_fclib_probe(path, &probe)) {
    fprintf(stderr, "cpkit bench: %s: skipped\n", probe.message);
    return CPK_OK;
  }
  if (!has_fclib_local(path)) {
    fprintf(stderr, "cpkit bench: %s: no /fclib_local group (the FCLIB suites hold local "
                    "problems): skipped\n", path);
    return CPK_OK;
  }
  for (size_t k = 0; k < sizeof fclib_models / sizeof fclib_models[0]; k++) {
    char family[32];
    snprintf(family, sizeof family, "fclib-%s", fclib_models[k]);
    int rc = push_file(s, path, family, fclib_models[k]);
    if (rc) return rc;
  }
  return CPK_OK;
}

static int compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int wanted(const char *name)
{
  return has_suffix(name, ".cpk") || has_suffix(name, ".hdf5") || has_suffix(name, ".h5");
}

static int add_dir(cpk_bench_suite *s, const char *dir, int depth, cpk_error *err);

/* Entries sorted by name, so a suite has the same order on every machine. */
static int add_entries(cpk_bench_suite *s, const char *dir, char **names, size_t m, int depth,
                       cpk_error *err)
{
  int rc = CPK_OK;
  qsort(names, m, sizeof *names, compare_names);
  for (size_t k = 0; k < m && !rc; k++) {
    char path[1024];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path) continue;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
      rc = add_dir(s, path, depth + 1, err);
    else if (S_ISREG(st.st_mode) && wanted(names[k]))
      rc = add_file(s, path);
  }
  return rc;
}

static int add_dir(cpk_bench_suite *s, const char *dir, int depth, cpk_error *err)
{
  DIR *d = opendir(dir);
  char **names = NULL;
  size_t m = 0, cap = 0;
  int rc = CPK_OK;
  if (!d) return cpk_error_set(err, CPK_EIO, "%s: cannot open the directory", dir);
  for (struct dirent *e; !rc && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (m == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *names);
      if (!grown)
        rc = CPK_ENOMEM;
      else
        names = grown;
    }
    if (!rc && !(names[m] = strdup(e->d_name))) rc = CPK_ENOMEM;
    if (!rc) m++;
  }
  closedir(d);
  if (!rc) rc = add_entries(s, dir, names, m, depth, err);
  for (size_t k = 0; k < m; k++) free(names[k]);
  free(names);
  if (rc && err && !err->message[0]) cpk_error_set(err, rc, "%s: %s", dir, cpk_strerror(rc));
  return rc;
}

const char *cpk_bench_fclib_dir(void)
{
  const char *env = getenv("CPK_FCLIB_DIR");
  return env && env[0] ? env : CPK_FCLIB_SAMPLES_SRCDIR;
}

int cpk_bench_suite_add_path(cpk_bench_suite *s, const char *path, cpk_error *err)
{
  struct stat st;
  if (stat(path, &st) != 0) return cpk_error_set(err, CPK_EIO, "%s: no such file", path);
  if (S_ISDIR(st.st_mode)) return add_dir(s, path, 0, err);
  int rc = add_file(s, path);
  return rc ? cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc)) : CPK_OK;
}

/* ---- FCLIB --------------------------------------------------------------------- */

/*
 * Every instance of an FCLIB file carries the file's cone problem, and its
 * merit is FCLIB's, computed by the library (cpk_fc_merit) from reactions r:
 * the cone instance's z is r; a compiled model's z gives r through its
 * variable map (cpk_varmap_impulses), so both routes are judged alike.
 */
typedef struct fclib_ctx {
  cpk_contact_system *sys; /* compiled instances: the local system the model compiles */
  cpk_varmap *map;         /* NULL for the cone instance */
  cpk_problem *fc;         /* the cone problem: owned here, or the instance's (fc_owned = 0) */
  int fc_owned;
  double *P, *r, *u; /* impulses (4 per contact); reactions and velocities (3 per contact) */
} fclib_ctx;

static void fclib_ctx_free(void *v)
{
  fclib_ctx *c = v;
  if (!c) return;
  cpk_varmap_free(c->map);
  cpk_contact_system_free(c->sys);
  if (c->fc_owned) cpk_problem_free(c->fc);
  free(c->P), free(c->r), free(c->u);
  free(c);
}

static double fclib_merit(const void *vc, const double *z)
{
  const fclib_ctx *c = vc;
  const double *r = z;
  if (c->map) {
    if (cpk_varmap_impulses(c->map, z, c->P)) return NAN;
    for (size_t i = 0; i < c->fc->nc; i++)
      for (int d = 0; d < 3; d++) c->r[3 * i + d] = c->P[4 * i + d];
    r = c->r;
  }
  return cpk_problem_eval(c->fc, r, c->u) ? INFINITY : cpk_fc_merit(c->fc, r, c->u);
}

static const char *model_of(const cpk_bench_instance *in)
{
  const char *colon = strrchr(in->name, ':');
  return colon ? colon + 1 : fclib_models[0];
}

/* A compiled instance: the file's local system compiled by the model. */
static int compile_fclib(const cpk_bench_instance *in, fclib_ctx *c, const char *model,
                         cpk_problem **out, cpk_error *err)
{
  cpk_compile_options o;
  int rc = cpk_contact_system_read_fclib(in->path, &c->sys, err);
  if (rc) return rc;
  cpk_compile_options_default(&o);
  o.directions.d = FCLIB_DIRECTIONS;
  return cpk_compile(c->sys, model, &o, out, &c->map, err);
}

static int build_fclib(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  fclib_ctx *c = calloc(1, sizeof *c);
  const char *model = model_of(in);
  if (!c) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  out->ctx = c;
  out->ctx_free = fclib_ctx_free;
  int rc = cpk_problem_read_fclib(in->path, &c->fc, err);
  if (!rc && c->fc->cone_dim != 3)
    rc = cpk_error_set(err, CPK_EUNSUP, "%s: only 3D problems are supported", in->path);
  if (rc) return rc;
  c->fc_owned = strcmp(model, FCLIB_CONE) != 0;
  if (!c->fc_owned)
    out->problem = c->fc; /* the instance is the cone problem itself */
  else if ((rc = compile_fclib(in, c, model, &out->problem, err)))
    return err->message[0] ? rc : cpk_error_set(err, rc, "%s: %s", in->path, cpk_strerror(rc));
  c->P = cpk_alloc_array(c->fc->nc, 4 * sizeof *c->P);
  c->r = cpk_alloc_array(c->fc->nc, 3 * sizeof *c->r);
  c->u = cpk_alloc_array(c->fc->nc, 3 * sizeof *c->u);
  if (!c->P || !c->r || !c->u) return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", in->path);
  out->merit = fclib_merit;
  /* A compiled nonlinear MCP starts where every compiled solve starts (cpk_varmap_start). */
  if (c->map && out->problem->kind == CPK_KIND_NONLINEAR_MCP) {
    if (!(out->z0 = cpk_alloc_array(out->problem->n, sizeof *out->z0)))
      return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", in->path);
    return cpk_varmap_start(c->map, out->z0, err);
  }
  return CPK_OK;
}

int cpk_bench_build_file(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  int rc;
  memset(out, 0, sizeof *out);
  if (in->source == CPK_BENCH_SRC_FCLIB)
    rc = build_fclib(in, out, err);
  else
    rc = cpk_problem_read_file(in->path, &out->problem, err);
  if (!rc && in->source == CPK_BENCH_SRC_FCLIB) out->size = ((fclib_ctx *)out->ctx)->fc->nc;
  if (!rc && in->source == CPK_BENCH_SRC_FILE) out->size = out->problem->n;
  if (rc) cpk_bench_built_free(out);
  return rc;
}
