/* t_cone_text.c: friction-cone problems in the problem text format (type friction_cone, dim, mu): a file read against its values, exact write/read round trips (also of an FCLIB file), and malformed files refused with file:line: messages. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "testlib.h"

static void test_read(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_file(t_srcpath("data/cone/two-contacts.cpk"), &p, &err);
  if (!t_ok(rc == CPK_OK && p, "two-contacts.cpk read: %s", rc ? err.message : "ok")) return;
  t_ok(p->kind == CPK_KIND_FRICTION_CONE && p->n == 6 && p->nc == 2 && p->cone_dim == 3,
       "friction_cone, 2 contacts of 3");
  t_ok(p->mu[0] == 0.5 && p->mu[1] == 0.3, "mu as written");
  t_ok(cpk_matrix_get(p->M, 0, 3) == 0.5 && cpk_matrix_get(p->M, 3, 3) == 2 &&
           cpk_matrix_get(p->M, 1, 1) == 1 && cpk_matrix_nnz(p->M) == 8,
       "W as written (coordinate form)");
  t_ok(p->q[1] == 0.2 && p->q[3] == -2 && strcmp(p->name, "two-contacts") == 0, "q and name");
  t_ok(p->lower[0] == 0 && isinf(p->lower[1]) && isinf(p->upper[0]),
       "box relaxation: r_n >= 0, r_T free");
  cpk_problem_free(p);
}

static int same_problem(const cpk_problem *a, const cpk_problem *b)
{
  if (a->kind != b->kind || a->n != b->n || a->nc != b->nc || a->cone_dim != b->cone_dim ||
      a->M->format != b->M->format || memcmp(a->q, b->q, a->n * sizeof *a->q) != 0 ||
      memcmp(a->mu, b->mu, a->nc * sizeof *a->mu) != 0)
    return 0;
  for (size_t i = 0; i < a->n; i++)
    for (size_t j = 0; j < a->n; j++)
      if (cpk_matrix_get(a->M, i, j) != cpk_matrix_get(b->M, i, j)) return 0;
  return cpk_matrix_nnz(a->M) == cpk_matrix_nnz(b->M);
}

/* Write p as text and read it back. */
static cpk_problem *through_text(const cpk_problem *p, cpk_error *err)
{
  char path[512];
  cpk_problem *back = NULL;
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(path, sizeof path, "%s/t_cone_text_%ld.cpk", base, (long)getpid());
  if (cpk_problem_write_file(p, path, err) == CPK_OK) cpk_problem_read_file(path, &back, err);
  remove(path);
  return back;
}

static void test_round_trips(void)
{
  cpk_problem *p = NULL, *back = NULL;
  cpk_matrix *W = NULL;
  cpk_error err;
  double q[4] = {-1, 1.0 / 3, 1e-300, -0x1.23456789abcdep-3}, mu[2] = {0.5, 0};
  cpk_matrix_alloc_dense(4, 4, &W);
  gsl_matrix_set(W->dense, 0, 0, M_PI);
  gsl_matrix_set(W->dense, 2, 1, -1e-17);
  cpk_problem_alloc_friction_cone(W, q, 2, mu, &p);
  back = through_text(p, &err);
  t_ok(back && same_problem(p, back) && back->name == NULL,
       "planar cone problem, dense W: exact text round trip");
  cpk_problem_free(back);
  cpk_problem_free(p);
  cpk_matrix_free(W);
#ifdef HAVE_HDF5
  if (cpk_problem_read_fclib(t_srcpath("data/fclib/Rover1040.hdf5"), &p, &err) == CPK_OK) {
    back = through_text(p, &err);
    t_ok(back && same_problem(p, back) && strcmp(back->name, p->name) == 0,
         "FCLIB Rover1040 written as text reads back exactly");
    cpk_problem_free(back);
    cpk_problem_free(p);
  } else
    t_ok(0, "Rover1040: %s", err.message);
#endif
}

/* The code, the line and a piece of the message, worked out by reading each file. */
static const struct bad_case {
  const char *file;
  long line;
  const char *says;
} bad_cases[] = {
    {"cone-dim-5.cpk", 4, "dim must be 2, 3 or 4"},
    {"cone-dim-missing.cpk", 4, "missing 'dim' before 'M'"},
    {"cone-n-not-multiple.cpk", 4, "n = 5 is not a multiple of dim 3"},
    {"cone-mu-negative.cpk", 10, "mu of contact 2 is -0.25"},
    {"cone-mu-nan.cpk", 9, "NaN is not allowed (in 'mu')"},
    {"cone-mu-missing.cpk", 8, "missing 'mu' before 'end'"},
    {"cone-mu-too-few.cpk", 10, "too few numbers in 'mu': expected 2, found 1"},
    {"cone-dim-for-lcp.cpk", 4, "'dim' is only allowed with 'type friction_cone'"},
    {"cone-mu-for-mcp.cpk", 7, "'mu' is only allowed with 'type friction_cone'"},
    {"cone-lower.cpk", 8, "'lower' is only allowed with 'type mcp'"},
};

static void test_bad_files(void)
{
  for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
    const struct bad_case *c = &bad_cases[k];
    char rel[128], path[4200], prefix[4300];
    cpk_problem *p = NULL;
    cpk_error err;
    snprintf(rel, sizeof rel, "data/bad/%s", c->file);
    snprintf(path, sizeof path, "%s", t_srcpath(rel));
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, c->line);
    int rc = cpk_problem_read_file(path, &p, &err);
    t_ok(rc == CPK_EPARSE && !p && strncmp(err.message, prefix, strlen(prefix)) == 0 &&
             strstr(err.message, c->says) != NULL,
         "%s: line %ld, %s (got: %s)", c->file, c->line, c->says, err.message);
  }
}

/* At r = 0, u = q: contact 1 (mu 0.5) has e = -(0.9, -0.2, 0), |e|^2 = 0.85; contact 2
   (mu 0.3) projects (1.55, -1.5, 0) on its cone, |e|^2 = (2/1.09)^2 * 1.09 = 4/1.09;
   |q|_2 = 2.7. So the merit is sqrt(0.85 + 4/1.09) / (1 + sqrt(2.7)). */
static void test_json_merit(void)
{
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  char *text = NULL;
  size_t len = 0;
  if (cpk_problem_read_file(t_srcpath("data/cone/two-contacts.cpk"), &p, &err) ||
      cpk_result_alloc(p->n, &r)) {
    t_ok(0, "set-up of the JSON merit test");
    cpk_problem_free(p);
    return;
  }
  for (size_t i = 0; i < p->n; i++) {
    r->z[i] = 0;
    r->w[i] = p->q[i];
  }
  FILE *f = open_memstream(&text, &len);
  int rc = cpk_result_write_json(r, p, f, 0, &err);
  fclose(f);
  json_t *o = rc ? NULL : json_loads(text, 0, NULL);
  json_t *m = o ? json_object_get(o, "fclib_merit") : NULL;
  double want = sqrt(0.85 + 4 / 1.09) / (1 + sqrt(2.7));
  t_ok(m && json_is_real(m) && fabs(json_real_value(m) - want) <= 1e-15,
       "JSON fclib_merit of a cone result: %.17g (by hand %.17g)", m ? json_number_value(m) : NAN,
       want);
  json_decref(o);
  free(text);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_read();
  test_json_merit();
  test_round_trips();
  test_bad_files();
  return t_done();
}
