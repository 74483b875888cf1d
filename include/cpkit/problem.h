/** problem.h: the problem objects (LCP, affine MCP, nonlinear MCP, frictional-contact cone problem) and the common residual. @file */
#ifndef CPKIT_PROBLEM_H
#define CPKIT_PROBLEM_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/matrix.h>

CPK_BEGIN_DECLS

/**
 * Problem kinds. The first three are the box MCP: find l <= z <= u with, for each i,
 *   z_i = l_i => F_i(z) >= 0,  z_i = u_i => F_i(z) <= 0,  l_i < z_i < u_i => F_i(z) = 0.
 * The fourth is FCLIB's local frictional-contact problem (see cpk_problem_alloc_friction_cone).
 * Values are bits so a solver can declare the set of kinds it accepts.
 */
typedef enum cpk_problem_kind {
  CPK_KIND_LCP = 1,           /**< F(z) = Mz + q, l = 0, u = +inf */
  CPK_KIND_AFFINE_MCP = 2,    /**< F(z) = Mz + q, general bounds (free variables: l = -inf, u = +inf) */
  CPK_KIND_NONLINEAR_MCP = 4, /**< F and its Jacobian given by callbacks */
  CPK_KIND_FRICTION_CONE = 8  /**< u = W r + q, r in K_mu, u + mu|u_T| e_n in K_mu*, r . (...) = 0 */
} cpk_problem_kind;

/** Nonlinear F: write F(z) into f (length n); return 0, or non-zero on failure. */
typedef int (*cpk_function)(const double *z, double *f, void *params);
/**
 * Jacobian of F at z: write the values J->x for the fixed pattern given at
 * construction (J->p and J->i already hold it and must not be changed).
 */
typedef int (*cpk_jacobian)(const double *z, cpk_csc *J, void *params);

/**
 * A box-constrained MCP. The object owns every array below (constructors copy
 * their inputs), except `params`, which is the caller's and must outlive it.
 * Read the fields freely; change them only through the functions below.
 */
typedef struct cpk_problem {
  cpk_problem_kind kind; /**< which problem this is */
  size_t n;           /**< number of unknowns */
  char *name;         /**< optional, NULL if unnamed */
  cpk_matrix *M;      /**< affine kinds: n-by-n */
  double *q;          /**< affine kinds: length n */
  double *lower;      /**< length n, -INFINITY allowed */
  double *upper;      /**< length n, +INFINITY allowed */
  cpk_function F;     /**< nonlinear kind */
  cpk_jacobian jacobian; /**< nonlinear kind: Jacobian of F on jac_pattern */
  cpk_csc *jac_pattern; /**< nonlinear kind: sparsity pattern of the Jacobian (copied) */
  void *params;         /**< nonlinear kind: passed to F and jacobian (borrowed) */
  char **var_names;     /**< NULL, or n names (entries may be NULL) */
  /* friction-cone kind: M is W, q the free velocity; z = r, F(z) = u = W r + q */
  size_t nc;            /**< number of contacts (n = cone_dim * nc) */
  size_t cone_dim;      /**< unknowns per contact: 2, 3 (n, t, o) or 4 (n, t, o, twist) */
  double *mu;           /**< nc friction coefficients, >= 0 */
  /* friction-index (boxed) rows, as physics engines pass them (ODE/Bullet findex, limitDependency):
     where findex[i] >= 0 the bounds of z_i are -fcoef[i] z_j <= z_i <= fcoef[i] z_j with j = findex[i]
     (lower[i], upper[i] are then ignored). Set with cpk_problem_set_friction_index. */
  int *findex;          /**< NULL, or n entries: -1 (plain row) or the 0-based index j of the scaling row */
  double *fcoef;        /**< with findex: the coefficient c_i >= 0 of each friction-index row */
  /** NULL, or n positive numbers: the size of row i (of F_i, and of z_i when it is bounded, in
      the same unit), set with cpk_problem_set_row_scale. Solvers that add squares of rows (the
      merits of bdnewton and fbnewton) divide row i by it, so that a problem whose rows are in
      two units (impulses and velocities) is judged the same in any units. */
  double *row_scale;
  /** Change counters, bumped by the cpk_problem_update_* functions: a solver bound to the problem
      compares them with the values it saw last to know what to refresh before a re-solve. */
  struct {
    unsigned long q;      /**< q (or the cone problem's free velocity) */
    unsigned long bounds; /**< lower, upper, fcoef */
    unsigned long values; /**< the values of M (the pattern never changes) */
    unsigned long mu;     /**< friction coefficients of the cone problem */
    unsigned long params; /**< the nonlinear problem's parameters (cpk_problem_touch_params) */
  } rev;
} cpk_problem;

