/* cmd_solve.c: `cpkit solve`, read a problem, solve it with a registered solver, print a report or the JSON result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_solve = {
    "solve", "solve a problem file with one of the registered solvers",
    "usage: cpkit solve FILE [OPTIONS]\n"
    "\n"
    "Solve the problem in FILE (text format v1, or an FCLIB HDF5 file read as a\n"
    "friction-cone problem; '-' reads standard input, text only) and print a\n"
    "report, or with --json the result as one JSON object. For friction-cone\n"
    "problems the report and the JSON also give FCLIB's merit (fclib_merit).\n"
    "\n"
    "Options:\n"
    "  --solver NAME       solver to use (default: lemke, or nsn for a friction-cone\n"
    "                      problem such as an FCLIB file; see 'cpkit solvers')\n"
    "  --tol X             natural-residual tolerance, X > 0, scaled by\n"
    "                      max(1, ||q||_inf) (default 1e-8)\n"
    "  --max-iter N        iteration/pivot limit, N >= 0 (0 = the solver's default)\n"
    "  --time-limit S      wall-time limit in seconds, S >= 0 (0 = none)\n"
    "  --warm-start FILE   start from z (and basis) in FILE: a JSON result written\n"
    "                      by --json, or plain text with n numbers\n"
    "  --linsys NAME       linear solver: lapack, dense, umfpack, or when built with\n"
    "                      PETSc petsc, petsc-cg and petsc-gmres (default: automatic)\n"
    "  --set NAME=VALUE    a setting by name, repeatable: a common one (tol=1e-10) or\n"
    "                      a solver's own as SOLVER.NAME (nsn.rho=1, fcprox.sigma=0.1);\n"
    "                      'cpkit solvers --settings' lists them with their defaults\n"
    "  -v, --verbose       the iteration log and a summary on stderr (see cpkit(1))\n"
    "  --json              print the result as one JSON object\n"
    "  -o, --output FILE   write the output to FILE instead of standard output\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 when the solve ran, whatever its status (solved, no_solution,\n"
    "ray_termination, max_iterations, time_limit, stalled, invalid_input);\n"
    "1 for bad input; 2 for a usage error.\n",
    run};

typedef struct solve_options {
  const char *problem_path;
  const char *warm_path;
  const char *out_path;
  const cpk_solver_type *solver;
  cpk_settings settings;
  int json;
} solve_options;

enum {
  OPT_SOLVER = CLI_OPT_LONG_BASE,
  OPT_TOL,
  OPT_MAX_ITER,
  OPT_TIME_LIMIT,
  OPT_WARM_START,
  OPT_LINSYS,
  OPT_SET,
  OPT_JSON
};

static const struct option solve_longopts[] = {
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"tol", required_argument, NULL, OPT_TOL},
    {"max-iter", required_argument, NULL, OPT_MAX_ITER},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"warm-start", required_argument, NULL, OPT_WARM_START},
    {"linsys", required_argument, NULL, OPT_LINSYS},
    {"set", required_argument, NULL, OPT_SET},
    {"verbose", no_argument, NULL, 'v'},
    {"json", no_argument, NULL, OPT_JSON},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int apply_option(int c, const char *arg, solve_options *o)
{
  const cli_command *cmd = &cli_cmd_solve;
  switch (c) {
  case OPT_SOLVER:
    o->solver = cpk_solver_find(arg);
    return o->solver ? CLI_CONTINUE : cli_unknown_solver(&cli_cmd_solve, arg);
  case OPT_TOL: return cli_parse_double(cmd, "--tol", arg, 0.0, 1, &o->settings.tol);
  case OPT_MAX_ITER: return cli_parse_long(cmd, "--max-iter", arg, 0, &o->settings.max_iter);
  case OPT_TIME_LIMIT:
    return cli_parse_double(cmd, "--time-limit", arg, 0.0, 0, &o->settings.time_limit);
  case OPT_WARM_START: o->warm_path = arg; return CLI_CONTINUE;
  case OPT_LINSYS: return cli_find_linsys(cmd, arg, &o->settings.linsys);
  case OPT_SET: return cli_parse_setting(cmd, arg, 1, &o->settings);
  case OPT_JSON: o->json = 1; return CLI_CONTINUE;
  case 'o': o->out_path = arg; return CLI_CONTINUE;
  case 'v': o->settings.verbose = 2; return CLI_CONTINUE; /* the iteration log and the summary */
  case 'h': return cli_print_usage(cmd);
  default: return CLI_EXIT_USAGE; /* cli_getopt has said why */
  }
}

