/* t_io.c: problem text format reader/writer, JSON results and warm-start files. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "testlib.h"

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
/* Under ASan any single allocation above 256 MB aborts this program, so "a huge declared
   size is rejected without allocating" is checked, not assumed. */
const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__asan_default_options(void)
{
  return "max_allocation_size_mb=256";
}
#endif

static int same_bits(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0;
}

static int same_vec(const double *a, const double *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!same_bits(a[i], b[i])) return 0;
  return 1;
}

static int all_equal(const double *v, size_t n, double x)
{
  for (size_t i = 0; i < n; i++)
    if (!same_bits(v[i], x)) return 0;
  return 1;
}

/* Every entry of M against a row-major table. */
static int matrix_is(const cpk_matrix *M, const double *rows, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      if (cpk_matrix_get(M, i, j) != rows[i * n + j]) {
        t_diag("M(%zu,%zu) = %.17g, expected %.17g", i + 1, j + 1, cpk_matrix_get(M, i, j),
               rows[i * n + j]);
        return 0;
      }
  return 1;
}

static cpk_problem *read_data(const char *rel)
{
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_file(t_srcpath(rel), &p, &err);
  if (!t_ok(rc == CPK_OK && p != NULL, "read %s", rel)) t_diag("%s", err.message);
  return p;
}

static void test_read_dense(void)
{
  static const double M[9] = {1, 2, 2, 0, 1, 2, 0, 0, 1e-3};
  static const double q[3] = {-1, -1.5, -2.5e+2};
  cpk_problem *p = read_data("data/io-dense.cpk");
  if (!p) return;
  t_ok(p->kind == CPK_KIND_LCP && p->n == 3, "dense: an LCP of size 3");
  t_ok(p->name && strcmp(p->name, "murty3") == 0, "dense: name");
  t_ok(p->M->format == CPK_MATRIX_DENSE, "dense: stored dense");
  t_ok(matrix_is(p->M, M, 3), "dense: every entry of M");
  t_ok(same_vec(p->q, q, 3), "dense: q");
  t_ok(all_equal(p->lower, 3, 0.0) && all_equal(p->upper, 3, INFINITY), "dense: LCP bounds");
  cpk_problem_free(p);
}

static void test_read_coord(void)
{
  static const double M[16] = {2.5, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 1e-3, 0, 0, -1, 4};
  static const double q[4] = {1, -2, 3, -4};
  cpk_problem *p = read_data("data/io-coord.cpk");
  if (!p) return;
  t_ok(p->kind == CPK_KIND_LCP && p->n == 4 && p->name == NULL, "coord: unnamed LCP of size 4");
  t_ok(p->M->format == CPK_MATRIX_CSC && cpk_csc_check(p->M->csc) == CPK_OK, "coord: valid CSC");
  t_ok(matrix_is(p->M, M, 4), "coord: every entry, duplicate (1,1) summed to 2.5");
  /* 7 triplets, one duplicate: 6 stored, the explicit zero (2,1) among them. */
  const cpk_csc *C = p->M->csc;
  t_ok(cpk_matrix_nnz(p->M) == 6, "coord: 6 stored entries");
  t_ok(C->p[1] - C->p[0] == 2 && C->i[C->p[0] + 1] == 1 && C->x[C->p[0] + 1] == 0.0,
       "coord: explicit zero kept in column 1");
  t_ok(same_vec(p->q, q, 4), "coord: q");
  cpk_problem_free(p);
}

static void test_read_mcp(void)
{
  static const double M[16] = {2, 1, 0, 0, 1, 2, 1, 0, 0, 1, 2, 1, 0, 0, 1, 2};
  static const double q[4] = {-1, 1, -2, 0.5};
  static const double l[4] = {0, -INFINITY, -INFINITY, -1.5};
  static const double u[4] = {INFINITY, INFINITY, 3, -1.5};
  cpk_problem *p = read_data("data/io-mcp.cpk");
  if (!p) return;
  t_ok(p->kind == CPK_KIND_AFFINE_MCP && p->n == 4, "mcp: an affine MCP of size 4");
  t_ok(p->name && strcmp(p->name, "box-mcp") == 0, "mcp: name");
  t_ok(matrix_is(p->M, M, 4) && same_vec(p->q, q, 4), "mcp: M and q");
  t_ok(same_vec(p->lower, l, 4), "mcp: lower with -inf and -INF");
  t_ok(same_vec(p->upper, u, 4), "mcp: upper with inf and +Inf");
  cpk_problem_free(p);
}

