/* cmd_solvers.c: `cpkit solvers`, one line per registered solver: name, accepted problem kinds, description. */
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_solvers = {
    "solvers", "list the registered solvers",
    "usage: cpkit solvers\n"
    "\n"
    "List the registered solvers, one per line: the name to give to\n"
    "'cpkit solve --solver NAME', the problem kinds it accepts (lcp, affine_mcp,\n"
    "nonlinear_mcp, friction_cone) and a one-line description.\n"
    "\n"
    "Options:\n"
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

static int run(int argc, char **argv)
{
  static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c = cli_getopt(&cli_cmd_solvers, argc, argv, ":h", longopts);
  if (c == 'h') return cli_print_usage(&cli_cmd_solvers);
  if (c != -1) return CLI_EXIT_USAGE;
  if (optind < argc)
    return cli_usage_error(&cli_cmd_solvers, "unexpected argument '%s'", argv[optind]);
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
