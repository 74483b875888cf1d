/* t_formulations_io.c: contact-system files: the examples load, JSON round trip, malformed files give `file:line:` errors and never crash, FCLIB local problems are read and compiled. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"
#include "formtest.h"

static int same_csc(const cpk_csc *a, const cpk_csc *b)
{
  if (a->m != b->m || a->n != b->n || a->p[a->n] != b->p[b->n]) return 0;
  for (cpk_int j = 0; j <= a->n; j++)
    if (a->p[j] != b->p[j]) return 0;
  for (cpk_int k = 0; k < a->p[a->n]; k++)
    if (a->i[k] != b->i[k] || a->x[k] != b->x[k]) return 0;
  return 1;
}

static int same_params(const cpk_contact_params *a, const cpk_contact_params *b)
{
  int ok = a->psi == b->psi && a->mu == b->mu && a->e_t == b->e_t && a->e_o == b->e_o &&
           a->e_r == b->e_r && a->compliant == b->compliant && a->ndirections == b->ndirections;
  ok &= memcmp(a->drift, b->drift, sizeof a->drift) == 0;
  if (a->compliant && b->compliant)
    ok &= memcmp(a->K, b->K, sizeof a->K) == 0 && memcmp(a->C, b->C, sizeof a->C) == 0 &&
          a->delta_max == b->delta_max &&
          memcmp(a->delta_prev, b->delta_prev, sizeof a->delta_prev) == 0;
  for (size_t k = 0; ok && k < 3 * a->ndirections; k++) ok = a->directions[k] == b->directions[k];
  return ok;
}

static int same_system(const cpk_contact_system *a, const cpk_contact_system *b)
{
  int ok =
      a->form == b->form && a->h == b->h && a->nc == b->nc && a->nv == b->nv && a->dim == b->dim;
  ok &= (a->name == NULL) == (b->name == NULL) && (!a->name || strcmp(a->name, b->name) == 0);
  for (size_t c = 0; ok && c < a->nc; c++) ok = same_params(&a->contacts[c], &b->contacts[c]);
  if (ok && a->form == CPK_SYSTEM_BODY) {
    ok = same_csc(a->M, b->M) && memcmp(a->v, b->v, a->nv * sizeof *a->v) == 0 &&
         memcmp(a->k, b->k, a->nv * sizeof *a->k) == 0;
    ok &= memcmp(a->wptr, b->wptr, (a->nc + 1) * sizeof *a->wptr) == 0;
    size_t nnz = a->wptr[a->nc];
    ok = ok && memcmp(a->wrow, b->wrow, nnz * sizeof *a->wrow) == 0 &&
         memcmp(a->wval, b->wval, 4 * nnz * sizeof *a->wval) == 0;
  } else if (ok) {
    ok = same_csc(a->W, b->W) && memcmp(a->q, b->q, a->dim * a->nc * sizeof *a->q) == 0;
  }
  return ok;
}

static cpk_contact_system *round_trip(const cpk_contact_system *s)
{
  char *buf = NULL;
  size_t len = 0;
  cpk_contact_system *back = NULL;
  cpk_error err;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  int rc = cpk_contact_system_write_json(s, f, &err);
  fclose(f);
  if (!rc) rc = cpk_contact_system_read_json_string(buf, "round-trip", &back, &err);
  if (rc) t_diag("round trip: %s", err.message);
  free(buf);
  return back;
}

static void test_examples(void)
{
  static const char *const names[] = {"sphere-on-plane", "sphere-translating-h0", "block-on-plane",
                                      "compliant-particle", "two-spheres-local"};
  char rel[128];
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    cpk_contact_system *s = NULL, *back;
    cpk_error err;
    snprintf(rel, sizeof rel, "../examples/%s.json", names[k]);
    int rc = cpk_contact_system_read_json_file(t_srcpath(rel), &s, &err);
    t_ok(rc == CPK_OK, "examples/%s.json reads%s%s", names[k], rc ? ": " : "",
         rc ? err.message : "");
    if (rc) continue;
    back = round_trip(s);
    t_ok(back && same_system(s, back), "%s: write + read gives the same system exactly", names[k]);
    cpk_contact_system_free(back);
    cpk_contact_system_free(s);
  }
  /* The block example is the family's block: same A as the hand-built wrenches. */
  cpk_contact_system *s = NULL;
  cpk_csc *A = NULL;
  double b[16];
  cpk_contact_system_read_json_file(t_srcpath("../examples/block-on-plane.json"), &s, NULL);
  int ok = s && s->nc == 4 && cpk_contact_system_delassus(s, &A, b, NULL) == CPK_OK;
  /* corner 1 at (a, b, -c): W_n = (0,0,1, b, -a, 0); its free normal velocity is -h g */
  t_ok(ok && fabs(b[0] + 0.01 * 9.81) < 1e-12 && fabs(b[1] - 1.0) < 1e-12,
       "block example: free contact velocity (-h g, v_x) at corner 1");
  cpk_csc_free(A);
  cpk_contact_system_free(s);
}

