/* settings.c: default solver settings and their validation. */
#include <math.h>
#include <string.h>
#include <cpkit/settings.h>

void cpk_settings_default(cpk_settings *s)
{
  memset(s, 0, sizeof *s);
  s->tol = CPK_DEFAULT_TOL;
  s->lemke.pivot_tol = CPK_DEFAULT_LEMKE_PIVOT_TOL;
  s->lemke.refactor_interval = CPK_DEFAULT_LEMKE_REFACTOR;
  s->enumeration.max_n = CPK_DEFAULT_ENUM_MAX_N;
  s->pgs.omega = 1.0;
  s->ipm.crossover = 1;
  s->newton.fb_lambda = CPK_DEFAULT_NEWTON_FB_LAMBDA;
  s->newton.proximal = CPK_DEFAULT_NEWTON_PROXIMAL;
  s->newton.watchdog = CPK_DEFAULT_NEWTON_WATCHDOG;
  s->newton.restarts = CPK_DEFAULT_NEWTON_RESTARTS;
  s->newton.crash = CPK_DEFAULT_NEWTON_CRASH;
  s->nsgs.omega = 1.0;
  s->nsgs.local_tol = CPK_DEFAULT_NSGS_LOCAL_TOL;
  s->nsgs.local_max_iter = CPK_DEFAULT_NSGS_LOCAL_MAX_ITER;
  s->nsgs.polish = 1;
  s->nsgs.handoff = CPK_DEFAULT_NSGS_HANDOFF;
  s->fcipm.step_fraction = CPK_DEFAULT_FCIPM_STEP;
  s->fcipm.refresh_ratio = CPK_DEFAULT_FCIPM_REFRESH;
  s->fcipm.linearize = 1;
  s->fcipm.finish = CPK_DEFAULT_FCIPM_FINISH;
  s->nsn.rho = CPK_NSN_RHO_SPLIT;
  s->nsn.nonmonotone = CPK_DEFAULT_NSN_NONMONOTONE;
  s->nsn.restart = 1;
  s->nsn.restart_sweeps = CPK_DEFAULT_NSN_RESTART_SWEEPS;
  s->fcprox.sigma = CPK_DEFAULT_FCPROX_SIGMA;
  s->fcprox.inner_max_iter = CPK_DEFAULT_FCPROX_INNER_MAX_ITER;
  s->resolve.warm = 1;
}

static int validate_nsn(const cpk_settings *s, cpk_error *err)
{
  if (s->nsn.rho < CPK_NSN_RHO_SPLIT || s->nsn.rho > CPK_NSN_RHO_UNIT)
    return cpk_error_set(err, CPK_EINVAL,
                         "nsn rho policy must be 0 (split), 1 (spectral) or 2 (unit) (got %d)",
                         s->nsn.rho);
  if (s->nsn.nonmonotone < 0 || s->nsn.nonmonotone > CPK_MAX_NEWTON_NONMONOTONE)
    return cpk_error_set(err, CPK_EINVAL,
                         "nsn non-monotone memory must be in 1..%d, or 0 for the default (got %d)",
                         CPK_MAX_NEWTON_NONMONOTONE, s->nsn.nonmonotone);
  if (s->nsn.restart != 0 && s->nsn.restart != 1)
    return cpk_error_set(err, CPK_EINVAL, "nsn restart must be 0 or 1 (got %d)", s->nsn.restart);
  if (s->nsn.restart_sweeps < 0)
    return cpk_error_set(err, CPK_EINVAL, "nsn restart sweeps must be >= 1, or 0 for the default (got %ld)",
                         s->nsn.restart_sweeps);
  return CPK_OK;
}

/* The friction-cone solvers' sub-structs. */
static int validate_nsgs(const cpk_settings *s, cpk_error *err)
{
  if (!(s->nsgs.omega > 0.0 && s->nsgs.omega < 2.0))
    return cpk_error_set(err, CPK_EINVAL, "nsgs relaxation factor must be in (0, 2) (got %g)",
                         s->nsgs.omega);
  if (!(s->nsgs.local_tol > 0.0 && s->nsgs.local_tol < 1.0))
    return cpk_error_set(err, CPK_EINVAL, "nsgs local tolerance must be in (0, 1) (got %g)",
                         s->nsgs.local_tol);
  if (s->nsgs.local_max_iter < 1 || s->nsgs.local_max_iter > CPK_MAX_NSGS_LOCAL_MAX_ITER)
    return cpk_error_set(err, CPK_EINVAL, "nsgs local iteration limit must be in 1..%ld (got %ld)",
                         (long)CPK_MAX_NSGS_LOCAL_MAX_ITER, s->nsgs.local_max_iter);
  if (s->nsgs.polish != 0 && s->nsgs.polish != 1)
    return cpk_error_set(err, CPK_EINVAL, "nsgs polish must be 0 or 1 (got %d)", s->nsgs.polish);
  if (!(s->nsgs.handoff >= 0.0 && s->nsgs.handoff < INFINITY))
    return cpk_error_set(err, CPK_EINVAL, "nsgs handoff must be finite and >= 0 (got %g)",
                         s->nsgs.handoff);
  return CPK_OK;
}

