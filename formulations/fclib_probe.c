/* fclib_probe.c: reading an FCLIB file once in a child process, so that a crash of libhdf5 on a corrupt file ends the child and not the caller. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <cpkit/fclib.h>

#ifndef HAVE_HDF5

int cpk_fclib_probe(const char *path, cpk_error *err)
{
  (void)path;
  cpk_error_clear(err);
  return CPK_OK; /* nothing reads HDF5: nothing can crash in it */
}

#else
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The child: the caller's crash handlers (a fuzzer's, a crash reporter's)
 * must not take the child's death for the caller's, so the fatal signals get
 * their default action; what the dying child would print (glibc's "malloc():
 * corrupted top size", a sanitizer's report) goes nowhere, the caller's one
 * message says it. Then the reader's HDF5 calls, and a clean exit.
 */
static void read_in_child(const char *path)
{
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  cpk_problem *p = NULL;
  cpk_error err;
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, STDERR_FILENO);
  for (size_t k = 0; k < sizeof fatal / sizeof fatal[0]; k++) signal(fatal[k], SIG_DFL);
  if (cpk_problem_read_fclib(path, &p, &err) == CPK_OK) cpk_problem_free(p);
  _exit(0); /* no atexit handlers, no second flush of the caller's stdio buffers */
}

static int child_died(const char *path, int status, cpk_error *err)
{
  if (WIFSIGNALED(status))
    return cpk_error_set(err, CPK_EPARSE,
                         "%s: the HDF5 library crashed reading this file (signal %d, %s): the "
                         "file is corrupt",
                         path, WTERMSIG(status), strsignal(WTERMSIG(status)));
  return cpk_error_set(err, CPK_EPARSE,
                       "%s: reading this file failed in a child process (exit status %d): the "
                       "file is corrupt",
                       path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int cpk_fclib_probe(const char *path, cpk_error *err)
{
  int status = 0;
  cpk_error_clear(err);
  if (!path) return cpk_error_set(err, CPK_EINVAL, "no path given");
  pid_t pid = fork();
  if (pid < 0)
    return cpk_error_set(err, errno == ENOMEM ? CPK_ENOMEM : CPK_EIO,
                         "%s: cannot start a process to read the file safely: %s", path,
                         strerror(errno));
  if (pid == 0) read_in_child(path);
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return cpk_error_set(err, CPK_EIO, "%s: lost the process reading the file: %s", path,
                           strerror(errno));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? CPK_OK : child_died(path, status, err);
}
#endif