/* A system built in C with every optional field, through JSON and back. */
static void test_round_trip_full(void)
{
  cpk_contact_system *s = ft_random_bodies(3, 5, 0.01, 7, 1), *back;
  static const double dirs[6] = {1, 0, 0, -0.5, 0.25, 0.125};
  cpk_contact_params p = s ? s->contacts[1] : (cpk_contact_params){0};
  p.ndirections = 2;
  p.directions = dirs;
  p.drift[1] = 0.1;
  p.delta_max = INFINITY;
  int ok = s && cpk_contact_set_params(s, 1, &p, NULL) == CPK_OK &&
           cpk_contact_system_set_name(s, "a \"quoted\" name") == 0;
  /* A contact's own params handed back (directions inside the system) survive reallocation. */
  for (int k = 0; ok && k < 40; k++)
    ok = cpk_contact_set_params(s, 1, &s->contacts[1], NULL) == CPK_OK;
  ok = ok && s->contacts[1].ndirections == 2 &&
       memcmp(s->contacts[1].directions, dirs, sizeof dirs) == 0;
  back = ok ? round_trip(s) : NULL;
  t_ok(back && same_system(s, back),
       "random system with directions, drift, compliance: exact round trip");
  cpk_contact_system_free(back);
  cpk_contact_system_free(s);
}

typedef struct bad_case {
  const char *what;
  int line;           /* expected line in the message (0: do not check) */
  const char *needle; /* expected in the message */
  const char *text;
} bad_case;

