/* monitor.h: the monitor's layout, shared by monitor.c and the solve driver solver.c. */
#ifndef CPK_SOLVERS_MONITOR_H
#define CPK_SOLVERS_MONITOR_H
#include <cpkit/solver.h>

struct cpk_monitor {
  const cpk_settings *settings;
  const char *solver;
  double start;
  long max_iter;
  /* iterations earlier stages of the same solve made (a wrapper's monitor for its inner
     solver, findex.c): added to the numbers the log and the callback see, so that they go on
     rising; max_iter is then what is left of the budget, checked against the stage's own count */
  long offset;
  /* cpk_monitor_before_factor: the linear solver's counters when last seen, and the estimate */
  long seen_factorizations;
  double seen_factor_time, factor_estimate;
  /* the iteration log (monitor_log.c): the problem, a mode per unknown or contact (NULL when
     verbose < 2: allocated by cpk_solver_alloc), whether they hold a previous line's */
  const cpk_problem *problem;
  unsigned char *modes;
  int modes_valid, log_header_done;
  /* the solve's backend is petsc: the ranks run it in step, and each stop decision is
     agreed over them (cpk_mpi_agree_stop); copied with the monitor into nested stages */
  int distributed;
};

/** A solve with these settings is distributed: its backend (petsc) is collective over the MPI ranks. */
int cpk_monitor_distributed(const cpk_settings *s);

/** Start monitoring a solve now. */
void cpk_monitor_start(cpk_monitor *mon, const cpk_settings *s, const char *solver, long max_iter);
/** Give the log the problem and its mode array (p->n, or p->nc for cone problems; may be NULL). */
void cpk_monitor_track(cpk_monitor *mon, const cpk_problem *p, unsigned char *modes);
/** The callback and the limits, after the log line: 0 or the stop status. */
int cpk_monitor_check(cpk_monitor *mon, long iteration, double merit, double elapsed);
/**
 * Whether a solve nested in this one (a restart, a polish) may start: 0 when the
 * time limit is spent. Else 1, and *limit is the nested solve's time limit: what is
 * left of this one's (0: no limit). Agreed over the ranks like every stop.
 */
int cpk_monitor_nested_limit(const cpk_monitor *mon, double *limit);
#endif
