/* records.c: benchmark result records: status names, CSV and JSON Lines lines, and parsing them back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "harness.h"

/*
 * The schema, version 1. Both formats have the same fields in this order;
 * a change here is a new version (tests/t_bench.c pins the list).
 */
#define FIELDS(X)                                                                          \
  X(problem) X(suite) X(family) X(kind) X(n) X(size) X(nnz) X(seed) X(solver) X(expect) \
  X(status) X(claimed) X(iterations) X(residual) X(tolerance) X(time_s) X(repeats)      \
  X(peak_mb) X(mem_mb) X(merit) X(message)
#define NAME_(f) #f,
static const char *const field_names[] = {FIELDS(NAME_)};
#undef NAME_
#define NFIELDS (sizeof field_names / sizeof field_names[0])

static const char *const extra_status_names[] = {"rejected", "error", "crashed"};

const char *cpk_bench_status_name(int status)
{
  if (status == -1) return "none";
  if (status >= 0 && status < CPK_STATUS_COUNT) return cpk_status_name((cpk_status)status);
  if (status >= CPK_STATUS_COUNT && status < CPK_BENCH_STATUS_COUNT)
    return extra_status_names[status - CPK_STATUS_COUNT];
  return "unknown";
}

int cpk_bench_status_from_name(const char *name)
{
  if (strcmp(name, "none") == 0) return -1;
  for (int s = 0; s < CPK_BENCH_STATUS_COUNT; s++)
    if (strcmp(cpk_bench_status_name(s), name) == 0) return s;
  return -2;
}

const char *cpk_bench_csv_header(void)
{
  static char header[512];
  if (!header[0]) {
    size_t used = 0;
    for (size_t k = 0; k < NFIELDS; k++)
      used += (size_t)snprintf(header + used, sizeof header - used, "%s%s", k ? "," : "",
                               field_names[k]);
  }
  return header;
}

void cpk_bench_record_init(cpk_bench_record *rec, const cpk_bench_instance *inst,
                           const cpk_bench_built *b, const cpk_solver_type *T)
{
  const cpk_problem *p = b->problem;
  memset(rec, 0, sizeof *rec);
  snprintf(rec->problem, sizeof rec->problem, "%s", inst->name);
  snprintf(rec->suite, sizeof rec->suite, "%s", inst->suite);
  snprintf(rec->family, sizeof rec->family, "%s", inst->family);
  snprintf(rec->kind, sizeof rec->kind, "%s", cpk_problem_kind_name(p->kind));
  snprintf(rec->solver, sizeof rec->solver, "%s", T->name);
  rec->n = p->n;
  rec->size = b->size ? b->size : inst->size;
  rec->nnz = p->M ? cpk_matrix_nnz(p->M) : (p->jac_pattern ? (size_t)p->jac_pattern->p[p->n] : 0);
  rec->seed = inst->seed;
  rec->expect = inst->expect;
  rec->status = rec->claimed = -1;
  rec->residual = rec->time_s = rec->peak_mb = rec->mem_mb = rec->merit = NAN;
  rec->tolerance = NAN;
}

/* ---- CSV ---------------------------------------------------------------------------- */

/* The record's fields as text, in schema order (numbers exact enough to re-read). */
static void field_texts(const cpk_bench_record *r, char out[][48], const char *ptrs[])
{
  snprintf(out[4], 48, "%zu", r->n);
  snprintf(out[5], 48, "%zu", r->size);
  snprintf(out[6], 48, "%zu", r->nnz);
  snprintf(out[7], 48, "%lu", r->seed);
  snprintf(out[12], 48, "%ld", r->iterations);
  snprintf(out[13], 48, "%.6e", r->residual);
  snprintf(out[14], 48, "%.6e", r->tolerance);
  snprintf(out[15], 48, "%.9g", r->time_s);
  snprintf(out[16], 48, "%d", r->repeats);
  snprintf(out[17], 48, "%.4f", r->peak_mb);
  snprintf(out[18], 48, "%.4f", r->mem_mb);
  snprintf(out[19], 48, "%.6e", r->merit);
  for (size_t k = 0; k < NFIELDS; k++) ptrs[k] = out[k];
  ptrs[0] = r->problem, ptrs[1] = r->suite, ptrs[2] = r->family, ptrs[3] = r->kind;
  ptrs[8] = r->solver, ptrs[9] = cpk_bench_expect_name(r->expect);
  ptrs[10] = cpk_bench_status_name(r->status), ptrs[11] = cpk_bench_status_name(r->claimed);
  ptrs[20] = r->message;
}

