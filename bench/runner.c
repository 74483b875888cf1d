/* runner.c: one benchmark run in a child process (in the process under mpirun with a petsc backend): warm-up and timed repeats, wall-clock guard, peak memory, and the parent's check of the answer. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <cpkit/parallel.h>
#include <cpkit/util.h>
#include "harness.h"

/*
 * Why a child per run: a solver that crashes, leaks or hangs cannot take the
 * benchmark down or distort the next run, and the child's peak memory is its
 * own. The problem is built once in the parent and shared copy-on-write.
 *
 * The child writes to a pipe one byte 'T' after every finished solve (each
 * one restarts the guard's clock), then 'R', its report, z and the trace.
 */

typedef struct child_report {
  int error; /* CPK_OK, or the error code of alloc/solve */
  int status, claimed;
  long iterations;
  double time_s;
  int repeats;
  double start_kb, peak_kb;
  char message[256];
} child_report;

/* What the solver shim and the trace callback share in the child. */
typedef struct child_ctx {
  const cpk_solver_type *inner;
  int claimed;
  cpk_bench_trace *trace;
  long stride;
} child_ctx;

typedef struct shim_state {
  child_ctx *ctx;
  void *inner;
} shim_state;

/*
 * The shim wraps the solver to see the status it returns before the driver
 * checks it (the driver turns a false `solved` into `stalled`). Its context
 * travels in settings.callback_data, the one pointer the driver hands on.
 */
static int shim_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  child_ctx *ctx = s->callback_data;
  shim_state *S = calloc(1, sizeof *S);
  *state = NULL;
  if (!S) return CPK_ENOMEM;
  S->ctx = ctx;
  int rc = ctx->inner->alloc(&S->inner, p, s, err);
  if (rc) {
    free(S);
    return rc;
  }
  *state = S;
  return CPK_OK;
}

static int shim_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                      cpk_result *r)
{
  shim_state *S = state;
  int rc = S->ctx->inner->solve(S->inner, p, s, mon, r);
  S->ctx->claimed = rc ? -1 : (int)r->status;
  return rc;
}

static void shim_free(void *state)
{
  shim_state *S = state;
  if (!S) return;
  S->ctx->inner->free(S->inner);
  free(S);
}

/* Keep every stride-th point; when full, drop every other one and double the stride. */
static int trace_cb(const cpk_iteration_info *info, void *data)
{
  child_ctx *ctx = data;
  cpk_bench_trace *t = ctx->trace;
  if (!t || info->iteration % ctx->stride != 0) return 0;
  if (t->count == CPK_BENCH_TRACE_MAX) {
    for (size_t k = 0; 2 * k + 1 < t->count; k++) {
      t->iteration[k] = t->iteration[2 * k + 1];
      t->merit[k] = t->merit[2 * k + 1];
    }
    t->count /= 2;
    ctx->stride *= 2;
    if (info->iteration % ctx->stride != 0) return 0;
  }
  t->iteration[t->count] = info->iteration;
  t->merit[t->count++] = info->merit;
  return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t k = write(fd, p, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, len -= (size_t)k;
  }
  return 0;
}

/* One finished solve: a byte that restarts the parent's guard (fd < 0: in the process, no guard). */
static void heartbeat(int fd)
{
  if (fd >= 0 && write_all(fd, "T", 1)) _exit(3);
}

static double max_rss_kb(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss : NAN;
}

/* alloc + solve + free, timed; fills rep->error and message on failure. */
static double timed_solve(const cpk_solver_type *shim, const cpk_problem *p, const cpk_settings *s,
                          cpk_result *r, child_report *rep)
{
  cpk_solver *solver = NULL;
  cpk_error err;
  double t0 = cpk_wtime();
  int rc = cpk_solver_alloc(shim, p, s, &solver, &err);
  if (!rc) rc = cpk_solver_solve(solver, r, &err);
  cpk_solver_free(solver);
  double t = cpk_wtime() - t0;
  if (rc) {
    rep->error = rc;
    snprintf(rep->message, sizeof rep->message, "%.255s", err.message);
  }
  return t;
}

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/*
 * Timed repeats after a quick warm-up; the median is robust to one slow run.
 * They solve into their own result, so the answer reported is the warm-up's,
 * the run whose status, iterations and trace are recorded.
 */
