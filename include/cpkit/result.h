/** result.h: solve statuses and the result object (solution, residual, statistics, ray, basis). @file */
#ifndef CPKIT_RESULT_H
#define CPKIT_RESULT_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>

CPK_BEGIN_DECLS

/** Outcome of a solve. The names (cpk_status_name) are the words used by the CLI and JSON. */
typedef enum cpk_status {
  CPK_STATUS_SOLVED = 0,          /**< "solved": natural residual <= tolerance, checked by the library */
  CPK_STATUS_NO_SOLUTION,         /**< "no_solution": proved (certificate checked, or exhaustive enumeration) */
  CPK_STATUS_RAY_TERMINATION,     /**< "ray_termination": a pivoting method ended on a ray; nothing proved */
  CPK_STATUS_MAX_ITERATIONS,      /**< "max_iterations" */
  CPK_STATUS_TIME_LIMIT,          /**< "time_limit" */
  CPK_STATUS_STALLED,             /**< "stalled": no progress, numerical failure, or stopped by the callback */
  CPK_STATUS_INVALID_INPUT        /**< "invalid_input": the solver refused the data */
} cpk_status;

#define CPK_STATUS_COUNT 7 /**< number of statuses (values 0 .. CPK_STATUS_COUNT - 1) */

/** "solved", "no_solution", ... */
CPK_API const char *cpk_status_name(cpk_status status);
/** Parse a status name; CPK_EINVAL if unknown. */
CPK_API int cpk_status_from_name(const char *name, cpk_status *status);

/** State of one variable in a basis (pivoting methods, warm starts). */
typedef enum cpk_var_state {
  CPK_VAR_AT_LOWER = 0, /**< z_i = l_i, nonbasic; F_i(z) >= 0 */
  CPK_VAR_AT_UPPER = 1, /**< z_i = u_i, nonbasic; F_i(z) <= 0 */
  CPK_VAR_BASIC = 2     /**< l_i <= z_i <= u_i, F_i(z) = 0 */
} cpk_var_state;

/** "lower", "upper", "basic". */
CPK_API const char *cpk_var_state_name(int state);

#define CPK_MAX_STATS 24 /**< capacity of cpk_result.stats */

/** One named solver statistic; `name` points to a string with static storage. */
typedef struct cpk_stat {
  const char *name; /**< e.g. "pivots" */
  double value;     /**< its value */
} cpk_stat;

/**
 * Result of a solve; allocate with cpk_result_alloc(n), reuse across solves of
 * the same size. Arrays z, w, basis and ray always have n entries; `has_basis`
 * and `has_ray` say whether basis and ray were filled by the last solve.
 */
typedef struct cpk_result {
  cpk_status status;   /**< outcome of the solve */
  size_t n;            /**< number of unknowns (length of z, w, basis, ray) */
  const char *solver;  /**< name of the solver that produced it (static string) */
  double *z;           /**< solution or last iterate */
  double *w;           /**< F(z), recomputed by the library after the solve */
  double residual;     /**< natural residual of (z, w), recomputed by the library */
  double tolerance;    /**< absolute tolerance `solved` was judged by */
  long iterations;     /**< pivots / iterations */
  double time_s;       /**< wall time of the solve */
  int *basis;          /**< final basis (cpk_var_state per variable) when has_basis */
  int has_basis;       /**< 1 when basis was filled by the last solve */
  double *ray;         /**< z-part of the terminal ray (ray_termination / no_solution by ray) when has_ray */
  int has_ray;         /**< 1 when ray was filled by the last solve */
  size_t nsolutions;   /**< enumeration: number of solutions found */
  double *solutions;   /**< enumeration: nsolutions * n values, row-major */
  size_t nstats;       /**< entries used in stats */
  cpk_stat stats[CPK_MAX_STATS]; /**< solver statistics (pivots, refactorizations, ...) */
  char message[256];   /**< one-line detail on the outcome, may be empty */
  size_t capacity;     /**< allocated length of z, w, ray and basis (>= n); see cpk_result_resize */
  size_t solutions_capacity; /**< doubles allocated in solutions (>= nsolutions * n): a re-solve that lists no more reuses them */
} cpk_result;

/** A result for problems of size n (CPK_ENOMEM, CPK_EOVERFLOW). */
CPK_API int cpk_result_alloc(size_t n, cpk_result **out);
/** Free (NULL is a no-op). */
CPK_API void cpk_result_free(cpk_result *r);
/**
 * Make r hold n unknowns, keeping its arrays when they are large enough (no allocation then):
 * a result can follow a problem whose size changes between solves. Resets r.
 */
CPK_API int cpk_result_resize(cpk_result *r, size_t n);
/** Forget the previous solve (status, flags, stats, solutions); keeps the arrays. */
CPK_API void cpk_result_reset(cpk_result *r);
/** Set (or overwrite) statistic `name` (a static string). CPK_ENOMEM when the table is full. */
CPK_API int cpk_result_set_stat(cpk_result *r, const char *name, double value);
/**
 * Set the n statistics of `list` (static names, pairwise distinct) as n calls of
 * cpk_result_set_stat would. When r holds no statistic yet (a solve's end after the
 * driver's cpk_result_reset) they are copied without a search by name. CPK_ENOMEM when the
 * table cannot hold them (then as many as fit are set).
 */
CPK_API int cpk_result_set_stats(cpk_result *r, const cpk_stat *list, size_t n);
/** Read statistic `name`; CPK_ENOTFOUND if absent. */
CPK_API int cpk_result_get_stat(const cpk_result *r, const char *name, double *value);
/** Append a copy of z (length n) to the list of solutions. */
CPK_API int cpk_result_add_solution(cpk_result *r, const double *z);

CPK_END_DECLS
#endif