static void test_default_bounds(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  const char *only_lower = "cpkit-problem 1 type mcp n 2 M dense 1 0 0 1 q 1 1 lower -1 -inf end";
  const char *only_upper = "cpkit-problem 1\ntype mcp n 2 M coord 0 q 1 1 upper 1 2 end";
  int rc = cpk_problem_read_string(only_lower, "s1", &p, &err);
  t_ok(rc == CPK_OK && p->lower[0] == -1 && p->lower[1] == -INFINITY &&
           all_equal(p->upper, 2, INFINITY), "mcp with lower only: upper defaults to +inf");
  cpk_problem_free(p);
  rc = cpk_problem_read_string(only_upper, "s2", &p, &err);
  t_ok(rc == CPK_OK && all_equal(p->lower, 2, 0.0) && p->upper[0] == 1 && p->upper[1] == 2,
       "mcp with upper only: lower defaults to 0");
  t_ok(rc == CPK_OK && cpk_matrix_nnz(p->M) == 0 && cpk_matrix_get(p->M, 0, 0) == 0.0,
       "M coord 0 is the zero matrix");
  cpk_problem_free(p);
}

/* Same text from a string and from a stream of unknown size: same problem. */
static void test_string_and_stream(void)
{
  char text[] = "cpkit-problem 1\nname s\ntype lcp\nn 2\nM dense\n4 -1\n-1 4\nq\n1 -1\nend\n";
  static const double M[4] = {4, -1, -1, 4};
  cpk_problem *a = NULL, *b = NULL;
  cpk_error err;
  int rc = cpk_problem_read_string(text, "text", &a, &err);
  FILE *f = fmemopen(text, strlen(text), "r");
  int rc2 = f ? cpk_problem_read_stream(f, "mem", &b, &err) : -1;
  if (f) fclose(f);
  t_ok(rc == CPK_OK && matrix_is(a->M, M, 2) && a->q[0] == 1 && a->q[1] == -1,
       "read_string values");
  t_ok(rc2 == CPK_OK && matrix_is(b->M, M, 2) && same_vec(a->q, b->q, 2) &&
           strcmp(b->name, "s") == 0, "read_stream (fmemopen) gives the same problem");
  cpk_problem_free(a);
  cpk_problem_free(b);
}

/* Random doubles over the whole finite range, denormals included: every bit pattern counts. */
static double random_double(uint64_t *state)
{
  for (;;) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t bits = *state ^ (*state >> 29);
    double x;
    memcpy(&x, &bits, sizeof x);
    if (isfinite(x)) return x;
  }
}

static int same_matrix(const cpk_matrix *A, const cpk_matrix *B)
{
  if (A->format != B->format || A->m != B->m || A->n != B->n) return 0;
  if (A->format == CPK_MATRIX_DENSE) {
    for (size_t i = 0; i < A->m; i++)
      for (size_t j = 0; j < A->n; j++)
        if (!same_bits(gsl_matrix_get(A->dense, i, j), gsl_matrix_get(B->dense, i, j))) return 0;
    return 1;
  }
  const cpk_csc *a = A->csc, *b = B->csc;
  cpk_int nnz = a->p[a->n];
  if (b->p[b->n] != nnz || memcmp(a->p, b->p, (size_t)(a->n + 1) * sizeof *a->p) != 0) return 0;
  return memcmp(a->i, b->i, (size_t)nnz * sizeof *a->i) == 0 && same_vec(a->x, b->x, (size_t)nnz);
}

static int same_problem(const cpk_problem *a, const cpk_problem *b)
{
  return a->kind == b->kind && a->n == b->n && same_matrix(a->M, b->M) &&
         same_vec(a->q, b->q, a->n) && same_vec(a->lower, b->lower, a->n) &&
         same_vec(a->upper, b->upper, a->n);
}

