/* solver.c: the solve driver: validation, settings copy, timing, and the common residual check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/linsys.h>
#include <cpkit/parallel.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "findex.h"
#include "monitor.h"
#include "resolve.h"

struct cpk_solver {
  const cpk_solver_type *type;
  const cpk_solver_type *impl; /* type, or the friction-index encoding around it (findex.c) */
  const cpk_problem *problem; /* borrowed */
  cpk_settings settings;      /* copy; array fields point at the copies below */
  double *z0, *covering;
  int *basis0;
  unsigned char *modes;       /* the iteration log's state per unknown; verbose >= 2 only */
  void *state;
  resolve_seen seen; /* the problem's change counters when the state was built */
};

int cpk_solver_accepts(const cpk_solver_type *T, const cpk_problem *p)
{
  return (T->kinds & (unsigned)p->kind) != 0;
}

static int copy_array(void **dst, const void *src, size_t n, size_t size)
{
  if (!src) return CPK_OK;
  if (!*dst && !(*dst = cpk_alloc_array(n, size))) return CPK_ENOMEM;
  memcpy(*dst, src, n * size);
  return CPK_OK;
}

/* Copy the caller's arrays so no pointer into caller memory is kept past the call. */
static int own_settings(cpk_solver *s, const cpk_settings *given)
{
  size_t n = s->problem->n;
  s->settings = *given;
  if (copy_array((void **)&s->z0, given->z0, n, sizeof(double)) ||
      copy_array((void **)&s->basis0, given->basis0, n, sizeof(int)) ||
      copy_array((void **)&s->covering, given->lemke.covering, n, sizeof(double)))
    return CPK_ENOMEM;
  /* n + 1 bytes: a cone problem's nc contacts are fewer than its n unknowns, and n may be 0 */
  if (given->verbose >= 2 && !s->modes && !(s->modes = calloc(n + 1, 1))) return CPK_ENOMEM;
  s->settings.z0 = given->z0 ? s->z0 : NULL;
  s->settings.basis0 = given->basis0 ? s->basis0 : NULL;
  s->settings.lemke.covering = given->lemke.covering ? s->covering : NULL;
  return CPK_OK;
}

static int check_warm_start(size_t n, const double *z0, const int *basis0, const double *covering,
                            cpk_error *err)
{
  for (size_t i = 0; i < n; i++) {
    if (z0 && !isfinite(z0[i]))
      return cpk_error_set(err, CPK_EINVAL, "warm start z0[%zu] (1-based) is not finite", i + 1);
    if (basis0 && (basis0[i] < CPK_VAR_AT_LOWER || basis0[i] > CPK_VAR_BASIC))
      return cpk_error_set(err, CPK_EINVAL, "warm start basis[%zu] (1-based) is not a variable state", i + 1);
    if (covering && !(covering[i] > 0.0 && isfinite(covering[i])))
      return cpk_error_set(err, CPK_EINVAL, "covering vector entry %zu (1-based) must be positive", i + 1);
  }
  return CPK_OK;
}

/*
 * Solves under way on this thread: a solver may call the driver from inside its own
 * solve (nsn's nsgs restart, ipm's polish). Such a nested call must not start a new
 * run of agreements: a rank that learned of another rank's failure would forget it,
 * and its next agreement would wait for a rank that has left (review, 2 ranks).
 */
static _Thread_local int driver_depth;

/*
 * Before a distributed solver allocates or runs: a new run of agreements (outside any
 * solve only), and whole contacts per rank in the backend instances it allocates (p
 * NULL: the row group stays as it is, so ranks that refused p keep the same one).
 */
static void distributed_begin(const cpk_problem *p)
{
  if (driver_depth == 0) cpk_mpi_agree_reset();
  if (p) cpk_mpi_set_row_group(p->kind == CPK_KIND_FRICTION_CONE ? p->cone_dim : 1);
}

/* The outermost call returns: an error agreed in its run is not kept for direct backend calls. */
static int distributed_end(const cpk_settings *st, int rc)
{
  if (cpk_monitor_distributed(st) && driver_depth == 0) cpk_mpi_agree_end();
  return rc;
}

/*
 * With a petsc backend every rank returns the same code: a rank that failed here
 * would otherwise leave while the others wait in the backend's next collective
 * (which starts with the matching cpk_mpi_agree, see linsys_petsc.c).
 */
static int distributed_agree(const cpk_settings *st, int rc, cpk_error *err)
{
  if (!cpk_monitor_distributed(st)) return rc;
  int all = cpk_mpi_agree(rc);
  if (all && !rc) cpk_error_set(err, all, "failed on another MPI rank: %s", cpk_strerror(all));
  else if (all != rc && err) err->code = all; /* the code returned, this rank's message kept */
  return all;
}

