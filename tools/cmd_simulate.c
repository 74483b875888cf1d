/* cmd_simulate.c: `cpkit simulate`, run a scene file through the time-stepper: trajectory CSV, per-contact CSV, gnuplot plot, checks table. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "cli.h"
#include "sim_report.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_simulate = {
    "simulate", "run a scene through the time-stepper; trajectory, plots, checks",
    "usage: cpkit simulate SCENE [OPTIONS]\n"
    "\n"
    "Run the scene file SCENE (format: doc/simulate.md): at every step find the\n"
    "contacts, compile them with the contact model, solve with the solver\n"
    "warm-started from the previous step, integrate. Prints a summary and the\n"
    "scene's checks (measured against analytic or published values).\n"
    "\n"
    "Options (override the scene):\n"
    "  --model NAME        contact model (point-coulomb, elliptic-torsional,\n"
    "                      polyhedral, kelvin-voigt, distributed), or\n"
    "                      kelvin-voigt-implicit: seed 003's geometrically implicit\n"
    "                      compliant step (closest points as unknowns)\n"
    "  --solver NAME       solver (see 'cpkit solvers')\n"
    "  --fallback NAME     solver tried from the same start when --solver fails\n"
    "                      on a step (reported per run)\n"
    "  --directions D      polyhedral directions: D, or E:C:P (see 'cpkit compile')\n"
    "  --step H            time step, H > 0\n"
    "  --duration T        simulated time, T > 0\n"
    "  --implicit N        implicit-geometry sweeps per step (0 = explicit)\n"
    "  --physics-continue  take a step whose answer fails the physical check (also\n"
    "                      after the fallback) and count it; by default the run\n"
    "                      stops there with exit status 1\n"
    "  --no-physics-finish do not finish such answers (or solves that stop short)\n"
    "                      on the exactly scaled problem before that\n"
    "Outputs:\n"
    "  --set NAME=VALUE    a solver setting by name, repeatable, over the scene's:\n"
    "                      common (tol=1e-10) or a solver's own (nsn.rho=1); see\n"
    "                      'cpkit solvers --settings'\n"
    "  -o, --output FILE   trajectory CSV, one row per step\n"
    "  --contacts FILE     per-contact CSV, one row per contact per step\n"
    "  --plot FILE         velocities and contact forces against time (.svg or .png;\n"
    "                      needs gnuplot)\n"
    "  --json              print the summary and checks as one JSON object\n"
    "  --strict            exit 3 when a check fails\n"
    "  -q, --quiet         no progress bar\n"
    "  -h, --help          show this help\n"
    "\n"
    "A progress bar is shown on a terminal for runs longer than a second.\n"
    "Exit status: 0 when the run completed; 1 for bad input or a step whose\n"
    "solve failed or whose answer fails the physical check (the outputs up to\n"
    "that step are written); 2 for a usage\n"
    "error; 3 with --strict when a check failed.\n",
    run};

enum { OPT_SOLVER = CLI_OPT_LONG_BASE, OPT_FALLBACK, OPT_STEP, OPT_DURATION, OPT_IMPLICIT, OPT_CONTACTS,
       OPT_PLOT, OPT_JSON, OPT_STRICT, OPT_PHYSICS_CONTINUE, OPT_NO_PHYSICS_FINISH, OPT_SET };

static const struct option sim_longopts[] = {
    {"model", required_argument, NULL, CLI_OPT_MODEL},
    {"directions", required_argument, NULL, CLI_OPT_DIRECTIONS},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"fallback", required_argument, NULL, OPT_FALLBACK},
    {"step", required_argument, NULL, OPT_STEP},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"implicit", required_argument, NULL, OPT_IMPLICIT},
    {"output", required_argument, NULL, 'o'},
    {"contacts", required_argument, NULL, OPT_CONTACTS},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"json", no_argument, NULL, OPT_JSON},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"physics-continue", no_argument, NULL, OPT_PHYSICS_CONTINUE},
    {"no-physics-finish", no_argument, NULL, OPT_NO_PHYSICS_FINISH},
    {"set", required_argument, NULL, OPT_SET},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* --set, checked on default settings now, applied to the scene's (sim_apply_overrides). */
