/* fclib_report.c: the FCLIB tables of `cpkit bench`: FCLIB's merit per run with successes at 1e-8 and 1e-6, and the best cpkit solver against the best Siconos solver per file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

/*
 * FCLIB's figure of merit is what published FCLIB results compare, so these
 * tables rank runs by it, whatever status the run ended with: a run whose
 * merit is <= 1e-8 counts there even if its own residual test said `stalled`.
 * The records of FCLIB instances are those of the families "fclib-MODEL";
 * their instance names are "FILE:MODEL".
 */

static int is_fclib(const cpk_bench_record *r) { return strncmp(r->family, "fclib-", 6) == 0; }

static int is_siconos(const char *solver) { return strncmp(solver, "siconos-", 8) == 0; }

/* 0: merit <= 1e-8, 1: <= 1e-6, 2: anything else (NaN included). */
static int merit_class(double merit)
{
  return merit <= CPK_BENCH_FCLIB_TIGHT ? 0 : merit <= CPK_BENCH_FCLIB_LOOSE ? 1 : 2;
}

/* Length of the file part of an instance name "FILE:MODEL". */
static size_t file_len(const char *name)
{
  const char *colon = strrchr(name, ':');
  return colon ? (size_t)(colon - name) : strlen(name);
}

/* "BASE:MODEL" (or "BASE") of an instance name, for narrow tables. */
static const char *short_name(const char *name)
{
  const char *colon = strrchr(name, ':'), *slash = name;
  for (const char *c = name; *c && (!colon || c < colon); c++)
    if (*c == '/') slash = c + 1;
  return slash;
}

static int same_file(const char *a, const char *b)
{
  size_t la = file_len(a);
  return la == file_len(b) && strncmp(a, b, la) == 0;
}

/* 1 if run a is better than run b: lower merit class, then faster (class <= 1) or lower merit. */
static int better(const cpk_bench_record *a, const cpk_bench_record *b)
{
  if (!b) return 1;
  int ca = merit_class(a->merit), cb = merit_class(b->merit);
  if (ca != cb) return ca < cb;
  if (ca < 2) return a->time_s < b->time_s;
  return a->merit < b->merit || (isnan(b->merit) && !isnan(a->merit));
}

/* The best run on the file among one side's runs (solver NULL) or one solver's runs. */
static const cpk_bench_record *best_where(const cpk_bench_record *recs, size_t count,
                                          const char *file, int siconos, const char *solver)
{
  const cpk_bench_record *best = NULL;
  for (size_t k = 0; k < count; k++) {
    const cpk_bench_record *r = &recs[k];
    int mine = solver ? strcmp(r->solver, solver) == 0 : is_siconos(r->solver) == siconos;
    if (is_fclib(r) && mine && same_file(r->problem, file) && better(r, best)) best = r;
  }
  return best;
}

void cpk_bench_fclib_best(const cpk_bench_record *recs, size_t count, const char *file, int siconos,
                          const cpk_bench_record **best)
{
  *best = best_where(recs, count, file, siconos, NULL);
}

size_t cpk_bench_fclib_by_file(const cpk_bench_record *recs, size_t count, double threshold,
                               cpk_bench_record *out)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    const cpk_bench_record *r = &recs[k];
    size_t j = 0, len = file_len(r->problem);
    while (j < m &&
           !(strcmp(out[j].solver, r->solver) == 0 && same_file(out[j].problem, r->problem)))
      j++;
    if (!is_fclib(r) || j < m) continue;
    out[m] = *best_where(recs, count, r->problem, 0, r->solver);
    snprintf(out[m].problem, sizeof out[m].problem, "%.*s", (int)len, r->problem);
    snprintf(out[m].suite, sizeof out[m].suite, "fclib");
    out[m].status = out[m].merit <= threshold ? CPK_STATUS_SOLVED : CPK_STATUS_STALLED;
    out[m++].expect = CPK_BENCH_EXPECT_SOLUTION;
  }
  return m;
}

/* The distinct values of a string field (or of the file part of the problem name when files). */
static size_t distinct_fclib(const cpk_bench_record *recs, size_t count, int files, int solvers,
                             const char **out)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    if (!is_fclib(&recs[k])) continue;
    const char *v = solvers ? recs[k].solver : recs[k].problem;
    size_t j = 0;
    while (j < m && (files ? !same_file(out[j], v) : strcmp(out[j], v) != 0)) j++;
    if (j == m) out[m++] = v;
  }
  return m;
}

static double merit_of(const cpk_bench_record *recs, size_t count, const char *problem,
                       const char *solver, int *ran)
{
  *ran = 0;
  for (size_t k = 0; k < count; k++)
    if (strcmp(recs[k].problem, problem) == 0 && strcmp(recs[k].solver, solver) == 0) {
      *ran = 1;
      return recs[k].merit;
    }
  return NAN;
}