static const bad_case bad_cases[] = {
    {"syntax error", 3, "", "{\n  \"cpkit_contact_system\": 1,\n  \"h\" 0.01\n}\n"},
    {"empty file", 0, "", ""},
    {"truncated", 0, "", "{\"cpkit_contact_system\": 1, \"h\": 0.1, \"M\": {\"diagonal\": [1, 1"},
    {"not an object", 1, "object", "[1, 2, 3]\n"},
    {"no version", 1, "cpkit_contact_system", "{\n  \"form\": \"body\",\n  \"h\": 0.01\n}\n"},
    {"version 2", 1, "version", "{\"cpkit_contact_system\": 2}"},
    {"duplicate key", 3, "", "{\"cpkit_contact_system\": 1,\n \"h\": 0.1,\n \"h\": 0.2}"},
    {"huge number", 2, "", "{\"cpkit_contact_system\": 1,\n \"h\": 1e400}"},
    {"unknown form", 2, "form", "{\"cpkit_contact_system\": 1,\n \"form\": \"global\"}"},
    {"negative h", 2, "h",
     "{\"cpkit_contact_system\": 1,\n \"h\": -1,\n \"M\": {\"diagonal\": [1]}}"},
    {"mu not a number", 6, "contacts[0].mu",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1, 2, 3], \"W_n\": [0, 0, 1],\n    \"mu\": \"high\"}\n "
     "]}\n"},
    {"negative mu", 5, "mu",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1, 2, 3], \"W_n\": [0, 0, 1], \"mu\": -0.1}]}\n"},
    {"unknown key", 6, "friction",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1, 2, 3], \"W_n\": [0, 0, 1],\n    \"friction\": 0.3}]}\n"},
    {"W_n of the wrong length", 5, "W_n",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1, 2], \"W_n\": [0, 0, 1]}]}\n"},
    {"row out of range", 6, "out of range",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1,\n            7], \"W_n\": [0, 1]}]}\n"},
    {"row given twice", 5, "twice",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [\n   {\"rows\": [1, 1], \"W_n\": [0, 1]}]}\n"},
    {"M not symmetric", 3, "symmetric",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"dense\": [[1, 2], [0, 1]]}}\n"},
    {"M not positive", 3, "positive",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 0, 1]}}\n"},
    {"nv larger than the data", 3, "larger",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"nv\": 100000000,\n"
     " \"M\": {\"triplets\": [[1, 1, 1.0]]}}\n"},
    {"triplet index out of range", 4, "out of range",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"nv\": 2,\n"
     " \"M\": {\"triplets\": [[1, 1, 1.0], [2, 3, 1.0]]}}\n"},
    {"M and bodies", 1, "exactly one",
     "{\"cpkit_contact_system\": 1, \"h\": 0.01, \"M\": {\"diagonal\": [1]},\n"
     " \"bodies\": [{\"mass\": 1, \"inertia\": [1, 1, 1]}]}\n"},
    {"body index too high", 4, "out of range",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, "
     "1, 1]}],\n"
     " \"contacts\": [{\"body\": 2, \"normal\": [0, 0, 1]}]}\n"},
    {"zero normal", 5, "zero",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"bodies\": [{\"mass\": 1, \"inertia\": [1, "
     "1, 1]}],\n"
     " \"contacts\": [{\"body\": 1,\n   \"normal\": [0, 0, 0]}]}\n"},
    {"compliance without K", 5, "K",
     "{\"cpkit_contact_system\": 1,\n \"h\": 0.01,\n \"M\": {\"diagonal\": [1, 1, 1]},\n"
     " \"contacts\": [{\"rows\": [3], \"W_n\": [1],\n   \"compliance\": {\"C\": [1, 1, 1]}}]}\n"},
    {"local q not a multiple of dim", 3, "multiple",
     "{\"cpkit_contact_system\": 1,\n \"form\": \"local\",\n \"q\": [1, 2, 3, 4],\n"
     " \"W\": {\"diagonal\": [1, 1, 1, 1]}}\n"},
    {"local W of the wrong size", 4, "expected",
     "{\"cpkit_contact_system\": 1,\n \"form\": \"local\",\n \"q\": [1, 2, 3],\n"
     " \"W\": {\"diagonal\": [1, 1]},\n \"mu\": [0.1]}\n"},
    {"local without contacts or mu", 1, "contacts",
     "{\"cpkit_contact_system\": 1, \"form\": \"local\", \"q\": [1, 2, 3],\n"
     " \"W\": {\"diagonal\": [1, 1, 1]}}\n"},
};

static void test_malformed(void)
{
  for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
    const bad_case *b = &bad_cases[k];
    cpk_contact_system *s = NULL;
    cpk_error err;
    char prefix[64];
    cpk_error_clear(&err);
    int rc = cpk_contact_system_read_json_string(b->text, "bad.json", &s, &err);
    snprintf(prefix, sizeof prefix, "bad.json:%d:", b->line);
    int ok = rc == CPK_EPARSE && s == NULL && strncmp(err.message, "bad.json:", 9) == 0;
    ok &= b->line == 0 || strncmp(err.message, prefix, strlen(prefix)) == 0;
    ok &= strstr(err.message, b->needle) != NULL;
    t_ok(ok, "%s: rejected with \"%s\"", b->what, err.message);
    cpk_contact_system_free(s);
  }
  cpk_contact_system *s = NULL;
  cpk_error err;
  int rc = cpk_contact_system_read_json_file("no-such-file.json", &s, &err);
  t_ok(rc == CPK_EIO && s == NULL && strstr(err.message, "no-such-file.json"), "missing file: %s",
       err.message);
  rc = cpk_contact_system_read_file(t_srcpath("data/io-dense.cpk"), &s, &err);
  t_ok(rc == CPK_EPARSE && s == NULL, "a problem file is not a system: %s", err.message);
}