static int parse_options(int argc, char **argv, solve_options *o)
{
  int c, status = CLI_CONTINUE;
  memset(o, 0, sizeof *o);
  cpk_settings_default(&o->settings);
  o->solver = NULL; /* chosen by the problem's kind once it is read */
  while (status == CLI_CONTINUE &&
         (c = cli_getopt(&cli_cmd_solve, argc, argv, ":vo:h", solve_longopts)) != -1)
    status = apply_option(c, optarg, o);
  if (status != CLI_CONTINUE) return status;
  if (optind == argc) return cli_usage_error(&cli_cmd_solve, "missing FILE");
  if (optind + 1 < argc)
    return cli_usage_error(&cli_cmd_solve, "unexpected argument '%s'", argv[optind + 1]);
  o->problem_path = argv[optind];
  return CLI_CONTINUE;
}

/* Warm start arrays are sized by the problem, so they are read after it. */
static int load_warm_start(solve_options *o, size_t n, double **z0, int **basis0)
{
  cpk_error err;
  int has_basis = 0;
  *z0 = cpk_alloc_array(n, sizeof **z0);
  *basis0 = cpk_alloc_array(n, sizeof **basis0);
  if (!*z0 || !*basis0) return cli_error("%s: out of memory", o->warm_path);
  cpk_error_clear(&err);
  int rc = cpk_warm_start_read_file(o->warm_path, n, *z0, *basis0, &has_basis, &err);
  if (rc) return cli_file_error(o->warm_path, rc, &err);
  o->settings.z0 = *z0;
  o->settings.basis0 = has_basis ? *basis0 : NULL;
  return CLI_CONTINUE;
}

static int solve_problem(const cpk_problem *p, const solve_options *o, cpk_result **r)
{
  cpk_solver *s = NULL;
  cpk_error err;
  const char *name = strcmp(o->problem_path, "-") == 0 ? "<stdin>" : o->problem_path;
  cpk_error_clear(&err);
  if (cpk_result_alloc(p->n, r)) return cli_error("%s: out of memory", name);
  int rc = cpk_solver_alloc(o->solver, p, &o->settings, &s, &err);
  if ((rc == CPK_EINVAL || rc == CPK_ETOOBIG) && o->json) {
    /* The solver declined this problem (enum above its size limit, pgs on a zero
       diagonal): with --json that is an answer, status invalid_input, not a failure. */
    cpk_result_reset(*r);
    (*r)->solver = o->solver->name;
    (*r)->status = CPK_STATUS_INVALID_INPUT;
    (*r)->residual = NAN;
    snprintf((*r)->message, sizeof (*r)->message, "%.*s", (int)sizeof (*r)->message - 1, err.message);
    return CLI_CONTINUE;
  }
  if (!rc) rc = cpk_solver_solve(s, *r, &err);
  cpk_solver_free(s);
  if (rc) return cli_file_error(name, rc, &err);
  return CLI_CONTINUE;
}

/* ---- the readable report ----------------------------------------------- */

static const char *var_name(const cpk_problem *p, size_t i)
{
  return p->var_names && p->var_names[i] ? p->var_names[i] : "-";
}

static void print_summary(FILE *f, const cpk_problem *p, const cpk_result *r)
{
  fprintf(f, "%-12s %s\n", "status:", cpk_status_name(r->status));
  fprintf(f, "%-12s %s\n", "solver:", r->solver ? r->solver : "?");
  fprintf(f, "%-12s %s (%s)\n", "problem:", p->name ? p->name : "(unnamed)",
          cpk_problem_kind_name(p->kind));
  fprintf(f, "%-12s %zu\n", "n:", p->n);
  fprintf(f, "%-12s %ld\n", "iterations:", r->iterations);
  fprintf(f, "%-12s %.3g (%s tolerance %.3g)\n", "residual:", r->residual,
          r->residual <= r->tolerance ? "<=" : ">", r->tolerance);
  if (p->kind == CPK_KIND_FRICTION_CONE)
    fprintf(f, "%-12s %.3g (FCLIB's, relative to 1 + sqrt(|q|_2))\n", "fclib merit:",
            cpk_fc_merit(p, r->z, r->w));
  fprintf(f, "%-12s %.6f s\n", "time:", r->time_s);
  if (r->message[0]) fprintf(f, "%-12s %s\n", "message:", r->message);
  if (r->nstats > 0) fprintf(f, "statistics:\n");
  for (size_t k = 0; k < r->nstats; k++) {
    double v = r->stats[k].value;
    /* Counters read best as integers, times and sizes with a few digits. */
    if (v == floor(v) && fabs(v) < 1e15)
      fprintf(f, "  %-26s %.0f\n", r->stats[k].name, v);
    else
      fprintf(f, "  %-26s %.6g\n", r->stats[k].name, v);
  }
}