static void print_merit_table(FILE *f, const cpk_bench_record *recs, size_t count,
                              const char **probs, size_t np, const char **solvers, size_t ns)
{
  fprintf(f, "\nFCLIB merit per run (fclib_merit_local, computed by cpk_fc_merit; . = not run)\n");
  fprintf(f, "%-44s", "problem");
  for (size_t j = 0; j < ns; j++) fprintf(f, " %14s", solvers[j]);
  fprintf(f, "\n");
  for (size_t i = 0; i < np; i++) {
    fprintf(f, "%-44.44s", short_name(probs[i]));
    for (size_t j = 0; j < ns; j++) {
      int ran;
      double m = merit_of(recs, count, probs[i], solvers[j], &ran);
      if (ran)
        fprintf(f, " %14.2e", m);
      else
        fprintf(f, " %14s", ".");
    }
    fprintf(f, "\n");
  }
  fprintf(f, "\n%-16s %6s %12s %12s\n", "solver", "runs", "merit<=1e-8", "merit<=1e-6");
  for (size_t j = 0; j < ns; j++) {
    size_t runs = 0, tight = 0, loose = 0;
    for (size_t k = 0; k < count; k++)
      if (is_fclib(&recs[k]) && strcmp(recs[k].solver, solvers[j]) == 0) {
        int c = merit_class(recs[k].merit);
        runs++, tight += c == 0, loose += c <= 1;
      }
    fprintf(f, "%-16s %6zu %12zu %12zu\n", solvers[j], runs, tight, loose);
  }
}

void cpk_bench_print_fclib_merits(FILE *f, const cpk_bench_record *recs, size_t count)
{
  const char **probs = malloc((count ? count : 1) * sizeof *probs);
  const char **solvers = malloc((count ? count : 1) * sizeof *solvers);
  if (!probs || !solvers)
    fprintf(f, "FCLIB merits: out of memory\n");
  else {
    size_t np = distinct_fclib(recs, count, 0, 0, probs);
    size_t ns = distinct_fclib(recs, count, 0, 1, solvers);
    if (np) print_merit_table(f, recs, count, probs, np, solvers, ns);
  }
  free(probs);
  free(solvers);
}

/* One side of a comparison row: "solver (model)  merit  time". */
static void print_best(FILE *f, const cpk_bench_record *b)
{
  char who[64];
  if (!b) {
    fprintf(f, " %-30s %10s %10s", "(no run)", "", "");
    return;
  }
  const char *colon = strrchr(b->problem, ':');
  snprintf(who, sizeof who, "%s%s%s%s", b->solver, colon ? " (" : "", colon ? colon + 1 : "",
           colon ? ")" : "");
  fprintf(f, " %-30.30s %10.2e %10.3e", who, b->merit, b->time_s);
}

/* Totals of one side: counts at each threshold and the sum of the best times. */
typedef struct side_total {
  size_t files, tight, loose;
  double time_s;
} side_total;

static void add_best(side_total *t, const cpk_bench_record *b)
{
  if (!b) return;
  int c = merit_class(b->merit);
  t->files++, t->tight += c == 0, t->loose += c <= 1;
  t->time_s += b->time_s;
}

/* Sums of the two sides' best times over the files where both qualify. */
typedef struct pair_sums {
  size_t files;
  double cpkit_s, siconos_s;
} pair_sums;

static void add_pair(pair_sums *p, const cpk_bench_record *c, const cpk_bench_record *s)
{
  p->files++, p->cpkit_s += c->time_s, p->siconos_s += s->time_s;
}

static void print_ratio(FILE *f, const pair_sums *p, const char *which)
{
  fprintf(f, "ratio of the sums of the best times, cpkit / Siconos, over the %zu files %s: %.3g\n",
          p->files, which, p->siconos_s > 0 ? p->cpkit_s / p->siconos_s : NAN);
}

static void print_compare_rows(FILE *f, const cpk_bench_record *recs, size_t count,
                               const char **files, size_t nf)
{
  side_total cp = {0, 0, 0, 0.0}, sc = {0, 0, 0, 0.0};
  pair_sums both = {0, 0.0, 0.0}, tight = {0, 0.0, 0.0};
  fprintf(f, "%-44s %-30s %10s %10s %-30s %10s %10s\n", "file", "best cpkit (model)", "merit",
          "time_s", " best Siconos", "merit", "time_s");
  for (size_t i = 0; i < nf; i++) {
    const cpk_bench_record *c, *s;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)file_len(short_name(files[i])), short_name(files[i]));
    cpk_bench_fclib_best(recs, count, files[i], 0, &c);
    cpk_bench_fclib_best(recs, count, files[i], 1, &s);
    fprintf(f, "%-44.44s", name);
    print_best(f, c);
    print_best(f, s);
    fprintf(f, "\n");
    add_best(&cp, c), add_best(&sc, s);
    if (c && s) add_pair(&both, c, s);
    if (c && s && merit_class(c->merit) == 0 && merit_class(s->merit) == 0) add_pair(&tight, c, s);
  }
  fprintf(f, "\n%-8s %6s %12s %12s %14s\n", "", "files", "merit<=1e-8", "merit<=1e-6",
          "sum of times");
  fprintf(f, "%-8s %6zu %12zu %12zu %14.4e\n", "cpkit", cp.files, cp.tight, cp.loose, cp.time_s);
  fprintf(f, "%-8s %6zu %12zu %12zu %14.4e\n", "Siconos", sc.files, sc.tight, sc.loose, sc.time_s);
  print_ratio(f, &both, "both ran");
  print_ratio(f, &tight, "both solve to merit <= 1e-8");
}

void cpk_bench_print_fclib_compare(FILE *f, const cpk_bench_record *recs, size_t count)
{
  const char **files = malloc((count ? count : 1) * sizeof *files);
  if (!files) {
    fprintf(f, "FCLIB comparison: out of memory\n");
    return;
  }
  size_t nf = distinct_fclib(recs, count, 1, 0, files);
  fprintf(f, "\nFCLIB: the best cpkit run and the best Siconos run per file (best: merit <= 1e-8, "
             "then <= 1e-6, the fastest within each; else the smallest merit)\n");
  if (nf)
    print_compare_rows(f, recs, count, files, nf);
  else
    fprintf(f, "no FCLIB runs\n");
  free(files);
}
