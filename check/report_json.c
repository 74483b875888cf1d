/* report_json.c: the check report as one JSON object (jansson). */
#include <stdlib.h>
#include <jansson.h>
#include <cpkit/check.h>
#include "json_dump.h"

static json_t *entries_json(const cpk_check_report *r)
{
  json_t *arr = json_array();
  for (size_t k = 0; arr && k < r->count; k++) {
    const cpk_check_entry *e = &r->entries[k];
    json_t *o = json_pack("{s:s, s:s, s:s}", "name", e->name, "verdict",
                          cpk_verdict_name(e->verdict), "reason", e->reason);
    if (!o || json_array_append_new(arr, o)) {
      json_decref(arr);
      return NULL;
    }
  }
  return arr;
}

static json_t *solutions_json(const cpk_check_report *r)
{
  json_t *arr = json_array();
  for (size_t s = 0; arr && s < r->nsolutions; s++) {
    json_t *z = json_array();
    for (size_t i = 0; z && i < r->n; i++)
      if (json_array_append_new(z, json_real(r->solutions[s * r->n + i]))) {
        json_decref(z);
        z = NULL;
      }
    if (!z || json_array_append_new(arr, z)) {
      json_decref(arr);
      return NULL;
    }
  }
  return arr;
}

int cpk_check_report_json(const cpk_check_report *r, char **out)
{
  if (!r || !out) return CPK_EINVAL;
  *out = NULL;
  json_t *e = entries_json(r), *s = solutions_json(r);
  if (!e || !s) {
    json_decref(e);
    json_decref(s);
    return CPK_ENOMEM;
  }
  /* "o" steals e and s even when json_pack fails: they are not ours to release after it */
  json_t *root = json_pack("{s:I, s:o, s:o, s:f}", "n", (json_int_t)r->n, "entries", e,
                           "solutions", s, "time_s", r->time_s);
  if (!root) return CPK_ENOMEM;
  *out = cpk_json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
  json_decref(root);
  return *out ? CPK_OK : CPK_ENOMEM;
}