/* Write to a stream and to a file, read both back, compare bit for bit. */
static void roundtrip(const cpk_problem *p, const char *label)
{
  cpk_problem *back = NULL, *back2 = NULL;
  cpk_error err;
  FILE *f = tmpfile();
  int rc = f ? cpk_problem_write(p, f, &err) : -1;
  if (!rc) {
    rewind(f);
    rc = cpk_problem_read_stream(f, label, &back, &err);
  }
  if (f) fclose(f);
  if (!t_ok(rc == CPK_OK && same_problem(p, back), "round trip (stream) exact: %s", label))
    t_diag("rc %d: %s", rc, err.message);
  const char *path = "t_io-roundtrip.cpk";
  rc = cpk_problem_write_file(p, path, &err);
  if (!rc) rc = cpk_problem_read_file(path, &back2, &err);
  t_ok(rc == CPK_OK && same_problem(p, back2), "round trip (file) exact: %s", label);
  remove(path);
  cpk_problem_free(back);
  cpk_problem_free(back2);
}

/* Hand-picked values that a short format would break, then random bit patterns. */
static void fill_values(double *v, size_t count, uint64_t *state)
{
  static const double special[] = {0.1, 1.0 / 3, -0.0, 4.9406564584124654e-324, DBL_MAX,
                                   -DBL_MIN, 1e-17, 123456789.123456789, -2.5, 0.0};
  size_t nspecial = sizeof special / sizeof special[0];
  for (size_t k = 0; k < count; k++)
    v[k] = k < nspecial ? special[k] : random_double(state);
}

static cpk_problem *make_problem(size_t n, int sparse, int mcp, uint64_t *state)
{
  double *vals = malloc(n * n * sizeof *vals), *q = malloc(n * sizeof *q);
  double *l = malloc(n * sizeof *l), *u = malloc(n * sizeof *u);
  cpk_int *ti = malloc(n * n * sizeof *ti), *tj = malloc(n * n * sizeof *tj);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  size_t nnz = 0;
  fill_values(vals, n * n, state);
  fill_values(q, n, state);
  for (size_t k = 0; k < n * n; k++)
    if (!sparse || k % 3 != 1) { /* a pattern with holes, explicit zeros included */
      ti[nnz] = (cpk_int)(k / n);
      tj[nnz] = (cpk_int)(k % n);
      vals[nnz++] = vals[k];
    }
  for (size_t i = 0; i < n; i++) { /* each kind of bound: free, one-sided, boxed, fixed */
    double a = -fabs(random_double(state)), b = fabs(random_double(state));
    l[i] = i % 4 == 0 ? -INFINITY : a;
    u[i] = i % 4 == 1 ? INFINITY : (i % 4 == 3 ? l[i] : b);
  }
  int rc;
  if (sparse) rc = cpk_matrix_from_triplets(n, n, nnz, ti, tj, vals, &M);
  else {
    gsl_matrix_view view = gsl_matrix_view_array(vals, n, n);
    rc = cpk_matrix_from_gsl(&view.matrix, &M);
  }
  if (!rc && mcp) rc = cpk_problem_alloc_affine_mcp(M, q, l, u, &p);
  else if (!rc) rc = cpk_problem_alloc_lcp(M, q, &p);
  t_ok(rc == CPK_OK, "built a %s %s problem of size %zu", sparse ? "CSC" : "dense",
       mcp ? "MCP" : "LCP", n);
  cpk_matrix_free(M);
  free(vals);
  free(q);
  free(l);
  free(u);
  free(ti);
  free(tj);
  return p;
}

static void test_roundtrips(void)
{
  uint64_t state = t_seed();
  for (int sparse = 0; sparse <= 1; sparse++)
    for (int mcp = 0; mcp <= 1; mcp++) {
      char label[64];
      cpk_problem *p = make_problem(7, sparse, mcp, &state);
      if (!p) continue;
      snprintf(label, sizeof label, "%s %s", sparse ? "CSC" : "dense", mcp ? "MCP" : "LCP");
      roundtrip(p, label);
      cpk_problem_free(p);
    }
}

