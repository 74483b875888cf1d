/* cmd_bench.c: `cpkit bench`, run solvers on benchmark suites in isolated processes, record, summarise and plot. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "harness.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_bench = {
    "bench", "benchmark the solvers on suites of problems: table, records, plots",
    "usage: cpkit bench SUITE... [OPTIONS]\n"
    "\n"
    "Run every registered solver (or those given by --solvers) on every problem of\n"
    "the suites, each run in a fresh process with a wall-clock guard; check every\n"
    "claimed solution again; print a summary table per solver (success rate,\n"
    "median and geometric-mean time on solved problems, failures by status) and\n"
    "per problem family. Pairs a solver does not accept are skipped.\n"
    "\n"
    "SUITE is a suite name (see --list; 'standard' is what `make bench` runs),\n"
    "a problem file in the text format, an FCLIB file (.hdf5), or a directory\n"
    "searched for *.cpk and *.hdf5 files.\n"
    "\n"
    "Options:\n"
    "  --solvers A,B,...   solvers to run (default: all registered, 'cpkit solvers',\n"
    "                      and, when cpkit was configured with Siconos Numerics,\n"
    "                      its FC3D solvers siconos-nsgs, siconos-nsn-ac,\n"
    "                      siconos-nsn-fb, siconos-prox, siconos-admm)\n"
    "  --repeat N          timed repeats after the warm-up run, N >= 1 (default 3);\n"
    "                      the time is their median. Runs whose warm-up takes more\n"
    "                      than 0.2 s are timed once (by the warm-up)\n"
    "  --time-limit S      seconds per solve, S >= 0 (default 60; 0 = none). A run\n"
    "                      silent for S + 1 + S/4 s is killed and recorded as\n"
    "                      time_limit\n"
    "  --tol X             natural-residual tolerance, X > 0 (default 1e-8, scaled\n"
    "                      by max(1, ||q||_inf) for affine problems)\n"
    "  --max-iter N        iteration limit, N >= 0 (default 0: each solver's own)\n"
    "  --linsys NAME       linear solver of every run: lapack, dense, umfpack, or when\n"
    "                      built with PETSc petsc, petsc-cg and petsc-gmres\n"
    "                      (default: each solver's own); the petsc ones under mpirun\n"
    "                      run every solve on all ranks, in the process (no guard,\n"
    "                      one timed solve per run; doc/petsc.md)\n"
    "  --set SOLVER.NAME=VALUE  a solver's own setting for every run, repeatable\n"
    "                      (nsn.rho=1); 'cpkit solvers --settings' lists them\n"    "  -o, --output FILE   write one record per run to FILE as it finishes: CSV,\n"
    "                      or JSON Lines with --json\n"
    "  --json              records as JSON Lines; the summary as one JSON object\n"
    "  --resume            keep the records already in FILE and run only the pairs\n"
    "                      missing from it (same options assumed)\n"
    "  --plot DIR          write Dolan-More performance profiles (time, iterations),\n"
    "                      scaling plots (log-log, fitted slope) and progress traces\n"
    "                      to DIR as SVG and PNG (needs gnuplot; without it the data\n"
    "                      and scripts are written and a message says so)\n"
    "  --compare           after the summary, per FCLIB file: the best cpkit run\n"
    "                      and the best Siconos run (merit, time), the files each\n"
    "                      solves to FCLIB merit 1e-8 and 1e-6, and the ratio of\n"
    "                      the sums of the best times (not with --json)\n"
    "  --list              list the suites and exit\n"
    "  -v, --verbose       one line per run on stderr\n"
    "  -h, --help          show this help\n"
    "\n"
    "A progress bar is shown when stderr is a terminal. Statuses: those of\n"
    "'cpkit solve', plus rejected (claimed solved, failed the check), error (the\n"
    "solver refused the problem) and crashed (the process died). Exit status: 0\n"
    "when the benchmark ran, whatever the outcomes; 1 for bad input or a file\n"
    "that cannot be written; 2 for a usage error.\n",
    run};

typedef struct bench_cli {
  cpk_bench_job job;
  const cpk_solver_type **solvers;
  int json, verbose, list, compare;
} bench_cli;

enum {
  OPT_SOLVERS = CLI_OPT_LONG_BASE,
  OPT_REPEAT,
  OPT_TIME_LIMIT,
  OPT_TOL,
  OPT_MAX_ITER,
  OPT_LINSYS,
  OPT_SET,
  OPT_JSON,
  OPT_RESUME,
  OPT_PLOT,
  OPT_LIST,
  OPT_COMPARE
};

static const struct option bench_longopts[] = {
    {"solvers", required_argument, NULL, OPT_SOLVERS},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"tol", required_argument, NULL, OPT_TOL},
    {"max-iter", required_argument, NULL, OPT_MAX_ITER},
    {"linsys", required_argument, NULL, OPT_LINSYS},
    {"set", required_argument, NULL, OPT_SET},
    {"output", required_argument, NULL, 'o'},
    {"json", no_argument, NULL, OPT_JSON},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"list", no_argument, NULL, OPT_LIST},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The registered solvers and the bench's extra ones (Siconos), for the unknown-solver message. */
