/* suite_files.c: suites of external files: problem files in the text format and FCLIB local problems, with FCLIB's merit function. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/contact.h>
#include <cpkit/util.h>
#include "harness.h"

#define MAX_DEPTH 4 /* directory levels searched below the given one */

/* FCLIB problems are compiled by these models (both exact or standard for a local 3D problem). */
static const char *const fclib_models[] = {"point-coulomb", "polyhedral"};
#define FCLIB_DIRECTIONS 8

static int has_suffix(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* HDF5 files start with this signature (at offset 0 for the files FCLIB writes). */
static int is_hdf5(const char *path)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  return got == sizeof head && memcmp(head, sig, sizeof sig) == 0;
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

static int add_file(cpk_bench_suite *s, const char *path)
{
  if (!is_hdf5(path)) return push_file(s, path, "file", NULL);
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

int cpk_bench_suite_add_path(cpk_bench_suite *s, const char *path, cpk_error *err)
{
  struct stat st;
  if (stat(path, &st) != 0) return cpk_error_set(err, CPK_EIO, "%s: no such file", path);
  if (S_ISDIR(st.st_mode)) return add_dir(s, path, 0, err);
  int rc = add_file(s, path);
  return rc ? cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc)) : CPK_OK;
}

/* ---- FCLIB --------------------------------------------------------------------- */

typedef struct fclib_ctx {
  cpk_contact_system *sys;
  cpk_varmap *map;
  double *P; /* impulses, 4 per contact */
} fclib_ctx;

static void fclib_ctx_free(void *v)
{
  fclib_ctx *c = v;
  if (!c) return;
  cpk_varmap_free(c->map);
  cpk_contact_system_free(c->sys);
  free(c->P);
  free(c);
}

/* Projection of x onto the cone {(x_n, x_t): |x_t| <= mu x_n}. */
static void project_cone(double x[3], double mu)
{
  double t = hypot(x[1], x[2]);
  if (mu * t <= -x[0])
    x[0] = x[1] = x[2] = 0.0; /* in the polar cone */
  else if (t > mu * x[0]) {
    double n = (x[0] + mu * t) / (1.0 + mu * mu); /* onto the cone's boundary ray */
    x[0] = n;
    x[1] *= mu * n / t;
    x[2] *= mu * n / t;
  }
}

/*
 * FCLIB's merit of a reaction r (per contact (r_n, r_t, r_o)): with u = W r + q
 * and De Saxce's modified velocity u~ = u + mu |u_t| e_n, the natural map
 * r - proj_K(r - u~) summed in the 2-norm, divided by 1 + sqrt(|q|_2).
 */
double cpk_bench_fclib_merit(const cpk_contact_system *s, const double *P)
{
  size_t nc = s->nc, m = 3 * nc;
  double sum = 0.0, qn = 0.0;
  double *u = cpk_alloc_array(m ? m : 1, sizeof *u);
  if (!u || s->form != CPK_SYSTEM_LOCAL || s->dim != 3) {
    free(u);
    return NAN;
  }
  for (size_t i = 0; i < m; i++) u[i] = s->q[i];
  for (size_t j = 0; j < m; j++)
    for (cpk_int k = s->W->p[j]; k < s->W->p[j + 1]; k++)
      u[s->W->i[k]] += s->W->x[k] * P[4 * (j / 3) + j % 3];
  for (size_t i = 0; i < nc; i++) {
    const double *r = P + 4 * i, *ui = u + 3 * i;
    double mu = s->contacts[i].mu;
    double x[3] = {r[0] - (ui[0] + mu * hypot(ui[1], ui[2])), r[1] - ui[1], r[2] - ui[2]};
    project_cone(x, mu);
    for (int d = 0; d < 3; d++) sum += (r[d] - x[d]) * (r[d] - x[d]);
  }
  for (size_t i = 0; i < m; i++) qn += s->q[i] * s->q[i];
  free(u);
  return sqrt(sum) / (1.0 + sqrt(sqrt(qn)));
}

static double fclib_merit(const void *vc, const double *z)
{
  const fclib_ctx *c = vc;
  return cpk_varmap_impulses(c->map, z, c->P) ? NAN : cpk_bench_fclib_merit(c->sys, c->P);
}

static const char *model_of(const cpk_bench_instance *in)
{
  const char *colon = strrchr(in->name, ':');
  return colon ? colon + 1 : fclib_models[0];
}

static int build_fclib(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  fclib_ctx *c = calloc(1, sizeof *c);
  cpk_compile_options o;
  if (!c) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  out->ctx = c;
  out->ctx_free = fclib_ctx_free;
  int rc = cpk_contact_system_read_fclib(in->path, &c->sys, err);
  if (rc) return rc;
  if (c->sys->dim != 3)
    return cpk_error_set(err, CPK_EUNSUP, "%s: only 3D local problems are supported", in->path);
  cpk_compile_options_default(&o);
  o.directions.d = FCLIB_DIRECTIONS;
  rc = cpk_compile(c->sys, model_of(in), &o, &out->problem, &c->map, err);
  if (rc) return rc;
  c->P = cpk_alloc_array(c->sys->nc, 4 * sizeof *c->P);
  if (!c->P) return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", in->path);
  out->merit = fclib_merit;
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
  if (!rc && in->source == CPK_BENCH_SRC_FCLIB) out->size = ((fclib_ctx *)out->ctx)->sys->nc;
  if (!rc && in->source == CPK_BENCH_SRC_FILE) out->size = out->problem->n;
  if (rc) cpk_bench_built_free(out);
  return rc;
}