static void test_name_written(void)
{
  uint64_t state = 1;
  cpk_problem *p = make_problem(2, 1, 1, &state), *back = NULL;
  cpk_error err;
  if (!p) return;
  cpk_problem_set_name(p, "two words#x");
  FILE *f = tmpfile();
  int rc = cpk_problem_write(p, f, &err);
  rewind(f);
  if (!rc) rc = cpk_problem_read_stream(f, "named", &back, &err);
  fclose(f);
  t_ok(rc == CPK_OK && strcmp(back->name, "two_words_x") == 0,
       "a name with blanks and '#' is written as one token");
  cpk_problem_free(back);
  cpk_problem_free(p);
}

static int unit_f(const double *z, double *f, void *params)
{
  (void)params;
  f[0] = z[0];
  return 0;
}

static int unit_jac(const double *z, cpk_csc *J, void *params)
{
  (void)z, (void)params;
  J->x[0] = 1.0;
  return 0;
}

static void test_write_refused(void)
{
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  cpk_error err;
  cpk_csc_alloc(1, 1, 1, &pat);
  pat->p[1] = 1;
  pat->i[0] = 0;
  int rc = cpk_problem_alloc_nonlinear_mcp(1, unit_f, unit_jac, pat, NULL, NULL, NULL, &p);
  FILE *f = tmpfile();
  if (!rc) rc = cpk_problem_write(p, f, &err);
  t_ok(rc == CPK_EUNSUP && err.code == CPK_EUNSUP && err.message[0] != '\0',
       "nonlinear problem: CPK_EUNSUP with a message");
  t_ok(ftell(f) == 0, "nothing written for a nonlinear problem");
  fclose(f);
  cpk_problem_free(p);
  cpk_csc_free(pat);
}

/* One malformed file per class: the code and the line, worked out by reading the file. */
static const struct bad_case {
  const char *file;
  int code;
  long line;
} bad_cases[] = {
    {"header-missing.cpk", CPK_EPARSE, 2},   {"header-version.cpk", CPK_EPARSE, 1},
    {"empty.cpk", CPK_EPARSE, 2},            {"unknown-keyword.cpk", CPK_EPARSE, 6},
    {"repeated.cpk", CPK_EPARSE, 5},         {"out-of-order.cpk", CPK_EPARSE, 3},
    {"bounds-order.cpk", CPK_EPARSE, 10},    {"missing-section.cpk", CPK_EPARSE, 8},
    {"missing-type.cpk", CPK_EPARSE, 3},     {"not-number.cpk", CPK_EPARSE, 10},
    {"nan-M.cpk", CPK_EPARSE, 6},            {"nan-lower.cpk", CPK_EPARSE, 11},
    {"inf-M.cpk", CPK_EPARSE, 6},            {"inf-q.cpk", CPK_EPARSE, 8},
    {"lower-plus-inf.cpk", CPK_EPARSE, 9},   {"upper-minus-inf.cpk", CPK_EPARSE, 10},
    {"too-few-end.cpk", CPK_EPARSE, 11},     {"too-few-eof.cpk", CPK_EPARSE, 7},
    {"too-few-coord.cpk", CPK_EPARSE, 7},    {"too-many.cpk", CPK_EPARSE, 10},
    {"too-many-M.cpk", CPK_EPARSE, 7},       {"n-zero.cpk", CPK_EPARSE, 3},
    {"n-real.cpk", CPK_EPARSE, 3},           {"n-negative.cpk", CPK_EPARSE, 4},
    {"n-huge.cpk", CPK_EPARSE, 3},           {"n-overflow.cpk", CPK_ETOOBIG, 3},
    {"dense-huge.cpk", CPK_EPARSE, 6},       {"nnz-negative.cpk", CPK_EPARSE, 4},
    {"nnz-real.cpk", CPK_EPARSE, 5},         {"nnz-huge.cpk", CPK_EPARSE, 4},
    {"index-zero.cpk", CPK_EPARSE, 6},       {"index-high.cpk", CPK_EPARSE, 6},
    {"index-real.cpk", CPK_EPARSE, 5},       {"l-gt-u.cpk", CPK_EPARSE, 12},
    {"lower-for-lcp.cpk", CPK_EPARSE, 8},    {"trailing.cpk", CPK_EPARSE, 10},
    {"missing-end.cpk", CPK_EPARSE, 8},      {"bad-type.cpk", CPK_EPARSE, 2},
    {"bad-form.cpk", CPK_EPARSE, 4},         {"range.cpk", CPK_EPARSE, 7},
};

