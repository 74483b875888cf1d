/* monitor.h: the monitor's layout, shared by monitor.c and the solve driver solver.c. */
#ifndef CPK_SOLVERS_MONITOR_H
#define CPK_SOLVERS_MONITOR_H
#include <cpkit/solver.h>

struct cpk_monitor {
  const cpk_settings *settings;
  const char *solver;
  double start;
  long max_iter;
  /* cpk_monitor_before_factor: the linear solver's counters when last seen, and the estimate */
  long seen_factorizations;
  double seen_factor_time, factor_estimate;
};

/** Start monitoring a solve now. */
void cpk_monitor_start(cpk_monitor *mon, const cpk_settings *s, const char *solver, long max_iter);
#endif
