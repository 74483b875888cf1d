/* cmd_solvers.c: `cpkit solvers`, one line per registered solver: name, accepted problem kinds, description. */
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_solvers = {
    "solvers", "list the registered solvers",
    "usage: cpkit solvers [--settings]\n"
    "\n"
    "List the registered solvers, one per line: the name to give to\n"
    "'cpkit solve --solver NAME', the problem kinds it accepts (lcp, affine_mcp,\n"
    "nonlinear_mcp, friction_cone) and a one-line description.\n"
    "\n"
    "Options:\n"
    "  --settings   list instead the settings that --set NAME=VALUE takes (cpkit\n"
    "               solve, bench, simulate): the common ones, then each solver's\n"
    "               own as SOLVER.NAME, with their type and default value\n"
    "               (bdnewton.X and fbnewton.X name one field: setting one sets both)\n"
    "  -h, --help   show this help\n",
    run};

/* "lcp,affine_mcp": the kinds whose bit is set in `kinds`. */
static void kinds_text(unsigned kinds, char *buf, size_t size)
{
  static const cpk_problem_kind all[] = {CPK_KIND_LCP, CPK_KIND_AFFINE_MCP,
                                         CPK_KIND_NONLINEAR_MCP, CPK_KIND_FRICTION_CONE};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (!(kinds & (unsigned)all[k])) continue;
    int wrote = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
                         cpk_problem_kind_name(all[k]));
    if (wrote < 0 || (size_t)wrote >= size - used) break;
    used += (size_t)wrote;
  }
}

/* One line per entry of the library's settings table, with its default. */
static int print_settings(void)
{
  static const char *const types[] = {"number", "integer", "integer", "integer >= 0"};
  cpk_settings def;
  cpk_settings_default(&def);
  printf("%-26s %-13s %s\n", "SETTING", "TYPE", "DEFAULT");
  for (size_t k = 0; k < cpk_settings_count(); k++) {
    const cpk_setting_desc *e = cpk_settings_at(k);
    const char *at = (const char *)&def + e->offset;
    char name[64], value[32];
    snprintf(name, sizeof name, "%s%s%s", e->solver ? e->solver : "", e->solver ? "." : "", e->name);
    if (e->type == CPK_SETTING_DOUBLE) {
      double d;
      memcpy(&d, at, sizeof d);
      snprintf(value, sizeof value, "%g", d);
    } else {
      long l = 0;
      int i;
      size_t z;
      if (e->type == CPK_SETTING_LONG) memcpy(&l, at, sizeof l);
      if (e->type == CPK_SETTING_INT) memcpy(&i, at, sizeof i), l = i;
      if (e->type == CPK_SETTING_SIZE) memcpy(&z, at, sizeof z), l = (long)z;
      snprintf(value, sizeof value, "%ld", l);
    }
    printf("%-26s %-13s %s\n", name, types[e->type], value);
  }
  return CLI_EXIT_OK;
}

enum { OPT_SETTINGS = CLI_OPT_LONG_BASE };

static int run(int argc, char **argv)
{
  static const struct option longopts[] = {{"settings", no_argument, NULL, OPT_SETTINGS},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c, settings = 0;
  while ((c = cli_getopt(&cli_cmd_solvers, argc, argv, ":h", longopts)) != -1) {
    if (c == 'h') return cli_print_usage(&cli_cmd_solvers);
    if (c != OPT_SETTINGS) return CLI_EXIT_USAGE;
    settings = 1;
  }
  if (optind < argc)
    return cli_usage_error(&cli_cmd_solvers, "unexpected argument '%s'", argv[optind]);
  if (settings) return print_settings();
  printf("%-10s %-28s %s\n", "NAME", "KINDS", "DESCRIPTION");
  for (size_t k = 0; k < cpk_solver_count(); k++) {
    const cpk_solver_type *T = cpk_solver_at(k);
    char kinds[96];
    if (!T) continue;
    kinds_text(T->kinds, kinds, sizeof kinds);
    printf("%-10s %-28s %s\n", T->name, kinds, T->description ? T->description : "");
  }
  return CLI_EXIT_OK;
}
