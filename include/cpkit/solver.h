/** solver.h: the solver plug-in type (GSL style), the registry, and the solve driver. @file */
#ifndef CPKIT_SOLVER_H
#define CPKIT_SOLVER_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/linsys.h>
#include <cpkit/problem.h>
#include <cpkit/result.h>
#include <cpkit/settings.h>

CPK_BEGIN_DECLS

/**
 * Progress monitor handed to a solver's `solve`: it enforces the iteration
 * and time limits, calls the user callback and prints verbose lines. With a
 * petsc backend in the settings each of its decisions (cpk_monitor_iteration,
 * cpk_monitor_log, cpk_monitor_fits, cpk_monitor_before_factor) is agreed over
 * the MPI ranks (cpk_mpi_agree_stop, cpkit/parallel.h), so it is collective:
 * a solver makes these calls at the same points on every rank, as it does its
 * backend calls, and every rank gets the same answer.
 */
typedef struct cpk_monitor cpk_monitor;

/**
 * Report iteration `iteration` with progress measure `merit`. Returns 0 to
 * continue, or the status the solver must stop with (CPK_STATUS_MAX_ITERATIONS,
 * CPK_STATUS_TIME_LIMIT, or CPK_STATUS_STALLED when the callback asked to stop).
 * A stop status is returned as a positive int: `return` it through cpk_result.status.
 */
CPK_API int cpk_monitor_iteration(cpk_monitor *mon, long iteration, double merit);
/**
 * cpk_monitor_iteration with the figures of the verbose iteration log: at settings.verbose
 * >= 2 one line per call, the same columns for every solver (NAN: the method has no such
 * figure at this iteration): `residual` the natural residual, `merit` the method's merit
 * function (Lemke: the artificial variable), `comp` its complementarity part (ipm: mu),
 * `step` the step length taken, and from `z`, the iterate (NULL if not at hand), the count of
 * active unknowns (at a bound within tol; cone problems: contacts in contact) and of those
 * whose state (lower/between/upper; separated/sticking/sliding) changed since the last line.
 * The callback's merit is `residual`, or `merit` when `residual` is NAN.
 */
CPK_API int cpk_monitor_log(cpk_monitor *mon, long iteration, double residual, double merit,
                            double comp, double step, const double *z);
/** Seconds since the solve started. */
CPK_API double cpk_monitor_elapsed(const cpk_monitor *mon);
/** The iteration limit in force (settings.max_iter, or the solver's default when it was 0). */
CPK_API long cpk_monitor_max_iter(const cpk_monitor *mon);
/**
 * 1 when an operation estimated to take `estimate` seconds can end within the
 * time limit (always without a limit), 0 when the time left cannot cover it
 * or is spent. The clock is otherwise read only between iterations, so a
 * solver asks this before any operation that may take long and cannot be
 * interrupted, and stops with CPK_STATUS_TIME_LIMIT instead of starting it.
 */
CPK_API int cpk_monitor_fits(const cpk_monitor *mon, double estimate);
/**
 * Before a factorization with `ls`: 0 to go on, or CPK_STATUS_TIME_LIMIT when
 * the time left cannot cover one more factorization as long as the last ones
 * (measured by ls's statistics since the previous call; the mean of all its
 * factorizations at the first call, and no estimate before any). One linear
 * solver per solve. The run can still overrun the limit by the error of the
 * estimate, and by the first factorization, which has none.
 */
CPK_API int cpk_monitor_before_factor(cpk_monitor *mon, const cpk_linsys *ls);

/**
 * A solver method. `alloc` does all allocation (the problem's size and
 * structure are known); `solve` fills r->z, r->status, r->iterations, the
 * solver's stats and optionally basis/ray/solutions. The driver then
 * recomputes w and the residual itself and downgrades a `solved` claim that the
 * residual does not support. Adding a solver: one file defining a
 * `const cpk_solver_type *`, one line in solvers/registry.c.
 */
typedef struct cpk_solver_type {
  const char *name;        /**< e.g. "lemke" */
  const char *description; /**< one line for `cpkit solvers` */
  unsigned kinds;          /**< bitwise OR of accepted cpk_problem_kind */
  long (*default_max_iter)(const cpk_problem *p); /**< used when settings.max_iter == 0 */
  int (*alloc)(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err); /**< workspace for p */
  /** One solve into r. On an error code, r->message may say why (the driver appends it to the error's text). */
  int (*solve)(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r);
  void (*free)(void *state); /**< release the workspace */
} cpk_solver_type;

/** Registered solvers, by name (NULL if unknown). */
CPK_API const cpk_solver_type *cpk_solver_find(const char *name);
/** Number of registered solvers, and the i-th (NULL when out of range). */
CPK_API size_t cpk_solver_count(void);
/** The i-th registered solver (NULL when out of range). */
CPK_API const cpk_solver_type *cpk_solver_at(size_t i);
/** 1 if solver T accepts problems of this kind. */
CPK_API int cpk_solver_accepts(const cpk_solver_type *T, const cpk_problem *p);