static int starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_bad_files(void)
{
  size_t count = sizeof bad_cases / sizeof bad_cases[0];
  for (size_t k = 0; k < count; k++) {
    const struct bad_case *c = &bad_cases[k];
    char rel[128], path[4200], prefix[4300];
    cpk_problem *p = (cpk_problem *)&p; /* must be reset to NULL */
    cpk_error err;
    snprintf(rel, sizeof rel, "data/bad/%s", c->file);
    snprintf(path, sizeof path, "%s", t_srcpath(rel));
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, c->line);
    int rc = cpk_problem_read_file(path, &p, &err);
    int ok = rc == c->code && err.code == c->code && p == NULL && starts_with(err.message, prefix)
             && strlen(err.message) > strlen(prefix);
    if (!t_ok(ok, "%s: %s at line %ld", c->file, cpk_errname(c->code), c->line))
      t_diag("got %s: %s", cpk_errname(rc), err.message);
  }
}

/* `len` bytes of text through an unsized stream: fmemopen, or a real pipe. */
static int read_via(int use_pipe, const char *text, size_t len, cpk_error *err)
{
  cpk_problem *p = NULL;
  FILE *f = NULL;
  int fds[2];
  if (use_pipe) {
    if (pipe(fds) != 0) return -1;
    int wrote = write(fds[1], text, len) == (ssize_t)len; /* fits the pipe buffer */
    close(fds[1]);
    f = wrote ? fdopen(fds[0], "r") : NULL;
    if (!f) close(fds[0]);
  } else {
    f = fmemopen((void *)text, len, "r");
  }
  if (!f) return -1;
  int rc = cpk_problem_read_stream(f, "pipe", &p, err);
  fclose(f);
  cpk_problem_free(p);
  return rc;
}

static void expect_stream(int use_pipe, const char *text, size_t len, int code,
                          const char *prefix, const char *what)
{
  cpk_error err;
  int rc = read_via(use_pipe, text, len ? len : strlen(text), &err);
  if (!t_ok(rc == code && starts_with(err.message, prefix), "%s (%s): %s", what,
            use_pipe ? "pipe" : "fmemopen", cpk_errname(code)))
    t_diag("got %s: %s", cpk_errname(rc), err.message);
}

/* Declared sizes far beyond the data: rejected without allocating for them (ASan caps
   allocations at 256 MB in this program). */
static void test_huge_sizes(void)
{
  const char *huge_n = "cpkit-problem 1\ntype lcp\nn 1000000000\nM coord 1\n1 1 1\nq\n1 2 3\nend\n";
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_string(huge_n, "str", &p, &err);
  t_ok(rc == CPK_EPARSE && p == NULL && starts_with(err.message, "str:3: "),
       "string with n = 1e9: rejected at the n line");
  for (int use_pipe = 0; use_pipe <= 1; use_pipe++) {
    expect_stream(use_pipe, huge_n, 0, CPK_EPARSE, "pipe:8: ", "n = 1e9, 3 numbers in q");
    expect_stream(use_pipe, "cpkit-problem 1 type lcp\nn 3000000000\n", 0, CPK_ETOOBIG, "pipe:2: ",
                  "n = 3e9 from a stream");
    expect_stream(use_pipe, "cpkit-problem 1 type lcp n 50000\nM dense 1 2\n", 0, CPK_ETOOBIG,
                  "pipe:2: ", "dense n = 50000 (n*n above the stream cap)");
    expect_stream(use_pipe, "cpkit-problem 1 type lcp n 40000\nM dense 1 2\n", 0, CPK_EPARSE,
                  "pipe:2: ", "dense n = 40000 with 2 numbers");
    expect_stream(use_pipe, "cpkit-problem 1 type lcp n 2\nM coord 700000000\n1 1 1\n", 0,
                  CPK_EPARSE, "pipe:3: ", "nnz = 7e8 with one triplet");
  }
  static const char nul[] = "cpkit-problem 1\ntype\0lcp n 1 M dense 1 q 1 end";
  expect_stream(1, nul, sizeof nul - 1, CPK_EPARSE, "pipe:2: ", "a NUL byte in the text");
  rc = cpk_problem_read_file("t_io-no-such-file.cpk", &p, &err);
  t_ok(rc == CPK_EIO && starts_with(err.message, "t_io-no-such-file.cpk: "),
       "missing file: CPK_EIO naming the file");
}

