/* harness.h: the benchmark harness behind `cpkit bench`: suites, isolated runs, result records, summary and plots. */
#ifndef CPK_BENCH_HARNESS_H
#define CPK_BENCH_HARNESS_H
#include <stddef.h>
#include <stdio.h>
#include <cpkit/cpkit.h>

/*
 * The harness runs every selected solver on every problem of the selected
 * suites, each run in a fresh child process (fork) with a wall-clock guard,
 * checks every claimed solution again in the parent, appends one record per
 * run to a results file (CSV or JSON Lines) as whole fsync'd lines so an
 * interrupted run can be resumed, and summarises the records in a table and
 * in plots (gnuplot). The pieces are separate so tests can drive each one.
 */

/* ---- statuses ------------------------------------------------------------ */

/*
 * A run's outcome: the seven solve statuses of cpkit (same values and names),
 * then three the harness adds because they are not outcomes of a solve.
 */
enum {
  CPK_BENCH_REJECTED = CPK_STATUS_COUNT, /* "rejected": claimed solved, failed the residual check */
  CPK_BENCH_ERROR,                       /* "error": alloc or solve returned an error code */
  CPK_BENCH_CRASHED                      /* "crashed": the child died (signal, exit, lost report) */
};
#define CPK_BENCH_STATUS_COUNT (CPK_STATUS_COUNT + 3)

/* Name of a bench status ("solved" ... "crashed"); "unknown" out of range. */
const char *cpk_bench_status_name(int status);
/* Parse a bench status name; -1 if unknown. */
int cpk_bench_status_from_name(const char *name);

/* ---- problem instances and suites ------------------------------------------ */

#define CPK_BENCH_NAME_MAX 160

/*
 * What is known about a problem's solutions: it has one (by construction or
 * by a theorem), it has none (infeasible by construction), or nothing.
 * A run succeeds when it is `solved`, or `no_solution` on a problem not known
 * to have a solution; `no_solution` on a problem known to have one is
 * `rejected`.
 */
enum { CPK_BENCH_EXPECT_UNKNOWN = -1, CPK_BENCH_EXPECT_NONE = 0, CPK_BENCH_EXPECT_SOLUTION = 1 };
/* "unknown", "none", "solution"; parse back (-2 if not one of them). */
const char *cpk_bench_expect_name(int expect);
int cpk_bench_expect_from_name(const char *name);
/* 1 if a run with this status counts as a success on a problem with this expectation. */
int cpk_bench_success(int status, int expect);

/* How an instance is built (see suites.c and suite_files.c). */
typedef enum cpk_bench_source {
  CPK_BENCH_SRC_FAMILY = 0, /* a generator of bench/families.h or bench/mcp_problems.h */
  CPK_BENCH_SRC_FILE,       /* a problem file in the text format v1 */
  CPK_BENCH_SRC_FCLIB       /* an FCLIB local problem: its cone problem, or compiled by a model */
} cpk_bench_source;

/* One problem of a suite: a recipe, built only when its runs come up. */
typedef struct cpk_bench_instance {
  char name[CPK_BENCH_NAME_MAX]; /* unique key, e.g. "delassus-c1000-s1" or a file path */
  char suite[32];                /* the suite it was selected through ("lcp", "contact", ...) */
  char family[32];               /* generator or "file" / "fclib-<model>" */
  cpk_bench_source source;
  size_t size; /* contacts for contact families, n otherwise: scaling axis */
  unsigned long seed;
  size_t param;    /* family parameter: bodies, directions, start index, ... */
  double mu;       /* friction coefficient where the family has one */
  double h;        /* time step where the family has one (scene families) */
  int expect;      /* CPK_BENCH_EXPECT_*: what is known about solutions */
  char path[1024]; /* file sources */
} cpk_bench_instance;

/* A growable list of instances. */
typedef struct cpk_bench_suite {
  cpk_bench_instance *items;
  size_t count, cap;
} cpk_bench_suite;

