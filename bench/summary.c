/* summary.c: the benchmark summary: per solver success rate, median and geometric-mean time, failures by status; per family solved counts. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "harness.h"

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median and geometric mean of the times of successful runs (in `ok`), NaN if none. */
static void time_stats(const cpk_bench_record *recs, size_t count, const char *solver,
                       const char *family, double *median, double *geomean, size_t *nok)
{
  double *t = malloc((count ? count : 1) * sizeof *t), logsum = 0.0;
  size_t m = 0;
  for (size_t k = 0; t && k < count; k++) {
    const cpk_bench_record *r = &recs[k];
    if (strcmp(r->solver, solver) != 0 || (family && strcmp(r->family, family) != 0)) continue;
    if (!cpk_bench_success(r->status, r->expect)) continue;
    double x = r->time_s > 1e-9 ? r->time_s : 1e-9; /* a log needs a positive time */
    t[m++] = x;
    logsum += log(x);
  }
  *nok = m;
  *median = *geomean = NAN;
  if (m > 0) {
    qsort(t, m, sizeof *t, compare_doubles);
    *median = m % 2 ? t[m / 2] : 0.5 * (t[m / 2 - 1] + t[m / 2]);
    *geomean = exp(logsum / (double)m);
  }
  free(t);
}

/* Distinct values of a string field, in order of first appearance. */
static size_t distinct(const cpk_bench_record *recs, size_t count, size_t offset, const char **out)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    const char *v = (const char *)&recs[k] + offset;
    size_t j = 0;
    while (j < m && strcmp(out[j], v) != 0) j++;
    if (j == m) out[m++] = v;
  }
  return m;
}

int cpk_bench_summarize(const cpk_bench_record *recs, size_t count, cpk_bench_solver_summary **out,
                        size_t *nsolvers)
{
  const char **names = malloc((count ? count : 1) * sizeof *names);
  if (!names) return CPK_ENOMEM;
  size_t m = distinct(recs, count, offsetof(cpk_bench_record, solver), names);
  cpk_bench_solver_summary *S = calloc(m ? m : 1, sizeof *S);
  if (!S) {
    free(names);
    return CPK_ENOMEM;
  }
  for (size_t j = 0; j < m; j++) {
    snprintf(S[j].solver, sizeof S[j].solver, "%s", names[j]);
    for (size_t k = 0; k < count; k++) {
      if (strcmp(recs[k].solver, names[j]) != 0) continue;
      S[j].runs++;
      if (!cpk_bench_success(recs[k].status, recs[k].expect) && recs[k].status >= 0 &&
          recs[k].status < CPK_BENCH_STATUS_COUNT)
        S[j].by_status[recs[k].status]++;
    }
    time_stats(recs, count, names[j], NULL, &S[j].median_time_s, &S[j].geomean_time_s,
               &S[j].solved);
    S[j].success_rate = S[j].runs ? (double)S[j].solved / (double)S[j].runs : NAN;
  }
  free(names);
  *out = S, *nsolvers = m;
  return CPK_OK;
}

static void failures_text(const cpk_bench_solver_summary *s, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int st = 0; st < CPK_BENCH_STATUS_COUNT; st++) {
    if (!s->by_status[st]) continue;
    int k = snprintf(buf + used, size - used, "%s%s %zu", used ? ", " : "",
                     cpk_bench_status_name(st), s->by_status[st]);
    if (k < 0 || (size_t)k >= size - used) break;
    used += (size_t)k;
  }
  if (!used) snprintf(buf, size, "-");
}

static void print_solver_table(FILE *f, const cpk_bench_solver_summary *S, size_t m)
{
  fprintf(f, "%-14s %6s %6s %7s %11s %11s  %s\n", "solver", "runs", "solved", "rate", "median_s",
          "geomean_s", "failures by status");
  for (size_t j = 0; j < m; j++) {
    char fail[256];
    failures_text(&S[j], fail, sizeof fail);
    fprintf(f, "%-14s %6zu %6zu %6.1f%% %11.3e %11.3e  %s\n", S[j].solver, S[j].runs, S[j].solved,
            100.0 * S[j].success_rate, S[j].median_time_s, S[j].geomean_time_s, fail);
  }
}