static void repeat_solves(int fd, const cpk_solver_type *shim, const cpk_problem *p,
                          cpk_settings *s, const cpk_bench_options *o, child_report *rep)
{
  double times[64];
  int m = 0, want = o->repeat < 64 ? o->repeat : 64;
  cpk_result *r = NULL;
  if (rep->error || !(rep->time_s < o->repeat_below) || cpk_result_alloc(p->n, &r)) return;
  s->callback = NULL; /* no tracing in timed runs */
  while (m < want && !rep->error) {
    times[m++] = timed_solve(shim, p, s, r, rep);
    heartbeat(fd);
  }
  cpk_result_free(r);
  if (rep->error) return;
  qsort(times, (size_t)m, sizeof *times, compare_doubles);
  rep->time_s = m % 2 ? times[m / 2] : 0.5 * (times[m / 2 - 1] + times[m / 2]);
  rep->repeats = m;
}

/*
 * PETSc's TAO solvers and the petsc backends start MPI and PETSc at their first alloc in a process (Open MPI's
 * singleton start took 0.7 s here): done before the clock and the memory baseline, as a
 * program that solves many problems pays it once.
 */
static void start_runtime(const cpk_solver_type *T, const cpk_linsys_type *linsys)
{
  const cpk_solver_type *petsc_solvers[] = {cpk_solver_tao_ssils, cpk_solver_tao_ssfls,
                                            cpk_solver_tao_asils, cpk_solver_tao_asfls};
  int petsc = cpk_linsys_is_distributed(linsys);
  cpk_linsys *ls = NULL;
  for (size_t k = 0; k < sizeof petsc_solvers / sizeof petsc_solvers[0]; k++)
    if (T && T == petsc_solvers[k]) petsc = 1;
  if (petsc && cpk_linsys_alloc(cpk_linsys_petsc, 1, &ls) == CPK_OK) cpk_linsys_free(ls);
}

/*
 * The warm-up solve, with the trace, then the timed repeats: the report in rep,
 * the answer in *out (the caller frees it). fd: the pipe to the parent, or -1 in
 * the process. Returns CPK_ENOMEM when the result cannot be allocated.
 */
static int run_solves(int fd, const cpk_solver_type *T, const cpk_bench_built *b,
                      const cpk_bench_options *o, cpk_bench_trace *trace, child_report *rep,
                      cpk_result **out)
{
  const cpk_problem *p = b->problem;
  cpk_solver_type shim = *T;
  child_ctx ctx = {T, -1, trace, 1};
  cpk_settings s;
  memset(rep, 0, sizeof *rep);
  start_runtime(T, o->linsys);
  rep->start_kb = max_rss_kb();
  shim.alloc = shim_alloc, shim.solve = shim_solve, shim.free = shim_free;
  s = o->settings;
  s.tol = o->tol, s.max_iter = o->max_iter, s.time_limit = o->time_limit;
  if (o->linsys) s.linsys = o->linsys;
  s.z0 = b->z0;
  s.callback = trace ? trace_cb : NULL;
  s.callback_data = &ctx;
  if (trace) trace->count = 0;
  if (cpk_result_alloc(p->n, out)) return CPK_ENOMEM;
  cpk_result *r = *out;
  rep->time_s = timed_solve(&shim, p, &s, r, rep);
  heartbeat(fd);
  rep->status = (int)r->status, rep->claimed = ctx.claimed, rep->iterations = r->iterations;
  if (!rep->error && r->message[0]) snprintf(rep->message, sizeof rep->message, "%s", r->message);
  repeat_solves(fd, &shim, p, &s, o, rep);
  rep->peak_kb = max_rss_kb();
  return CPK_OK;
}

