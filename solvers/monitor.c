/* monitor.c: iteration/time limits, the user callback and verbose lines, for every solver. */
#include <stdio.h>
#include <cpkit/util.h>
#include "monitor.h"

void cpk_monitor_start(cpk_monitor *mon, const cpk_settings *s, const char *solver, long max_iter)
{
  mon->settings = s;
  mon->solver = solver;
  mon->start = cpk_wtime();
  mon->max_iter = max_iter;
}

double cpk_monitor_elapsed(const cpk_monitor *mon) { return cpk_wtime() - mon->start; }

long cpk_monitor_max_iter(const cpk_monitor *mon) { return mon->max_iter; }

int cpk_monitor_iteration(cpk_monitor *mon, long iteration, double merit)
{
  const cpk_settings *s = mon->settings;
  double elapsed = cpk_monitor_elapsed(mon);
  if (s->verbose >= 2)
    fprintf(s->log ? s->log : stderr, "%s: iter %6ld  merit %-12.6g  %.3fs\n", mon->solver,
            iteration, merit, elapsed);
  if (s->callback) {
    cpk_iteration_info info = {mon->solver, iteration, merit, elapsed};
    if (s->callback(&info, s->callback_data)) return CPK_STATUS_STALLED;
  }
  if (s->time_limit > 0.0 && elapsed > s->time_limit) return CPK_STATUS_TIME_LIMIT;
  if (iteration >= mon->max_iter) return CPK_STATUS_MAX_ITERATIONS;
  return 0;
}