/* ---- FCLIB --------------------------------------------------------------------- */

static void fclib_file(const char *rel, size_t nc, size_t nnz, int solve)
{
  cpk_contact_system *s = NULL;
  cpk_error err;
  int rc = cpk_contact_system_read_file(t_srcpath(rel), &s, &err);
  if (rc == CPK_EUNSUP) {
    t_ok(1, "%s # SKIP built without HDF5 (%s)", rel, err.message);
    return;
  }
  t_ok(rc == CPK_OK && s->form == CPK_SYSTEM_LOCAL && s->dim == 3 && s->nc == nc &&
           (size_t)s->W->p[s->W->n] == nnz,
       "%s: %zu contacts, W with %zu non-zeros%s%s", rel, nc, nnz, rc ? ": " : "",
       rc ? err.message : "");
  if (rc) return;
  static const char *const models[] = {"point-coulomb", "elliptic-torsional", "polyhedral",
                                       "kelvin-voigt"};
  for (int k = 0; k < 4; k++) {
    cpk_problem *p = NULL;
    cpk_varmap *m = NULL;
    rc = cpk_compile(s, models[k], NULL, &p, &m, &err);
    t_ok(rc == CPK_OK, "%s: compiles with %s", rel, models[k]);
    if (!rc && solve && k == 2) {
      cpk_result *r = ft_solve(p, "lemke", 0);
      t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
           "%s: polyhedral LCP solved by lemke", rel);
      cpk_result_free(r);
    }
    cpk_problem_free(p);
    cpk_varmap_free(m);
  }
  cpk_contact_system_free(s);
}

/* Projection onto the Coulomb cone {|x_T| <= mu x_n}. */
static void cone_project(double mu, const double x[3], double y[3])
{
  double xt = hypot(x[1], x[2]);
  if (xt <= mu * x[0]) {
    memcpy(y, x, 3 * sizeof *y);
  } else if (mu * xt <= -x[0]) {
    y[0] = y[1] = y[2] = 0.0;
  } else {
    double n = (x[0] + mu * xt) / (1 + mu * mu);
    y[0] = n;
    y[1] = mu * n * x[1] / xt;
    y[2] = mu * n * x[2] / xt;
  }
}

/* FCLIB's own criterion, computed from W and q alone: with u = W r + q and
 * u^ = u + mu |u_T| e_N, the natural map r - P_K(r - u^) must vanish. */
static double fclib_residual(const cpk_contact_system *s, const double *P)
{
  size_t m = 3 * s->nc;
  double *r = calloc(m, sizeof *r), *u = calloc(m, sizeof *u), worst = 0;
  for (size_t c = 0; c < s->nc; c++)
    for (int a = 0; a < 3; a++) r[3 * c + a] = P[4 * c + a];
  for (size_t i = 0; i < m; i++) u[i] = s->q[i];
  for (cpk_int j = 0; j < s->W->n; j++)
    for (cpk_int k = s->W->p[j]; k < s->W->p[j + 1]; k++) u[s->W->i[k]] += s->W->x[k] * r[j];
  for (size_t c = 0; c < s->nc; c++) {
    double mu = s->contacts[c].mu, *uc = u + 3 * c, *rc = r + 3 * c, x[3], y[3];
    double uh = uc[0] + mu * hypot(uc[1], uc[2]);
    x[0] = rc[0] - uh;
    x[1] = rc[1] - uc[1];
    x[2] = rc[2] - uc[2];
    cone_project(mu, x, y);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(rc[a] - y[a]));
  }
  free(r);
  free(u);
  return worst;
}