static void child_main(int fd, const cpk_solver_type *T, const cpk_bench_built *b,
                       const cpk_bench_options *o, cpk_bench_trace *trace)
{
  child_report rep;
  cpk_result *r = NULL;
  if (run_solves(fd, T, b, o, trace, &rep, &r)) _exit(2);
  if (write_all(fd, "R", 1) || write_all(fd, &rep, sizeof rep) ||
      write_all(fd, r->z, b->problem->n * sizeof *r->z) ||
      (trace && write_all(fd, trace, sizeof *trace)))
    _exit(3);
  _exit(0); /* no atexit handlers, no flushing of the parent's stdio buffers */
}

/* Growable buffer for what the child sends. */
typedef struct inbox {
  char *data;
  size_t len, cap;
} inbox;

static int inbox_read(inbox *in, int fd)
{
  if (in->cap - in->len < 65536) {
    size_t cap = in->cap ? 2 * in->cap : 1 << 17;
    char *grown = realloc(in->data, cap);
    if (!grown) return -1;
    in->data = grown, in->cap = cap;
  }
  ssize_t k = read(fd, in->data + in->len, in->cap - in->len);
  if (k < 0) return errno == EINTR ? 1 : -1;
  in->len += (size_t)k;
  return k > 0; /* 0 at end of file */
}

/* Seconds a child may go without reporting a finished solve; -1: no limit. */
static double allowance_of(const cpk_bench_options *o)
{
  if (!(o->time_limit > 0)) return -1.0;
  return o->time_limit + (o->guard_grace > 0 ? o->guard_grace : 1.0 + 0.25 * o->time_limit);
}

/* Read until the child closes the pipe or the guard fires. Returns 1 if it was killed. */
static int collect(pid_t pid, int fd, const cpk_bench_options *o, inbox *in, int *ioerr)
{
  double allowance = allowance_of(o);
  double deadline = cpk_wtime() + allowance;
  for (;;) {
    int ms = -1;
    if (allowance > 0) {
      double left = deadline - cpk_wtime();
      ms = left > 0 ? (int)(left * 1000.0) + 1 : 0;
    }
    struct pollfd pf = {fd, POLLIN, 0};
    int ready = poll(&pf, 1, ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      kill(pid, SIGKILL);
      return 1;
    }
    int got = ready < 0 ? -1 : inbox_read(in, fd);
    if (got < 0) {
      *ioerr = 1;
      kill(pid, SIGKILL);
      return 0;
    }
    if (got == 0) return 0;
    deadline = cpk_wtime() + allowance;
  }
}

static void record_from_report(const child_report *rep, cpk_bench_record *rec);

/* Fill rec from a complete report; returns 0, or -1 if the report is not complete. */
static int read_report(const inbox *in, const cpk_bench_built *b, cpk_bench_record *rec,
                       cpk_bench_trace *trace, double *z)
{
  size_t at = 0, n = b->problem->n;
  child_report rep;
  while (at < in->len && in->data[at] == 'T') at++;
  size_t need = 1 + sizeof rep + n * sizeof(double) + (trace ? sizeof *trace : 0);
  if (in->len - at < need || in->data[at] != 'R') return -1;
  memcpy(&rep, in->data + at + 1, sizeof rep);
  memcpy(z, in->data + at + 1 + sizeof rep, n * sizeof(double)); /* the bytes are not aligned */
  if (trace) memcpy(trace, in->data + at + 1 + sizeof rep + n * sizeof(double), sizeof *trace);
  record_from_report(&rep, rec);
  return 0;
}

static void record_from_report(const child_report *r, cpk_bench_record *rec)
{
  child_report rep = *r;
  rec->status = rep.error ? CPK_BENCH_ERROR : rep.status;
  rec->claimed = rep.error ? CPK_BENCH_ERROR : rep.claimed;
  rec->error_code = rep.error;
  rec->iterations = rep.iterations;
  rec->time_s = rep.time_s;
  rec->repeats = rep.repeats;
  rec->peak_mb = rep.peak_kb / 1024.0;
  rec->mem_mb = (rep.peak_kb - rep.start_kb) / 1024.0;
  snprintf(rec->message, sizeof rec->message, "%s", rep.message);
}