static int add_setting(sim_options *o, const char *arg)
{
  cpk_settings trial;
  cpk_settings_default(&trial);
  if (o->nsets == CLI_MAX_SETS)
    return cli_usage_error(&cli_cmd_simulate, "--set: at most %d of them", CLI_MAX_SETS);
  int st = cli_parse_setting(&cli_cmd_simulate, arg, 1, &trial);
  if (st == CLI_CONTINUE) o->sets[o->nsets++] = arg;
  return st;
}

static int apply_option(int c, const char *arg, sim_options *o)
{
  const cli_command *cmd = &cli_cmd_simulate;
  cpk_error err;
  switch (c) {
  case CLI_OPT_MODEL:
    if (!cpk_sim_model_known(arg)) return cli_unknown_model(cmd, arg, "kelvin-voigt-implicit");
    o->model = arg;
    return CLI_CONTINUE;
  case CLI_OPT_DIRECTIONS:
    if (cpk_compile_options_set_directions(&o->directions, arg, &err))
      return cli_usage_error(cmd, "--%s", err.message);
    o->directions_set = 1;
    return CLI_CONTINUE;
  case OPT_SOLVER:
    if (!cpk_solver_find(arg)) return cli_unknown_solver(cmd, arg);
    o->solver = arg;
    return CLI_CONTINUE;
  case OPT_FALLBACK:
    if (!cpk_solver_find(arg)) return cli_unknown_solver(cmd, arg);
    o->fallback = arg;
    return CLI_CONTINUE;
  case OPT_STEP: return cli_parse_double(cmd, "--step", arg, 0.0, 1, &o->step);
  case OPT_DURATION: return cli_parse_double(cmd, "--duration", arg, 0.0, 1, &o->duration);
  case OPT_IMPLICIT: {
    int st = cli_parse_long(cmd, "--implicit", arg, 0, &o->implicit);
    if (st == CLI_CONTINUE && o->implicit > 1000000)
      return cli_usage_error(cmd, "--implicit: at most 1000000 sweeps");
    return st;
  }
  case 'o': o->csv_path = arg; return CLI_CONTINUE;
  case OPT_CONTACTS: o->contacts_path = arg; return CLI_CONTINUE;
  case OPT_PLOT: return sim_plot_path_ok(cmd, arg) ? (o->plot_path = arg, CLI_CONTINUE) : CLI_EXIT_USAGE;
  case OPT_JSON: o->json = 1; return CLI_CONTINUE;
  case OPT_STRICT: o->strict = 1; return CLI_CONTINUE;
  case OPT_PHYSICS_CONTINUE: o->physics_continue = 1; return CLI_CONTINUE;
  case OPT_NO_PHYSICS_FINISH: o->no_physics_finish = 1; return CLI_CONTINUE;
  case OPT_SET: return add_setting(o, arg);
  case 'q': o->quiet = 1; return CLI_CONTINUE;
  case 'h': return cli_print_usage(cmd);
  default: return CLI_EXIT_USAGE; /* cli_getopt has said why */
  }
}

static int parse_args(int argc, char **argv, sim_options *o)
{
  const cli_command *cmd = &cli_cmd_simulate;
  int c, status = CLI_CONTINUE;
  memset(o, 0, sizeof *o);
  o->implicit = -1;
  cpk_compile_options_default(&o->directions);
  while (status == CLI_CONTINUE && (c = cli_getopt(cmd, argc, argv, ":o:qh", sim_longopts)) != -1)
    status = apply_option(c, optarg, o);
  if (status != CLI_CONTINUE) return status;
  if (optind == argc) return cli_usage_error(cmd, "missing SCENE");
  if (optind + 1 < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
  o->scene_path = argv[optind];
  return CLI_CONTINUE;
}

static int run(int argc, char **argv)
{
  sim_options o;
  int status = parse_args(argc, argv, &o);
  if (status != CLI_CONTINUE) return status;
  cpk_scene *scene = NULL;
  cpk_error err;
  int rc = cpk_scene_read_file(o.scene_path, &scene, &err);
  if (rc) return cli_file_error(o.scene_path, rc, &err);
  status = sim_run_scene(scene, &o);
  cpk_scene_free(scene);
  return status;
}
