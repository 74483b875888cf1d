/* cmd_solve_system.c: `cpkit solve-system`, compile a contact system, solve it, and report impulses per contact, contact modes and the next velocity. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_solve_system = {
    "solve-system", "compile and solve a contact system; impulses, modes, next velocity",
    "usage: cpkit solve-system SYSTEM --model NAME [OPTIONS]\n"
    "\n"
    "Compile the contact system in SYSTEM (JSON or FCLIB HDF5) with a contact\n"
    "model, solve the problem, and print for every contact its impulses (n, t, o,\n"
    "r; forces when h = 0) and mode (separating, sticking, sliding; '+core' when\n"
    "a kelvin-voigt contact reached its rigid core), then the next generalized\n"
    "velocity (the acceleration when h = 0; none for a local-form system).\n"
    "\n"
    "Options:\n"
    "  --model NAME        point-coulomb, elliptic-torsional, polyhedral,\n"
    "                      kelvin-voigt or distributed (required)\n"
    "  --solver NAME       solver (see 'cpkit solvers'); default lemke for affine\n"
    "                      problems, the first registered solver that takes\n"
    "                      the problem's kind otherwise\n"
    "  --directions D      polyhedral directions: D, or E:C:P (see 'cpkit compile')\n"
    "  --form FORM         reduced, mixed or cone (see 'cpkit compile'); with a\n"
    "                      solver that takes friction-cone problems and not\n"
    "                      nonlinear MCPs (nsgs, nsn, fcipm), point-coulomb and\n"
    "                      elliptic-torsional are compiled in the cone form\n"
    "  --tol X             natural-residual tolerance, X > 0 (default 1e-8)\n"
    "  --max-iter N        iteration limit, N >= 0 (0 = the solver's default)\n"
    "  --time-limit S      wall-time limit in seconds, S >= 0 (0 = none)\n"
    "  --json              print one JSON object instead of the report\n"
    "  -o, --output FILE   write the output to FILE instead of standard output\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 when the solve ran, whatever its status; 1 for bad input;\n"
    "2 for a usage error.\n",
    run};

/* Contacts are told sticking from sliding with this relative tolerance. */
#define MODE_TOL 1e-6

typedef struct ss_options {
  cli_compile_args a;
  const char *solver;
  const char *out_path;
  cpk_settings settings;
  int json;
} ss_options;

enum { OPT_SOLVER = CLI_OPT_LONG_BASE, OPT_TOL, OPT_MAX_ITER, OPT_TIME_LIMIT, OPT_JSON };

static const struct option ss_longopts[] = {
    {"model", required_argument, NULL, CLI_OPT_MODEL},
    {"directions", required_argument, NULL, CLI_OPT_DIRECTIONS},
    {"form", required_argument, NULL, CLI_OPT_FORM},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"tol", required_argument, NULL, OPT_TOL},
    {"max-iter", required_argument, NULL, OPT_MAX_ITER},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"json", no_argument, NULL, OPT_JSON},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int apply_option(int c, const char *arg, ss_options *o)
{
  const cli_command *cmd = &cli_cmd_solve_system;
  int st = cli_compile_option(cmd, c, arg, &o->a);
  if (st != CLI_NOT_COMPILE_OPTION) return st;
  switch (c) {
  case OPT_SOLVER:
    if (!cpk_solver_find(arg))
      return cli_unknown_solver(cmd, arg);
    o->solver = arg;
    return CLI_CONTINUE;
  case OPT_TOL: return cli_parse_double(cmd, "--tol", arg, 0.0, 1, &o->settings.tol);
  case OPT_MAX_ITER: return cli_parse_long(cmd, "--max-iter", arg, 0, &o->settings.max_iter);
  case OPT_TIME_LIMIT:
    return cli_parse_double(cmd, "--time-limit", arg, 0.0, 0, &o->settings.time_limit);
  case OPT_JSON: o->json = 1; return CLI_CONTINUE;
  case 'o': o->out_path = arg; return CLI_CONTINUE;
  case 'h': return cli_print_usage(cmd);
  default: return CLI_EXIT_USAGE; /* cli_getopt has said why */
  }
}

