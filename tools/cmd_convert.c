/* cmd_convert.c: `cpkit convert`, a problem file from one format to the other: text format v1 and FCLIB HDF5 (friction-cone problems). */
#include <string.h>
#include "cli.h"

static int run(int argc, char **argv);

const cli_command cli_cmd_convert = {
    "convert", "convert a problem file between the text format and FCLIB (HDF5)",
    "usage: cpkit convert IN OUT [--to text|fclib]\n"
    "\n"
    "Read the problem in IN (text format v1, or an FCLIB HDF5 file: a local\n"
    "problem, or a global one reduced to local form) and write it to OUT: as an\n"
    "FCLIB local problem when OUT ends in .hdf5 or .h5 (friction-cone problems of\n"
    "cone dimension 2 or 3 only), in the text format otherwise. --to chooses the\n"
    "format whatever the name. Values are written exactly; OUT is replaced.\n"
    "\n"
    "Options:\n"
    "  --to FORMAT   text or fclib\n"
    "  -h, --help    show this help\n",
    run};

enum { OPT_TO = CLI_OPT_LONG_BASE };

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* 1 for FCLIB, 0 for text, -1 after a usage error, -2 after --help. */
static int parse_options(int argc, char **argv, const char **in, const char **out)
{
  static const struct option longopts[] = {{"to", required_argument, NULL, OPT_TO},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  const char *to = NULL;
  int c;
  while ((c = cli_getopt(&cli_cmd_convert, argc, argv, ":h", longopts)) != -1) {
    if (c == 'h') {
      cli_print_usage(&cli_cmd_convert);
      return -2;
    }
    if (c != OPT_TO) return -1;
    to = optarg;
  }
  if (to && strcmp(to, "text") != 0 && strcmp(to, "fclib") != 0) {
    cli_unknown_name(&cli_cmd_convert, "--to format", to, (const char *const[]){"text", "fclib"}, 2);
    return -1;
  }
  if (argc - optind != 2) {
    cli_usage_error(&cli_cmd_convert, "expected IN and OUT");
    return -1;
  }
  *in = argv[optind];
  *out = argv[optind + 1];
  if (to) return strcmp(to, "fclib") == 0;
  return ends_with(*out, ".hdf5") || ends_with(*out, ".h5");
}

static int run(int argc, char **argv)
{
  const char *in = NULL, *out = NULL;
  cpk_problem *p = NULL;
  cpk_error err;
  int fclib = parse_options(argc, argv, &in, &out);
  if (fclib == -2) return CLI_EXIT_OK;
  if (fclib < 0) return CLI_EXIT_USAGE;
  int status = cli_read_problem(in, &p);
  if (status != CLI_CONTINUE) return status;
  cpk_error_clear(&err);
  int rc = fclib ? cpk_problem_write_fclib(p, out, &err) : cpk_problem_write_file(p, out, &err);
  cpk_problem_free(p);
  if (rc) return cli_file_error(out, rc, &err);
  return CLI_EXIT_OK;
}
