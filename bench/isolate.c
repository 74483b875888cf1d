/* isolate.c: run one benchmark measurement in a forked child and bring its record back through a pipe. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cpkit/parallel.h>
#include "isolate.h"

static void run_child(int fd, cpk_bench_job job, const void *args, void *record, size_t size)
{
  struct rusage ru;
  job(args, record);
  getrusage(RUSAGE_SELF, &ru);
  double peak_mb = (double)ru.ru_maxrss / 1024.0;
  if (write(fd, record, size) != (ssize_t)size) _exit(1);
  if (write(fd, &peak_mb, sizeof peak_mb) != (ssize_t)sizeof peak_mb) _exit(1);
  _exit(0); /* the process ends here: nothing to free */
}

int cpk_bench_isolated(cpk_bench_job job, const void *args, void *record, size_t size,
                       double *peak_mb)
{
  int fds[2], st = 0;
  if (cpk_mpi_size() > 1) { /* under mpirun: MPI cannot start afresh in a child per solve */
    struct rusage ru;
    job(args, record);
    getrusage(RUSAGE_SELF, &ru);
    *peak_mb = (double)ru.ru_maxrss / 1024.0;
    return 0;
  }
  if (pipe(fds)) return -1;
  fflush(stdout); /* or the child would print the parent's buffered output again */
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    run_child(fds[1], job, args, record, size);
  }
  close(fds[1]);
  ssize_t got = pid > 0 ? read(fds[0], record, size) : -1;
  ssize_t got_peak = got == (ssize_t)size ? read(fds[0], peak_mb, sizeof *peak_mb) : -1;
  close(fds[0]);
  if (pid > 0) waitpid(pid, &st, 0);
  int ok = got == (ssize_t)size && got_peak == (ssize_t)sizeof *peak_mb && WIFEXITED(st) &&
           WEXITSTATUS(st) == 0;
  return ok ? 0 : -1;
}

double cpk_bench_loglog_slope(const double *x, const double *y, size_t m)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t k = 0; k < m; k++) {
    double a = log(x[k]), b = log(y[k]);
    sx += a, sy += b, sxx += a * a, sxy += a * b;
  }
  return m < 2 ? NAN : ((double)m * sxy - sx * sy) / ((double)m * sxx - sx * sx);
}