static int parse_options(int argc, char **argv, ss_options *o)
{
  const cli_command *cmd = &cli_cmd_solve_system;
  int c, status = CLI_CONTINUE;
  memset(o, 0, sizeof *o);
  cli_compile_args_init(&o->a);
  cpk_settings_default(&o->settings);
  while (status == CLI_CONTINUE && (c = cli_getopt(cmd, argc, argv, ":o:h", ss_longopts)) != -1)
    status = apply_option(c, optarg, o);
  if (status != CLI_CONTINUE) return status;
  if (optind == argc) return cli_usage_error(cmd, "missing SYSTEM");
  if (optind + 1 < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
  if (!o->a.model) return cli_usage_error(cmd, "missing --model NAME");
  o->a.system_path = argv[optind];
  o->a.options.form = cpk_compile_form_for_solver(o->a.model, o->solver, o->a.options.form);
  return CLI_CONTINUE;
}

static const char *default_solver(const cpk_problem *p)
{
  if (p->kind != CPK_KIND_NONLINEAR_MCP && p->kind != CPK_KIND_FRICTION_CONE) return "lemke";
  for (size_t k = 0; k < cpk_solver_count(); k++)
    if (cpk_solver_accepts(cpk_solver_at(k), p)) return cpk_solver_at(k)->name;
  return NULL;
}

/* A nonlinear MCP starts at the compiled problem's recommended point (cpk_varmap_start). */
static int start_point(const cpk_problem *p, const cpk_varmap *m, double **z0)
{
  cpk_error err;
  *z0 = NULL;
  if (p->kind != CPK_KIND_NONLINEAR_MCP) return CLI_CONTINUE;
  if (!(*z0 = cpk_alloc_array(p->n, sizeof **z0))) return cli_error("out of memory");
  if (cpk_varmap_start(m, *z0, &err)) return cli_error("start point: %s", err.message);
  return CLI_CONTINUE;
}

static int solve(const cpk_problem *p, ss_options *o, cpk_result **r)
{
  cpk_error err;
  const char *name = o->solver ? o->solver : default_solver(p);
  cpk_error_clear(&err);
  if (!name)
    return cli_error("%s: no registered solver takes %s problems", o->a.system_path,
                     cpk_problem_kind_name(p->kind));
  const cpk_solver_type *T = cpk_solver_find(name);
  if (!cpk_solver_accepts(T, p))
    return cli_error("%s: solver %s does not take %s problems (model %s)", o->a.system_path, name,
                     cpk_problem_kind_name(p->kind), o->a.model);
  if (cpk_result_alloc(p->n, r)) return cli_error("out of memory");
  int rc = cpk_solve(p, name, &o->settings, *r, &err);
  if (rc) return cli_file_error(o->a.system_path, rc, &err);
  return CLI_CONTINUE;
}

/* What the report and the JSON both need. */
typedef struct physics {
  size_t nc, nv;
  double *P, *U, *v;
  int *modes;
  int has_v;
  cpk_physics_check check;
} physics;

/* The physical check's relative tolerance: looser than the solver's, never below 1e-3. */
static double check_tol(const cpk_settings *s) { return fmax(1e-3, 100 * s->tol); }

/* A `solved` that fails the physical check is not solved (issue 14's false solutions). */
static void judge_physics(const physics *ph, cpk_result *r)
{
  if (r->status != CPK_STATUS_SOLVED || ph->check.ok) return;
  r->status = CPK_STATUS_STALLED;
  snprintf(r->message, sizeof r->message, "fails the physical check: %.200s", ph->check.message);
}

static int physics_of(const cpk_varmap *m, const cpk_result *r, const cpk_settings *st,
                      physics *ph)
{
  cpk_error err;
  memset(ph, 0, sizeof *ph);
  ph->nc = cpk_varmap_ncontacts(m);
  ph->nv = cpk_varmap_nv(m);
  ph->P = calloc(4 * ph->nc + 1, sizeof *ph->P);
  ph->U = calloc(4 * ph->nc + 1, sizeof *ph->U);
  ph->v = calloc(ph->nv + 1, sizeof *ph->v);
  ph->modes = calloc(ph->nc + 1, sizeof *ph->modes);
  if (!ph->P || !ph->U || !ph->v || !ph->modes) return cli_error("out of memory");
  cpk_error_clear(&err);
  int rc = cpk_varmap_impulses(m, r->z, ph->P);
  if (!rc) rc = cpk_varmap_contact_velocities(m, r->z, ph->U, &err);
  if (!rc) rc = cpk_varmap_modes(m, r->z, MODE_TOL, ph->modes, &err);
  if (!rc) rc = cpk_varmap_check(m, r->z, check_tol(st), &ph->check, &err);
  if (!rc && ph->nv > 0) {
    rc = cpk_varmap_velocity(m, r->z, ph->v, &err);
    ph->has_v = rc == CPK_OK;
  }
  if (rc) return cli_library_error("reading the solution", rc, &err);
  return CLI_CONTINUE;
}

static void physics_free(physics *ph)
{
  free(ph->P);
  free(ph->U);
  free(ph->v);
  free(ph->modes);
}

static void print_report(FILE *f, const cpk_problem *p, const cpk_varmap *m, const cpk_result *r,
                         const physics *ph, double h)
{
  fprintf(f, "%-12s %s\n", "status:", cpk_status_name(r->status));
  fprintf(f, "%-12s %s\n", "solver:", r->solver ? r->solver : "?");
  fprintf(f, "%-12s %s (%s, %s, n = %zu)\n", "model:", cpk_contact_model_name(cpk_varmap_model(m)),
          cpk_problem_kind_name(p->kind), cpk_problem_form_name(cpk_varmap_form(m)), p->n);
  fprintf(f, "%-12s %ld\n", "iterations:", r->iterations);
  fprintf(f, "%-12s %.3g (%s tolerance %.3g)\n", "residual:", r->residual,
          r->residual <= r->tolerance ? "<=" : ">", r->tolerance);
  if (r->message[0]) fprintf(f, "%-12s %s\n", "message:", r->message);
  fprintf(f, "%-12s %s (cone %.2g, normal %.2g, dissipation %.2g; relative)\n", "physics:",
          ph->check.ok ? "ok" : "FAILS", ph->check.cone, ph->check.normal,
          ph->check.dissipation);
  fprintf(f, "\n%s per contact (n, t, o, r):\n%7s  %-16s %-16s %-16s %-16s %s\n",
          h > 0 ? "impulses" : "forces (h = 0)", "contact", "p_n", "p_t", "p_o", "p_r", "mode");
  for (size_t c = 0; c < ph->nc; c++) {
    const double *P = ph->P + 4 * c;
    fprintf(f, "%7zu  %-16.9g %-16.9g %-16.9g %-16.9g %s%s\n", c + 1, P[0], P[1], P[2], P[3],
            cpk_contact_mode_name(ph->modes[c]), ph->modes[c] & CPK_MODE_CORE ? "+core" : "");
  }
  if (!ph->has_v) return;
  fprintf(f, "\n%s:\n", h > 0 ? "next velocity" : "acceleration (h = 0)");
  for (size_t j = 0; j < ph->nv; j++) fprintf(f, "  v[%zu] = %.15g\n", j + 1, ph->v[j]);
}

/* Append v to a (stolen either way); -1 when v is NULL or the array cannot grow. */
static int append(json_t *a, json_t *v)
{
  return v ? json_array_append_new(a, v) : -1;
}

/* Set o[key] = v (stolen either way); -1 when v is NULL or the object cannot grow. */
static int set(json_t *o, const char *key, json_t *v)
{
  return v ? json_object_set_new(o, key, v) : -1;
}

/* a, or NULL (a released) when an element could not be made: never a shorter array. */
static json_t *checked_array(json_t *a, int bad)
{
  if (a && !bad) return a;
  json_decref(a);
  return NULL;
}

static json_t *numbers(const double *x, size_t n)
{
  json_t *a = json_array();
  int bad = 0;
  for (size_t k = 0; a && !bad && k < n; k++)
    bad = append(a, json_real(isfinite(x[k]) ? x[k] : 0.0));
  return checked_array(a, bad);
}

static json_t *contacts_json(const physics *ph)
{
  json_t *a = json_array();
  int bad = 0;
  for (size_t c = 0; a && !bad && c < ph->nc; c++)
    bad = append(a, json_pack("{s:I, s:s, s:b, s:o, s:o}", "contact", (json_int_t)(c + 1), "mode",
                              cpk_contact_mode_name(ph->modes[c]), "core",
                              (ph->modes[c] & CPK_MODE_CORE) != 0, "impulse",
                              numbers(ph->P + 4 * c, 4), "contact_velocity",
                              numbers(ph->U + 4 * c, 4)));
  return checked_array(a, bad);
}

static double finite_or(double x) { return isfinite(x) ? x : -1.0; }

static json_t *names_json(const cpk_problem *p)
{
  json_t *a = json_array();
  int bad = 0;
  for (size_t i = 0; a && !bad && i < p->n; i++)
    bad = append(a, p->var_names && p->var_names[i] ? json_string(p->var_names[i]) : json_null());
  return checked_array(a, bad);
}

static json_t *physics_json(const physics *ph)
{
  return json_pack("{s:b, s:f, s:f, s:f, s:s}", "ok", ph->check.ok, "cone",
                   finite_or(ph->check.cone), "normal", finite_or(ph->check.normal),
                   "dissipation", finite_or(ph->check.dissipation), "message", ph->check.message);
}

/* The whole JSON result, or NULL when any part of it could not be made (out of memory). */
static json_t *result_json(const cpk_problem *p, const cpk_varmap *m, const cpk_result *r,
                           const physics *ph, double h)
{
  json_t *o = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:I, s:f, s:I, s:f, s:f, s:f}", "status",
      cpk_status_name(r->status), "solver", r->solver ? r->solver : "?", "model",
      cpk_contact_model_name(cpk_varmap_model(m)), "kind", cpk_problem_kind_name(p->kind), "form",
      cpk_problem_form_name(cpk_varmap_form(m)), "n", (json_int_t)p->n, "h", h, "iterations",
      (json_int_t)r->iterations, "residual", isfinite(r->residual) ? r->residual : -1.0,
      "tolerance", r->tolerance, "time_s", r->time_s);
  if (!o) return NULL;
  int bad = set(o, "physics", physics_json(ph));
  bad = bad || set(o, "contacts", contacts_json(ph));
  bad = bad || set(o, "velocity", ph->has_v ? numbers(ph->v, ph->nv) : json_null());
  bad = bad || set(o, "z", numbers(r->z, p->n));
  bad = bad || set(o, "names", names_json(p));
  if (!bad) return o;
  json_decref(o);
  return NULL;
}

