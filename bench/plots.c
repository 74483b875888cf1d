/* plots.c: benchmark plots as gnuplot data and scripts: performance profiles, scaling with fitted slopes, progress traces. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"

/* Line types defined in every script (style_of numbers solvers from 1). */
enum { CPK_PLOT_STYLES = 24 };

/* Scripts written so far, run together at the end, and the solvers' line styles. */
typedef struct plot_list {
  char names[256][64];
  size_t count;
  const char *solvers[64]; /* a solver keeps its colour in every plot */
  size_t nsolvers;
} plot_list;

/*
 * A solver's line type: its place among the registered solvers, then among the bench's extra
 * ones, then among the other names of the run; so it keeps one colour and dash pattern in
 * every figure of every run, whatever solvers a run compares.
 */
static int style_of(const plot_list *L, const char *solver)
{
  size_t nreg = cpk_solver_count(), nextra = cpk_bench_extra_solver_count();
  for (size_t k = 0; k < nreg; k++)
    if (strcmp(cpk_solver_at(k)->name, solver) == 0) return (int)k + 1;
  for (size_t k = 0; k < nextra; k++)
    if (strcmp(cpk_bench_extra_solver_at(k)->name, solver) == 0) return (int)(nreg + k) + 1;
  for (size_t k = 0; k < L->nsolvers; k++)
    if (strcmp(L->solvers[k], solver) == 0) return (int)(nreg + nextra + k) + 1;
  return (int)(nreg + nextra + L->nsolvers) + 1;
}

/* Every script draws an SVG, then the same plot again as a PNG. */
static void begin_script(FILE *f, const char *base)
{
  fprintf(f, "# %s.gp: written by cpkit bench; run `gnuplot %s.gp` in this directory.\n", base,
          base);
  fprintf(f,
          "set terminal svg size 820,580 dynamic noenhanced font 'Sans,12' background "
          "rgb 'white'\nset output '%s.svg'\nset grid\n",
          base);
  /* strong colours and dash patterns, so that lines stay apart on paper too: no two line
     types share both (8 colours; dashes 1-4 for the first 8, then 5, then a custom one) */
  static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                        "#9467bd", "#000000", "#8c564b", "#e377c2"};
  static const char *const dashes[] = {"1", "2", "3", "4", "5", "(12,6,3,6)"};
  for (int k = 0; k < CPK_PLOT_STYLES; k++)
    fprintf(f, "set linetype %d lc rgb '%s' lw 2 dt %s\n", k + 1, colours[k % 8],
            dashes[k < 8 ? k % 4 : k < 16 ? 4 : 5]);
}

static void end_script(FILE *f, const char *base)
{
  fprintf(f,
          "set terminal pngcairo size 980,700 noenhanced font 'Sans,11'\n"
          "set output '%s.png'\nreplot\nset output\n",
          base);
}