/* Quote a field when it holds a comma, a quote or a line break (RFC 4180). */
static size_t csv_put(char *dst, const char *s)
{
  size_t k = 0;
  int quote = strpbrk(s, ",\"\r\n") != NULL;
  if (quote) dst[k++] = '"';
  for (; *s; s++) {
    char c = (*s == '\n' || *s == '\r') ? ' ' : *s;
    if (c == '"') dst[k++] = '"';
    dst[k++] = c;
  }
  if (quote) dst[k++] = '"';
  return k;
}

static char *csv_line(const cpk_bench_record *r)
{
  char num[NFIELDS][48];
  const char *f[NFIELDS];
  size_t len = 2;
  memset(num, 0, sizeof num);
  field_texts(r, num, f);
  for (size_t k = 0; k < NFIELDS; k++) len += 2 * strlen(f[k]) + 3;
  char *line = malloc(len);
  if (!line) return NULL;
  size_t at = 0;
  for (size_t k = 0; k < NFIELDS; k++) {
    if (k) line[at++] = ',';
    at += csv_put(line + at, f[k]);
  }
  line[at++] = '\n';
  line[at] = '\0';
  return line;
}

/* Split a CSV line in place into at most max fields; returns the count, -1 if malformed. */
static int csv_split(char *s, char **fields, int max)
{
  int m = 0;
  while (m < max) {
    char *out = s;
    fields[m++] = s;
    if (*s == '"') {
      for (s++;; s++) {
        if (!*s) return -1;
        if (*s == '"' && s[1] != '"') break;
        if (*s == '"') s++;
        *out++ = *s;
      }
      s++;
      if (*s != ',' && *s != '\0' && *s != '\n') return -1;
    } else {
      while (*s && *s != ',' && *s != '\n') *out++ = *s++;
    }
    char end = *s;
    *out = '\0';
    if (end != ',') return m;
    s++;
  }
  return -1;
}

/* ---- parsing fields back ----------------------------------------------------------- */

static int parse_size(const char *s, size_t *out)
{
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end || s[0] == '-') return -1;
  *out = (size_t)v;
  return 0;
}

static int parse_number(const char *s, double *out)
{
  char *end;
  *out = strtod(s, &end);
  return end == s || *end ? -1 : 0;
}

static int parse_status(const char *s, int *out)
{
  *out = cpk_bench_status_from_name(s);
  return *out < -1 ? -1 : 0;
}

static int copy_text(char *dst, size_t size, const char *s)
{
  return snprintf(dst, size, "%s", s) >= (int)size ? -1 : 0;
}

/* Fields in schema order, as text, into a record. */
static int record_from_texts(const char *const *f, cpk_bench_record *r)
{
  size_t seed = 0;
  double it = 0, rep = 0;
  memset(r, 0, sizeof *r);
  int bad = copy_text(r->problem, sizeof r->problem, f[0]) ||
            copy_text(r->suite, sizeof r->suite, f[1]) ||
            copy_text(r->family, sizeof r->family, f[2]) ||
            copy_text(r->kind, sizeof r->kind, f[3]) || parse_size(f[4], &r->n) ||
            parse_size(f[5], &r->size) || parse_size(f[6], &r->nnz) || parse_size(f[7], &seed) ||
            copy_text(r->solver, sizeof r->solver, f[8]) ||
            (r->expect = cpk_bench_expect_from_name(f[9])) < -1 ||
            parse_status(f[10], &r->status) || parse_status(f[11], &r->claimed) ||
            parse_number(f[12], &it) || parse_number(f[13], &r->residual) ||
            parse_number(f[14], &r->tolerance) || parse_number(f[15], &r->time_s) ||
            parse_number(f[16], &rep) || parse_number(f[17], &r->peak_mb) ||
            parse_number(f[18], &r->mem_mb) || parse_number(f[19], &r->merit);
  snprintf(r->message, sizeof r->message, "%s", f[20]);
  r->seed = (unsigned long)seed;
  r->iterations = (long)it;
  r->repeats = (int)rep;
  return bad || r->problem[0] == '\0' || r->solver[0] == '\0' ? CPK_EPARSE : CPK_OK;
}

