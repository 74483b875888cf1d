/** settings.h: options common to all solvers, with per-method sub-structs and defaults. @file */
#ifndef CPKIT_SETTINGS_H
#define CPKIT_SETTINGS_H
#include <stddef.h>
#include <stdio.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>

CPK_BEGIN_DECLS

struct cpk_linsys_type;

/** What a solver reports at every iteration to the callback. */
typedef struct cpk_iteration_info {
  const char *solver; /**< solver name */
  long iteration;     /**< 1, 2, ... */
  double merit;       /**< the solver's progress measure (e.g. artificial variable for Lemke) */
  double elapsed_s;   /**< wall time since the solve started */
} cpk_iteration_info;

/** Iteration callback: return 0 to continue, non-zero to stop the solve (status `stalled`). */
typedef int (*cpk_iteration_callback)(const cpk_iteration_info *info, void *data);

#define CPK_DEFAULT_TOL 1e-8 /**< default of tol */
#define CPK_DEFAULT_LEMKE_PIVOT_TOL 1e-9 /**< default of lemke.pivot_tol */
#define CPK_DEFAULT_LEMKE_REFACTOR 100 /**< default of lemke.refactor_interval */
#define CPK_DEFAULT_ENUM_MAX_N 20 /**< default of enumeration.max_n */
#define CPK_DEFAULT_NEWTON_FB_LAMBDA 0.95 /**< default of newton.fb_lambda */
#define CPK_MAX_NEWTON_NONMONOTONE 64 /**< largest newton.nonmonotone */
#define CPK_DEFAULT_NSGS_LOCAL_TOL 1e-12 /**< default of nsgs.local_tol */
#define CPK_DEFAULT_NSGS_LOCAL_MAX_ITER 50 /**< default of nsgs.local_max_iter */
#define CPK_MAX_NSGS_LOCAL_MAX_ITER 1000000 /**< largest nsgs.local_max_iter */
#define CPK_DEFAULT_NSGS_HANDOFF 2.0 /**< default of nsgs.handoff */
#define CPK_DEFAULT_FCIPM_STEP 0.99 /**< default of fcipm.step_fraction */
#define CPK_DEFAULT_FCIPM_REFRESH 0.0 /**< default of fcipm.refresh_ratio */
#define CPK_FCIPM_FINISH_OFF 0 /**< fcipm.finish: fcipm's own answer */
#define CPK_FCIPM_FINISH_NSN 1 /**< fcipm.finish: nsn from fcipm's best iterate when it stops short */
#define CPK_DEFAULT_FCIPM_FINISH CPK_FCIPM_FINISH_NSN /**< default of fcipm.finish */
#define CPK_DEFAULT_NEWTON_PROXIMAL 1.0 /**< default of newton.proximal */
#define CPK_DEFAULT_NEWTON_WATCHDOG 5 /**< default of newton.watchdog */
#define CPK_DEFAULT_NEWTON_RESTARTS 5 /**< default of newton.restarts */
#define CPK_DEFAULT_NEWTON_CRASH 20 /**< default of newton.crash */
#define CPK_MAX_NEWTON_RESTARTS 100 /**< largest newton.restarts */
#define CPK_IPM_AUTO 0 /**< ipm.method: path following for affine problems, potential reduction otherwise */
#define CPK_IPM_PATH_FOLLOWING 1 /**< ipm.method: primal-dual path following (affine problems) */
#define CPK_IPM_POTENTIAL 2 /**< ipm.method: potential reduction */
#define CPK_NSN_RHO_SPLIT 0 /**< nsn.rho: rho_n = 1/W_nn, rho_t = 1/||W_TT||_2 */
#define CPK_NSN_RHO_SPECTRAL 1 /**< nsn.rho: rho = 1/||W_cc||_2 */
#define CPK_NSN_RHO_UNIT 2 /**< nsn.rho: rho = 1 */
#define CPK_DEFAULT_NSN_NONMONOTONE 10 /**< default of nsn.nonmonotone */
#define CPK_DEFAULT_NSN_RESTART_SWEEPS 100 /**< default of nsn.restart_sweeps */
#define CPK_DEFAULT_FCPROX_SIGMA 1e-2 /**< default of fcprox.sigma */
#define CPK_DEFAULT_FCPROX_INNER_MAX_ITER 20 /**< default of fcprox.inner_max_iter */

/**
 * Solver settings. Fill with cpk_settings_default(), then change fields.
 * Arrays (z0, basis0, lemke.covering) are copied by cpk_solver_alloc; the
 * library keeps no pointer into them after that call.
 */
