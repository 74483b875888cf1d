/* harness.c: the benchmark loop: every accepted (solver, problem) pair once, resume, progress bar, records, traces and plots. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "harness.h"

void cpk_bench_options_default(cpk_bench_options *o)
{
  memset(o, 0, sizeof *o);
  o->tol = CPK_DEFAULT_TOL;
  o->time_limit = 60.0;
  o->guard_grace = 0.0; /* automatic: 1 s + a quarter of the time limit */
  o->repeat = 3;
  o->repeat_below = 0.2;
  cpk_settings_default(&o->settings);
}

/* Everything the loop carries between pairs. */
typedef struct bench_state {
  const cpk_bench_job *job;
  cpk_bench_writer writer;
  int writing;
  cpk_bench_record *old; /* records of the resumed file */
  size_t nold;
  cpk_bench_record *recs; /* records of the selected pairs */
  size_t count, cap;
  cpk_bench_trace_set *traces;
  size_t ntraces;
  size_t done, total;
  cpk_bench_tally tally;
} bench_state;

static int push_record(bench_state *S, const cpk_bench_record *r)
{
  if (S->count == S->cap) {
    size_t cap = S->cap ? 2 * S->cap : 256, bytes;
    if (cpk_size_mul(cap, sizeof *S->recs, &bytes)) return CPK_EOVERFLOW;
    cpk_bench_record *grown = realloc(S->recs, bytes);
    if (!grown) return CPK_ENOMEM;
    S->recs = grown, S->cap = cap;
  }
  S->recs[S->count++] = *r;
  return CPK_OK;
}

static const cpk_bench_record *find_old(const bench_state *S, const char *problem,
                                        const char *solver)
{
  for (size_t k = S->nold; k-- > 0;) /* the latest record of a pair wins */
    if (strcmp(S->old[k].solver, solver) == 0 && strcmp(S->old[k].problem, problem) == 0)
      return &S->old[k];
  return NULL;
}

static void progress(const bench_state *S, const char *solver, const char *problem)
{
  enum { WIDTH = 30 };
  char bar[WIDTH + 1];
  size_t fill = S->total ? S->done * WIDTH / S->total : WIDTH;
  for (size_t k = 0; k < WIDTH; k++) bar[k] = k < fill ? '#' : '.';
  bar[WIDTH] = '\0';
  fprintf(stderr, "\r[%s] %zu/%zu %s on %.40s\033[K", bar, S->done, S->total, solver, problem);
  fflush(stderr);
}

static void log_run(FILE *f, const cpk_bench_record *r)
{
  fprintf(f, "%-10s %-40s %-15s %8ld it  %10.3e s  residual %9.2e%s%s\n", r->solver, r->problem,
          cpk_bench_status_name(r->status), r->iterations, r->time_s, r->residual,
          r->message[0] ? "  " : "", r->message);
  fflush(f);
}

/* Representative instance of each family for traces: largest size, first seed. */
static int is_representative(const cpk_bench_suite *s, size_t i)
{
  const cpk_bench_instance *a = &s->items[i];
  for (size_t k = 0; k < s->count; k++) {
    const cpk_bench_instance *b = &s->items[k];
    if (k == i || strcmp(a->family, b->family) != 0) continue;
    if (b->size > a->size || (b->size == a->size && b->seed < a->seed) ||
        (b->size == a->size && b->seed == a->seed && k < i))
      return 0;
  }
  return 1;
}

static int keep_trace(bench_state *S, const cpk_bench_instance *in, const cpk_solver_type *T,
                      cpk_bench_trace *trace)
{
  cpk_bench_trace_set *grown = realloc(S->traces, (S->ntraces + 1) * sizeof *grown);
  if (!grown) return CPK_ENOMEM;
  S->traces = grown;
  grown[S->ntraces++] = (cpk_bench_trace_set){in->name, in->family, T->name, trace};
  return CPK_OK;
}