/* FCLIB's merit function of a solution z of the compiled problem (see suite_files.c). */
typedef double (*cpk_bench_merit)(const void *ctx, const double *z);

/* A built instance: the problem, an optional starting point and extra metric. */
typedef struct cpk_bench_built {
  cpk_problem *problem;
  double *z0;            /* standard starting point (NULL: the solver's own) */
  cpk_bench_merit merit; /* NULL when the instance has no extra merit */
  void *ctx;             /* owned: data of the problem's callbacks and of merit */
  void (*ctx_free)(void *ctx);
  size_t size; /* contacts or unknowns when only the file tells (0: the instance's) */
} cpk_bench_built;

/*
 * Add the instances of a suite: a name of cpk_bench_suite_names() (groups such
 * as "standard" expand to their members), or a path: a problem file in the
 * text format, an FCLIB file (.hdf5/.h5), or a directory of such files.
 * Instances already in the list (same name) are not added twice.
 */
int cpk_bench_suite_add(cpk_bench_suite *s, const char *name, cpk_error *err);
/* The suite names, NULL-terminated, with a one-line description each (same order). */
const char *const *cpk_bench_suite_names(void);
const char *cpk_bench_suite_description(size_t i);
/* 1 if the family's size axis counts contacts (0: unknowns). */
int cpk_bench_family_is_contact(const char *family);
/* Append one instance (copied; an instance of the same name is not added twice). */
int cpk_bench_suite_push(cpk_bench_suite *s, const cpk_bench_instance *inst);
void cpk_bench_suite_clear(cpk_bench_suite *s);

/* Build an instance (generated problems: same seed, same problem). */
int cpk_bench_build(const cpk_bench_instance *inst, cpk_bench_built *out, cpk_error *err);
/* Files (text format or FCLIB); called by cpk_bench_build. */
int cpk_bench_build_file(const cpk_bench_instance *inst, cpk_bench_built *out, cpk_error *err);
/* Add the problem files of a path (file or directory) to the suite. */
int cpk_bench_suite_add_path(cpk_bench_suite *s, const char *path, cpk_error *err);
void cpk_bench_built_free(cpk_bench_built *b);

/*
 * The `fclib` suite's directory: $CPK_FCLIB_DIR when set, else the FCLIB
 * sample files of the source tree's tests (tests/data/fclib).
 */
const char *cpk_bench_fclib_dir(void);

/* ---- solvers outside the library ------------------------------------------------ */

/*
 * Extra entries the harness offers beside the registered solvers: Siconos
 * Numerics' FC3D solvers ("siconos-nsgs", ...) when configure found it (see
 * bench/siconos.c), none otherwise. They are cpk_solver_types for friction-cone
 * problems, run and judged exactly as cpkit's solvers.
 */
size_t cpk_bench_extra_solver_count(void);
const cpk_solver_type *cpk_bench_extra_solver_at(size_t i);
/* A registered solver or an extra entry by name; NULL if neither. */
const cpk_solver_type *cpk_bench_solver_find(const char *name);

/* ---- one run ---------------------------------------------------------------- */

/* Settings of the runs. Fill with cpk_bench_options_default(). */
typedef struct cpk_bench_options {
  double tol;          /* natural-residual tolerance (scaled as cpk_problem_tolerance) */
  long max_iter;       /* 0: each solver's default */
  double time_limit;   /* seconds per solve, 0 = none; the guard kills a child past it */
  double guard_grace;  /* seconds the guard waits beyond time_limit (0: 1 + time_limit / 4) */
  int repeat;          /* timed repeats after the warm-up, >= 1 */
  double repeat_below; /* runs whose warm-up took longer are timed once (default 0.2 s) */
  int trace;           /* record the solver's progress measure per iteration in the warm-up */
  const cpk_linsys_type *linsys; /* settings.linsys of every run (NULL: each solver's own choice) */
  cpk_settings settings; /* what every run's settings start from (cpk_settings_default, then
                            the solvers' own settings of `cpkit bench --set`); tol, max_iter,
                            time_limit and linsys above replace theirs */
} cpk_bench_options;