/** LCP: find z >= 0 with w = Mz + q >= 0 and z'w = 0. M (n-by-n) and q are copied. */
CPK_API int cpk_problem_alloc_lcp(const cpk_matrix *M, const double *q, cpk_problem **out);
/** Affine box MCP with F(z) = Mz + q. lower/upper may be NULL (0 and +inf). */
CPK_API int cpk_problem_alloc_affine_mcp(const cpk_matrix *M, const double *q, const double *lower,
                                         const double *upper, cpk_problem **out);
/** Nonlinear box MCP. The pattern is copied; params is borrowed. lower/upper as above. */
CPK_API int cpk_problem_alloc_nonlinear_mcp(size_t n, cpk_function F, cpk_jacobian jacobian,
                                            const cpk_csc *jac_pattern, void *params,
                                            const double *lower, const double *upper,
                                            cpk_problem **out);
/**
 * FCLIB's local frictional-contact problem (De Saxce's form of the Coulomb law):
 * with u = W r + q, per contact c the block r_c = (r_n, r_T) of `dim` unknowns
 * (normal first, then dim - 1 tangential ones), find
 *   r_c in K_c = { |r_T| <= mu_c r_n },  u^_c = u_c + mu_c |u_T| e_n in K_c*,  r_c . u^_c = 0.
 * dim 3 is the Coulomb cone (n, t, o); dim 4 adds a twist (the elliptic cone with
 * torsion of seeds 000/003 becomes this isotropic cone after scaling each tangential
 * row by its ellipsoid semi-axis: see doc/formulations.md); dim 2 is the planar case.
 * W (n-by-n, n = dim * nc, dense or CSC) and q, mu (nc values) are copied.
 * Its residual is the natural map of the cone problem (cpk_fc_residual); lower and
 * upper hold the box relaxation (r_n >= 0, r_T free) for code that reads bounds.
 */
CPK_API int cpk_problem_alloc_friction_cone(const cpk_matrix *W, const double *q, size_t dim,
                                            const double *mu, cpk_problem **out);

/**
 * Set (copy) the row scales (see cpk_problem.row_scale); NULL removes them. CPK_EINVAL when a
 * value is not finite and positive (the problem is then unchanged).
 */
CPK_API int cpk_problem_set_row_scale(cpk_problem *p, const double *scale);

/**
 * Make rows of an LCP or affine MCP friction-index rows: for each i with findex[i] >= 0,
 * -fcoef[i] z_j <= z_i <= fcoef[i] z_j with j = findex[i]; findex[i] = -1 leaves row i as it is.
 * Conditions (CPK_EINVAL otherwise, problem unchanged): j < n, j != i, row j is not itself a
 * friction-index row, lower[j] >= 0 (a normal impulse), fcoef[i] finite and >= 0.
 * An LCP with friction-index rows becomes an affine MCP. Both arrays are copied; findex = NULL
 * removes the rows' dependence. The solvers take such problems through an exact encoding
 * (doc/solvers.md, "Friction-index rows"); the residual uses the bounds at z.
 */
CPK_API int cpk_problem_set_friction_index(cpk_problem *p, const int *findex, const double *fcoef);

/* ---- updates for re-solves (no allocation; on bad input CPK_EINVAL and nothing changed) --- */
/** Replace q (affine kinds and the cone problem's free velocity). Every entry must be finite. */
CPK_API int cpk_problem_update_q(cpk_problem *p, const double *q);
/** Replace the bounds; NULL leaves that side unchanged. An LCP keeps 0 and +inf (else CPK_EINVAL). */
CPK_API int cpk_problem_update_bounds(cpk_problem *p, const double *lower, const double *upper);
/** Replace the friction-index coefficients (same findex), e.g. new friction coefficients. */
CPK_API int cpk_problem_update_fcoef(cpk_problem *p, const double *fcoef);
/**
 * Replace the values of M (W for the cone problem), same pattern: for a CSC matrix nnz values in
 * the stored order (M->csc->x); for a dense matrix n*n values, row-major.
 */
CPK_API int cpk_problem_update_matrix_values(cpk_problem *p, const double *values);
/** Replace a dense M from a caller array with leading dimension ld, row- or column-major. */
CPK_API int cpk_problem_update_matrix_dense(cpk_problem *p, const double *a, size_t ld,
                                            int col_major);
/** Replace the cone problem's friction coefficients. */
CPK_API int cpk_problem_update_mu(cpk_problem *p, const double *mu);
/** Tell bound solvers that the nonlinear problem's parameters (*params) changed. */
CPK_API void cpk_problem_touch_params(cpk_problem *p);

/** Largest number of unknowns per contact of a friction-cone problem. */
#define CPK_CONE_DIM_MAX 4

/** Deep copy (params still shared). */
CPK_API int cpk_problem_copy(const cpk_problem *p, cpk_problem **out);
/** Free (NULL is a no-op). */
CPK_API void cpk_problem_free(cpk_problem *p);

