/* json_reader.c: the shared JSON reading steps (paths, `file:line:` messages, numbers, vectors, whole-file reads) behind every cpkit JSON reader. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "json_reader.h"

void cpk_jr_push_key(cpk_jr *r, const char *key)
{
  if (r->depth < CPK_JR_MAX_DEPTH) r->stack[r->depth] = (cpk_json_seg){key, 0};
  r->depth++;
}

void cpk_jr_push_index(cpk_jr *r, size_t i)
{
  if (r->depth < CPK_JR_MAX_DEPTH) r->stack[r->depth] = (cpk_json_seg){NULL, i};
  r->depth++;
}

void cpk_jr_pop(cpk_jr *r) { r->depth--; }

/* The path as "a.b[2].c"; 1 when it holds an array position. Those are JSON's, counted from 0,
   and the message says so, since the numbers inside cpkit files ("body": 1) count from 1. */
static int where(const cpk_jr *r, char *buf, size_t size)
{
  size_t used = 0;
  int indexed = 0;
  buf[0] = '\0';
  for (int d = 0; d < r->depth && d < CPK_JR_MAX_DEPTH && used < size; d++) {
    int w = r->stack[d].key
                ? snprintf(buf + used, size - used, "%s%s", d ? "." : "", r->stack[d].key)
                : snprintf(buf + used, size - used, "[%zu]", r->stack[d].index);
    if (w < 0) break;
    used += (size_t)w;
    indexed |= !r->stack[d].key;
  }
  return indexed;
}

int cpk_jr_fail(cpk_jr *r, const char *fmt, ...)
{
  char what[256], at[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int indexed = where(r, at, sizeof at);
  int depth = r->depth < CPK_JR_MAX_DEPTH ? r->depth : CPK_JR_MAX_DEPTH;
  long line = cpk_json_locate(r->text, r->stack, depth);
  return cpk_error_set(r->err, CPK_EPARSE, "%s:%ld: %s%s%s%s", r->path, line, at, at[0] ? ": " : "",
                       what, indexed ? " (array positions count from 0)" : "");
}

int cpk_jr_nomem(cpk_jr *r) { return cpk_error_set(r->err, CPK_ENOMEM, "%s: out of memory", r->path); }

int cpk_jr_relay(cpk_jr *r, int rc)
{
  if (rc == CPK_ENOMEM) return cpk_jr_nomem(r);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", r->err ? r->err->message : cpk_strerror(rc));
  return cpk_jr_fail(r, "%s", msg);
}

int cpk_jr_check_keys(cpk_jr *r, json_t *obj, const char *const *allowed)
{
  const char *key;
  json_t *val;
  json_object_foreach(obj, key, val)
  {
    int ok = 0;
    for (size_t k = 0; allowed[k] && !ok; k++) ok = strcmp(key, allowed[k]) == 0;
    if (!ok) {
      cpk_jr_push_key(r, key);
      return cpk_jr_fail(r, "unknown key \"%s\"", key);
    }
  }
  return CPK_OK;
}

int cpk_jr_number(cpk_jr *r, json_t *v, double *out)
{
  if (!json_is_number(v)) return cpk_jr_fail(r, "expected a number");
  *out = json_number_value(v);
  if (!isfinite(*out)) return cpk_jr_fail(r, "number out of range");
  return CPK_OK;
}

int cpk_jr_get_number(cpk_jr *r, json_t *obj, const char *key, double *out, int required)
{
  json_t *v = json_object_get(obj, key);
  if (!v && !required) return CPK_OK;
  cpk_jr_push_key(r, key);
  int rc = v ? cpk_jr_number(r, v, out) : cpk_jr_fail(r, "missing");
  if (!rc) cpk_jr_pop(r);
  return rc;
}

int cpk_jr_vector(cpk_jr *r, json_t *a, size_t want, double **out, size_t *len)
{
  *out = NULL;
  if (!json_is_array(a)) return cpk_jr_fail(r, "expected an array of numbers");
  size_t n = json_array_size(a);
  if (want && n != want) return cpk_jr_fail(r, "expected %zu numbers, found %zu", want, n);
  if (n == 0) return cpk_jr_fail(r, "empty array");
  double *x = cpk_alloc_array(n, sizeof *x);
  if (!x) return cpk_jr_nomem(r);
  for (size_t i = 0; i < n; i++) {
    cpk_jr_push_index(r, i);
    int rc = cpk_jr_number(r, json_array_get(a, i), &x[i]);
    if (rc) {
      free(x);
      return rc;
    }
    cpk_jr_pop(r);
  }
  *out = x;
  if (len) *len = n;
  return CPK_OK;
}

int cpk_jr_get_fixed(cpk_jr *r, json_t *obj, const char *key, size_t n, double *dst)
{
  json_t *v = json_object_get(obj, key);
  double *x = NULL;
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, key);
  int rc = cpk_jr_vector(r, v, n, &x, NULL);
  if (!rc) {
    memcpy(dst, x, n * sizeof *x);
    cpk_jr_pop(r);
  }
  free(x);
  return rc;
}

int cpk_jr_get_string(cpk_jr *r, json_t *obj, const char *key, const char **out, int required)
{
  json_t *v = json_object_get(obj, key);
  if (!v && !required) return CPK_OK;
  cpk_jr_push_key(r, key);
  if (!v) return cpk_jr_fail(r, "missing");
  if (!json_is_string(v)) return cpk_jr_fail(r, "expected a string");
  *out = json_string_value(v);
  cpk_jr_pop(r);
  return CPK_OK;
}

int cpk_jr_slurp(const char *path, char **text, cpk_error *err)
{
  FILE *f = fopen(path, "rb");
  size_t len = 0, cap = 0;
  char *buf = NULL;
  *text = NULL;
  if (!f) return cpk_error_set(err, CPK_EIO, "%s: cannot open: %s", path, strerror(errno));
  for (;;) {
    if (len + 1 >= cap) {
      char *nb = cap < ((size_t)1 << 34) ? realloc(buf, cap ? 2 * cap : 65536) : NULL;
      if (!nb) {
        free(buf);
        fclose(f);
        return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", path);
      }
      buf = nb;
      cap = cap ? 2 * cap : 65536;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    if (memchr(buf + len, '\0', got)) { /* say so now, not after reading all of /dev/zero */
      free(buf);
      fclose(f);
      return cpk_error_set(err, CPK_EPARSE, "%s:1: not a text file (NUL byte)", path);
    }
    len += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return cpk_error_set(err, CPK_EIO, "%s: read error", path);
  }
  buf[len] = '\0';
  if (strlen(buf) != len) {
    free(buf);
    return cpk_error_set(err, CPK_EPARSE, "%s:1: not a text file (NUL byte)", path);
  }
  *text = buf;
  return CPK_OK;
}

int cpk_jr_parse(const char *text, const char *name, json_t **root, cpk_error *err)
{
  json_error_t jerr;
  *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  if (!*root) return cpk_error_set(err, CPK_EPARSE, "%s:%d: %s", name, jerr.line, jerr.text);
  return CPK_OK;
}