void cpk_bench_options_default(cpk_bench_options *o);

#define CPK_BENCH_TRACE_MAX 512

/* What one run of one solver on one problem produced. */
typedef struct cpk_bench_record {
  char problem[CPK_BENCH_NAME_MAX];
  char suite[32], family[32], kind[16], solver[32];
  size_t n, size, nnz;
  unsigned long seed;
  int expect;  /* CPK_BENCH_EXPECT_* of the problem */
  int status;  /* bench status after the parent's check */
  int claimed; /* what the solver itself returned, before any check */
  long iterations;
  double residual;  /* natural residual recomputed in the parent from the child's z */
  double tolerance; /* absolute tolerance the residual was judged by */
  double time_s;    /* median wall time of alloc + solve over the timed runs */
  int repeats;      /* timed runs the median is over (0: the warm-up alone) */
  double peak_mb;   /* peak resident memory of the child */
  double mem_mb;    /* growth of the child's peak over its size at the fork */
  double merit;     /* FCLIB merit, NaN when the problem has none */
  char message[256];
  int error_code; /* status `error`: the code alloc/solve returned (not saved in files) */
} cpk_bench_record;

/* Fill the identity fields (problem, suite, family, kind, n, size, nnz, seed, solver). */
void cpk_bench_record_init(cpk_bench_record *rec, const cpk_bench_instance *inst,
                           const cpk_bench_built *b, const cpk_solver_type *T);

/* The solver's progress measure per iteration, subsampled to at most CPK_BENCH_TRACE_MAX points. */
typedef struct cpk_bench_trace {
  size_t count;
  long iteration[CPK_BENCH_TRACE_MAX];
  double merit[CPK_BENCH_TRACE_MAX];
} cpk_bench_trace;

/*
 * Run T on b in a child process: warm-up solve, then up to o->repeat timed
 * solves (median time), peak memory; the child sends z back and the parent
 * checks it (cpk_bench_verify). rec must have been initialised with
 * cpk_bench_record_init; trace may be NULL. Returns an error code only when
 * the harness itself failed (fork, pipe, memory): every outcome of the
 * child, crashes included, is a status in rec.
 */
int cpk_bench_run(const cpk_solver_type *T, const cpk_bench_built *b, const cpk_bench_options *o,
                  cpk_bench_record *rec, cpk_bench_trace *trace);

/*
 * The parent's check of a run: w = F(z) and the natural residual
 * ||z - mid(l, u, z - w)||_inf with its own loop, stored in rec->residual.
 * A run whose solver claimed `solved` (rec->claimed) is `rejected` when the
 * residual exceeds rec->tolerance or is not finite, whatever status it has.
 */
void cpk_bench_verify(const cpk_problem *p, const double *z, cpk_bench_record *rec);

/* ---- records: CSV and JSON Lines ------------------------------------------------ */

typedef enum cpk_bench_format { CPK_BENCH_CSV = 0, CPK_BENCH_JSONL = 1 } cpk_bench_format;

/* The CSV header line (without the newline): the schema of both formats. */
const char *cpk_bench_csv_header(void);
/* First line of a JSON Lines file (malloc'd): {"schema":"cpkit-bench","version":1,"fields":[..]} */
char *cpk_bench_jsonl_header(void);
/* One record as a line (with its newline), in the given format; malloc'd, NULL on ENOMEM. */
char *cpk_bench_record_line(const cpk_bench_record *rec, cpk_bench_format fmt);
/* Parse one line written by cpk_bench_record_line; CPK_EPARSE if it is not one. */
int cpk_bench_record_parse(const char *line, cpk_bench_format fmt, cpk_bench_record *rec);

/* An open results file: records are appended as whole lines and fsync'd. */
typedef struct cpk_bench_writer {
  int fd;
  cpk_bench_format fmt;
  char *path;
} cpk_bench_writer;