/* The final point: z, w = F(z), and the basis state when the solver gave one. */
static void print_point(FILE *f, const cpk_problem *p, const cpk_result *r)
{
  int names = p->var_names != NULL;
  fprintf(f, "\n%6s  ", "i");
  if (names) fprintf(f, "%-16s ", "name");
  fprintf(f, "%-24s %-24s%s\n", "z", "w = F(z)", r->has_basis ? " state" : "");
  for (size_t i = 0; i < r->n; i++) {
    fprintf(f, "%6zu  ", i + 1);
    if (names) fprintf(f, "%-16s ", var_name(p, i));
    fprintf(f, "%-24.15g %-24.15g", r->z[i], r->w[i]);
    if (r->has_basis) fprintf(f, " %s", cpk_var_state_name(r->basis[i]));
    fputc('\n', f);
  }
}

/* One column of values (a ray, one of the solutions) beside i and the names. */
static void print_vector(FILE *f, const cpk_problem *p, const char *title, const double *v)
{
  int names = p->var_names != NULL;
  fprintf(f, "\n%s\n%6s  ", title, "i");
  if (names) fprintf(f, "%-16s ", "name");
  fprintf(f, "value\n");
  for (size_t i = 0; i < p->n; i++) {
    fprintf(f, "%6zu  ", i + 1);
    if (names) fprintf(f, "%-16s ", var_name(p, i));
    fprintf(f, "%.15g\n", v[i]);
  }
}

static void print_report(FILE *f, const cpk_problem *p, const cpk_result *r)
{
  char title[64];
  print_summary(f, p, r);
  print_point(f, p, r);
  if (r->has_ray) print_vector(f, p, "ray (z part):", r->ray);
  if (r->nsolutions > 0) fprintf(f, "\nsolutions found: %zu\n", r->nsolutions);
  for (size_t k = 0; k < r->nsolutions; k++) {
    snprintf(title, sizeof title, "solution %zu of %zu:", k + 1, r->nsolutions);
    print_vector(f, p, title, r->solutions + k * r->n);
  }
}

/* ---- output and the command ------------------------------------------- */

static int write_json(FILE *f, const cpk_problem *p, const cpk_result *r)
{
  cpk_error err;
  cpk_error_clear(&err);
  int rc = cpk_result_write_json(r, p, f, 0, &err);
  if (rc) return cli_library_error("writing the JSON result", rc, &err);
  return CLI_CONTINUE;
}

static int write_output(const cpk_problem *p, const cpk_result *r, const solve_options *o)
{
  cli_output out;
  int status = cli_output_open(&out);
  if (status != CLI_CONTINUE) return status;
  if (o->json)
    status = write_json(out.f, p, r);
  else
    print_report(out.f, p, r);
  /* The JSON writer may stop at the closing brace; a text file ends with a newline. */
  if (status == CLI_CONTINUE && cli_output_flush(&out) == 0 && out.len > 0 &&
      out.buf[out.len - 1] != '\n')
    fputc('\n', out.f);
  if (status != CLI_CONTINUE) {
    cli_output_discard(&out);
    return status;
  }
  return cli_output_commit(&out, o->out_path);
}

static int run(int argc, char **argv)
{
  solve_options o;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  double *z0 = NULL;
  int *basis0 = NULL;
  int status = parse_options(argc, argv, &o);
  if (status == CLI_CONTINUE) status = cli_read_problem(o.problem_path, &p);
  if (status == CLI_CONTINUE && !o.solver)
    o.solver = cpk_solver_find(p->kind == CPK_KIND_FRICTION_CONE ? "nsn" : "lemke");
  if (status == CLI_CONTINUE && o.warm_path) status = load_warm_start(&o, p->n, &z0, &basis0);
  if (status == CLI_CONTINUE) status = solve_problem(p, &o, &r);
  if (status == CLI_CONTINUE) status = write_output(p, r, &o);
  cpk_result_free(r);
  free(z0);
  free(basis0);
  cpk_problem_free(p);
  return status;
}