/* point-coulomb on an FCLIB problem, hot-started from the polyhedral solution. */
static void fclib_point_coulomb(const char *rel)
{
  cpk_contact_system *s = NULL;
  cpk_problem *pp = NULL, *p = NULL;
  cpk_varmap *mp = NULL, *m = NULL;
  cpk_compile_options o;
  const char *solver = ft_nonlinear_solver();
  if (cpk_contact_system_read_file(t_srcpath(rel), &s, NULL)) return; /* reported above */
  if (!solver) {
    t_ok(1, "%s: FCLIB criterion # SKIP no nonlinear MCP solver registered", rel);
    cpk_contact_system_free(s);
    return;
  }
  cpk_compile_options_default(&o);
  o.directions.d = 16;
  double *P = calloc(4 * s->nc, sizeof *P), *z0 = NULL, res = INFINITY;
  cpk_result *r0 = NULL, *r = NULL;
  if (!cpk_compile(s, "polyhedral", &o, &pp, &mp, NULL)) r0 = ft_solve(pp, "lemke", 0);
  if (r0 && r0->status == CPK_STATUS_SOLVED &&
      !cpk_compile(s, "point-coulomb", NULL, &p, &m, NULL)) {
    cpk_settings st;
    cpk_varmap_impulses(mp, r0->z, P);
    z0 = calloc(p->n, sizeof *z0);
    cpk_varmap_point(m, P, z0, NULL);
    cpk_settings_default(&st);
    st.z0 = z0;
    st.tol = 1e-12;
    if (!cpk_result_alloc(p->n, &r) && !cpk_solve(p, solver, &st, r, NULL) &&
        r->status == CPK_STATUS_SOLVED) {
      cpk_varmap_impulses(m, r->z, P);
      res = fclib_residual(s, P);
    }
  }
  t_ok(res < 1e-9, "%s: point-coulomb solution (%s) meets FCLIB's own criterion (%.1e)", rel,
       solver, res);
  cpk_result_free(r0);
  cpk_result_free(r);
  cpk_problem_free(pp);
  cpk_problem_free(p);
  cpk_varmap_free(mp);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
  free(P);
  free(z0);
}

static void test_fclib(void)
{
  fclib_file("data/fclib/FrictionContact3D_1c.hdf5", 1, 9, 1);
  fclib_file("data/fclib/Rover4396.hdf5", 2, 36, 1);
  fclib_file("data/fclib/local_problem_test.hdf5", 48, 4896, 0);
  fclib_point_coulomb("data/fclib/FrictionContact3D_1c.hdf5");
  fclib_point_coulomb("data/fclib/Rover4396.hdf5");
  cpk_contact_system *s = NULL;
  cpk_error err;
  /* The first 2 kB of a real file: an HDF5 signature, then nothing usable. */
  FILE *in = fopen(t_srcpath("data/fclib/Rover4396.hdf5"), "rb");
  char buf[2048], path[600];
  size_t got = in ? fread(buf, 1, sizeof buf, in) : 0;
  char tmpl[512];
  snprintf(tmpl, sizeof tmpl, "%s/t_fclib_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(tmpl);
  FILE *cut = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (cut) {
    fwrite(buf, 1, got, cut);
    fclose(cut);
  }
  snprintf(path, sizeof path, "%s", tmpl);
  int rc = cpk_contact_system_read_file(path, &s, &err);
  t_ok(rc != CPK_OK && s == NULL, "a truncated HDF5 file is refused: %s", err.message);
  remove(path);
  if (in) fclose(in);
  rc = cpk_contact_system_read_fclib(t_srcpath("../examples/sphere-on-plane.json"), &s, &err);
  t_ok((rc == CPK_EIO || rc == CPK_EUNSUP) && s == NULL, "a JSON file is not an HDF5 file: %s",
       err.message);
}

int main(void)
{
  test_examples();
  test_round_trip_full();
  test_malformed();
  test_fclib();
  return t_done();
}