/* ---- JSON Lines -------------------------------------------------------------------- */

static json_t *json_number(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static char *json_line(const cpk_bench_record *r)
{
  char num[NFIELDS][48];
  const char *f[NFIELDS];
  json_t *o = json_object();
  memset(num, 0, sizeof num);
  field_texts(r, num, f);
  for (size_t k = 0; o && k < NFIELDS; k++) {
    json_t *v;
    switch (k) {
    case 4: v = json_integer((json_int_t)r->n); break;
    case 5: v = json_integer((json_int_t)r->size); break;
    case 6: v = json_integer((json_int_t)r->nnz); break;
    case 7: v = json_integer((json_int_t)r->seed); break;
    case 12: v = json_integer((json_int_t)r->iterations); break;
    case 13: v = json_number(r->residual); break;
    case 14: v = json_number(r->tolerance); break;
    case 15: v = json_number(r->time_s); break;
    case 16: v = json_integer(r->repeats); break;
    case 17: v = json_number(r->peak_mb); break;
    case 18: v = json_number(r->mem_mb); break;
    case 19: v = json_number(r->merit); break;
    default: v = json_string(f[k]); break;
    }
    if (json_object_set_new(o, field_names[k], v)) {
      json_decref(o);
      o = NULL;
    }
  }
  char *text =
      o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
  json_decref(o);
  char *line = text ? malloc(strlen(text) + 2) : NULL;
  if (line) sprintf(line, "%s\n", text);
  free(text);
  return line;
}

/* A JSON value as the text the CSV would hold (null: "nan"). */
static int json_field_text(json_t *v, char *buf, size_t size)
{
  if (json_is_string(v)) return copy_text(buf, size, json_string_value(v));
  if (json_is_integer(v)) return snprintf(buf, size, "%lld", (long long)json_integer_value(v)) < 0;
  if (json_is_real(v)) return snprintf(buf, size, "%.17g", json_real_value(v)) < 0;
  if (json_is_null(v)) return copy_text(buf, size, "nan");
  return -1;
}

static int json_parse(const char *line, cpk_bench_record *r)
{
  static const size_t text_size = CPK_BENCH_NAME_MAX + 256;
  json_t *o = json_loads(line, 0, NULL);
  char *texts = o ? malloc(NFIELDS * text_size) : NULL;
  const char *f[NFIELDS];
  int rc = texts && json_is_object(o) ? CPK_OK : CPK_EPARSE;
  for (size_t k = 0; !rc && k < NFIELDS; k++) {
    f[k] = texts + k * text_size;
    if (json_field_text(json_object_get(o, field_names[k]), texts + k * text_size, text_size))
      rc = CPK_EPARSE;
  }
  if (!rc) rc = record_from_texts(f, r);
  free(texts);
  json_decref(o);
  return rc;
}

/* ---- both -------------------------------------------------------------------------- */

char *cpk_bench_record_line(const cpk_bench_record *rec, cpk_bench_format fmt)
{
  return fmt == CPK_BENCH_JSONL ? json_line(rec) : csv_line(rec);
}

int cpk_bench_record_parse(const char *line, cpk_bench_format fmt, cpk_bench_record *rec)
{
  if (fmt == CPK_BENCH_JSONL) return json_parse(line, rec);
  char *copy = strdup(line), *f[NFIELDS + 1];
  if (!copy) return CPK_ENOMEM;
  int m = csv_split(copy, f, (int)NFIELDS + 1);
  int rc = m == (int)NFIELDS ? record_from_texts((const char *const *)f, rec) : CPK_EPARSE;
  free(copy);
  return rc;
}

/* JSON Lines files start with this line, which names the schema and its fields. */
char *cpk_bench_jsonl_header(void)
{
  json_t *o = json_pack("{s:s, s:i}", "schema", "cpkit-bench", "version", 1);
  json_t *names = json_array();
  for (size_t k = 0; o && names && k < NFIELDS; k++)
    json_array_append_new(names, json_string(field_names[k]));
  if (o && names) json_object_set(o, "fields", names);
  json_decref(names);
  char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  return text;
}
