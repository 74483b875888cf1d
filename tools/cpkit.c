/* cpkit.c: the cpkit command's entry point: global options, `help`, and the table of subcommands. */
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include "cli.h"

static int run_help(int argc, char **argv);

static const cli_command cli_cmd_help = {
    "help", "show the help of cpkit or of one command",
    "usage: cpkit help [COMMAND]\n"
    "\n"
    "Without COMMAND, list the commands; with it, show that command's options\n"
    "(the same text as 'cpkit COMMAND --help').\n",
    run_help};

/* Adding a subcommand: one cmd_NAME.c defining cli_cmd_NAME, one line here. */
static const cli_command *const commands[] = {
    &cli_cmd_solve,
    &cli_cmd_info,
    &cli_cmd_solvers,
    &cli_cmd_compile,
    &cli_cmd_solve_system,
    &cli_cmd_bench,
    &cli_cmd_check,
    &cli_cmd_simulate,
    &cli_cmd_demo,
    &cli_cmd_convert,
    &cli_cmd_help,
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
  for (size_t k = 0; k < NCOMMANDS; k++)
    if (strcmp(commands[k]->name, name) == 0) return commands[k];
  return NULL;
}

/* "unknown command 'x'; did you mean ...? (valid: ...)" */
static int unknown_command(const cli_command *context, const char *word)
{
  const char *names[NCOMMANDS];
  for (size_t k = 0; k < NCOMMANDS; k++) names[k] = commands[k]->name;
  return cli_unknown_name(context, "command", word, names, NCOMMANDS);
}

static int print_help(void)
{
  printf("usage: cpkit COMMAND [OPTIONS] [ARGUMENTS]\n"
         "       cpkit --help | --version\n"
         "\n"
         "cpkit %s: complementarity problems (LCP, box-constrained MCP) from frictional contact.\n"
         "\n"
         "Commands:\n",
         cpk_version());
  for (size_t k = 0; k < NCOMMANDS; k++)
    printf("  %-9s %s\n", commands[k]->name, commands[k]->summary);
  printf("\n"
         "Run 'cpkit COMMAND --help' for the options of a command; see also cpkit(1).\n"
         "Exit status: 0 when the command ran (whatever the solve status); 1 for bad\n"
         "input (unreadable or malformed file, failed solve call); 2 for a usage error\n"
         "(unknown command, option or name, missing or bad argument), the same in every\n"
         "command; 3 when simulate or demo --strict found a failed check.\n");
  return CLI_EXIT_OK;
}

static int run_help(int argc, char **argv)
{
  static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c = cli_getopt(&cli_cmd_help, argc, argv, ":h", longopts);
  if (c == 'h') return cli_print_usage(&cli_cmd_help);
  if (c != -1) return CLI_EXIT_USAGE;
  if (optind == argc) return print_help();
  if (optind + 1 < argc)
    return cli_usage_error(&cli_cmd_help, "unexpected argument '%s'", argv[optind + 1]);
  const cli_command *cmd = find_command(argv[optind]);
  if (!cmd) return unknown_command(&cli_cmd_help, argv[optind]);
  return cli_print_usage(cmd);
}

static int print_version(void)
{
  printf("cpkit %s\n", cpk_version());
  return CLI_EXIT_OK;
}

/* Options that stand for the whole command rather than a subcommand. */
static const struct {
  const char *long_name, *short_name;
  int (*run)(void);
} global_options[] = {
    {"--help", "-h", print_help},
    {"--version", "-V", print_version},
};

/*
 * A full stdout (`cpkit solvers > /dev/full`) is an error too, not a silent
 * success. The error flag catches a write that failed earlier, when the last
 * flush has nothing left to write; fclose catches what only close reports.
 */
static int finish(int status)
{
  int bad = fflush(stdout) != 0;
  bad |= ferror(stdout) != 0;
  bad |= fclose(stdout) != 0;
  if (bad && status == CLI_EXIT_OK) return cli_error("cannot write to standard output");
  return status;
}

int main(int argc, char **argv)
{
  gsl_set_error_handler_off(); /* GSL's default handler aborts; we check return codes instead */
  cli_json_watch();
  /* Under mpirun every rank runs the command; rank 0 alone writes standard output. */
  if (cpk_mpi_rank() != 0 && !freopen("/dev/null", "w", stdout))
    return cli_error("cannot silence standard output of MPI rank %d", cpk_mpi_rank());
  if (argc < 2) return cli_usage_error(NULL, "missing command");
  const char *word = argv[1];
  for (size_t k = 0; k < sizeof global_options / sizeof global_options[0]; k++)
    if (strcmp(word, global_options[k].long_name) == 0 ||
        strcmp(word, global_options[k].short_name) == 0) {
      if (argc > 2) return cli_usage_error(NULL, "unexpected argument '%s'", argv[2]);
      return finish(global_options[k].run());
    }
  const cli_command *cmd = find_command(word);
  if (cmd) return finish(cmd->run(argc - 1, argv + 1));
  if (word[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", word);
  return unknown_command(NULL, word);
}