/* Names from data (families, suites) made safe for file names. */
static void safe_name(char *dst, size_t size, const char *src)
{
  size_t k = 0;
  for (; *src && k + 1 < size; src++)
    dst[k++] = (strchr("-_.", *src) || (*src >= '0' && *src <= '9') ||
                (*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z'))
                   ? *src
                   : '_';
  dst[k] = '\0';
}

static FILE *open_in(const char *dir, const char *base, const char *ext, cpk_error *err)
{
  char path[2048];
  snprintf(path, sizeof path, "%s/%s.%s", dir, base, ext);
  FILE *f = fopen(path, "w");
  if (!f) cpk_error_set(err, CPK_EIO, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

static int close_both(FILE *a, FILE *b, const char *dir, cpk_error *err)
{
  /* Both closed whatever the first gives (no short-circuit). */
  int bad = a && fclose(a) != 0;
  if (b && fclose(b) != 0) bad = 1;
  return bad ? cpk_error_set(err, CPK_EIO, "%s: cannot write the plot files", dir) : CPK_OK;
}

static void remove_files(const char *dir, const char *base)
{
  char path[2048];
  snprintf(path, sizeof path, "%s/%s.dat", dir, base);
  remove(path);
  snprintf(path, sizeof path, "%s/%s.gp", dir, base);
  remove(path);
}

static int add_plot(plot_list *L, const char *base)
{
  if (L->count == sizeof L->names / sizeof L->names[0]) return CPK_OK; /* enough */
  snprintf(L->names[L->count++], sizeof L->names[0], "%s", base);
  return CPK_OK;
}

/* Distinct solvers of recs (pointers into recs), in order of first appearance. */
static size_t solvers_of(const cpk_bench_record *recs, size_t count, const char **out, size_t max)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    size_t j = 0;
    while (j < m && strcmp(out[j], recs[k].solver) != 0) j++;
    if (j == m && m < max) out[m++] = recs[k].solver;
  }
  return m;
}

/* ---- performance profiles ------------------------------------------------------------ */

static void profile_data(FILE *d, const double *ratio, size_t np, size_t ns, double xmax)
{
  for (size_t s = 0; s < ns; s++) {
    const double *r = ratio + s * np;
    size_t k = 0;
    fprintf(d, "%s1 0\n", s ? "\n\n" : "");
    for (; k < np && isfinite(r[k]); k++)
      fprintf(d, "%.6g %.6g\n", r[k], (double)(k + 1) / (double)np);
    fprintf(d, "%.6g %.6g\n", xmax, (double)k / (double)np);
  }
}

static int profile_plot(const char *dir, const cpk_bench_record *recs, size_t count,
                        cpk_bench_metric metric, const char *scope, plot_list *L, cpk_error *err)
{
  const char *solvers[64];
  size_t ns = solvers_of(recs, count, solvers, 64), np = 0;
  double *ratio = NULL, xmax = 2.0;
  if (ns == 0 || cpk_bench_profile(recs, count, solvers, ns, metric, &ratio, &np))
    return ns == 0 ? CPK_OK : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t k = 0; k < ns * np; k++)
    if (isfinite(ratio[k]) && 1.25 * ratio[k] > xmax) xmax = 1.25 * ratio[k];
  char base[64], safe[40];
  safe_name(safe, sizeof safe, scope);
  snprintf(base, sizeof base, "profile-%s-%s", metric == CPK_BENCH_TIME ? "time" : "iterations",
           safe);
  FILE *d = open_in(dir, base, "dat", err), *g = d ? open_in(dir, base, "gp", err) : NULL;
  if (g) {
    profile_data(d, ratio, np, ns, xmax);
    begin_script(g, base);
    fprintf(g, "set title \"Performance profile (Dolan-More): %s, %s problems (%zu)\"\n",
            metric == CPK_BENCH_TIME ? "wall time" : "iterations", scope, np);
    fprintf(g,
            "set xlabel 'tau: within a factor tau of the best solver (log2)'\n"
            "set ylabel 'fraction of problems solved'\nset logscale x 2\n"
            "set xrange [1:%.6g]\nset yrange [0:1.05]\nset key right bottom\nplot ",
            xmax);
    for (size_t s = 0; s < ns; s++)
      fprintf(g, "%s'%s.dat' index %zu using 1:2 with steps lt %d title '%s'", s ? ", \\\n  " : "",
              base, s, style_of(L, solvers[s]), solvers[s]);
    fprintf(g, "\n");
    end_script(g, base);
  }
  free(ratio);
  int rc = g ? close_both(d, g, dir, err) : (close_both(d, NULL, dir, NULL), CPK_EIO);
  return rc ? rc : add_plot(L, base);
}

/* ---- scaling ------------------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median time of solver's successful runs on family at one size; NaN if none. */
static double median_at(const cpk_bench_record *recs, size_t count, const char *family,
                        const char *solver, size_t size, double *buf)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++)
    if (recs[k].size == size && strcmp(recs[k].family, family) == 0 &&
        strcmp(recs[k].solver, solver) == 0 && cpk_bench_success(recs[k].status, recs[k].expect))
      buf[m++] = recs[k].time_s > 1e-9 ? recs[k].time_s : 1e-9;
  if (m == 0) return NAN;
  qsort(buf, m, sizeof *buf, compare_doubles);
  return m % 2 ? buf[m / 2] : 0.5 * (buf[m / 2 - 1] + buf[m / 2]);
}

/* Sorted distinct sizes of a family's records (at most max). */
static size_t sizes_of(const cpk_bench_record *recs, size_t count, const char *family, double *out,
                       size_t max)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    if (strcmp(recs[k].family, family) != 0) continue;
    size_t j = 0;
    while (j < m && out[j] != (double)recs[k].size) j++;
    if (j == m && m < max) out[m++] = (double)recs[k].size;
  }
  qsort(out, m, sizeof *out, compare_doubles);
  return m;
}

/* Sets of unrelated problems, whose sizes do not make a scaling series. */
static int is_collection(const char *family)
{
  return strcmp(family, "mcplib") == 0 || strcmp(family, "file") == 0 ||
         strncmp(family, "fclib-", 6) == 0;
}