/** A solver instance bound to one problem (borrowed: it must outlive the solver). */
typedef struct cpk_solver cpk_solver;

/**
 * Validate problem and settings (NULL = defaults), copy the settings, and let
 * the method allocate its workspace. CPK_EUNSUP if T does not take this kind.
 */
CPK_API int cpk_solver_alloc(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *s,
                             cpk_solver **out, cpk_error *err);
/**
 * Solve into r (allocated for p->n). Returns an error code only when the call
 * failed; the outcome is r->status. r->w and r->residual are always recomputed
 * here from r->z, so every solver is judged by the same residual.
 */
CPK_API int cpk_solver_solve(cpk_solver *s, cpk_result *r, cpk_error *err);
/** Replace the warm start (copied): z0 and/or basis0 may be NULL. */
CPK_API int cpk_solver_set_warm_start(cpk_solver *s, const double *z0, const int *basis0);
/** The type s was allocated with. */
CPK_API const cpk_solver_type *cpk_solver_type_of(const cpk_solver *s);
/** Free (NULL is a no-op). */
CPK_API void cpk_solver_free(cpk_solver *s);

/** One-call convenience: find the solver by name, alloc, solve, free. */
CPK_API int cpk_solve(const cpk_problem *p, const char *solver_name, const cpk_settings *s,
                      cpk_result *r, cpk_error *err);

/** @name The built-in methods (doc/solvers.md; also found by name with cpk_solver_find)
 * @{ */
CPK_API extern const cpk_solver_type *cpk_solver_lemke;    /**< Lemke's complementary pivoting (settings.lemke) */
CPK_API extern const cpk_solver_type *cpk_solver_enum;     /**< enumeration of complementary index sets, small n (settings.enumeration) */
CPK_API extern const cpk_solver_type *cpk_solver_bdnewton; /**< B-differentiable Newton on the min/mid map (settings.newton) */
CPK_API extern const cpk_solver_type *cpk_solver_fbnewton; /**< semismooth Newton on the Fischer-Burmeister function (settings.newton) */
CPK_API extern const cpk_solver_type *cpk_solver_pgs;      /**< projected Gauss-Seidel / SOR (settings.pgs) */
CPK_API extern const cpk_solver_type *cpk_solver_ipm;      /**< interior point (settings.ipm) */
/** Nonsmooth block Gauss-Seidel for friction-cone problems (settings.nsgs): see doc/solvers.md. */
CPK_API extern const cpk_solver_type *cpk_solver_nsgs;
/** Friction-cone problems: interior point on second-order cones, De Saxce term by a fixed point. */
CPK_API extern const cpk_solver_type *cpk_solver_fcipm;
/** Nonsmooth Newton on the Alart-Curnier function for friction-cone problems (settings.nsn). */
CPK_API extern const cpk_solver_type *cpk_solver_nsn;
/**
 * "nsn-rows": nsn's semismooth Newton with the friction-cone problem and the Newton
 * matrix distributed by rows over the MPI ranks (each rank its block of whole contacts,
 * cpkit/rows.h; its rows of H handed to the backend with cpk_linsys_factor_rows); r
 * replicated, decisions on merits reduced over the ranks; without nsn's shifted
 * matrices, non-monotone search and nsgs restarts (doc/petsc.md, seventh step). Uses
 * the settings' backend when it is a petsc one, else petsc. NULL, and not registered,
 * without PETSc.
 */
CPK_API extern const cpk_solver_type *cpk_solver_nsn_rows;
/** Proximal point around nsn for friction-cone problems with a singular W (settings.fcprox): W + rho I, q - rho r_k. */
CPK_API extern const cpk_solver_type *cpk_solver_fcprox;
/**
 * PETSc TAO's semismooth complementarity methods (TAOSSILS, TAOSSFLS, TAOASILS, TAOASFLS) on
 * LCPs and box MCPs, stopped by cpkit's natural residual: "tao-ssils", "tao-ssfls", "tao-asils",
 * "tao-asfls" (doc/petsc.md). NULL, and not registered, when cpkit was built without PETSc.
 */
CPK_API extern const cpk_solver_type *cpk_solver_tao_ssils;
CPK_API extern const cpk_solver_type *cpk_solver_tao_ssfls; /**< see cpk_solver_tao_ssils */
CPK_API extern const cpk_solver_type *cpk_solver_tao_asils; /**< see cpk_solver_tao_ssils */
CPK_API extern const cpk_solver_type *cpk_solver_tao_asfls; /**< see cpk_solver_tao_ssils */
/** @} */

CPK_END_DECLS
#endif