typedef struct cpk_settings {
  double tol;          /**< natural-residual tolerance, scaled by max(1, ||q||_inf) for affine problems */
  long max_iter;       /**< iteration / pivot limit; 0 lets the solver choose (lemke: 50 n + 1000). nsgs's and fcipm's finishing nsn (nsgs.polish, fcipm.finish) gets what is left of it but at least 50 iterations, so a solve stopped by this limit can go on up to 50 nsn iterations further (counted in the result's iterations; the time limit is never exceeded) */
  double time_limit;   /**< seconds; 0 = no limit */
  int verbose;         /**< 0 silent, 1 summary, 2 one line per iteration */
  FILE *log;           /**< where verbose output goes (NULL = stderr) */
  const double *z0;    /**< warm-start point (length n) or NULL */
  const int *basis0;   /**< warm-start basis (cpk_var_state per variable) or NULL; wins over z0 for pivoting methods */
  cpk_iteration_callback callback; /**< called every iteration, or NULL */
  void *callback_data; /**< passed to callback */
  const struct cpk_linsys_type *linsys; /**< linear solver; NULL = automatic (dense for dense M or small n, UMFPACK otherwise) */
  struct {
    const double *covering;  /**< covering vector d > 0 (length n) or NULL for all ones */
    double pivot_tol;        /**< smallest |pivot| accepted, relative to the column's max */
    long refactor_interval;  /**< basis updates between fresh factorizations (sparse path) */
  } lemke;                   /**< lemke's options */
  struct {
    size_t max_n;            /**< refuse larger problems (default 20) */
  } enumeration;             /**< enum's options */
  struct {
    double omega;            /**< relaxation factor in (0, 2): 1 = Gauss-Seidel (default), > 1 SOR */
  } pgs;                     /**< pgs's options */
  struct {
    int nonmonotone;         /**< bdnewton/fbnewton: merit values the Armijo test compares with (max of the last m, Grippo-Lampariello-Lucidi); 0 or 1 = monotone (default), at most CPK_MAX_NEWTON_NONMONOTONE */
    double fb_lambda;        /**< fbnewton: weight lambda in (0, 1] of the penalised Fischer-Burmeister function (1 = plain FB); 0 = default 0.95 */
    double proximal;         /**< bdnewton/fbnewton: scale c >= 0 of the proximal perturbation J + lambda I tried when the Newton matrix is singular or its direction fails, J + lambda |diag J|, lambda = rho c min(1, |Phi|_2); 0 = never (default 1) */
    int watchdog;            /**< bdnewton/fbnewton: with a non-monotone search (nonmonotone > 1), iterations without a new best merit after which the iterate returns to the best point (default 5, 0 = never) */
    int restarts;            /**< bdnewton/fbnewton: restarts from perturbed points after a stall, before giving up (default 5, 0 = none, at most CPK_MAX_NEWTON_RESTARTS) */
    int crash;               /**< bdnewton/fbnewton: projected-gradient steps of the crash phase run from a start whose merit is poor, and from every restart point (default 20, 0 = none) */
  } newton;                  /**< bdnewton's and fbnewton's options */
  struct {
    int method;              /**< ipm: CPK_IPM_AUTO (default: path following for affine problems, potential reduction for nonlinear), CPK_IPM_PATH_FOLLOWING (affine only), CPK_IPM_POTENTIAL */
    int crossover;           /**< ipm: 1 (default) = when close, finish with a Newton step on the identified active set, kept only if the residual improves; 0 = pure interior iterates */
  } ipm;                     /**< ipm's options */
  struct {
    double omega;            /**< nsgs: relaxation of each contact's update, in (0, 2): 1 = plain Gauss-Seidel (default) */
    double local_tol;        /**< nsgs: target of the one-contact solver on the contact's natural map, relative to max(1, ||q||_inf) as tol is; tol / 10 is used when smaller (default 1e-12) */
    long local_max_iter;     /**< nsgs: Newton iterations of the one-contact solver per start (default 50, at most CPK_MAX_NSGS_LOCAL_MAX_ITER; its projection fallback gets 20 times as many) */
    int polish;              /**< nsgs: 1 (default) = when the sweeps end short of the tolerance by themselves (iteration limit, stall), finish with up to 50 iterations of the registered "nsn" (no restarts) from the best sweep; 0 = never */
    double handoff;          /**< nsgs, with polish: every 50 sweeps, when the best residual's geometric rate over the last 50 says that reaching the tolerance takes more than handoff times the sweeps left before max_iter, run the finish at once; kept only when it solves, else the sweeps go on from where they were (one try a solve). 0 = never (sweeps run to max_iter); default CPK_DEFAULT_NSGS_HANDOFF */
  } nsgs;                    /**< nsgs's options */
  struct {
    double step_fraction;    /**< fcipm: fraction in (0, 1) of the way to the cones' boundary a step goes (default 0.99) */
    double refresh_ratio;    /**< fcipm: the De Saxce terms s = mu |u_T| are refreshed when the inner (convex) problem's error is at most this times the change of s; 0 = at every iteration (default CPK_DEFAULT_FCIPM_REFRESH); used when linearize = 0 */
    int linearize;           /**< fcipm: 1 (default) = the Newton matrix carries the derivative of the De Saxce term (s refreshed every iteration; faster, K nonsymmetric); 0 = plain fixed point on s */
    int finish;              /**< fcipm: CPK_FCIPM_FINISH_NSN = when the iterations end short of the tolerance by themselves (stall, iteration limit), continue with the registered "nsn" (its restarts from nsgs as settings.nsn.restart says) from the best iterate, for the iterations left of max_iter (at least 50) and the time left; its answer is kept when its residual is lower. CPK_FCIPM_FINISH_OFF = never. Default CPK_DEFAULT_FCIPM_FINISH */
  } fcipm;                   /**< fcipm's options */
  struct {
    int rho;                 /**< nsn: per-contact rho of the Alart-Curnier function: CPK_NSN_RHO_SPLIT (default: rho_n = 1/W_nn, rho_t = 1/||W_TT||_2 of the contact's diagonal block), CPK_NSN_RHO_SPECTRAL (rho_n = rho_t = 1/||W_cc||_2), CPK_NSN_RHO_UNIT (rho = 1: depends on the units) */
    int nonmonotone;         /**< nsn: merit values the Armijo test compares with (max of the last m, Grippo-Lampariello-Lucidi); 1 = monotone; 0 = default CPK_DEFAULT_NSN_NONMONOTONE; at most CPK_MAX_NEWTON_NONMONOTONE */
    int restart;             /**< nsn: 1 (default) = when the merit stalls, run the registered "nsgs" solver from the current point and continue from its answer; 0 = never */
    long restart_sweeps;     /**< nsn: nsgs sweeps per restart; 0 = default CPK_DEFAULT_NSN_RESTART_SWEEPS */
  } nsn;                     /**< nsn's options */
  struct {
    double sigma;            /**< fcprox: the first proximal weight rho = sigma * max_i W_ii (default CPK_DEFAULT_FCPROX_SIGMA, > 0); rho then adapts */
    long inner_max_iter;     /**< fcprox: nsn iterations per proximal problem (default CPK_DEFAULT_FCPROX_INNER_MAX_ITER, > 0) */
  } fcprox;                  /**< fcprox's options (proximal point around nsn) */
  struct {
    int warm;                /**< re-solves by a bound solver (cpk_solver_solve again, after cpk_problem_update_*): 1 (default) = lemke starts from its last basis, pgs, bdnewton and fbnewton from their last point, when no z0/basis0 is set and the last solve succeeded; 0 = every solve starts as the first did */
  } resolve;                 /**< re-solves by a bound solver */
} cpk_settings;