/* One block per solver in the data file; the fit goes into the script. */
static void scaling_series(const plot_list *L, FILE *d, FILE *g, const char *base,
                           const cpk_bench_record *recs, size_t count, const char *family,
                           const double *sizes, size_t nsz, double *buf)
{
  const char *solvers[64];
  size_t ns = solvers_of(recs, count, solvers, 64), block = 0;
  int first = 1;
  for (size_t s = 0; s < ns; s++) {
    double x[64], y[64], a, b;
    size_t m = 0;
    for (size_t k = 0; k < nsz; k++) {
      double t = median_at(recs, count, family, solvers[s], (size_t)sizes[k], buf);
      if (isfinite(t)) x[m] = sizes[k], y[m++] = t;
    }
    if (m == 0) continue;
    fprintf(d, "%s# %s\n", block ? "\n\n" : "", solvers[s]);
    for (size_t k = 0; k < m; k++) fprintf(d, "%.6g %.6g\n", x[k], y[k]);
    int fit = cpk_bench_loglog_fit(x, y, m, &a, &b) == CPK_OK;
    int lt = style_of(L, solvers[s]);
    fprintf(g, "%s'%s.dat' index %zu using 1:2 with points pt 7 ps 1.2 lt %d title '%s",
            first ? "plot " : ", \\\n  ", base, block, lt, solvers[s]);
    if (fit) /* drawn over the sizes measured only: a fit says nothing beyond them */
      fprintf(g, " (slope %.2f)', (x >= %.6g && x <= %.6g ? exp(%.6g) * x**%.6g : 1/0) with lines lt %d notitle",
              a, x[0], x[m - 1], b, a, lt);
    else
      fprintf(g, " (too few sizes to fit)'");
    first = 0;
    block++;
  }
  if (first)
    fprintf(g, "plot 1/0 notitle # nobody solved a problem of this family\n");
  else
    fprintf(g, "\n");
}

static int scaling_plot(const char *dir, const cpk_bench_record *recs, size_t count,
                        const char *family, plot_list *L, cpk_error *err)
{
  double sizes[64];
  size_t nsz = sizes_of(recs, count, family, sizes, 64);
  if (nsz < 3 || is_collection(family)) return CPK_OK; /* a slope needs one family, many sizes */
  double *buf = malloc(count * sizeof *buf);
  char base[64], safe[40];
  if (!buf) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  safe_name(safe, sizeof safe, family);
  snprintf(base, sizeof base, "scaling-%s", safe);
  FILE *d = open_in(dir, base, "dat", err), *g = d ? open_in(dir, base, "gp", err) : NULL;
  if (g) {
    begin_script(g, base);
    fprintf(g,
            "set title \"Scaling on %s: median time of solved runs, least-squares fit in "
            "log-log\"\nset xlabel '%s'\nset ylabel 'time (s)'\nset logscale xy\n"
            "set key left top\nset format xy '%%g'\nset xrange [%.6g:%.6g]\n"
            "set samples 2000 # the fits end close to their first and last sizes\n",
            family,
            cpk_bench_family_is_contact(family) ? "number of contacts" : "number of unknowns n",
            sizes[0] / 1.3, sizes[nsz - 1] * 1.3);
    scaling_series(L, d, g, base, recs, count, family, sizes, nsz, buf);
    end_script(g, base);
  }
  free(buf);
  int rc = g ? close_both(d, g, dir, err) : (close_both(d, NULL, dir, NULL), CPK_EIO);
  return rc ? rc : add_plot(L, base);
}

/* ---- progress traces ----------------------------------------------------------------- */

/* Data blocks of the family's traces; which[b] is the trace of block b. Returns the count. */
static size_t trace_data(FILE *d, const cpk_bench_trace_set *T, size_t nt, const char *family,
                         size_t *which)
{
  size_t block = 0;
  for (size_t k = 0; k < nt; k++) {
    if (strcmp(T[k].family, family) != 0 || block == 64) continue;
    size_t m = 0;
    for (size_t i = 0; i < T[k].trace->count; i++) {
      double y = T[k].trace->merit[i];
      if (!(y > 0 && isfinite(y)) || T[k].trace->iteration[i] < 1) continue; /* log axes */
      fprintf(d, "%s%ld %.6g\n", m == 0 && block ? "\n\n" : "", T[k].trace->iteration[i], y);
      m++;
    }
    if (m) which[block++] = k;
  }
  return block;
}

static int trace_plot(const char *dir, const cpk_bench_trace_set *T, size_t nt, const char *family,
                      plot_list *L, cpk_error *err)
{
  char base[64], safe[40];
  size_t which[64];
  safe_name(safe, sizeof safe, family);
  snprintf(base, sizeof base, "trace-%s", safe);
  FILE *d = open_in(dir, base, "dat", err), *g = d ? open_in(dir, base, "gp", err) : NULL;
  size_t nb = g ? trace_data(d, T, nt, family, which) : 0;
  if (nb) {
    begin_script(g, base);
    fprintf(g,
            "set title \"Progress per iteration on %s (each solver's own measure)\"\n"
            "set xlabel 'iteration (log)'\nset ylabel 'progress measure'\nset logscale xy\n"
            "set key right top\nplot ",
            T[which[0]].problem);
    for (size_t b = 0; b < nb; b++)
      fprintf(g, "%s'%s.dat' index %zu using 1:2 with linespoints pt 7 ps 0.4 lt %d title '%s'",
              b ? ", \\\n  " : "", base, b, style_of(L, T[which[b]].solver), T[which[b]].solver);
    fprintf(g, "\n");
    end_script(g, base);
  }
  if (!g) return close_both(d, NULL, dir, NULL), CPK_EIO;
  int rc = close_both(d, g, dir, err);
  if (!rc && !nb) remove_files(dir, base); /* nothing positive to draw on a log axis */
  return rc ? rc : (nb ? add_plot(L, base) : CPK_OK);
}