/*
 * Open `path` for records. resume = 0: start a new file (header written to a
 * temporary file renamed over `path`, so a previous file is replaced whole).
 * resume = 1: keep the records of an existing file (its header must match;
 * a last line cut short by an interruption is removed) and return them in
 * *old (count in *nold; both may be NULL); create the file if missing.
 */
int cpk_bench_writer_open(cpk_bench_writer *w, const char *path, cpk_bench_format fmt, int resume,
                          cpk_bench_record **old, size_t *nold, cpk_error *err);
int cpk_bench_writer_append(cpk_bench_writer *w, const cpk_bench_record *rec, cpk_error *err);
void cpk_bench_writer_close(cpk_bench_writer *w);

/* Read every record of a results file (format from its first line). */
int cpk_bench_read_records(const char *path, cpk_bench_record **out, size_t *count, cpk_error *err);

/* ---- summary and profiles -------------------------------------------------------- */

/* Per-solver figures over a set of records. */
typedef struct cpk_bench_solver_summary {
  char solver[32];
  size_t runs, solved;
  double success_rate;   /* solved / runs */
  double median_time_s;  /* over solved runs, NaN if none */
  double geomean_time_s; /* over solved runs, NaN if none */
  size_t by_status[CPK_BENCH_STATUS_COUNT];
} cpk_bench_solver_summary;

/* One entry per solver, in order of first appearance; *out malloc'd. */
int cpk_bench_summarize(const cpk_bench_record *recs, size_t count, cpk_bench_solver_summary **out,
                        size_t *nsolvers);
/* The per-solver table, then solved counts and median times per family and solver. */
void cpk_bench_print_summary(FILE *f, const cpk_bench_record *recs, size_t count);
/* The same as one JSON object {"solvers": [...], "families": [...]}. */
int cpk_bench_print_summary_json(FILE *f, const cpk_bench_record *recs, size_t count);

/* ---- FCLIB tables (fclib_report.c) ------------------------------------------------ */

/* FCLIB's accuracy thresholds the tables count (FCLIB's "required accuracy" and a looser one). */
#define CPK_BENCH_FCLIB_TIGHT 1e-8
#define CPK_BENCH_FCLIB_LOOSE 1e-6

/*
 * Records of FCLIB instances (families "fclib-MODEL", names "FILE:MODEL"):
 * FCLIB's merit per run (problem x solver) and, per solver, the runs at merit
 * <= 1e-8 and <= 1e-6. cpk_bench_print_summary appends it when there are such records.
 */
void cpk_bench_print_fclib_merits(FILE *f, const cpk_bench_record *recs, size_t count);

/*
 * The best run on FILE (an instance name; its ":MODEL" part is ignored) among
 * the Siconos entries (siconos = 1: solvers "siconos-*") or cpkit's solvers
 * (siconos = 0), every model of the file included: the lowest merit class
 * (<= 1e-8, <= 1e-6, above), the fastest within the first two, the smallest
 * merit in the last. *best = NULL when no such run exists.
 */
void cpk_bench_fclib_best(const cpk_bench_record *recs, size_t count, const char *file,
                          int siconos, const cpk_bench_record **best);

/*
 * For FCLIB's performance profiles: one record per (file, solver), the
 * solver's best run on the file over its models (as above), named by the file,
 * its status `solved` when its merit is <= threshold and `stalled` otherwise.
 * out needs room for count records; returns how many were written.
 */
size_t cpk_bench_fclib_by_file(const cpk_bench_record *recs, size_t count, double threshold,
                               cpk_bench_record *out);

/*
 * Per FCLIB file, the best cpkit run and the best Siconos run (solver, model,
 * merit, time), then for each side the files at merit <= 1e-8 and <= 1e-6 and
 * the sum of the best times, and the ratio of the sums over the files both ran.
 */
void cpk_bench_print_fclib_compare(FILE *f, const cpk_bench_record *recs, size_t count);

/* What a performance profile measures. */
typedef enum cpk_bench_metric { CPK_BENCH_TIME = 0, CPK_BENCH_ITERATIONS = 1 } cpk_bench_metric;