/* Per family: "solved/runs median_time" for each solver ("." when it did not run). */
static void print_family_table(FILE *f, const cpk_bench_record *recs, size_t count,
                               const char **solvers, size_t ns, const char **families, size_t nf)
{
  fprintf(f, "\n%-22s", "family: solved/runs");
  for (size_t j = 0; j < ns; j++) fprintf(f, " %17s", solvers[j]);
  fprintf(f, "\n%-22s", "  and median time (s)");
  for (size_t j = 0; j < ns; j++) fprintf(f, " %17s", "");
  fprintf(f, "\n");
  for (size_t i = 0; i < nf; i++) {
    fprintf(f, "%-22s", families[i]);
    for (size_t j = 0; j < ns; j++) {
      size_t runs = 0, ok = 0;
      double med, geo;
      for (size_t k = 0; k < count; k++)
        runs += strcmp(recs[k].family, families[i]) == 0 && strcmp(recs[k].solver, solvers[j]) == 0;
      time_stats(recs, count, solvers[j], families[i], &med, &geo, &ok);
      char cell[64];
      if (!runs)
        snprintf(cell, sizeof cell, ".");
      else if (!ok)
        snprintf(cell, sizeof cell, "0/%zu", runs);
      else
        snprintf(cell, sizeof cell, "%zu/%zu %.2e", ok, runs, med);
      fprintf(f, " %17s", cell);
    }
    fprintf(f, "\n");
  }
}

void cpk_bench_print_summary(FILE *f, const cpk_bench_record *recs, size_t count)
{
  cpk_bench_solver_summary *S = NULL;
  size_t m = 0;
  const char **solvers = malloc((count ? count : 1) * sizeof *solvers);
  const char **families = malloc((count ? count : 1) * sizeof *families);
  if (!solvers || !families || cpk_bench_summarize(recs, count, &S, &m)) {
    fprintf(f, "summary: out of memory\n");
  } else {
    print_solver_table(f, S, m);
    size_t ns = distinct(recs, count, offsetof(cpk_bench_record, solver), solvers);
    size_t nf = distinct(recs, count, offsetof(cpk_bench_record, family), families);
    print_family_table(f, recs, count, solvers, ns, families, nf);
    cpk_bench_print_fclib_merits(f, recs, count);
  }
  free(S);
  free(solvers);
  free(families);
}

static json_t *json_time(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *solver_json(const cpk_bench_solver_summary *s)
{
  json_t *fail = json_object();
  for (int st = 0; fail && st < CPK_BENCH_STATUS_COUNT; st++)
    if (s->by_status[st])
      json_object_set_new(fail, cpk_bench_status_name(st),
                          json_integer((json_int_t)s->by_status[st]));
  return json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:o}", "solver", s->solver, "runs",
                   (json_int_t)s->runs, "solved", (json_int_t)s->solved, "success_rate",
                   json_time(s->success_rate), "median_time_s", json_time(s->median_time_s),
                   "geomean_time_s", json_time(s->geomean_time_s), "failures",
                   fail ? fail : json_null());
}

static json_t *family_json(const cpk_bench_record *recs, size_t count, const char *family,
                           const char **solvers, size_t ns)
{
  json_t *list = json_array();
  for (size_t j = 0; list && j < ns; j++) {
    size_t runs = 0, ok = 0;
    double med, geo;
    for (size_t k = 0; k < count; k++)
      runs += strcmp(recs[k].family, family) == 0 && strcmp(recs[k].solver, solvers[j]) == 0;
    if (!runs) continue;
    time_stats(recs, count, solvers[j], family, &med, &geo, &ok);
    json_array_append_new(list, json_pack("{s:s, s:I, s:I, s:o}", "solver", solvers[j], "runs",
                                          (json_int_t)runs, "solved", (json_int_t)ok,
                                          "median_time_s", json_time(med)));
  }
  return json_pack("{s:s, s:o}", "family", family, "results", list ? list : json_null());
}

static json_t *summary_json(const cpk_bench_record *recs, size_t count, const char **solvers,
                            const char **families)
{
  cpk_bench_solver_summary *S = NULL;
  size_t m = 0;
  if (cpk_bench_summarize(recs, count, &S, &m)) return NULL;
  json_t *sj = json_array(), *fj = json_array();
  for (size_t j = 0; sj && j < m; j++) json_array_append_new(sj, solver_json(&S[j]));
  size_t ns = distinct(recs, count, offsetof(cpk_bench_record, solver), solvers);
  size_t nf = distinct(recs, count, offsetof(cpk_bench_record, family), families);
  for (size_t i = 0; fj && i < nf; i++)
    json_array_append_new(fj, family_json(recs, count, families[i], solvers, ns));
  free(S);
  if (!sj || !fj) {
    json_decref(sj);
    json_decref(fj);
    return NULL;
  }
  return json_pack("{s:I, s:o, s:o}", "runs", (json_int_t)count, "solvers", sj, "families", fj);
}

int cpk_bench_print_summary_json(FILE *f, const cpk_bench_record *recs, size_t count)
{
  const char **solvers = malloc((count ? count : 1) * sizeof *solvers);
  const char **families = malloc((count ? count : 1) * sizeof *families);
  json_t *o = solvers && families ? summary_json(recs, count, solvers, families) : NULL;
  int rc = o ? CPK_OK : CPK_ENOMEM;
  if (o && (json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', f) == EOF))
    rc = CPK_EIO;
  json_decref(o);
  free(solvers);
  free(families);
  return rc;
}
