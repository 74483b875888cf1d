/* cmd_compile.c: `cpkit compile`, a contact system compiled with one contact model into a problem file; also the option handling shared with `cpkit solve-system`. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_compile = {
    "compile", "compile a contact system with a contact model into a problem file",
    "usage: cpkit compile SYSTEM --model NAME [OPTIONS]\n"
    "\n"
    "Compile the contact system in SYSTEM (JSON, see doc/contact-system.md, or an\n"
    "FCLIB HDF5 file with a /fclib_local problem) with a contact model and write\n"
    "the problem in the text format v1. The unknowns are listed in comments at the\n"
    "top of the file. Models whose problem is a nonlinear MCP (point-coulomb and\n"
    "elliptic-torsional with friction, kelvin-voigt with friction) cannot be\n"
    "written: solve them with 'cpkit solve-system', or compile their cone form\n"
    "(--form cone).\n"
    "\n"
    "Options:\n"
    "  --model NAME        point-coulomb, elliptic-torsional, polyhedral,\n"
    "                      kelvin-voigt or distributed (required)\n"
    "  --directions D      polyhedral: D >= 1 directions equally spaced on the\n"
    "                      friction ellipse of the tangent plane (default 8), or\n"
    "                      E:C:P for directions on the friction ellipsoid with twist:\n"
    "                      E on the equator, C latitude circles per hemisphere with\n"
    "                      P each, and the two poles\n"
    "  --form FORM         reduced (velocities eliminated through J^T M^-1 J),\n"
    "                      mixed (velocities kept as free unknowns), or cone\n"
    "                      (point-coulomb, elliptic-torsional: the frictional-contact\n"
    "                      problem u = W r + q with a Coulomb cone per contact,\n"
    "                      written as a local-form contact system in JSON); default\n"
    "                      reduced for polyhedral and local-form systems, mixed\n"
    "                      otherwise\n"
    "  --dense             store the matrix dense\n"
    "  -o, --output FILE   write the problem to FILE instead of standard output\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 when the problem was written; 1 for bad input or a model that\n"
    "gives a nonlinear problem; 2 for a usage error.\n",
    run};

/* "D" or "E:C:P" (the library parses it). */
static int parse_directions(const cli_command *cmd, const char *arg, cpk_compile_options *o)
{
  cpk_error err;
  if (cpk_compile_options_set_directions(o, arg, &err))
    return cli_usage_error(cmd, "--%s", err.message);
  return CLI_CONTINUE;
}

void cli_compile_args_init(cli_compile_args *a)
{
  memset(a, 0, sizeof *a);
  cpk_compile_options_default(&a->options);
}

int cli_compile_option(const cli_command *cmd, int c, const char *arg, cli_compile_args *a)
{
  cpk_contact_model m;
  switch (c) {
  case CLI_OPT_MODEL:
    if (cpk_contact_model_from_name(arg, &m))
      return cli_unknown_model(cmd, arg, NULL);
    a->model = arg;
    return CLI_CONTINUE;
  case CLI_OPT_DIRECTIONS: return parse_directions(cmd, arg, &a->options);
  case CLI_OPT_FORM:
    if (strcmp(arg, "reduced") == 0)
      a->options.form = CPK_FORM_REDUCED;
    else if (strcmp(arg, "mixed") == 0)
      a->options.form = CPK_FORM_MIXED;
    else if (strcmp(arg, "cone") == 0)
      a->options.form = CPK_FORM_CONE;
    else
      return cli_unknown_name(cmd, "--form", arg, (const char *const[]){"reduced", "mixed", "cone"}, 3);
    return CLI_CONTINUE;
  case CLI_OPT_DENSE: a->options.dense = 1; return CLI_CONTINUE;
  default: return CLI_NOT_COMPILE_OPTION;
  }
}

int cli_compile_system(const cli_compile_args *a, cpk_contact_system **s, cpk_problem **p,
                       cpk_varmap **m)
{
  cpk_error err;
  cpk_error_clear(&err);
  *p = NULL;
  *m = NULL;
  int rc = cli_probe_file(a->system_path);
  if (rc != CLI_CONTINUE) return rc;
  rc = cpk_contact_system_read_file(a->system_path, s, &err);
  if (rc) return cli_file_error(a->system_path, rc, &err);
  rc = cpk_compile(*s, a->model, &a->options, p, m, &err);
  if (rc) return cli_file_error(a->system_path, rc, &err);
  return CLI_CONTINUE;
}