static int validate_fcipm(const cpk_settings *s, cpk_error *err)
{
  if (!(s->fcipm.step_fraction > 0.0 && s->fcipm.step_fraction < 1.0))
    return cpk_error_set(err, CPK_EINVAL, "fcipm step fraction must be in (0, 1) (got %g)",
                         s->fcipm.step_fraction);
  if (!(s->fcipm.refresh_ratio >= 0.0 && isfinite(s->fcipm.refresh_ratio)))
    return cpk_error_set(err, CPK_EINVAL, "fcipm refresh ratio must be finite and >= 0 (got %g)",
                         s->fcipm.refresh_ratio);
  if (s->fcipm.linearize != 0 && s->fcipm.linearize != 1)
    return cpk_error_set(err, CPK_EINVAL, "fcipm linearize must be 0 or 1 (got %d)", s->fcipm.linearize);
  if (s->fcipm.finish != CPK_FCIPM_FINISH_OFF && s->fcipm.finish != CPK_FCIPM_FINISH_NSN)
    return cpk_error_set(err, CPK_EINVAL, "fcipm finish must be %d (off) or %d (nsn) (got %d)",
                         CPK_FCIPM_FINISH_OFF, CPK_FCIPM_FINISH_NSN, s->fcipm.finish);
  return CPK_OK;
}

int cpk_settings_validate(const cpk_settings *s, cpk_error *err)
{
  int rc;
  if (!(s->tol > 0.0) || !isfinite(s->tol))
    return cpk_error_set(err, CPK_EINVAL, "tolerance must be positive and finite (got %g)", s->tol);
  if (s->max_iter < 0)
    return cpk_error_set(err, CPK_EINVAL, "iteration limit must be >= 0 (got %ld)", s->max_iter);
  if (!(s->time_limit >= 0.0))
    return cpk_error_set(err, CPK_EINVAL, "time limit must be >= 0 (got %g)", s->time_limit);
  if (!(s->lemke.pivot_tol > 0.0) || s->lemke.pivot_tol >= 1.0)
    return cpk_error_set(err, CPK_EINVAL, "lemke pivot tolerance must be in (0, 1) (got %g)",
                         s->lemke.pivot_tol);
  if (s->lemke.refactor_interval < 1)
    return cpk_error_set(err, CPK_EINVAL, "lemke refactorization interval must be >= 1 (got %ld)",
                         s->lemke.refactor_interval);
  if (s->newton.nonmonotone < 0 || s->newton.nonmonotone > CPK_MAX_NEWTON_NONMONOTONE)
    return cpk_error_set(err, CPK_EINVAL, "newton non-monotone memory must be in 0..%d (got %d)",
                         CPK_MAX_NEWTON_NONMONOTONE, s->newton.nonmonotone);
  if (!(s->newton.fb_lambda >= 0.0 && s->newton.fb_lambda <= 1.0))
    return cpk_error_set(err, CPK_EINVAL,
                         "fbnewton lambda must be in (0, 1], or 0 for the default (got %g)",
                         s->newton.fb_lambda);
  if (!(s->newton.proximal >= 0.0) || !isfinite(s->newton.proximal))
    return cpk_error_set(err, CPK_EINVAL, "newton proximal scale must be >= 0 and finite (got %g)",
                         s->newton.proximal);
  if (s->newton.watchdog < 0 || s->newton.crash < 0)
    return cpk_error_set(err, CPK_EINVAL, "newton watchdog and crash steps must be >= 0 (got %d, %d)",
                         s->newton.watchdog, s->newton.crash);
  if (s->newton.restarts < 0 || s->newton.restarts > CPK_MAX_NEWTON_RESTARTS)
    return cpk_error_set(err, CPK_EINVAL, "newton restarts must be in 0..%d (got %d)",
                         CPK_MAX_NEWTON_RESTARTS, s->newton.restarts);
  if (s->ipm.method < CPK_IPM_AUTO || s->ipm.method > CPK_IPM_POTENTIAL)
    return cpk_error_set(err, CPK_EINVAL,
                         "ipm method must be 0 (auto), 1 (path following) or 2 (potential "
                         "reduction) (got %d)",
                         s->ipm.method);
  if (s->ipm.crossover != 0 && s->ipm.crossover != 1)
    return cpk_error_set(err, CPK_EINVAL, "ipm crossover must be 0 or 1 (got %d)", s->ipm.crossover);
  if (!(s->pgs.omega > 0.0 && s->pgs.omega < 2.0))
    return cpk_error_set(err, CPK_EINVAL, "pgs relaxation factor must be in (0, 2) (got %g)",
                         s->pgs.omega);
  if ((rc = validate_nsgs(s, err)) || (rc = validate_fcipm(s, err))) return rc;
  return validate_nsn(s, err);
}