/* ---- all of them ----------------------------------------------------------------------- */

/* Distinct values of a string field of recs (pointers into recs). */
static size_t distinct_field(const cpk_bench_record *recs, size_t count, size_t offset,
                             const char **out, size_t max)
{
  size_t m = 0;
  for (size_t k = 0; k < count; k++) {
    const char *v = (const char *)&recs[k] + offset;
    size_t j = 0;
    while (j < m && strcmp(out[j], v) != 0) j++;
    if (j == m && m < max) out[m++] = v;
  }
  return m;
}

/*
 * FCLIB's time profiles: per file, each solver's best run over the file's
 * models, a success when FCLIB's merit reaches 1e-8 (then 1e-6), whatever
 * its status: the figure FCLIB results are compared by.
 */
static int fclib_profiles(const char *dir, const cpk_bench_record *recs, size_t count, plot_list *L,
                          cpk_error *err)
{
  static const struct {
    double threshold;
    const char *scope;
  } levels[] = {{CPK_BENCH_FCLIB_TIGHT, "fclib-merit-1e-8"},
                {CPK_BENCH_FCLIB_LOOSE, "fclib-merit-1e-6"}};
  cpk_bench_record *by_file = malloc((count ? count : 1) * sizeof *by_file);
  int rc = by_file ? CPK_OK : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t k = 0; !rc && k < sizeof levels / sizeof levels[0]; k++) {
    size_t m = cpk_bench_fclib_by_file(recs, count, levels[k].threshold, by_file);
    if (m) rc = profile_plot(dir, by_file, m, CPK_BENCH_TIME, levels[k].scope, L, err);
  }
  free(by_file);
  return rc;
}

/* Profiles over all records, then over the records of each suite when there are several. */
static int all_profiles(const char *dir, const cpk_bench_record *recs, size_t count, plot_list *L,
                        cpk_error *err)
{
  const char *suites[64];
  size_t nsuites = distinct_field(recs, count, offsetof(cpk_bench_record, suite), suites, 64);
  cpk_bench_record *sub = malloc((count ? count : 1) * sizeof *sub);
  int rc = sub ? CPK_OK : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (int m = 0; !rc && m < 2; m++) {
    rc = profile_plot(dir, recs, count, (cpk_bench_metric)m, "all", L, err);
    for (size_t s = 0; !rc && nsuites > 1 && s < nsuites; s++) {
      size_t ns = 0;
      for (size_t k = 0; k < count; k++)
        if (strcmp(recs[k].suite, suites[s]) == 0) sub[ns++] = recs[k];
      rc = profile_plot(dir, sub, ns, (cpk_bench_metric)m, sub[0].suite, L, err);
    }
  }
  free(sub);
  return rc == CPK_OK ? fclib_profiles(dir, recs, count, L, err) : rc;
}

int cpk_bench_plot(const char *dir, const cpk_bench_record *recs, size_t count,
                   const cpk_bench_trace_set *traces, size_t ntraces, int *plotted, cpk_error *err)
{
  plot_list *L = calloc(1, sizeof *L);
  const char *families[256];
  *plotted = 0;
  cpk_error_clear(err);
  if (!L) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (mkdir(dir, 0777) && errno != EEXIST) {
    free(L);
    return cpk_error_set(err, CPK_EIO, "%s: cannot create the directory: %s", dir, strerror(errno));
  }
  L->nsolvers = solvers_of(recs, count, L->solvers, 64);
  int rc = all_profiles(dir, recs, count, L, err);
  size_t nf = distinct_field(recs, count, offsetof(cpk_bench_record, family), families, 256);
  for (size_t k = 0; !rc && k < nf; k++) rc = scaling_plot(dir, recs, count, families[k], L, err);
  for (size_t k = 0; !rc && k < nf; k++) rc = trace_plot(dir, traces, ntraces, families[k], L, err);
  if (!rc && cpk_bench_have_gnuplot()) {
    for (size_t k = 0; !rc && k < L->count; k++) {
      char script[80];
      snprintf(script, sizeof script, "%s.gp", L->names[k]);
      if (cpk_bench_gnuplot_script(dir, script))
        rc = cpk_error_set(err, CPK_EIO, "%s/%s: gnuplot failed (its messages: %s/%s.log)", dir, script, dir, script);
    }
    *plotted = !rc;
  }
  free(L);
  return rc;
}