static const struct option compile_longopts[] = {
    {"model", required_argument, NULL, CLI_OPT_MODEL},
    {"directions", required_argument, NULL, CLI_OPT_DIRECTIONS},
    {"form", required_argument, NULL, CLI_OPT_FORM},
    {"dense", no_argument, NULL, CLI_OPT_DENSE},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_options(int argc, char **argv, cli_compile_args *a, const char **out_path)
{
  const cli_command *cmd = &cli_cmd_compile;
  int c, status = CLI_CONTINUE;
  cli_compile_args_init(a);
  *out_path = NULL;
  while (status == CLI_CONTINUE &&
         (c = cli_getopt(cmd, argc, argv, ":o:h", compile_longopts)) != -1) {
    if (c == 'h') return cli_print_usage(cmd);
    if (c == 'o')
      *out_path = optarg;
    else
      status = cli_compile_option(cmd, c, optarg, a);
    if (status == CLI_NOT_COMPILE_OPTION) status = CLI_EXIT_USAGE; /* cli_getopt has said why */
  }
  if (status != CLI_CONTINUE) return status;
  if (optind == argc) return cli_usage_error(cmd, "missing SYSTEM");
  if (optind + 1 < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
  if (!a->model) return cli_usage_error(cmd, "missing --model NAME");
  a->system_path = argv[optind];
  return CLI_CONTINUE;
}

static int write_problem(const cpk_problem *p, const cli_compile_args *a, const char *out_path)
{
  cli_output out;
  cpk_error err;
  int status = cli_output_open(&out);
  if (status != CLI_CONTINUE) return status;
  fprintf(out.f, "# compiled by cpkit compile from %s, model %s\n# unknowns (%zu):", a->system_path,
          a->model, p->n);
  for (size_t i = 0; i < p->n; i++)
    fprintf(out.f, "%s%s", i % 8 == 0 ? "\n#  " : " ",
            p->var_names && p->var_names[i] ? p->var_names[i] : "-");
  fputc('\n', out.f);
  cpk_error_clear(&err);
  int rc = cpk_problem_write(p, out.f, &err);
  if (rc) {
    cli_output_discard(&out);
    return cli_library_error("writing the problem", rc, &err);
  }
  return cli_output_commit(&out, out_path);
}

/* The cone form as the local-form system that holds it (the text format has no cones). */
static int write_cone(const cpk_problem *p, const char *out_path)
{
  cli_output out;
  cpk_error err;
  cpk_contact_system *s = NULL;
  cpk_error_clear(&err);
  int rc = cpk_contact_system_from_cone(p, &s, &err);
  if (rc) return cli_library_error("converting the cone problem", rc, &err);
  int status = cli_output_open(&out);
  if (status == CLI_CONTINUE) {
    rc = cpk_contact_system_write_json(s, out.f, &err);
    if (rc) {
      cli_output_discard(&out);
      status = cli_library_error("writing the system", rc, &err);
    } else {
      status = cli_output_commit(&out, out_path);
    }
  }
  cpk_contact_system_free(s);
  return status;
}

static int run(int argc, char **argv)
{
  cli_compile_args a;
  const char *out_path;
  cpk_contact_system *s = NULL;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  int status = parse_options(argc, argv, &a, &out_path);
  if (status == CLI_CONTINUE) status = cli_compile_system(&a, &s, &p, &m);
  if (status == CLI_CONTINUE && p->kind == CPK_KIND_NONLINEAR_MCP)
    status = cli_error("%s: model %s gives a nonlinear MCP (%zu unknowns), which a problem file "
                       "cannot hold; solve it with 'cpkit solve-system %s --model %s'",
                       a.system_path, a.model, p->n, a.system_path, a.model);
  if (status == CLI_CONTINUE && p->kind == CPK_KIND_FRICTION_CONE)
    status = write_cone(p, out_path);
  else if (status == CLI_CONTINUE)
    status = write_problem(p, &a, out_path);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
  return status == CLI_CONTINUE ? CLI_EXIT_OK : status;
}