/* cpk_solver_alloc once its arguments are checked. */
static int solver_alloc(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *settings,
                        cpk_solver **out, cpk_error *err)
{
  int rc;
  cpk_solver *s = calloc(1, sizeof *s);
  if (!s) {
    cpk_error_set(err, CPK_ENOMEM, "out of memory");
    return distributed_agree(settings, CPK_ENOMEM, err); /* the other ranks wait in it */
  }
  s->type = T;
  s->problem = p;
  rc = own_settings(s, settings);
  if (rc) cpk_error_set(err, rc, "out of memory");
  if (!rc) {
    rc = cpk_findex_bind(T, p, &s->settings, &s->impl, &s->state, err);
    if (rc && err && !err->message[0]) cpk_error_set(err, rc, "%s: %s", T->name, cpk_strerror(rc));
  }
  rc = distributed_agree(settings, rc, err);
  if (rc) {
    cpk_solver_free(s);
    return rc;
  }
  resolve_seen_set(&s->seen, p);
  *out = s;
  return CPK_OK;
}

/* cpk_solver_alloc's arguments, checked on this rank alone. */
static int check_alloc_args(const cpk_solver_type *T, const cpk_problem *p,
                            const cpk_settings *settings, cpk_error *err)
{
  int rc;
  if (!T || !p) return cpk_error_set(err, CPK_EINVAL, "no solver or no problem given");
  if ((rc = cpk_problem_validate(p, err))) return rc;
  if (!cpk_solver_accepts(T, p))
    return cpk_error_set(err, CPK_EUNSUP, "solver '%s' does not accept %s problems", T->name,
                         cpk_problem_kind_name(p->kind));
  if ((rc = cpk_settings_validate(settings, err))) return rc;
  return check_warm_start(p->n, settings->z0, settings->basis0, settings->lemke.covering, err);
}

/*
 * The arguments may differ between ranks (settings are per rank), so with a petsc
 * backend every rank agrees on their check before any rank makes a collective call:
 * a rank that refused them alone used to return while the others waited for it in
 * the solver's first backend call.
 */
int cpk_solver_alloc(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *settings,
                     cpk_solver **out, cpk_error *err)
{
  cpk_settings defaults;
  *out = NULL;
  cpk_error_clear(err);
  if (!settings) {
    cpk_settings_default(&defaults);
    settings = &defaults;
  }
  int rc = check_alloc_args(T, p, settings, err);
  if (!cpk_monitor_distributed(settings)) return rc ? rc : solver_alloc(T, p, settings, out, err);
  distributed_begin(NULL); /* the row group (global) only once every rank took p */
  rc = distributed_agree(settings, rc, err);
  if (!rc) distributed_begin(p);
  return distributed_end(settings, rc ? rc : solver_alloc(T, p, settings, out, err));
}

int cpk_solver_set_warm_start(cpk_solver *s, const double *z0, const int *basis0)
{
  size_t n = s->problem->n;
  int rc = check_warm_start(n, z0, basis0, NULL, NULL); /* refuse before installing anything */
  if (rc) return rc;
  if (copy_array((void **)&s->z0, z0, n, sizeof(double)) ||
      copy_array((void **)&s->basis0, basis0, n, sizeof(int)))
    return CPK_ENOMEM;
  s->settings.z0 = z0 ? s->z0 : NULL;
  s->settings.basis0 = basis0 ? s->basis0 : NULL;
  return CPK_OK;
}

/*
 * Judge the solver's answer by the common residual, whatever the solver said. With
 * a petsc backend (collective over the MPI ranks) the residual is reduced over the
 * ranks and `solved` must hold on every rank, so that every rank returns the same
 * status; other backends may run independent solves per rank and stay local.
 */
static void finish_result(const cpk_problem *p, const cpk_settings *st, cpk_result *r)
{
  int dist = cpk_monitor_distributed(st);
  int rc = dist ? cpk_mpi_residual(p, r->z, r->w, &r->residual)
                : cpk_problem_residual(p, r->z, r->w, &r->residual);
  r->tolerance = cpk_problem_tolerance(p, st->tol);
  int solved = r->status == CPK_STATUS_SOLVED;
  if (dist && !cpk_mpi_all(solved) && solved) { /* collective first; another rank's solver did not claim a solution */
    r->status = CPK_STATUS_STALLED;
    snprintf(r->message, sizeof r->message, "solved on this rank but not on every rank");
  }
  if (r->status == CPK_STATUS_SOLVED && (rc || !(r->residual <= r->tolerance))) {
    r->status = CPK_STATUS_STALLED;
    snprintf(r->message, sizeof r->message,
             "solver claimed a solution but the natural residual %.3g exceeds the tolerance %.3g",
             r->residual, r->tolerance);
  }
}