/* The whole content of a stream, from its start. */
static char *slurp_stream(FILE *f)
{
  long len;
  if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) return NULL;
  rewind(f);
  char *text = calloc((size_t)len + 1, 1);
  if (text && fread(text, 1, (size_t)len, f) != (size_t)len) text[0] = '\0';
  return text;
}

/* A result filled by hand: values chosen here, not produced by a solver. */
static cpk_result *sample_result(void)
{
  static const double z[3] = {1.5, 0.0, 1.0 / 3}, w[3] = {0.0, 2.0, -0.1};
  static const double s2[3] = {0.0, 1.0, 2.0};
  static const int basis[3] = {CPK_VAR_BASIC, CPK_VAR_AT_LOWER, CPK_VAR_AT_UPPER};
  cpk_result *r = NULL;
  if (cpk_result_alloc(3, &r)) return NULL;
  r->status = CPK_STATUS_SOLVED;
  r->solver = "lemke";
  memcpy(r->z, z, sizeof z);
  memcpy(r->w, w, sizeof w);
  r->residual = INFINITY;
  r->tolerance = 1e-8;
  r->iterations = 7;
  r->time_s = 0.25;
  cpk_result_set_stat(r, "pivots", 7);
  cpk_result_set_stat(r, "condition", NAN);
  snprintf(r->message, sizeof r->message, "all good");
  memcpy(r->basis, basis, sizeof basis);
  r->has_basis = 1;
  memcpy(r->ray, w, sizeof w);
  r->has_ray = 1;
  cpk_result_add_solution(r, z);
  cpk_result_add_solution(r, s2);
  return r;
}

static json_t *write_and_parse(const cpk_result *r, const cpk_problem *p, int flags, int *lines)
{
  cpk_error err;
  json_error_t jerr;
  FILE *f = tmpfile();
  int rc = f ? cpk_result_write_json(r, p, f, flags, &err) : -1;
  char *text = rc == CPK_OK ? slurp_stream(f) : NULL;
  if (f) fclose(f);
  t_ok(rc == CPK_OK && text, "cpk_result_write_json (flags %d)", flags);
  if (!text) return NULL;
  size_t len = strlen(text);
  t_ok(len > 0 && text[len - 1] == '\n', "output ends with a newline");
  *lines = 0;
  for (size_t k = 0; k < len; k++) *lines += text[k] == '\n';
  json_t *root = json_loads(text, 0, &jerr);
  if (!t_ok(json_is_object(root), "output parses as a JSON object")) t_diag("%s", jerr.text);
  free(text);
  return root;
}

static int json_vec_is(const json_t *a, const double *v, size_t n)
{
  if (!json_is_array(a) || json_array_size(a) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    const json_t *x = json_array_get(a, i);
    if (!json_is_number(x) || !same_bits(json_number_value(x), v[i])) return 0;
  }
  return 1;
}