static int unknown_solver(const char *name)
{
  const char *names[96];
  size_t n = 0;
  for (size_t k = 0; k < cpk_solver_count() && n < 64; k++) names[n++] = cpk_solver_at(k)->name;
  for (size_t k = 0; k < cpk_bench_extra_solver_count() && n < 96; k++)
    names[n++] = cpk_bench_extra_solver_at(k)->name;
  return cli_unknown_name(&cli_cmd_bench, "solver", name, names, n);
}

/* "a,b,c" into the list of solver types, each once. */
static int parse_solvers(bench_cli *b, const char *arg)
{
  char *copy = strdup(arg), *save = NULL;
  size_t m = 0;
  if (!copy) return cli_error("out of memory");
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    const cpk_solver_type *T = cpk_bench_solver_find(tok);
    if (!T) {
      int st = unknown_solver(tok);
      free(copy);
      return st;
    }
    size_t j = 0;
    while (j < m && b->solvers[j] != T) j++;
    if (j == m) b->solvers[m++] = T;
  }
  free(copy);
  if (m == 0) return cli_usage_error(&cli_cmd_bench, "--solvers names no solver");
  b->job.nsolvers = m;
  return CLI_CONTINUE;
}

static int apply_option(int c, const char *arg, bench_cli *b)
{
  const cli_command *cmd = &cli_cmd_bench;
  cpk_bench_options *o = &b->job.options;
  long v = 0;
  int st;
  switch (c) {
  case OPT_SOLVERS: return parse_solvers(b, arg);
  case OPT_REPEAT:
    st = cli_parse_long(cmd, "--repeat", arg, 1, &v);
    o->repeat = v > 64 ? 64 : (int)v;
    return st;
  case OPT_TIME_LIMIT: return cli_parse_double(cmd, "--time-limit", arg, 0.0, 0, &o->time_limit);
  case OPT_TOL: return cli_parse_double(cmd, "--tol", arg, 0.0, 1, &o->tol);
  case OPT_MAX_ITER: return cli_parse_long(cmd, "--max-iter", arg, 0, &o->max_iter);
  case OPT_LINSYS: return cli_find_linsys(cmd, arg, &o->linsys);
  case OPT_SET: return cli_parse_setting(cmd, arg, 0, &o->settings);
  case 'o': b->job.output = arg; return CLI_CONTINUE;
  case OPT_JSON: b->json = 1; return CLI_CONTINUE;
  case OPT_RESUME: b->job.resume = 1; return CLI_CONTINUE;
  case OPT_PLOT: b->job.plot_dir = arg; return CLI_CONTINUE;
  case OPT_LIST: b->list = 1; return CLI_CONTINUE;
  case OPT_COMPARE: b->compare = 1; return CLI_CONTINUE;
  case 'v': b->verbose = 1; return CLI_CONTINUE;
  case 'h': return cli_print_usage(cmd);
  default: return CLI_EXIT_USAGE; /* cli_getopt has said why */
  }
}