static int write_output(const cpk_problem *p, const cpk_varmap *m, const cpk_result *r,
                        const physics *ph, const ss_options *o, double h)
{
  cli_output out;
  int status = cli_output_open(&out);
  if (status != CLI_CONTINUE) return status;
  if (o->json) {
    json_t *j = result_json(p, m, r, ph, h);
    int bad = !j || json_dumpf(j, out.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0;
    json_decref(j);
    fputc('\n', out.f);
    if (bad) {
      cli_output_discard(&out);
      return cli_error("cannot write the JSON result: out of memory");
    }
  } else {
    print_report(out.f, p, m, r, ph, h);
  }
  return cli_output_commit(&out, o->out_path);
}

static int run(int argc, char **argv)
{
  ss_options o;
  cpk_contact_system *s = NULL;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_result *r = NULL;
  physics ph = {0};
  double *z0 = NULL;
  int status = parse_options(argc, argv, &o);
  if (status == CLI_CONTINUE) status = cli_compile_system(&o.a, &s, &p, &m);
  if (status == CLI_CONTINUE) status = start_point(p, m, &z0);
  o.settings.z0 = z0;
  if (status == CLI_CONTINUE) status = solve(p, &o, &r);
  if (status == CLI_CONTINUE) status = physics_of(m, r, &o.settings, &ph);
  if (status == CLI_CONTINUE) judge_physics(&ph, r);
  if (status == CLI_CONTINUE) status = write_output(p, m, r, &ph, &o, s->h);
  physics_free(&ph);
  free(z0);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
  return status == CLI_CONTINUE ? CLI_EXIT_OK : status;
}
