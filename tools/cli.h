/* cli.h: what the cpkit subcommands share: the command table entry, exit codes, messages, option and number parsing, buffered output. */
#ifndef CPKIT_TOOLS_CLI_H
#define CPKIT_TOOLS_CLI_H
#include <stdio.h>
#include <getopt.h>
#include <cpkit/cpkit.h>

/* Exit statuses of the command (documented in cpkit.1). */
enum {
  CLI_EXIT_OK = 0,       /* the command ran, whatever the solve status */
  CLI_EXIT_INPUT = 1,    /* bad input: unreadable or malformed file, failed call */
  CLI_EXIT_USAGE = 2     /* unknown command or option, missing or bad argument */
};

/* Returned by option parsers when the command should go on (any other value is an exit status). */
#define CLI_CONTINUE (-1)

/* getopt_long values of options that have no one-letter form. */
enum { CLI_OPT_LONG_BASE = 256 };

/* One subcommand: main() dispatches on `name`. `run` gets argv[0] = the command name. */
typedef struct cli_command {
  const char *name;
  const char *summary; /* one line for `cpkit --help` */
  const char *usage;   /* full text for `cpkit CMD --help` */
  int (*run)(int argc, char **argv);
} cli_command;

extern const cli_command cli_cmd_solve;
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_solvers;
extern const cli_command cli_cmd_compile;
extern const cli_command cli_cmd_solve_system;
extern const cli_command cli_cmd_check;
extern const cli_command cli_cmd_bench;
extern const cli_command cli_cmd_simulate;
extern const cli_command cli_cmd_demo;
extern const cli_command cli_cmd_convert;

/* Options shared by `compile` and `solve-system` (defined in cmd_compile.c). */
enum { CLI_OPT_MODEL = CLI_OPT_LONG_BASE + 64, CLI_OPT_DIRECTIONS, CLI_OPT_FORM, CLI_OPT_DENSE };
#define CLI_NOT_COMPILE_OPTION (-2)
typedef struct cli_compile_args {
  const char *system_path;
  const char *model;
  cpk_compile_options options;
} cli_compile_args;
void cli_compile_args_init(cli_compile_args *a);
/* --model, --directions, --form, --dense: CLI_CONTINUE, an exit status, or CLI_NOT_COMPILE_OPTION. */
int cli_compile_option(const cli_command *cmd, int c, const char *arg, cli_compile_args *a);
/* Read the system file and compile it; on failure prints the message and returns CLI_EXIT_INPUT. */
int cli_compile_system(const cli_compile_args *a, cpk_contact_system **s, cpk_problem **p,
                       cpk_varmap **m);

/* "cpkit: MESSAGE" on stderr, one line. Returns CLI_EXIT_INPUT. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "cpkit CMD: MESSAGE (see 'cpkit CMD --help')" on stderr, one line. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A failed library call: "cpkit: [CONTEXT: ]err->message", or the code's text when there is no message. */
int cli_library_error(const char *context, int code, const cpk_error *err);

/*
 * getopt_long over a subcommand's argv with our own messages: returns the
 * option, -1 at the end, or '?' after printing one usage error. `shortopts`
 * must start with ':' so a missing argument can be told from an unknown option.
 */
int cli_getopt(const cli_command *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts);
/*
 * The one message for a name that is not one of `valid` (solver, model, command, suite...):
 * "unknown WHAT 'NAME'; did you mean 'X'? (valid: a, b, c)" as a usage error (exit 2).
 */
int cli_unknown_name(const cli_command *cmd, const char *what, const char *name,
                     const char *const *valid, size_t nvalid);
/* The valid name closest to `name` (a typo or a prefix away), or NULL. */
const char *cli_closest_name(const char *name, const char *const *valid, size_t nvalid);
/* cli_unknown_name over the registered solvers. */
int cli_unknown_solver(const cli_command *cmd, const char *name);
/* The linear-solver backend named `name` into *out (--linsys), or the unknown-name usage error. */
int cli_find_linsys(const cli_command *cmd, const char *name, const cpk_linsys_type **out);
/* cli_unknown_name over the contact models, plus `extra` (NULL or one more accepted name). */
int cli_unknown_model(const cli_command *cmd, const char *name, const char *extra);
/* Print cmd->usage on stdout; returns CLI_EXIT_OK. */
int cli_print_usage(const cli_command *cmd);

/* Parse a finite number >= min (> min when `strict`); usage error naming `opt` otherwise. */
int cli_parse_double(const cli_command *cmd, const char *opt, const char *text, double min,
                     int strict, double *out);
/* Parse a base-10 integer >= min with nothing after it ("1.5" and "1e3" are refused). */
int cli_parse_long(const cli_command *cmd, const char *opt, const char *text, long min, long *out);
/* --set NAME=VALUE or SOLVER.NAME=VALUE (cpk_settings_parse) into s, its value checked by
 * cpk_settings_validate (on s as it is then); common = 0 refuses the common settings (tol,
 * max_iter, ...) for commands that take them only through their own options. */
int cli_parse_setting(const cli_command *cmd, const char *text, int common, cpk_settings *s);
/* Most --set options one command line takes. */
#define CLI_MAX_SETS 32

/* A failed call about file `name`: the message as is when it starts with `name`, else prefixed by it. */
int cli_file_error(const char *name, int code, const cpk_error *err);
/* Make jansson's failed allocations end the command with a message (main calls it first; see cli.c). */
void cli_json_watch(void);
/* An HDF5 file read once in a child process first (cpk_fclib_probe: libhdf5 can crash on a corrupt one): CLI_CONTINUE, or the message printed and CLI_EXIT_INPUT. */
int cli_probe_file(const char *path);
/* Read a problem file ("-" = standard input); on failure prints the parser's message and returns CLI_EXIT_INPUT. */
int cli_read_problem(const char *path, cpk_problem **out);

/*
 * Output collected in memory and written only when the command succeeds, so
 * an error never leaves half a report on stdout or in the -o file.
 */
typedef struct cli_output {
  FILE *f;      /* write here */
  char *buf;    /* what was written, up to the last cli_output_flush */
  size_t len, cap;
  int failed;   /* the buffer could not grow: the output is incomplete */
} cli_output;

int cli_output_open(cli_output *o);
/* Bring buf/len up to date; -1 when the output is already incomplete (out of memory). */
int cli_output_flush(cli_output *o);
/*
 * Write what was collected to `path` (NULL or "-" = stdout) and release it.
 * Returns an exit status: 1 with a message when the buffer is incomplete or
 * any write, flush or close fails (a full disk is an error, not a success).
 */
int cli_output_commit(cli_output *o, const char *path);
void cli_output_discard(cli_output *o);

#endif