/*
 * Dolan-More performance profile over the problems of recs and the solvers
 * listed in `solvers` (nsolvers names): with t(p, s) the metric of solver s on
 * problem p when it solved it (+inf otherwise, and when s did not run on p),
 * r(p, s) = t(p, s) / min_s t(p, s). ratio[s * nprob + k] receives the k-th
 * smallest r(p, s) of solver s (+inf for failures), so rho_s(tau) is the
 * fraction of entries <= tau. *nprob is the number of distinct problems.
 * A problem nobody solved counts as a failure for everybody. Costs are
 * floored (1 iteration, 1 ns) so a ratio never divides by zero.
 */
int cpk_bench_profile(const cpk_bench_record *recs, size_t count, const char *const *solvers,
                      size_t nsolvers, cpk_bench_metric metric, double **ratio, size_t *nprob);

/* Least-squares slope and intercept of log(y) against log(x) (m >= 2 points, x, y > 0). */
int cpk_bench_loglog_fit(const double *x, const double *y, size_t m, double *slope,
                         double *intercept);

/* ---- plots ------------------------------------------------------------------------ */

/* 1 if gnuplot can be run (the program is $CPK_GNUPLOT, default `gnuplot`). */
int cpk_bench_have_gnuplot(void);
/* Run gnuplot on `script` (a file name) inside dir; its messages go to SCRIPT.log there (removed when empty), never to stderr. */
int cpk_bench_gnuplot_script(const char *dir, const char *script);

/* The trace of one run, for cpk_bench_plot. */
typedef struct cpk_bench_trace_set {
  const char *problem, *family, *solver;
  const cpk_bench_trace *trace;
} cpk_bench_trace_set;

/*
 * Write performance profiles (time, iterations; all problems and per suite),
 * scaling plots (median time against size per family with >= 3 sizes, log-log,
 * fitted slope per solver) and progress traces (traces may be NULL) into dir
 * (created if missing): the data (.dat), the gnuplot scripts (.gp) and, when
 * gnuplot is installed, SVG and PNG files. Without gnuplot, *plotted = 0 and
 * the scripts stay for later. Returns an error code only when a file cannot be
 * written or gnuplot fails on a script.
 */
int cpk_bench_plot(const char *dir, const cpk_bench_record *recs, size_t count,
                   const cpk_bench_trace_set *traces, size_t ntraces, int *plotted, cpk_error *err);

/* ---- the whole benchmark ------------------------------------------------------------ */

/* What cpk_bench_main does. */
typedef struct cpk_bench_job {
  const cpk_bench_suite *suite;
  const cpk_solver_type *const *solvers; /* the solvers to run (any list: tests pass their own) */
  size_t nsolvers;
  cpk_bench_options options;
  const char *output; /* results file, or NULL for none (then no resume) */
  cpk_bench_format format;
  int resume;
  const char *plot_dir; /* NULL: no plots */
  int progress;         /* 1: progress bar on stderr (the caller checks isatty) */
  FILE *log;            /* one line per run when not NULL */
} cpk_bench_job;

/*
 * Run the job: every accepted (solver, problem) pair not already in the
 * results file when resuming, records appended as they finish. A solver that
 * declines a problem at run time (CPK_ETOOBIG, CPK_EUNSUP: e.g. enum above its
 * size limit) is treated as not accepting it: no record. *recs receives
 * every record of the selected pairs (resumed and new), for the summary.
 */
typedef struct cpk_bench_tally {
  size_t run;      /* pairs run now */
  size_t resumed;  /* pairs taken from the results file */
  size_t skipped;  /* pairs whose problem kind the solver does not accept */
  size_t declined; /* pairs the solver declined when allocating (too big, unsupported) */
  size_t unbuilt;  /* problems that could not be built (a message on stderr for each) */
} cpk_bench_tally;

int cpk_bench_main(const cpk_bench_job *job, cpk_bench_record **recs, size_t *count,
                   cpk_bench_tally *tally, cpk_error *err);

#endif
