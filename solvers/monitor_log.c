/* monitor_log.c: the verbose iteration log (settings.verbose >= 2): one table, the same columns for every solver. */
#include <math.h>
#include <stdio.h>
#include "monitor.h"

/*
 * Mode of unknown i (box problems: 0 between the bounds, 1 at the lower, 2 at the upper one,
 * within the solve's tolerance) or of contact i (cone problems: 0 separated, 1 sticking
 * inside the cone, 2 sliding on its boundary).
 */
static unsigned char mode_of(const cpk_problem *p, const double *z, size_t i, double tol)
{
  if (p->kind == CPK_KIND_FRICTION_CONE) {
    const double *r = z + i * p->cone_dim;
    if (!(r[0] > tol)) return 0;
    double t2 = 0.0;
    for (size_t k = 1; k < p->cone_dim && k < 3; k++) t2 += r[k] * r[k];
    return sqrt(t2) >= p->mu[i] * r[0] - tol ? 2 : 1;
  }
  if (p->lower && z[i] - p->lower[i] <= tol) return 1;
  if (p->upper && p->upper[i] - z[i] <= tol) return 2;
  return 0;
}

/* Active unknowns (contacts not separated) and changes of mode since the last line; -1 without z. */
static void count_modes(cpk_monitor *mon, const double *z, long *active, long *changes)
{
  const cpk_problem *p = mon->problem;
  *active = *changes = -1;
  if (!z || !p || !mon->modes) return;
  size_t m = p->kind == CPK_KIND_FRICTION_CONE ? p->nc : p->n;
  double tol = mon->settings->tol > 0.0 ? mon->settings->tol : 1e-8;
  *active = *changes = 0;
  for (size_t i = 0; i < m; i++) {
    unsigned char md = mode_of(p, z, i, tol);
    *active += md != 0;
    *changes += mon->modes_valid && md != mon->modes[i];
    mon->modes[i] = md;
  }
  if (!mon->modes_valid) *changes = -1; /* nothing to compare the first line with */
  mon->modes_valid = 1;
}

static void put_real(FILE *f, double v)
{
  if (isnan(v)) fprintf(f, " %11s", "-");
  else fprintf(f, " %11.4e", v);
}

static void put_count(FILE *f, long v)
{
  if (v < 0) fprintf(f, " %8s", "-");
  else fprintf(f, " %8ld", v);
}

static void log_line(cpk_monitor *mon, long iteration, const double fig[4], const double *z,
                     double elapsed)
{
  FILE *f = mon->settings->log ? mon->settings->log : stderr;
  long active, changes;
  count_modes(mon, z, &active, &changes);
  if (!mon->log_header_done) {
    fprintf(f, "%s: %6s %11s %11s %11s %11s %8s %8s %9s\n", mon->solver, "iter", "residual",
            "merit", "comp", "step", "active", "changes", "time");
    mon->log_header_done = 1;
  }
  fprintf(f, "%s: %6ld", mon->solver, mon->offset + iteration);
  for (int k = 0; k < 4; k++) put_real(f, fig[k]);
  put_count(f, active);
  put_count(f, changes);
  fprintf(f, " %8.3fs\n", elapsed);
}

void cpk_monitor_track(cpk_monitor *mon, const cpk_problem *p, unsigned char *modes)
{
  mon->problem = p;
  mon->modes = modes;
  mon->modes_valid = 0;
  mon->log_header_done = 0;
}

int cpk_monitor_log(cpk_monitor *mon, long iteration, double residual, double merit, double comp,
                    double step, const double *z)
{
  const cpk_settings *s = mon->settings;
  /* the clock only for what reads it (a stepper's solve logs every iteration) */
  double elapsed = s->verbose >= 2 || s->callback || s->time_limit > 0.0 ? cpk_monitor_elapsed(mon)
                                                                          : 0.0;
  if (s->verbose >= 2) log_line(mon, iteration, (const double[4]){residual, merit, comp, step}, z, elapsed);
  return cpk_monitor_check(mon, iteration, isnan(residual) ? merit : residual, elapsed);
}
