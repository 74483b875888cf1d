/* cli.c: helpers shared by the cpkit subcommands: messages, getopt wrapper, checked number parsing, problem reading, buffered output. */
#define _GNU_SOURCE /* fopencookie */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "cli.h"

int cli_error(const char *fmt, ...)
{
  va_list ap;
  fputs("cpkit: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return CLI_EXIT_INPUT;
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "cpkit%s%s: ", cmd ? " " : "", cmd ? cmd->name : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (cmd)
    fprintf(stderr, " (see 'cpkit %s --help')\n", cmd->name);
  else
    fputs(" (see 'cpkit --help')\n", stderr);
  return CLI_EXIT_USAGE;
}

int cli_library_error(const char *context, int code, const cpk_error *err)
{
  const char *msg = err && err->message[0] ? err->message : cpk_strerror(code);
  if (context)
    return cli_error("%s: %s", context, msg);
  return cli_error("%s", msg);
}

/* The option as the user typed it, without any "=value" part. */
static void option_text(char *buf, size_t size, const char *arg)
{
  size_t len = strcspn(arg, "=");
  if (len >= size) len = size - 1;
  memcpy(buf, arg, len);
  buf[len] = '\0';
}

/* getopt reports the offending option in optopt (short) or only through argv (long). */
static int report_bad_option(const cli_command *cmd, int c, char **argv, const char *shortopts)
{
  char name[64];
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  int is_short = optopt > 0 && optopt < CLI_OPT_LONG_BASE && strncmp(arg, "--", 2) != 0;
  if (is_short)
    snprintf(name, sizeof name, "-%c", optopt);
  else
    option_text(name, sizeof name, arg);
  if (c == ':') return cli_usage_error(cmd, "option '%s' requires an argument", name);
  if (optopt == 0 || (optopt < CLI_OPT_LONG_BASE && !strchr(shortopts + 1, optopt)))
    return cli_usage_error(cmd, "unknown option '%s'", name);
  return cli_usage_error(cmd, "option '%s' does not take an argument", name);
}

int cli_getopt(const cli_command *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts)
{
  opterr = 0; /* every message is ours, one line each */
  optopt = 0;
  int c = getopt_long(argc, argv, shortopts, longopts, NULL);
  if (c == '?' || c == ':') {
    report_bad_option(cmd, c, argv, shortopts);
    return '?';
  }
  return c;
}

int cli_print_usage(const cli_command *cmd)
{
  fputs(cmd->usage, stdout);
  return CLI_EXIT_OK;
}

/* strtod/strtol skip leading blanks and accept an empty tail silently; we do not. */
static int plain_token(const char *text)
{
  return text[0] != '\0' && !isspace((unsigned char)text[0]);
}

int cli_parse_double(const cli_command *cmd, const char *opt, const char *text, double min,
                     int strict, double *out)
{
  char *end = NULL;
  errno = 0;
  double v = plain_token(text) ? strtod(text, &end) : NAN;
  int ok = end && *end == '\0' && errno == 0 && isfinite(v) && (strict ? v > min : v >= min);
  if (!ok)
    return cli_usage_error(cmd, "%s expects a finite number %s %g, got '%s'", opt,
                           strict ? ">" : ">=", min, text);
  *out = v;
  return CLI_CONTINUE;
}

int cli_parse_long(const cli_command *cmd, const char *opt, const char *text, long min, long *out)
{
  char *end = NULL;
  long v = 0;
  errno = 0;
  if (plain_token(text)) v = strtol(text, &end, 10);
  if (!end || *end != '\0' || errno != 0 || v < min)
    return cli_usage_error(cmd, "%s expects an integer >= %ld, got '%s'", opt, min, text);
  *out = v;
  return CLI_CONTINUE;
}

int cli_parse_setting(const cli_command *cmd, const char *text, int common, cpk_settings *s)
{
  cpk_error err;
  cpk_settings trial = *s;
  cpk_error_clear(&err);
  const char *eq = strchr(text, '=');
  if (!common && eq && !memchr(text, '.', (size_t)(eq - text)))
    return cli_usage_error(cmd, "--set %s: the common settings go by this command's own "
                           "options (--tol, --max-iter, ...); --set takes SOLVER.NAME=VALUE", text);
  if (cpk_settings_parse(&trial, text, &err) || cpk_settings_validate(&trial, &err))
    return cli_usage_error(cmd, "--set: %s", err.message);
  *s = trial;
  return CLI_CONTINUE;
}

int cli_file_error(const char *name, int code, const cpk_error *err)
{
  /* Parser messages already start with the file name; others get it here. */
  size_t len = strlen(name);
  if (err && strncmp(err->message, name, len) == 0 && err->message[len] == ':')
    return cli_library_error(NULL, code, err);
  return cli_library_error(name, code, err);
}

int cli_probe_file(const char *path)
{
  cpk_error err;
  if (!cpk_file_is_hdf5(path)) return CLI_CONTINUE;
  int rc = cpk_fclib_probe(path, &err);
  return rc ? cli_file_error(path, rc, &err) : CLI_CONTINUE;
}

int cli_read_problem(const char *path, cpk_problem **out)
{
  cpk_error err;
  int rc, from_stdin = strcmp(path, "-") == 0;
  const char *name = from_stdin ? "<stdin>" : path;
  cpk_error_clear(&err);
  *out = NULL;
  if (from_stdin)
    rc = cpk_problem_read_stream(stdin, name, out, &err);
  else if ((rc = cli_probe_file(path)) != CLI_CONTINUE)
    return rc;
  else /* an HDF5 file is read as FCLIB, anything else as the text format */
    rc = cpk_problem_read_any(path, out, &err);
  if (rc == CPK_OK && *out) return CLI_CONTINUE;
  cpk_problem_free(*out);
  *out = NULL;
  return cli_file_error(name, rc ? rc : CPK_EPARSE, &err);
}

/*
 * The stream's sink. Not open_memstream: when glibc's memory stream cannot
 * grow it drops the text without setting the error flag (and its fclose may
 * leave buf NULL), so an out-of-memory report would go out with holes. Here a
 * failed growth is remembered and every later write refused.
 */
static ssize_t output_write(void *cookie, const char *data, size_t size)
{
  cli_output *o = cookie;
  if (o->failed) return 0;
  if (size > o->cap - o->len) {
    size_t need = o->len + size, cap = o->cap > 4096 ? o->cap : 4096;
    while (cap < need && cap <= SIZE_MAX / 2) cap *= 2;
    char *grown = need < o->len || cap < need ? NULL : realloc(o->buf, cap);
    if (!grown) {
      o->failed = 1;
      return 0; /* stdio marks the stream in error */
    }
    o->buf = grown;
    o->cap = cap;
  }
  memcpy(o->buf + o->len, data, size);
  o->len += size;
  return (ssize_t)size;
}

/*
 * jansson does not survive its own allocations failing: its decoder then drops
 * a character of a long string or number and returns the document anyway
 * ("v_x" read as "v_", a number with a digit less), or dereferences NULL. No
 * caller can recover from that, so the command stops at once, with a message
 * and without flushing half an output: a clean exit 1 instead of a wrong
 * answer or a crash. (The library itself never exits; only the command does.)
 */
static void *json_alloc_or_exit(size_t size)
{
  static const char msg[] = "cpkit: out of memory (reading or writing JSON)\n";
  void *p = malloc(size);
  if (p) return p;
  if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) { /* nothing more to try */
  }
  _exit(CLI_EXIT_INPUT);
}