/** Type of a setting's field in cpk_settings (cpk_setting_desc). */
typedef enum cpk_setting_type {
  CPK_SETTING_DOUBLE, /**< double */
  CPK_SETTING_LONG,   /**< long */
  CPK_SETTING_INT,    /**< int */
  CPK_SETTING_SIZE    /**< size_t */
} cpk_setting_type;

/**
 * A number in cpk_settings that can be set by name: the table the CLI's `--set` and the
 * Python package's keyword settings read (pointers, callbacks and the linear solver are not
 * in it). Names are the field's, without its sub-struct ("rho" is nsn.rho).
 */
typedef struct cpk_setting_desc {
  const char *solver;    /**< the solver that reads it, NULL: every solver (tol, max_iter, ...) */
  const char *name;      /**< its name */
  size_t offset;         /**< of the field in cpk_settings */
  cpk_setting_type type; /**< of the field */
} cpk_setting_desc;

/** Number of entries of the settings table (cpk_settings_at). */
CPK_API size_t cpk_settings_count(void);
/** Entry i of the settings table (NULL when i >= cpk_settings_count()). */
CPK_API const cpk_setting_desc *cpk_settings_at(size_t i);
/** Setting `name` as solver `solver` reads it (a common one or the solver's own), or NULL. */
CPK_API const cpk_setting_desc *cpk_settings_find(const char *solver, const char *name);
/**
 * Set one setting from text, `NAME=VALUE` for a common one (`tol=1e-10`) or
 * `SOLVER.NAME=VALUE` for a solver's own (`nsn.rho=1`): the value must be a whole number
 * for integer fields and a finite or infinite number for doubles. CPK_EINVAL with a message
 * naming what is wrong (and the solver's settings for an unknown name); s is unchanged then.
 * The value's range is not checked here: cpk_settings_validate (which every solver calls)
 * does.
 */
CPK_API int cpk_settings_parse(cpk_settings *s, const char *assignment, cpk_error *err);

/** Defaults: tol 1e-8, no time limit, silent, automatic linear solver. */
CPK_API void cpk_settings_default(cpk_settings *s);
/** CPK_EINVAL with a message for a negative or NaN tolerance, negative limits, ... */
CPK_API int cpk_settings_validate(const cpk_settings *s, cpk_error *err);

CPK_END_DECLS
#endif
