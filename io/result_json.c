/* result_json.c: a solve result as one JSON object (jansson); non-finite numbers become null. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <cpkit/io.h>
#include <cpkit/util.h>
#include "json_dump.h"

/* JSON has no NaN or infinity: such values are written as null. */
static json_t *jnum(double x)
{
  return isfinite(x) ? json_real(x) : json_null();
}

/* jansson refuses strings that are not UTF-8; names read from files may not be. */
static json_t *jstr(const char *s)
{
  if (!s) return json_null();
  json_t *v = json_string(s);
  if (v) return v;
  char *copy = cpk_strdup(s);
  if (!copy) return NULL;
  for (char *c = copy; *c; c++)
    if ((unsigned char)*c >= 0x80) *c = '?';
  v = json_string(copy);
  free(copy);
  return v;
}

static json_t *jvec(const double *v, size_t n)
{
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++)
    if (json_array_append_new(a, jnum(v[i]))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

/* json_object_set_new takes the value even on failure, so a NULL value just fails. */
static int put(json_t *o, const char *key, json_t *v)
{
  return json_object_set_new(o, key, v) != 0;
}

/*
 * Counts (pivots, factorizations, ...) are stored as doubles with the rest of the statistics;
 * a reader expects them as JSON integers. Times (names ending in "_s") stay real even when whole.
 */
static json_t *jstat(const cpk_stat *st)
{
  size_t len = strlen(st->name);
  int is_time = len >= 2 && strcmp(st->name + len - 2, "_s") == 0;
  double v = st->value;
  if (!is_time && isfinite(v) && v == floor(v) && fabs(v) <= 9007199254740992.0) /* 2^53 */
    return json_integer((json_int_t)v);
  return jnum(v);
}

static json_t *stats_object(const cpk_result *r)
{
  json_t *o = json_object();
  for (size_t k = 0; o && k < r->nstats; k++)
    if (put(o, r->stats[k].name, jstat(&r->stats[k]))) {
      json_decref(o);
      return NULL;
    }
  return o;
}

static json_t *names_array(const cpk_problem *p)
{
  json_t *a = json_array();
  for (size_t i = 0; a && i < p->n; i++)
    if (json_array_append_new(a, jstr(p->var_names[i]))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

static json_t *basis_array(const cpk_result *r)
{
  json_t *a = json_array();
  for (size_t i = 0; a && i < r->n; i++)
    if (json_array_append_new(a, json_string(cpk_var_state_name(r->basis[i])))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

static json_t *solutions_array(const cpk_result *r)
{
  json_t *a = json_array();
  for (size_t s = 0; a && s < r->nsolutions; s++)
    if (json_array_append_new(a, jvec(r->solutions + s * r->n, r->n))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

/* Keys in the documented order (jansson keeps insertion order); NULL if out of memory. */
static json_t *result_object(const cpk_result *r, const cpk_problem *p)
{
  json_t *o = json_object();
  int bad = o == NULL;
  bad |= put(o, "status", json_string(cpk_status_name(r->status)));
  bad |= put(o, "solver", jstr(r->solver));
  bad |= put(o, "n", json_integer((json_int_t)r->n));
  bad |= put(o, "iterations", json_integer((json_int_t)r->iterations));
  bad |= put(o, "residual", jnum(r->residual));
  bad |= put(o, "tolerance", jnum(r->tolerance));
  if (p && p->kind == CPK_KIND_FRICTION_CONE) /* the figure published FCLIB results use */
    bad |= put(o, "fclib_merit", jnum(cpk_fc_merit(p, r->z, r->w)));
  bad |= put(o, "time_s", jnum(r->time_s));
  bad |= put(o, "z", jvec(r->z, r->n));
  bad |= put(o, "w", jvec(r->w, r->n));
  bad |= put(o, "stats", stats_object(r));
  if (r->message[0]) bad |= put(o, "message", jstr(r->message));
  if (p && p->name) bad |= put(o, "problem", jstr(p->name));
  if (p && p->var_names) bad |= put(o, "names", names_array(p));
  if (r->has_basis) bad |= put(o, "basis", basis_array(r));
  if (r->has_ray) bad |= put(o, "ray", jvec(r->ray, r->n));
  if (r->nsolutions > 0) bad |= put(o, "solutions", solutions_array(r));
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}

int cpk_result_write_json(const cpk_result *r, const cpk_problem *p, FILE *f, int flags,
                          cpk_error *err)
{
  cpk_error_clear(err);
  if (!r || !f) return cpk_error_set(err, CPK_EINVAL, "no result or no stream given");
  if (p && p->n != r->n)
    return cpk_error_set(err, CPK_EINVAL, "result of size %zu for a problem of size %zu", r->n,
                         p->n);
  json_t *o = result_object(r, p);
  if (!o) return cpk_error_set(err, CPK_ENOMEM, "out of memory building the JSON result");
  size_t jflags = JSON_REAL_PRECISION(17);
  jflags |= (flags & CPK_JSON_COMPACT) ? JSON_COMPACT : JSON_INDENT(2);
  int rc = cpk_json_dumpf(o, f, jflags);
  json_decref(o);
  if (rc == CPK_ENOMEM) return cpk_error_set(err, rc, "out of memory writing the JSON result");
  if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0 || ferror(f))
    return cpk_error_set(err, CPK_EIO, "write error");
  return CPK_OK;
}
