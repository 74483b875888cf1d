/* gnuplot.c: finding and running gnuplot for the benchmark plots (environment CPK_GNUPLOT overrides the program). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static const char *program(void)
{
  const char *p = getenv("CPK_GNUPLOT");
  return p && *p ? p : "gnuplot";
}

/*
 * Run gnuplot with one argument in directory dir (NULL: here), output discarded; its exit
 * status. A script's messages (warnings included: "empty x range", font fallbacks) go to
 * SCRIPT.log beside it, never to our stderr: the caller names that file when gnuplot fails.
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
    if (arg[0]) {
      char log[4096];
      snprintf(log, sizeof log, "%s.log", arg);
      int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd >= 0 ? fd : null, STDERR_FILENO);
    }
    execlp(program(), program(), arg[0] ? arg : "--version", (char *)NULL);
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int cpk_bench_have_gnuplot(void) { return run(NULL, "") == 0; }

/* Run one script (a file name relative to dir); its messages in SCRIPT.log, removed when empty. */
int cpk_bench_gnuplot_script(const char *dir, const char *script)
{
  int rc = run(dir, script) == 0 ? CPK_OK : CPK_EIO;
  char log[4096];
  struct stat st;
  if (snprintf(log, sizeof log, "%s/%s.log", dir ? dir : ".", script) < (int)sizeof log &&
      stat(log, &st) == 0 && st.st_size == 0)
    unlink(log);
  return rc;
}