static int parse_options(int argc, char **argv, bench_cli *b)
{
  int c, status = CLI_CONTINUE;
  cpk_bench_options_default(&b->job.options);
  size_t nreg = cpk_solver_count(), nextra = cpk_bench_extra_solver_count();
  b->job.nsolvers = nreg + nextra;
  for (size_t k = 0; k < nreg; k++) b->solvers[k] = cpk_solver_at(k);
  for (size_t k = 0; k < nextra; k++) b->solvers[nreg + k] = cpk_bench_extra_solver_at(k);
  while (status == CLI_CONTINUE &&
         (c = cli_getopt(&cli_cmd_bench, argc, argv, ":o:vh", bench_longopts)) != -1)
    status = apply_option(c, optarg, b);
  if (status != CLI_CONTINUE || b->list) return status;
  if (optind == argc) return cli_usage_error(&cli_cmd_bench, "missing SUITE");
  if (b->job.resume && !b->job.output)
    return cli_usage_error(&cli_cmd_bench, "--resume needs the results file (-o FILE)");
  const cpk_linsys_type *ls = b->job.options.linsys;
  if (cpk_linsys_is_distributed(ls) && cpk_mpi_size() > 1 && b->job.resume)
    return cli_usage_error(&cli_cmd_bench,
                           "--resume with --linsys %s under mpirun with %d ranks: only rank 0 "
                           "reads the results file, so the ranks would skip different runs",
                           ls->name, cpk_mpi_size());
  return CLI_CONTINUE;
}

static int list_suites(void)
{
  const char *const *names = cpk_bench_suite_names();
  for (size_t k = 0; names[k]; k++) printf("%-15s %s\n", names[k], cpk_bench_suite_description(k));
  return CLI_EXIT_OK;
}

static void print_tally(const cpk_bench_tally *t, const char *output)
{
  printf("%zu runs", t->run);
  if (t->resumed) printf(", %zu taken from %s", t->resumed, output);
  printf("; not run: %zu (solver does not take the problem kind), %zu (solver declined: too "
         "big or unsupported)",
         t->skipped, t->declined);
  if (t->unbuilt) printf(", %zu problems could not be built", t->unbuilt);
  printf("\n\n");
}

static int bench(bench_cli *b, cpk_bench_suite *suite)
{
  cpk_bench_record *recs = NULL;
  cpk_bench_tally tally;
  size_t count = 0;
  cpk_error err;
  b->job.suite = suite;
  b->job.solvers = b->solvers;
  b->job.format = b->json ? CPK_BENCH_JSONL : CPK_BENCH_CSV;
  b->job.progress = !b->verbose && isatty(STDERR_FILENO);
  b->job.log = b->verbose ? stderr : NULL;
  if (cpk_mpi_rank() != 0) /* under mpirun rank 0 alone writes the results file and plots */
    b->job.output = NULL, b->job.resume = 0, b->job.plot_dir = NULL;
  int rc = cpk_bench_main(&b->job, &recs, &count, &tally, &err);
  if (rc) return cli_library_error(NULL, rc, &err);
  if (b->json)
    rc = cpk_bench_print_summary_json(stdout, recs, count);
  else {
    print_tally(&tally, b->job.output);
    cpk_bench_print_summary(stdout, recs, count);
    if (b->compare) cpk_bench_print_fclib_compare(stdout, recs, count);
  }
  free(recs);
  return rc ? cli_error("cannot write the summary") : CLI_EXIT_OK;
}

static int run(int argc, char **argv)
{
  bench_cli b;
  cpk_bench_suite suite = {NULL, 0, 0};
  cpk_error err;
  memset(&b, 0, sizeof b);
  b.solvers = calloc(cpk_solver_count() + cpk_bench_extra_solver_count() + 1, sizeof *b.solvers);
  if (!b.solvers) return cli_error("out of memory");
  int st = parse_options(argc, argv, &b);
  if (st == CLI_CONTINUE && b.list) st = list_suites();
  for (int k = optind; st == CLI_CONTINUE && k < argc; k++) {
    int rc = cpk_bench_suite_add(&suite, argv[k], &err);
    if (rc == CPK_ENOTFOUND) { /* not a file either: most likely a misspelled suite name */
      const char *const *names = cpk_bench_suite_names();
      size_t n = 0;
      while (names[n]) n++;
      st = cli_unknown_name(&cli_cmd_bench, "suite", argv[k], names, n);
    }
    else if (rc)
      st = cli_library_error(NULL, rc, &err);
  }
  if (st == CLI_CONTINUE && suite.count == 0) st = cli_error("the suites hold no problem");
  if (st == CLI_CONTINUE) st = bench(&b, &suite);
  cpk_bench_suite_clear(&suite);
  free(b.solvers);
  return st;
}