static int jstr_eq(const json_t *v, const char *s)
{
  return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

static int json_str_is(const json_t *o, const char *key, const char *s)
{
  return jstr_eq(json_object_get(o, key), s);
}

static void check_json_arrays(const json_t *o, const cpk_result *r)
{
  const json_t *names = json_object_get(o, "names"), *basis = json_object_get(o, "basis");
  const json_t *sols = json_object_get(o, "solutions");
  t_ok(json_vec_is(json_object_get(o, "z"), r->z, 3), "z exact (17 digits)");
  t_ok(json_vec_is(json_object_get(o, "w"), r->w, 3), "w exact");
  t_ok(json_vec_is(json_object_get(o, "ray"), r->ray, 3), "ray present and exact");
  t_ok(json_array_size(names) == 3 && jstr_eq(json_array_get(names, 0), "a") &&
           jstr_eq(json_array_get(names, 1), "b") && json_is_null(json_array_get(names, 2)),
       "names: a, b, null");
  t_ok(json_array_size(basis) == 3 && jstr_eq(json_array_get(basis, 0), "basic") &&
           jstr_eq(json_array_get(basis, 1), "lower") && jstr_eq(json_array_get(basis, 2), "upper"),
       "basis words");
  t_ok(json_array_size(sols) == 2 && json_vec_is(json_array_get(sols, 0), r->z, 3) &&
           json_vec_is(json_array_get(sols, 1), r->solutions + 3, 3), "solutions");
}

static void test_json_full(void)
{
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {1, 1, 1};
  gsl_matrix_const_view view = gsl_matrix_const_view_array(eye, 3, 3);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = sample_result();
  int lines = 0;
  cpk_matrix_from_gsl(&view.matrix, &M);
  cpk_problem_alloc_lcp(M, q, &p);
  cpk_problem_set_name(p, "json-test");
  cpk_problem_set_var_name(p, 0, "a");
  cpk_problem_set_var_name(p, 1, "b");
  json_t *o = r && p ? write_and_parse(r, p, 0, &lines) : NULL;
  if (o) {
    const json_t *stats = json_object_get(o, "stats");
    t_ok(lines > 10, "indented by default (%d lines)", lines);
    t_ok(json_str_is(o, "status", "solved") && json_str_is(o, "solver", "lemke"), "status, solver");
    t_ok(json_integer_value(json_object_get(o, "n")) == 3 &&
             json_integer_value(json_object_get(o, "iterations")) == 7, "n, iterations");
    t_ok(json_is_null(json_object_get(o, "residual")), "infinite residual written as null");
    t_ok(json_number_value(json_object_get(o, "tolerance")) == 1e-8 &&
             json_number_value(json_object_get(o, "time_s")) == 0.25, "tolerance, time_s");
    t_ok(json_number_value(json_object_get(stats, "pivots")) == 7 &&
             json_is_null(json_object_get(stats, "condition")), "stats (NaN as null)");
    t_ok(json_str_is(o, "message", "all good") && json_str_is(o, "problem", "json-test"),
         "message and problem name");
    check_json_arrays(o, r);
  }
  json_decref(o);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  cpk_result_free(r);
}

static void test_json_minimal(void)
{
  cpk_result *r = NULL;
  int lines = 0;
  cpk_result_alloc(2, &r);
  r->status = CPK_STATUS_RAY_TERMINATION;
  r->z[0] = NAN;
  r->residual = 0.5;
  json_t *o = write_and_parse(r, NULL, CPK_JSON_COMPACT, &lines);
  if (o) {
    t_ok(lines == 1, "CPK_JSON_COMPACT: one line");
    t_ok(json_str_is(o, "status", "ray_termination"), "status word ray_termination");
    t_ok(json_is_null(json_array_get(json_object_get(o, "z"), 0)), "NaN in z written as null");
    t_ok(json_number_value(json_object_get(o, "residual")) == 0.5, "finite residual kept");
    t_ok(!json_object_get(o, "basis") && !json_object_get(o, "ray") &&
             !json_object_get(o, "solutions") && !json_object_get(o, "message") &&
             !json_object_get(o, "problem") && !json_object_get(o, "names"),
         "absent parts have no key");
    t_ok(json_is_object(json_object_get(o, "stats")), "stats always present");
  }
  json_decref(o);
  cpk_result_free(r);
}

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_warm_json(void)
{
  const char *path = "t_io-warm.json";
  cpk_result *r = sample_result();
  double z[3];
  int basis[3] = {-7, -7, -7}, has = -1;
  cpk_error err;
  FILE *f = fopen(path, "w");
  int rc = f && r ? cpk_result_write_json(r, NULL, f, 0, &err) : -1;
  if (f) fclose(f);
  if (!rc) rc = cpk_warm_start_read_file(path, 3, z, basis, &has, &err);
  t_ok(rc == CPK_OK && same_vec(z, r->z, 3), "warm start from a JSON result: z exact");
  t_ok(rc == CPK_OK && has == 1 && memcmp(basis, r->basis, sizeof basis) == 0,
       "warm start from a JSON result: basis");
  write_text(path, "{\"z\": [1, 2.5, -3], \"basis\": [2, 0, 1]}");
  rc = cpk_warm_start_read_file(path, 3, z, basis, &has, &err);
  t_ok(rc == CPK_OK && z[0] == 1 && z[1] == 2.5 && z[2] == -3 && has == 1 && basis[0] == 2 &&
           basis[1] == 0 && basis[2] == 1, "JSON with integer basis states");
  basis[0] = -7;
  write_text(path, "{\"z\": [4, 5, 6]}\n");
  rc = cpk_warm_start_read_file(path, 3, z, basis, &has, &err);
  t_ok(rc == CPK_OK && z[2] == 6 && has == 0 && basis[0] == -7, "JSON without basis");
  remove(path);
  cpk_result_free(r);
}

static void test_warm_text(void)
{
  static const double expect[3] = {1.5, 0, -2.25};
  double z[3];
  int basis[3] = {-7, -7, -7}, has = -1;
  cpk_error err;
  int rc = cpk_warm_start_read_file(t_srcpath("data/io-warm.txt"), 3, z, basis, &has, &err);
  t_ok(rc == CPK_OK && same_vec(z, expect, 3) && has == 0 && basis[0] == -7,
       "warm start from plain text with comments");
}

static const struct warm_case {
  const char *text;
  long line;
  const char *what;
} warm_cases[] = {
    {"# two only\n1\n2\n", 3, "text: too few numbers"},
    {"1 2 3\n4\n", 2, "text: too many numbers"},
    {"1\nabc 3\n", 2, "text: not a number"},
    {"1\n2\nNAN\n", 3, "text: NaN"},
    {"1 inf 2\n", 1, "text: infinity"},
    {"{\n  \"z\": [1, 2]\n}\n", 2, "JSON: z too short"},
    {"{\n \"z\": [1, 2, 3],\n \"basis\": [\"lower\", \"middle\", \"basic\"]\n}\n", 3,
     "JSON: bad basis word"},
    {"{\"z\": [1, 2, 3],\n\"basis\": [0, 5, 1]}", 2, "JSON: basis state 5"},
    {"{\n  \"z\": [1, 2, 3]\n  \"basis\": [0, 1, 2]\n}\n", 3, "JSON: syntax error"},
    {"{\"z\": [1, null, 3]}", 1, "JSON: null in z"},
    {"{\"zz\": [1, 2, 3]}", 1, "JSON: no z"},
    {"{\"z\": [1, \"2\", 3]}", 1, "JSON: string in z"},
};

static void test_warm_errors(void)
{
  const char *path = "t_io-warm-bad.txt";
  size_t count = sizeof warm_cases / sizeof warm_cases[0];
  for (size_t k = 0; k < count; k++) {
    double z[3] = {9, 9, 9};
    int has = -1;
    char prefix[128];
    cpk_error err;
    write_text(path, warm_cases[k].text);
    snprintf(prefix, sizeof prefix, "%s:%ld: ", path, warm_cases[k].line);
    int rc = cpk_warm_start_read_file(path, 3, z, NULL, &has, &err);
    if (!t_ok(rc == CPK_EPARSE && starts_with(err.message, prefix) && z[0] == 9 && has == 0,
              "%s: CPK_EPARSE at line %ld, z0 untouched", warm_cases[k].what, warm_cases[k].line))
      t_diag("got %s: %s", cpk_errname(rc), err.message);
  }
  remove(path);
  double z[3];
  cpk_error err;
  int rc = cpk_warm_start_read_file("t_io-no-such-warm.txt", 3, z, NULL, NULL, &err);
  t_ok(rc == CPK_EIO, "missing warm-start file: CPK_EIO");
}

int main(void)
{
  test_read_dense();
  test_read_coord();
  test_read_mcp();
  test_default_bounds();
  test_string_and_stream();
  test_roundtrips();
  test_name_written();
  test_write_refused();
  test_bad_files();
  test_huge_sizes();
  test_json_full();
  test_json_minimal();
  test_warm_json();
  test_warm_text();
  test_warm_errors();
  return t_done();
}