static void record_failure(cpk_bench_record *rec, int status, const char *fmt, const char *what,
                           double t)
{
  rec->status = status;
  rec->claimed = -1;
  rec->time_s = t;
  snprintf(rec->message, sizeof rec->message, fmt, what);
}

static void judge(pid_t pid, int killed, int ioerr, const inbox *in, const cpk_bench_built *b,
                  const cpk_bench_options *o, cpk_bench_record *rec, cpk_bench_trace *trace,
                  double t)
{
  int wst = 0;
  double *z = cpk_alloc_array(b->problem->n, sizeof *z);
  char what[96];
  while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) continue;
  if (!z) {
    record_failure(rec, CPK_BENCH_ERROR, "%s", "out of memory for the child's answer", t);
  } else if (killed) {
    snprintf(what, sizeof what, "%.1f", allowance_of(o));
    record_failure(rec, CPK_STATUS_TIME_LIMIT, "killed by the wall-clock guard after %s s", what,
                   t);
  } else if (!ioerr && WIFEXITED(wst) && WEXITSTATUS(wst) == 0 &&
             read_report(in, b, rec, trace, z) == 0) {
    if (rec->status != CPK_BENCH_ERROR) cpk_bench_verify(b->problem, z, rec);
    if (b->merit && rec->status != CPK_BENCH_ERROR) rec->merit = b->merit(b->ctx, z);
  } else {
    if (WIFSIGNALED(wst))
      snprintf(what, sizeof what, "killed by signal %d (%s)", WTERMSIG(wst),
               strsignal(WTERMSIG(wst)));
    else
      snprintf(what, sizeof what, "exited with status %d", WEXITSTATUS(wst));
    record_failure(rec, CPK_BENCH_CRASHED, "the child %s before reporting", what, t);
  }
  free(z);
}

/*
 * Under mpirun with a petsc backend every rank must take part in each solve, and
 * MPI cannot be started afresh in a forked child: the solves run in this process,
 * with no wall-clock guard (the time limit, agreed over the ranks, still stops
 * them), one timed solve per run, and the process's whole peak as peak_MB.
 */
static int run_in_process(const cpk_solver_type *T, const cpk_bench_built *b,
                          const cpk_bench_options *o, cpk_bench_record *rec,
                          cpk_bench_trace *trace)
{
  child_report rep;
  cpk_result *r = NULL;
  cpk_bench_options one = *o;
  one.repeat_below = 0.0; /* repeats decided by each rank's clock would part the ranks */
  double t0 = cpk_wtime();
  if (run_solves(-1, T, b, &one, trace, &rep, &r)) return CPK_ENOMEM;
  record_from_report(&rep, rec);
  if (rec->status != CPK_BENCH_ERROR) cpk_bench_verify(b->problem, r->z, rec);
  if (b->merit && rec->status != CPK_BENCH_ERROR) rec->merit = b->merit(b->ctx, r->z);
  if (!(rec->time_s >= 0)) rec->time_s = cpk_wtime() - t0;
  cpk_result_free(r);
  return CPK_OK;
}

int cpk_bench_run(const cpk_solver_type *T, const cpk_bench_built *b, const cpk_bench_options *o,
                  cpk_bench_record *rec, cpk_bench_trace *trace)
{
  if (cpk_linsys_is_distributed(o->linsys) && cpk_mpi_size() > 1)
    return run_in_process(T, b, o, rec, trace);
  int fds[2];
  inbox in = {NULL, 0, 0};
  if (pipe(fds)) return CPK_EIO;
  fflush(NULL); /* the child must not inherit unwritten output */
  double t0 = cpk_wtime();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return CPK_ENOMEM;
  }
  if (pid == 0) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* an interrupted benchmark leaves no orphans */
#endif
    close(fds[0]);
    child_main(fds[1], T, b, o, trace);
  }
  close(fds[1]);
  int ioerr = 0, killed = collect(pid, fds[0], o, &in, &ioerr);
  close(fds[0]);
  judge(pid, killed, ioerr, &in, b, o, rec, trace, cpk_wtime() - t0);
  free(in.data);
  return CPK_OK;
}
