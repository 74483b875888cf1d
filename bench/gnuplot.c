/* gnuplot.c: finding and running gnuplot for the benchmark plots (environment CPK_GNUPLOT overrides the program). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static const char *program(void)
{
  const char *p = getenv("CPK_GNUPLOT");
  return p && *p ? p : "gnuplot";
}

/* Run gnuplot with one argument in directory dir (NULL: here), output discarded; its exit status.
 */
static int run(const char *dir, const char *arg)
{
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    if (null >= 0 && !arg[0]) dup2(null, STDERR_FILENO);
    if (dir && chdir(dir)) _exit(126);
    execlp(program(), program(), arg[0] ? arg : "--version", (char *)NULL);
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int cpk_bench_have_gnuplot(void) { return run(NULL, "") == 0; }

/* Run one script (a file name relative to dir); gnuplot's complaints go to stderr. */
int cpk_bench_gnuplot_script(const char *dir, const char *script)
{
  return run(dir, script) == 0 ? CPK_OK : CPK_EIO;
}