/* Run one pair and record it (file, memory, log). */
static int run_pair(bench_state *S, const cpk_bench_instance *in, const cpk_bench_built *b,
                    const cpk_solver_type *T, int traced, cpk_error *err)
{
  const cpk_bench_job *job = S->job;
  cpk_bench_options o = job->options;
  cpk_bench_trace *trace = traced ? calloc(1, sizeof *trace) : NULL;
  cpk_bench_record rec;
  if (traced && !trace) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  o.trace = trace != NULL;
  cpk_bench_record_init(&rec, in, b, T);
  rec.tolerance = cpk_problem_tolerance(b->problem, o.tol);
  int rc = cpk_bench_run(T, b, &o, &rec, trace);
  if (rc) cpk_error_set(err, rc, "%s on %s: cannot run: %s", T->name, in->name, cpk_strerror(rc));
  if (!rc && rec.status == CPK_BENCH_ERROR &&
      (rec.error_code == CPK_ETOOBIG || rec.error_code == CPK_EUNSUP)) {
    S->tally.declined++;
    free(trace);
    return CPK_OK;
  }
  if (!rc && S->writing) rc = cpk_bench_writer_append(&S->writer, &rec, err);
  if (!rc) rc = push_record(S, &rec), S->tally.run++;
  if (!rc && trace)
    rc = keep_trace(S, in, T, trace);
  else
    free(trace);
  if (!rc && job->log) log_run(job->log, &rec);
  return rc;
}

/* Every solver on one instance; the problem is built only if some pair is left to run. */
static int run_instance(bench_state *S, size_t i, cpk_error *err)
{
  const cpk_bench_job *job = S->job;
  const cpk_bench_instance *in = &job->suite->items[i];
  cpk_bench_built b;
  int need = 0, rc = CPK_OK, traced = job->plot_dir && is_representative(job->suite, i);
  for (size_t s = 0; s < job->nsolvers; s++) need |= !find_old(S, in->name, job->solvers[s]->name);
  if (need && (rc = cpk_bench_build(in, &b, err))) {
    fprintf(stderr, "cpkit bench: skipping %s: %s\n", in->name, err->message);
    S->tally.unbuilt++;
    S->done += job->nsolvers;
    cpk_error_clear(err);
    return CPK_OK;
  }
  for (size_t s = 0; !rc && s < job->nsolvers; s++) {
    const cpk_solver_type *T = job->solvers[s];
    const cpk_bench_record *old = find_old(S, in->name, T->name);
    if (job->progress) progress(S, T->name, in->name);
    if (old)
      rc = push_record(S, old), S->tally.resumed++;
    else if (!cpk_solver_accepts(T, b.problem))
      S->tally.skipped++;
    else
      rc = run_pair(S, in, &b, T, traced, err);
    S->done++;
  }
  if (need) cpk_bench_built_free(&b);
  return rc;
}

static void finish(bench_state *S, int rc)
{
  if (S->job->progress) fprintf(stderr, "\r\033[K");
  if (S->writing) cpk_bench_writer_close(&S->writer);
  for (size_t k = 0; k < S->ntraces; k++) free((void *)S->traces[k].trace);
  free(S->traces);
  free(S->old);
  if (rc) free(S->recs);
}

static int plot(bench_state *S, cpk_error *err)
{
  int plotted = 0;
  int rc =
      cpk_bench_plot(S->job->plot_dir, S->recs, S->count, S->traces, S->ntraces, &plotted, err);
  if (!rc && !plotted)
    fprintf(stderr,
            "cpkit bench: gnuplot not found: wrote the plot data and scripts to %s; "
            "run `gnuplot FILE.gp` there once it is installed\n",
            S->job->plot_dir);
  return rc;
}

int cpk_bench_main(const cpk_bench_job *job, cpk_bench_record **recs, size_t *count,
                   cpk_bench_tally *tally, cpk_error *err)
{
  bench_state S;
  int rc = CPK_OK;
  memset(&S, 0, sizeof S);
  S.job = job;
  *recs = NULL, *count = 0;
  cpk_error_clear(err);
  if (job->output) {
    rc = cpk_bench_writer_open(&S.writer, job->output, job->format, job->resume, &S.old, &S.nold,
                               err);
    S.writing = rc == CPK_OK;
  }
  S.total = job->suite->count * job->nsolvers;
  for (size_t i = 0; !rc && i < job->suite->count; i++) rc = run_instance(&S, i, err);
  if (!rc && job->plot_dir) {
    if (job->progress) fprintf(stderr, "\r\033[Kplotting...");
    rc = plot(&S, err);
  }
  finish(&S, rc);
  if (!rc) *recs = S.recs, *count = S.count;
  if (tally) *tally = S.tally;
  return rc;
}
