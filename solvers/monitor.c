/* monitor.c: iteration/time limits, the user callback and verbose lines, for every solver. */
#include <math.h>
#include <stdio.h>
#include <cpkit/parallel.h>
#include <cpkit/util.h>
#include "monitor.h"

int cpk_monitor_distributed(const cpk_settings *s)
{
  return cpk_linsys_is_distributed(s->linsys);
}

/*
 * A distributed solve runs on every rank in step, each backend call a collective: a
 * stop one rank decides alone (its clock, its callback, its estimate) would leave the
 * others waiting in the next one. So every decision is agreed, also where this rank
 * has no limit (another may): the largest status wins, a callback's stalled over a
 * time limit over the iteration limit. A failure another rank met meanwhile stops
 * this one too; the driver then returns that error. No MPI call in a serial solve.
 */
static int agreed(const cpk_monitor *mon, int stop)
{
  if (!mon->distributed) return stop;
  if (cpk_mpi_agree_stop(&stop) && !stop) stop = CPK_STATUS_STALLED;
  return stop;
}

void cpk_monitor_start(cpk_monitor *mon, const cpk_settings *s, const char *solver, long max_iter)
{
  mon->settings = s;
  mon->solver = solver;
  mon->start = cpk_wtime();
  mon->max_iter = max_iter;
  mon->offset = 0;
  mon->seen_factorizations = -1;
  mon->seen_factor_time = 0.0;
  mon->factor_estimate = 0.0;
  mon->distributed = cpk_monitor_distributed(s);
  cpk_monitor_track(mon, NULL, NULL);
}

double cpk_monitor_elapsed(const cpk_monitor *mon) { return cpk_wtime() - mon->start; }

long cpk_monitor_max_iter(const cpk_monitor *mon) { return mon->max_iter; }

/* This rank's answer to cpk_monitor_fits. */
static int fits_here(const cpk_monitor *mon, double estimate)
{
  double limit = mon->settings->time_limit;
  if (!(limit > 0.0)) return 1;
  double left = limit - cpk_monitor_elapsed(mon);
  return left > 0.0 && !(estimate > left); /* a NaN estimate is no estimate, not a veto */
}

int cpk_monitor_fits(const cpk_monitor *mon, double estimate)
{
  return !agreed(mon, fits_here(mon, estimate) ? 0 : CPK_STATUS_TIME_LIMIT);
}

/* At least a nanosecond: a nested solve agreed to start never gets 0 (no limit). */
#define NESTED_LIMIT_MIN 1e-9

int cpk_monitor_nested_limit(const cpk_monitor *mon, double *limit)
{
  double given = mon->settings->time_limit;
  if (!cpk_monitor_fits(mon, 0.0)) return 0;
  *limit = given > 0.0 ? fmax(given - cpk_monitor_elapsed(mon), NESTED_LIMIT_MIN) : 0.0;
  return 1;
}

/*
 * The linear solver counts its factorizations and their total time; the time
 * of those made since the last look, per factorization, is the estimate of
 * the next one. Before any was seen during this solve, the mean over the
 * solver's life stands in (0 when there was none: only the clock decides).
 */
int cpk_monitor_before_factor(cpk_monitor *mon, const cpk_linsys *ls)
{
  cpk_linsys_stats st;
  cpk_linsys_get_stats(ls, &st);
  long made = st.factorizations - (mon->seen_factorizations < 0 ? 0 : mon->seen_factorizations);
  double spent = st.factor_time_s - mon->seen_factor_time;
  if (mon->seen_factorizations < 0) spent = st.factor_time_s;
  if (made > 0 && spent >= 0.0) mon->factor_estimate = spent / (double)made;
  mon->seen_factorizations = st.factorizations;
  mon->seen_factor_time = st.factor_time_s;
  return cpk_monitor_fits(mon, mon->factor_estimate) ? 0 : CPK_STATUS_TIME_LIMIT;
}

/* A plug-in's progress measure goes to the log's merit column. */
int cpk_monitor_iteration(cpk_monitor *mon, long iteration, double merit)
{
  return cpk_monitor_log(mon, iteration, NAN, merit, NAN, NAN, NULL);
}

/* This rank's answer to cpk_monitor_check. */
static int check_here(cpk_monitor *mon, long iteration, double merit, double elapsed)
{
  const cpk_settings *s = mon->settings;
  if (s->callback) {
    cpk_iteration_info info = {mon->solver, mon->offset + iteration, merit, elapsed};
    if (s->callback(&info, s->callback_data)) return CPK_STATUS_STALLED;
  }
  if (s->time_limit > 0.0 && elapsed > s->time_limit) return CPK_STATUS_TIME_LIMIT;
  if (iteration >= mon->max_iter) return CPK_STATUS_MAX_ITERATIONS;
  return 0;
}

int cpk_monitor_check(cpk_monitor *mon, long iteration, double merit, double elapsed)
{
  return agreed(mon, check_here(mon, iteration, merit, elapsed));
}