/* A method that caches problem data gets a fresh state when the problem changed (see resolve.c). */
static int refresh_state(cpk_solver *s, cpk_error *err)
{
  const cpk_problem *p = s->problem;
  if (resolve_refreshes_itself(s->type) || !resolve_changed(&s->seen, p)) return CPK_OK;
  if (s->state) s->impl->free(s->state);
  s->state = NULL;
  int rc = cpk_findex_bind(s->type, p, &s->settings, &s->impl, &s->state, err);
  if (rc && !(err && err->message[0])) cpk_error_set(err, rc, "%s: %s", s->type->name, cpk_strerror(rc));
  if (rc) return rc;
  resolve_seen_set(&s->seen, p);
  return CPK_OK;
}

/* cpk_solver_solve once its arguments are checked. */
static int solver_solve(cpk_solver *s, cpk_result *r, cpk_error *err)
{
  const cpk_problem *p = s->problem;
  cpk_monitor mon;
  int rc = distributed_agree(&s->settings, refresh_state(s, err), err);
  if (rc) return rc;
  cpk_result_reset(r);
  r->solver = s->type->name;
  long max_iter = s->settings.max_iter;
  if (max_iter == 0) max_iter = s->type->default_max_iter ? s->type->default_max_iter(p) : 1000;
  cpk_monitor_start(&mon, &s->settings, s->type->name, max_iter);
  cpk_monitor_track(&mon, p, s->modes);
  driver_depth++;
  rc = s->impl->solve(s->state, p, &s->settings, &mon, r);
  driver_depth--;
  r->time_s = cpk_monitor_elapsed(&mon);
  if (rc) /* the method's reason, when it gave one (a re-solve the updates made impossible) */
    cpk_error_set(err, rc, "%s: %s%s%s", s->type->name, cpk_strerror(rc), r->message[0] ? ": " : "",
                  r->message);
  if ((rc = distributed_agree(&s->settings, rc, err))) return rc;
  finish_result(p, &s->settings, r);
  if (s->settings.verbose >= 1)
    fprintf(s->settings.log ? s->settings.log : stderr,
            "%s: %s after %ld iterations, residual %.3g, %.3fs\n", s->type->name,
            cpk_status_name(r->status), r->iterations, r->residual, r->time_s);
  return CPK_OK;
}

/* A result refused on one rank is refused on every rank (as cpk_solver_alloc's arguments). */
int cpk_solver_solve(cpk_solver *s, cpk_result *r, cpk_error *err)
{
  cpk_error_clear(err);
  int rc = CPK_OK;
  if (!r || r->n != s->problem->n)
    rc = cpk_error_set(err, CPK_EINVAL, "result must be allocated for n = %zu", s->problem->n);
  if (!cpk_monitor_distributed(&s->settings)) return rc ? rc : solver_solve(s, r, err);
  distributed_begin(s->problem);
  rc = distributed_agree(&s->settings, rc, err);
  return distributed_end(&s->settings, rc ? rc : solver_solve(s, r, err));
}

const cpk_solver_type *cpk_solver_type_of(const cpk_solver *s) { return s->type; }

void cpk_solver_free(cpk_solver *s)
{
  if (!s) return;
  if (s->state) s->impl->free(s->state);
  free(s->z0);
  free(s->basis0);
  free(s->covering);
  free(s->modes);
  free(s);
}

int cpk_solve(const cpk_problem *p, const char *solver_name, const cpk_settings *settings,
              cpk_result *r, cpk_error *err)
{
  const cpk_solver_type *T = cpk_solver_find(solver_name);
  cpk_solver *s = NULL;
  if (!T) { /* the other ranks, if they know the name, agree in cpk_solver_alloc's check */
    int rc = cpk_error_set(err, CPK_ENOTFOUND, "unknown solver '%s'", solver_name ? solver_name : "");
    if (!settings || !cpk_monitor_distributed(settings)) return rc;
    distributed_begin(NULL);
    return distributed_end(settings, distributed_agree(settings, rc, err));
  }
  int rc = cpk_solver_alloc(T, p, settings, &s, err);
  if (!rc) rc = cpk_solver_solve(s, r, err);
  cpk_solver_free(s);
  return rc;
}
