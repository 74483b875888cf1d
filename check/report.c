/* report.c: the check report object: entries with verdicts, settings defaults, the text form. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/check.h>
#include <cpkit/util.h>

const char *cpk_verdict_name(cpk_verdict v)
{
  switch (v) {
  case CPK_VERDICT_HOLDS: return "holds";
  case CPK_VERDICT_FAILS: return "fails";
  case CPK_VERDICT_NOT_DECIDED: return "not decided";
  case CPK_VERDICT_IMPLIES: return "implies";
  }
  return "unknown";
}

void cpk_check_settings_default(cpk_check_settings *s)
{
  if (!s) return;
  s->max_n = 20;
  s->rel_tol = 1e-10;
  s->count_solutions = 1;
}

int cpk_check_report_alloc(cpk_check_report **out)
{
  if (!out) return CPK_EINVAL;
  *out = calloc(1, sizeof **out);
  return *out ? CPK_OK : CPK_ENOMEM;
}

void cpk_check_report_free(cpk_check_report *r)
{
  if (!r) return;
  free(r->entries);
  free(r->solutions);
  free(r);
}

static int grow(cpk_check_report *r)
{
  if (r->count < r->capacity) return CPK_OK;
  size_t cap = r->capacity ? 2 * r->capacity : 16, bytes;
  if (cpk_size_mul(cap, sizeof *r->entries, &bytes)) return CPK_EOVERFLOW;
  cpk_check_entry *e = realloc(r->entries, bytes);
  if (!e) return CPK_ENOMEM;
  r->entries = e;
  r->capacity = cap;
  return CPK_OK;
}

int cpk_check_report_add(cpk_check_report *r, const char *name, cpk_verdict v, const char *fmt,
                         ...)
{
  if (!r || !name || !fmt) return CPK_EINVAL;
  int rc = grow(r);
  if (rc) return rc;
  cpk_check_entry *e = &r->entries[r->count++];
  snprintf(e->name, sizeof e->name, "%s", name);
  e->verdict = v;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->reason, sizeof e->reason, fmt, ap);
  va_end(ap);
  for (char *c = e->reason; *c; c++) /* one line each, whatever the caller wrote */
    if (*c == '\n') *c = ' ';
  return CPK_OK;
}

const cpk_check_entry *cpk_check_report_find(const cpk_check_report *r, const char *name)
{
  if (!r || !name) return NULL;
  for (size_t k = 0; k < r->count; k++)
    if (strcmp(r->entries[k].name, name) == 0) return &r->entries[k];
  return NULL;
}

int cpk_check_report_print(FILE *f, const cpk_check_report *r)
{
  if (!f || !r) return CPK_EINVAL;
  for (size_t k = 0; k < r->count; k++)
    fprintf(f, "%-12s %s\n", cpk_verdict_name(r->entries[k].verdict), r->entries[k].reason);
  for (size_t s = 0; s < r->nsolutions; s++) {
    fprintf(f, "solution %zu: z =", s + 1);
    for (size_t i = 0; i < r->n; i++) fprintf(f, " %.10g", r->solutions[s * r->n + i]);
    fputc('\n', f);
  }
  return ferror(f) ? CPK_EIO : CPK_OK;
}
