/* cmd_check.c: `cpkit check`, the existence/uniqueness report of a problem file or a contact system. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_check = {
    "check", "report matrix classes, existence/uniqueness conditions and solution counts",
    "usage: cpkit check FILE [OPTIONS]\n"
    "       cpkit check SYSTEM.json --model NAME [OPTIONS]\n"
    "\n"
    "Decide numerically the classes of M (positive (semi)definite symmetric part,\n"
    "P, P0, copositive, strictly copositive, copositive-plus, R0), what they imply\n"
    "(a solution for every q, uniqueness, whether Lemke's method works), and for\n"
    "small problems the exact number of solutions by enumeration. For a contact\n"
    "system also the conditions of Theorem 1 of seed 000 (rank of J, A = J'M^-1 J\n"
    "positive definite; at h = 0 the friction bound mu_bar of part (A) compared with\n"
    "the system's mu, and part (B) when every contact rolls) and, for the polyhedral\n"
    "model at h > 0, the Stewart-Trinkle condition (no contact penetrates).\n"
    "One line per condition, the verdict first: holds, fails,\n"
    "not decided, implies. See doc/check.md for the theory.\n"
    "\n"
    "Options:\n"
    "  --model NAME   treat FILE as a contact system and compile it with NAME\n"
    "                 (point-coulomb, elliptic-torsional, polyhedral, kelvin-voigt,\n"
    "                 distributed)\n"
    "  --max-n N      size limit of the exponential tests (default 20)\n"
    "  --json         print the report as one JSON object\n"
    "  -h, --help     show this help\n"
    "\n"
    "Exit status: 0 when the report ran, whatever the verdicts; 1 for bad input;\n"
    "2 for a usage error.\n",
    run};

enum { OPT_MODEL = CLI_OPT_LONG_BASE, OPT_MAX_N, OPT_JSON };

typedef struct check_options {
  const char *path, *model;
  cpk_check_settings settings;
  int json;
} check_options;

/* A contact-system file starts with '{'; a problem file never does. */
static int looks_like_json(const char *path)
{
  if (strcmp(path, "-") == 0) return 0;
  FILE *f = fopen(path, "r");
  int c = ' ';
  if (!f) return 0; /* the reader reports it */
  while (c != EOF && isspace(c)) c = fgetc(f);
  fclose(f);
  return c == '{';
}

static int parse(int argc, char **argv, check_options *o)
{
  static const struct option longopts[] = {
      {"model", required_argument, NULL, OPT_MODEL}, {"max-n", required_argument, NULL, OPT_MAX_N},
      {"json", no_argument, NULL, OPT_JSON},         {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const cli_command *cmd = &cli_cmd_check;
  int c, status = CLI_CONTINUE;
  long maxn;
  while (status == CLI_CONTINUE && (c = cli_getopt(cmd, argc, argv, ":h", longopts)) != -1) {
    switch (c) {
    case OPT_MODEL: {
      cpk_contact_model m;
      if (cpk_contact_model_from_name(optarg, &m)) return cli_unknown_model(cmd, optarg, NULL);
      o->model = optarg;
      break;
    }
    case OPT_JSON: o->json = 1; break;
    case OPT_MAX_N:
      status = cli_parse_long(cmd, "--max-n", optarg, 0, &maxn);
      if (status == CLI_CONTINUE) o->settings.max_n = (size_t)maxn;
      break;
    case 'h': return cli_print_usage(cmd);
    default: return CLI_EXIT_USAGE;
    }
  }
  if (status != CLI_CONTINUE) return status;
  if (optind == argc) return cli_usage_error(cmd, "missing FILE");
  if (optind + 1 < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
  o->path = argv[optind];
  if (!o->model && looks_like_json(o->path))
    return cli_usage_error(cmd, "%s is a contact system (JSON): say which model to check it with, "
                           "e.g. --model point-coulomb", o->path);
  return CLI_CONTINUE;
}

static int run_checks(const check_options *o, cpk_check_report *r)
{
  cpk_error err;
  cpk_error_clear(&err);
  if (o->model) {
    cpk_contact_system *s = NULL;
    int rc = cpk_contact_system_read_file(o->path, &s, &err);
    if (!rc) rc = cpk_check_contact(s, o->model, &o->settings, r, &err);
    cpk_contact_system_free(s);
    return rc ? cli_file_error(o->path, rc, &err) : CLI_CONTINUE;
  }
  cpk_problem *p = NULL;
  int status = cli_read_problem(o->path, &p);
  if (status != CLI_CONTINUE) return status;
  if (p->kind == CPK_KIND_FRICTION_CONE) { /* FCLIB files and type friction_cone */
    cpk_problem_free(p);
    return cli_error("%s: the checks are for LCPs and MCPs, not friction-cone problems "
                     "(an FCLIB file can be checked as a contact system: --model point-coulomb)",
                     o->path);
  }
  int rc = cpk_check_problem(p, &o->settings, r, &err);
  cpk_problem_free(p);
  return rc ? cli_library_error(o->path, rc, &err) : CLI_CONTINUE;
}

static int run(int argc, char **argv)
{
  check_options o;
  memset(&o, 0, sizeof o);
  cpk_check_settings_default(&o.settings);
  int status = parse(argc, argv, &o);
  if (status != CLI_CONTINUE) return status;
  cpk_check_report *r = NULL;
  if (cpk_check_report_alloc(&r)) return cli_error("out of memory");
  status = run_checks(&o, r);
  if (status == CLI_CONTINUE) {
    char *text = NULL;
    if (o.json && cpk_check_report_json(r, &text) == CPK_OK) {
      printf("%s\n", text);
      status = CLI_EXIT_OK;
    } else if (o.json) {
      status = cli_error("out of memory");
    } else {
      status = cpk_check_report_print(stdout, r) ? cli_error("cannot write the report") : CLI_EXIT_OK;
    }
    free(text);
  }
  cpk_check_report_free(r);
  return status;
}