/** Set (copy) the problem name; NULL clears it. */
CPK_API int cpk_problem_set_name(cpk_problem *p, const char *name);
/** Set (copy) the name of variable i, e.g. "p_n[3]". */
CPK_API int cpk_problem_set_var_name(cpk_problem *p, size_t i, const char *name);

/** Human-readable kind: "lcp", "affine_mcp", "nonlinear_mcp", "friction_cone". */
CPK_API const char *cpk_problem_kind_name(cpk_problem_kind kind);

/**
 * Check the data: sizes, finite M and q, no NaN bounds, l <= u, l < +inf, u > -inf,
 * LCP bounds exactly 0/+inf. Fills err with what is wrong.
 */
CPK_API int cpk_problem_validate(const cpk_problem *p, cpk_error *err);

/** 1 if every lower bound is 0 and every upper bound +inf (an LCP in all but name). */
CPK_API int cpk_problem_has_lcp_bounds(const cpk_problem *p);

/** w = F(z). CPK_EBADFUNC if a callback fails or F(z) is not finite. */
CPK_API int cpk_problem_eval(const cpk_problem *p, const double *z, double *w);

/**
 * The one residual every solver reports: the natural map
 *   r(z) = || z - mid(l, u, z - w) ||_inf   with w = F(z);
 * for a friction-cone problem the cone's natural map (cpk_fc_residual).
 * NaN in z or w gives +INFINITY.
 */
CPK_API double cpk_natural_residual(const cpk_problem *p, const double *z, const double *w);

/**
 * cpk_natural_residual over rows [lo, hi) only (a friction-cone problem: the
 * contacts whose rows start in [lo, hi)), for a residual split over MPI ranks.
 */
CPK_API double cpk_natural_residual_rows(const cpk_problem *p, const double *z, const double *w,
                                         size_t lo, size_t hi);

/** Evaluate w = F(z) and return the natural residual in *r. */
CPK_API int cpk_problem_residual(const cpk_problem *p, const double *z, double *w, double *r);

/**
 * The absolute tolerance that `solved` is judged by: tol * max(1, ||q||_inf)
 * for affine and friction-cone problems, tol for nonlinear ones.
 */
CPK_API double cpk_problem_tolerance(const cpk_problem *p, double tol);

/* ---- the second-order (Coulomb) cone ------------------------------------ */

/**
 * Euclidean projection of x (dim values, normal first) on the cone
 * K_mu = { |x_T| <= mu x_n } into y (x and y may be the same array).
 */
CPK_API void cpk_cone_project(size_t dim, double mu, const double *x, double *y);

/**
 * Natural map of one contact: e = r - proj_K(r - (u + mu |u_T| e_n)) (dim values);
 * e = 0 exactly when (r, u) satisfies the contact's Coulomb law. Returns |e|_2
 * (NaN when dim is outside 2..CPK_CONE_DIM_MAX).
 */
CPK_API double cpk_cone_natural_map(size_t dim, double mu, const double *r, const double *u,
                                    double *e);

/**
 * Residual of a friction-cone problem at r with u = W r + q: the largest over
 * the contacts of max(|e_c|_2, -u_n) (invariant under rotations of each
 * tangent plane). The term -u_n is 0 at every solution; it is there because
 * the natural map sees an approaching contact only through about |u_n| / mu,
 * so with a huge mu a contact moving into the obstacle would pass.
 * NaN gives +INFINITY.
 */
CPK_API double cpk_fc_residual(const cpk_problem *p, const double *r, const double *u);

/**
 * The residual of cpk_fc_residual over nc contacts of dim unknowns (r, u: dim * nc
 * values, mu: nc): the largest of max(|e_c|_2, -u_n); with sum, the squares |e_c|_2^2
 * are added to *sum (NaN when one is NaN). NaN gives +INFINITY. The per-contact loop
 * that cpk_fc_residual and cpk_fc_rows_residual_merit (rows.h) share.
 */
CPK_API double cpk_fc_residual_contacts(size_t dim, size_t nc, const double *mu, const double *r,
                                        const double *u, double *sum);

/**
 * FCLIB's merit (fclib_merit_local, MERIT_1, the figure published FCLIB
 * results use): sqrt(sum_c |e_c|_2^2) / (1 + sqrt(|q|_2)), with e_c the natural
 * map above.
 */
CPK_API double cpk_fc_merit(const cpk_problem *p, const double *r, const double *u);

/**
 * cpk_fc_residual and cpk_fc_merit from one pass over the contacts: returns the residual,
 * *merit the merit, both bit for bit as the two calls give them. A problem of another
 * kind has no contacts: merit 0 (for cpk_fc_merit too), residual its natural residual.
 */
CPK_API double cpk_fc_residual_merit(const cpk_problem *p, const double *r, const double *u,
                                     double *merit);

CPK_END_DECLS
#endif