void cli_json_watch(void)
{
  json_set_alloc_funcs(json_alloc_or_exit, free);
}

int cli_output_open(cli_output *o)
{
  cookie_io_functions_t io = {NULL, output_write, NULL, NULL};
  o->buf = NULL;
  o->len = o->cap = 0;
  o->failed = 0;
  o->f = fopencookie(o, "w", io);
  if (!o->f) return cli_error("cannot buffer output: %s", strerror(errno));
  return CLI_CONTINUE;
}

int cli_output_flush(cli_output *o)
{
  return fflush(o->f) != 0 || ferror(o->f) || o->failed ? -1 : 0;
}

void cli_output_discard(cli_output *o)
{
  if (o->f) fclose(o->f);
  free(o->buf);
  o->f = NULL;
  o->buf = NULL;
  o->len = o->cap = 0;
}

/* Write the buffer to an already open stream; checks the flush as well as the writes. */
static int write_all(FILE *dst, const char *buf, size_t len)
{
  return fwrite(buf, 1, len, dst) == len && fflush(dst) == 0 && !ferror(dst);
}

int cli_output_commit(cli_output *o, const char *path)
{
  int to_stdout = !path || strcmp(path, "-") == 0, status = CLI_EXIT_OK;
  /* Incomplete output is never written, not even in part. */
  int lost = cli_output_flush(o) != 0;
  lost |= fclose(o->f) != 0;
  o->f = NULL;
  if (lost || o->failed) {
    cli_output_discard(o);
    return cli_error("cannot buffer output: out of memory");
  }
  if (!to_stdout && cpk_mpi_rank() != 0) { /* under mpirun rank 0 alone writes files */
    cli_output_discard(o);
    return CLI_EXIT_OK;
  }
  FILE *dst = to_stdout ? stdout : fopen(path, "w");
  if (!dst)
    status = cli_error("%s: %s", path, strerror(errno));
  else if (!write_all(dst, o->buf, o->len))
    status = cli_error("%s: write failed: %s", to_stdout ? "<stdout>" : path, strerror(errno));
  if (dst && !to_stdout && fclose(dst) != 0 && status == CLI_EXIT_OK)
    status = cli_error("%s: %s", path, strerror(errno));
  cli_output_discard(o);
  return status;
}
