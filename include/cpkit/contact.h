/* contact.h: contact systems (body and local form), their files (JSON, FCLIB), and the formulation compilers with their variable maps. */
#ifndef CPKIT_CONTACT_H
#define CPKIT_CONTACT_H
#include <stddef.h>
#include <stdio.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/matrix.h>
#include <cpkit/problem.h>

CPK_BEGIN_DECLS

/**
 * @file
 * A *contact system* is one step of a mechanical system with unilateral
 * frictional contacts. Every contact has a frame (n, t, o) and a twist r about
 * n; all per-contact 4-vectors in this header are ordered (n, t, o, r).
 *
 * - **Body form** (what a time-stepper has): generalized velocity dimension
 *   nv, mass matrix M (sparse, symmetric positive definite, both triangles
 *   stored), velocity v, applied plus velocity-product force k, step h, and
 *   per contact the wrench columns W_n, W_t, W_o, W_r (generalized force of a
 *   unit impulse along n, t, o and of a unit moment about n). The contact
 *   velocity at the end of the step is U = [W_n W_t W_o W_r]^T v+ + drift with
 *   M v+ = M v + h k + sum_c W_c P_c (P_c the contact impulses).
 *   h = 0 selects the force/acceleration level (seed 000 section 2, seed 001
 *   section 3): unknowns are forces and accelerations, M a = k + sum W_c P_c,
 *   U = W^T a + drift.
 * - **Local (Delassus) form** (FCLIB's /fclib_local): U = W P + q with W the
 *   contact-space operator (dim * nc square, dim = 3 for (n, t, o) or 4 for
 *   (n, t, o, r)), q the free velocity; no velocities, so no next velocity.
 *
 * The gap psi enters the normal condition as 0 <= P_n _|_ U_n + psi / h >= 0
 * (the linearized gap psi + h W_n^T v+ of seed 004, divided by h).
 */

/** How a contact system is given. */
typedef enum cpk_system_form {
  CPK_SYSTEM_BODY = 0, /**< M, v, k, h and wrench columns */
  CPK_SYSTEM_LOCAL = 1 /**< W, q (Delassus operator and free velocity) */
} cpk_system_form;

/**
 * Everything about one contact except its wrench columns. Start from
 * cpk_contact_params_default() and change fields.
 */
typedef struct cpk_contact_params {
  double psi;      /**< gap at the start of the step (> 0 separated, < 0 overlapping) */
  double mu;       /**< friction coefficient, >= 0 (0 = frictionless) */
  double e_t, /**< friction ellipsoid semi-axis along t, > 0 (default 1) */ e_o; /**< semi-axis along o, > 0 (default 1) */
  double e_r;      /**< ellipsoid semi-axis of the friction moment about n, >= 0; 0 = no torsion */
  double drift[4]; /**< added to U (n,t,o,r): h > 0 a known velocity (e.g. minus a driven
                        surface's velocity); h = 0 the term Jdot^T nu of seed 000 eq. (i) */
  /* Kelvin-Voigt compliance (seed 003 eqs. (10)-(15)); used by the kelvin-voigt model only. */
  int compliant;        /**< 1 when K, C and delta_max below are given */
  double K[9];          /**< stiffness, 3x3 row-major over (n, t, o) */
  double C[9];          /**< damping, 3x3 row-major over (n, t, o) */
  double delta_max;     /**< maximum normal deflection delta0_n > 0 (INFINITY: no rigid core) */
  double delta_prev[3]; /**< deflection (n, t, o) at the start of the step */
  /* Polyhedral directions for this contact (override the generated ones). */
  size_t ndirections;       /**< number of user directions, 0 = generate */
  const double *directions; /**< 3 * ndirections values (t, o, r) per direction; copied by
                                 the builder; in a system they point into its own storage */
} cpk_contact_params;

/** Defaults: psi 0, mu 0, e = (1, 1, 0), no drift, not compliant, no user directions. */
CPK_API void cpk_contact_params_default(cpk_contact_params *p);

/**
 * A contact system. Read the fields freely; build and change it only through
 * the functions below (they keep the invariants and own every array).
 */
typedef struct cpk_contact_system {
  cpk_system_form form;         /**< body form (M, W columns) or local form (W, q) */
  char *name;                   /**< optional, NULL if unnamed */
  double h;                     /**< step; 0 = acceleration level (body form only) */
  size_t nc;                    /**< number of contacts */
  cpk_contact_params *contacts; /**< nc entries */
  /* body form */
  size_t nv;     /**< generalized velocity dimension */
  cpk_csc *M;    /**< nv x nv mass matrix, sorted CSC, both triangles */
  double *v;     /**< nv: velocity at the start of the step */
  double *k;     /**< nv: applied + velocity-product generalized force */
  size_t *wptr;  /**< nc + 1: the rows of contact c are wrow[wptr[c] .. wptr[c+1]-1] */
  cpk_int *wrow; /**< generalized coordinates touched by each contact, sorted per contact */
  double *wval;  /**< 4 values (W_n, W_t, W_o, W_r) per entry of wrow */
  /* local form */
  size_t dim; /**< 3 (n, t, o) or 4 (n, t, o, r) unknowns per contact */
  cpk_csc *W; /**< dim*nc square, sorted CSC */
  double *q;  /**< dim*nc free velocity */
  /* distributed compliance (seed 001 section 4); set with
     cpk_contact_system_set_compliance_matrix, used by the distributed model only */
  cpk_csc *influence; /**< 3nc x 3nc influence coefficients over (n, t, o) per contact, or NULL */
  double *u0;         /**< 3nc elastic displacement at the start of the step (NULL with influence) */
  /* private bookkeeping */
  size_t cap_contacts, /**< private */ cap_rows, /**< private */ cap_dirs, /**< private */ ndirs_total; /**< private */
  double *dirs; /**< storage of the user directions */
} cpk_contact_system;

/**
 * New body-form system with no contacts. M (nv x nv, checked with
 * cpk_csc_check, symmetric) is copied; v and k (length nv) are copied, NULL
 * means zeros. h >= 0. CPK_EINVAL with a message for bad sizes or values.
 */
CPK_API int cpk_contact_system_alloc_body(size_t nv, const cpk_csc *M, const double *v,
                                          const double *k, double h, cpk_contact_system **out,
                                          cpk_error *err);

/**
 * Make the body-form system s one with no contacts again, with the nv, M, v, k and h that
 * cpk_contact_system_alloc_body takes (the same checks), as if it were new (no name, no
 * influence matrix) but keeping its arrays: a stepper that assembles a system every step
 * allocates nothing here while nv, M's pattern and its contacts' rows do not grow.
 * CPK_EINVAL (bad data, or s not of the body form) and CPK_ENOMEM leave s as it was.
 */
CPK_API int cpk_contact_system_reset_body(cpk_contact_system *s, size_t nv, const cpk_csc *M,
                                          const double *v, const double *k, double h,
                                          cpk_error *err);

/**
 * New local-form system with nc contacts of dim (3 or 4) unknowns each:
 * U = W P + q. W (dim*nc square) and q are copied; mu (length nc) may be NULL
 * (all 0); other parameters start at their defaults (cpk_contact_set_params).
 * h > 0 is the step used by psi / h and the compliant model (FCLIB: 1).
 */
CPK_API int cpk_contact_system_alloc_local(size_t nc, size_t dim, const cpk_csc *W, const double *q,
                                           const double *mu, double h, cpk_contact_system **out,
                                           cpk_error *err);

/**
 * Add a contact to a body-form system: params (copied, with its directions)
 * and its wrench columns on `nrows` >= 1 generalized coordinates rows[0..nrows-1]
 * (0-based, distinct, any order): wn[k], wt[k], wo[k], wr[k] are the entries
 * of W_n, W_t, W_o, W_r in row rows[k]. wt, wo, wr may be NULL (zero).
 */
CPK_API int cpk_contact_system_add_contact(cpk_contact_system *s, const cpk_contact_params *params,
                                           size_t nrows, const cpk_int *rows, const double *wn,
                                           const double *wt, const double *wo, const double *wr,
                                           cpk_error *err);

/** Replace the parameters of contact i (copied, with its directions). */
CPK_API int cpk_contact_set_params(cpk_contact_system *s, size_t i,
                                   const cpk_contact_params *params, cpk_error *err);

/** Set (copy) the system name; NULL clears it. */
CPK_API int cpk_contact_system_set_name(cpk_contact_system *s, const char *name);

/** Free (NULL is a no-op). */
CPK_API void cpk_contact_system_free(cpk_contact_system *s);

/** Check sizes and values (finite data, mu >= 0, e_t, e_o > 0, e_r >= 0, compliance). */
CPK_API int cpk_contact_system_validate(const cpk_contact_system *s, cpk_error *err);

/**
 * Wrench columns of a point contact on one rigid body whose 6 generalized
 * velocities are (linear velocity, angular velocity) in the world frame:
 * r is the contact point relative to the centre of mass, n the unit normal
 * (pointing into the body), t a unit tangent (o = n x t). Writes
 * W_n = (n, r x n), W_t = (t, r x t), W_o = (o, r x o), W_r = (0, n).
 * Use -1 times these for the second body of a pair. CPK_EINVAL if n or t is
 * not a unit vector or t is not orthogonal to n (tolerance 1e-9).
 */
CPK_API int cpk_rigid_contact_wrenches(const double r[3], const double n[3], const double t[3],
                                       double wn[6], double wt[6], double wo[6], double wr[6]);

/**
 * The contact-space operator of the system, four rows and columns per contact
 * (n, t, o, r): A = J^T M^-1 J with J = [W_n W_t W_o W_r] per contact (body
 * form; computed with a sparse LU of M and kept sparse: block (i, j) is stored
 * only when contacts i and j are coupled through M^-1), and b (length 4 nc) the
 * contact velocity of the free motion: b = J^T (v + h M^-1 k) + drift, or for
 * h = 0 b = J^T M^-1 k + drift (seed 000 eq. (3)). Local form: W and q padded
 * to 4 per contact. A is stored with exact zeros dropped.
 */
CPK_API int cpk_contact_system_delassus(const cpk_contact_system *s, cpk_csc **A, double *b,
                                        cpk_error *err);

/* ---- files ------------------------------------------------------------- */

/**
 * Read a contact system from a JSON file (schema in doc/contact-system.md).
 * Errors are `path:line: what is wrong` (line of the offending value; for
 * syntax errors jansson's line). CPK_EPARSE, CPK_EIO, CPK_ENOMEM.
 */
CPK_API int cpk_contact_system_read_json_file(const char *path, cpk_contact_system **out,
                                              cpk_error *err);
/** Same from a NUL-terminated string; `name` is used in messages. */
CPK_API int cpk_contact_system_read_json_string(const char *text, const char *name,
                                                cpk_contact_system **out, cpk_error *err);
/** Write the system as JSON (the same schema; values exact, %.17g). */
CPK_API int cpk_contact_system_write_json(const cpk_contact_system *s, FILE *f, cpk_error *err);

/**
 * Read an FCLIB HDF5 file (3D problems only) as a local-form system with
 * dim 3 and h = 1: the local problem /fclib_local (W, q, mu), or a global
 * problem /fclib_global reduced to local form (W = H' M^-1 H,
 * q = H' M^-1 f + w). The same bounded reader and the same checks as
 * cpk_problem_read_fclib (<cpkit/fclib.h>): CPK_EPARSE with `path: what is
 * wrong` for sizes that disagree with each other or with the file's storage,
 * NaN, negative mu, indices out of range; CPK_EUNSUP without HDF5.
 */
CPK_API int cpk_contact_system_read_fclib(const char *path, cpk_contact_system **out,
                                          cpk_error *err);

/**
 * The local-form system of a friction-cone problem of dim 3 or 4 (W, q, mu copied,
 * h = 1, psi 0; dim 4: e_r = 1 on every contact): what `cpkit compile --form cone`
 * writes. Compiled again with point-coulomb (dim 3) or elliptic-torsional (dim 4)
 * in the cone form, it gives the same problem back.
 */
CPK_API int cpk_contact_system_from_cone(const cpk_problem *p, cpk_contact_system **out,
                                         cpk_error *err);

/** Read a system from a file of either kind: FCLIB (HDF5 signature) or JSON. */
CPK_API int cpk_contact_system_read_file(const char *path, cpk_contact_system **out,
                                         cpk_error *err);

/* ---- compilers ----------------------------------------------------------- */

/** Contact models (names for cpk_compile in brackets). */
typedef enum cpk_contact_model {
  CPK_MODEL_POINT_COULOMB = 0, /**< "point-coulomb": quadratic Coulomb cone, NCP (seed 004 eq. 9) */
  CPK_MODEL_ELLIPTIC_TORSIONAL =
      1, /**< "elliptic-torsional": friction ellipsoid with moment (seed 000, 003) */
  CPK_MODEL_POLYHEDRAL = 2,  /**< "polyhedral": linearized cone/ellipsoid, LCP (seed 004 eq. 15) */
  CPK_MODEL_KELVIN_VOIGT = 3, /**< "kelvin-voigt": compliant layer with rigid core (seed 003) */
  CPK_MODEL_DISTRIBUTED = 4   /**< "distributed": elements of contact patches with influence
                                   coefficients, polyhedral friction, LCP (seed 001 section 4) */
} cpk_contact_model;

#define CPK_MODEL_COUNT 5 /**< number of contact models (values 0 .. CPK_MODEL_COUNT - 1) */

/** "point-coulomb", ...; NULL for an unknown value. */
CPK_API const char *cpk_contact_model_name(cpk_contact_model m);
/** Parse a model name; CPK_ENOTFOUND if unknown. */
CPK_API int cpk_contact_model_from_name(const char *name, cpk_contact_model *m);

/** Which problem form a compiler emits. */
typedef enum cpk_problem_form {
  CPK_FORM_AUTO = 0,    /**< polyhedral: reduced; others: mixed for body form, reduced for local */
  CPK_FORM_MIXED = 1,   /**< velocities (accelerations at h = 0) are free unknowns */
  CPK_FORM_REDUCED = 2, /**< velocities eliminated through A = J^T M^-1 J (sparse LU of M) */
  /**
   * point-coulomb and elliptic-torsional only: the frictional-contact (cone) problem
   * (CPK_KIND_FRICTION_CONE) u' = W' r + q' with velocities eliminated as in REDUCED.
   * point-coulomb: dim 3 (n, t, o) per contact. elliptic-torsional: dim 4 (n, t, o, r)
   * when a contact has torsion, else 3; the ellipsoid becomes the isotropic cone through
   * r = S^-1 P, u' = S U, W' = S A S with S = diag(1, e_t, e_o, e_r) per contact.
   * q' is the free contact velocity with psi / h added to the normal row (h > 0).
   * See doc/formulations.md ("The cone form") for h = 0 and contacts without torsion.
   */
  CPK_FORM_CONE = 3
} cpk_problem_form;

/** How the polyhedral model generates directions (when a contact has none of its own). */
typedef enum cpk_direction_kind {
  CPK_DIRECTIONS_PLANE = 0, /**< d directions equally spaced on the ellipse of the tangent plane */
  CPK_DIRECTIONS_ELLIPSOID =
      1 /**< equator, latitude circles and poles of the ellipsoid (with twist) */
} cpk_direction_kind;

/** Options of the compilers. Fill with cpk_compile_options_default(). */
typedef struct cpk_compile_options {
  cpk_problem_form form; /**< the form of the problem the compiler emits */
  struct {
    cpk_direction_kind kind;
    size_t d;          /**< PLANE: number of directions (default 8) */
    size_t equator;    /**< ELLIPSOID: directions on the equator (default 8) */
    size_t circles;    /**< ELLIPSOID: latitude circles per hemisphere (default 1) */
    size_t per_circle; /**< ELLIPSOID: directions on each circle (default 5) */
    double latitude;   /**< ELLIPSOID with one circle: its latitude in radians; 0 = pi/4.
                             With k circles they sit at j*pi/(2(k+1)), j = 1..k. */
    double offset;     /**< angle of the first direction from t towards o, radians (default 0) */
  } directions;        /**< the friction directions of the polyhedral models */
  double rolling_tol; /**< h = 0: a contact whose current slip speed is <= this is rolling (1e-9) */
  int dense;          /**< affine problems: store M dense instead of CSC */
  /**
   * Nonlinear models, mixed form: 1 = the per-contact scales of the rows (the free
   * contact velocity V and the compliance w, doc/formulations.md "Scaled rows") from
   * M's factorization: V always exact (one solve with M for the free motion), w exact
   * when M is block diagonal with blocks of at most 64 rows (rigid bodies), else, when
   * M is coupled beyond that and factored by a sparse LU, still the diag(M) estimate
   * (nc solves would cost too much); the compile allocates 2 nv + 8 nc doubles for
   * them. 0 (default) = with diag(M) in place of M, exact only when each body's inertia
   * is diagonal in the world frame, no allocation (cpk_compile_update runs it every
   * step). Either keeps the solution set; the exact scales make the tolerance mean what
   * the physical check measures (the time-stepper finishes answers that fail the check
   * with them, cpk_sim_settings.physics_finish). The reduced form's scales are exact
   * either way.
   */
  int exact_scales;
} cpk_compile_options;

/** Defaults: form AUTO, 8 plane directions, rolling_tol 1e-9, sparse, exact_scales 0. */
CPK_API void cpk_compile_options_default(cpk_compile_options *o);
/**
 * Set the polyhedral directions from their text form: "D" (D >= 1 plane
 * directions) or "E:C:P" (ellipsoid: E >= 1 on the equator, C circles per
 * hemisphere, P per circle), as `cpkit compile --directions` and scene files
 * take them. CPK_EINVAL with a message for anything else (o unchanged).
 */
CPK_API int cpk_compile_options_set_directions(cpk_compile_options *o, const char *spec,
                                               cpk_error *err);

/** Role of one unknown of a compiled problem. */
typedef enum cpk_var_role {
  CPK_ROLE_V = 0,   /**< "v[j]": generalized velocity (acceleration at h = 0), mixed form */
  CPK_ROLE_P_N,     /**< "p_n[i]": normal impulse (force at h = 0) */
  CPK_ROLE_P_NS,    /**< "p_ns[i]": kelvin-voigt spring-damper part of the normal impulse */
  CPK_ROLE_P_NR,    /**< "p_nr[i]": kelvin-voigt rigid-core part of the normal impulse */
  CPK_ROLE_P_T,     /**< "p_t[i]": friction impulse along t */
  CPK_ROLE_P_O,     /**< "p_o[i]": friction impulse along o */
  CPK_ROLE_P_R,     /**< "p_r[i]": friction moment impulse about n */
  CPK_ROLE_P_D,     /**< "p_d[i,j]": polyhedral impulse along direction j */
  CPK_ROLE_SIGMA,   /**< "sigma[i]": sliding-speed multiplier */
  CPK_ROLE_DELTA_N, /**< "delta_n[i]": kelvin-voigt normal deflection at the end of the step */
  CPK_ROLE_DELTA_T, /**< "delta_t[i]" */
  CPK_ROLE_DELTA_O  /**< "delta_o[i]" */
} cpk_var_role;

/** What unknown i of a compiled problem is. */
typedef struct cpk_var_info {
  cpk_var_role role; /**< what the unknown stands for */
  size_t contact; /**< 0-based contact, or (size_t)-1 for CPK_ROLE_V */
  size_t index;   /**< the coordinate j for V, the direction j for P_D, else 0 */
} cpk_var_info;

/**
 * The variable map of a compiled problem, and everything needed to turn a
 * solution z back into physics (it holds copies of the system data, never a
 * pointer to the caller's system). For a nonlinear problem it also owns the
 * data the problem's F and Jacobian read (the problem's `params`): free the
 * problem before, or together with, its map, and do not evaluate one compiled
 * nonlinear problem from two threads at once.
 */
typedef struct cpk_varmap cpk_varmap;

/**
 * Compile `s` with the model called `model` ("point-coulomb",
 * "elliptic-torsional", "polyhedral", "kelvin-voigt", "distributed"). options NULL = defaults.
 * On success *problem is an LCP, an affine MCP or a nonlinear MCP (with
 * variable names), or with options->form CPK_FORM_CONE a friction-cone problem,
 * and *map its variable map. CPK_ENOTFOUND for an unknown
 * model, CPK_EINVAL for a system the model cannot take (with the reason),
 * CPK_ESINGULAR if M cannot be factored.
 */
CPK_API int cpk_compile(const cpk_contact_system *s, const char *model,
                        const cpk_compile_options *options, cpk_problem **problem, cpk_varmap **map,
                        cpk_error *err);

/**
 * Compile `s` again into the problem and map of an earlier cpk_compile (same model and
 * options), when s has the structure of the system they came from: the same contacts
 * with the same unknowns, and the same pattern of M (the Jacobian for a nonlinear
 * problem, W for the cone form). The new values (M or W, q, bounds, mu) are written
 * with the cpk_problem_update_* functions, so a solver bound to the problem sees them
 * through its change counters, and the map then describes s; the pattern is neither
 * recorded nor sorted again, which is what makes a time-stepper's step cheap. The
 * values are those cpk_compile would give. The patterns are structural: they depend on
 * the unknowns, on which bodies' velocities each contact's wrenches touch (mixed forms),
 * on which contacts share a body (reduced and cone forms) and on M's pattern, never on
 * a value that happens to be zero, so a time-stepper's pose does not change them.
 * CPK_EUNSUP when the structure differs:
 * problem and map are then unchanged (compile anew); other errors as cpk_compile,
 * after which the problem and map may hold a mix of old and new values (free them).
 */
CPK_API int cpk_compile_update(const cpk_contact_system *s, cpk_problem *problem,
                               cpk_varmap *map, cpk_error *err);

/**
 * cpk_compile_update without its first step, cpk_contact_system_validate: for a system
 * that changed, since it was made, only through the calls that check what they take
 * (cpk_contact_system_reset_body, cpk_contact_system_add_contact and the other setters),
 * whose checks the validation would repeat. The time-stepper uses it on the system it
 * rebuilds every step (the mass matrix was checked twice a step). A system whose fields
 * were written directly must go through cpk_compile_update: nothing here checks them.
 */
CPK_API int cpk_compile_update_unchecked(const cpk_contact_system *s, cpk_problem *problem,
                                       cpk_varmap *map, cpk_error *err);

/**
 * The form to compile `model` in for the solver called `solver`: CPK_FORM_CONE when
 * `form` is CPK_FORM_AUTO, the model has a cone form (point-coulomb,
 * elliptic-torsional) and the solver takes friction-cone problems but not nonlinear
 * MCPs; `form` otherwise (also for unknown names). How `cpkit solve-system` and the
 * time-stepper let a cone solver be named like any other.
 */
CPK_API cpk_problem_form cpk_compile_form_for_solver(const char *model, const char *solver,
                                                     cpk_problem_form form);

/** Point contacts, quadratic Coulomb cone (e and W_r ignored). See doc/formulations.md. */
CPK_API int cpk_compile_point_coulomb(const cpk_contact_system *s, const cpk_compile_options *o,
                                      cpk_problem **problem, cpk_varmap **map, cpk_error *err);
/** Howe-Cutkosky friction ellipsoid with a friction moment about the normal. */
CPK_API int cpk_compile_elliptic_torsional(const cpk_contact_system *s,
                                           const cpk_compile_options *o, cpk_problem **problem,
                                           cpk_varmap **map, cpk_error *err);
/** Stewart-Trinkle linearized cone/ellipsoid: LCP (reduced) or mixed LCP. */
CPK_API int cpk_compile_polyhedral(const cpk_contact_system *s, const cpk_compile_options *o,
                                   cpk_problem **problem, cpk_varmap **map, cpk_error *err);
/** Kelvin-Voigt compliant layer with a rigid core, geometrically explicit (needs h > 0). */
CPK_API int cpk_compile_kelvin_voigt(const cpk_contact_system *s, const cpk_compile_options *o,
                                     cpk_problem **problem, cpk_varmap **map, cpk_error *err);

/* ---- the variable map -------------------------------------------------- */

/** Number of unknowns. */
CPK_API size_t cpk_varmap_n(const cpk_varmap *m);
/** Number of contacts, and of generalized velocities (0 for a local-form system). */
CPK_API size_t cpk_varmap_ncontacts(const cpk_varmap *m);
/** Number of generalized velocities (0 for a local-form system). */
CPK_API size_t cpk_varmap_nv(const cpk_varmap *m);
/** The model compiled. */
CPK_API cpk_contact_model cpk_varmap_model(const cpk_varmap *m);
/** 1 if the velocities are unknowns of the problem (mixed form). */
CPK_API int cpk_varmap_is_mixed(const cpk_varmap *m);
/** The form compiled: CPK_FORM_MIXED, CPK_FORM_REDUCED or CPK_FORM_CONE (never AUTO). */
CPK_API cpk_problem_form cpk_varmap_form(const cpk_varmap *m);
/** Name of a form: "auto", "mixed", "reduced", "cone"; NULL for an unknown value. */
CPK_API const char *cpk_problem_form_name(cpk_problem_form f);
/** What unknown i is (NULL when out of range). */
CPK_API const cpk_var_info *cpk_varmap_var(const cpk_varmap *m, size_t i);
/**
 * Index of the unknown with this role, contact and index (contact ignored for
 * CPK_ROLE_V), or (size_t)-1 when the problem has no such unknown.
 */
CPK_API size_t cpk_varmap_find(const cpk_varmap *m, cpk_var_role role, size_t contact,
                               size_t index);
/** Polyhedral: number of directions of contact c (0 for other models). */
CPK_API size_t cpk_varmap_ndirections(const cpk_varmap *m, size_t c);
/** Polyhedral: direction j of contact c as (t, o, r) components. */
CPK_API int cpk_varmap_direction(const cpk_varmap *m, size_t c, size_t j, double d[3]);

/**
 * Contact impulses (forces at h = 0) P, 4 per contact (n, t, o, r), from a
 * solution z: the polyhedral direction impulses are summed into (t, o, r),
 * kelvin-voigt's normal impulse is p_ns + p_nr, and at h = 0 a sliding
 * contact's friction follows from its normal force.
 */
CPK_API int cpk_varmap_impulses(const cpk_varmap *m, const double *z, double *P);
/** Contact velocities at the end of the step (accelerations at h = 0), 4 per contact, with drift. */
CPK_API int cpk_varmap_contact_velocities(const cpk_varmap *m, const double *z, double *U,
                                          cpk_error *err);
/**
 * Generalized velocity at the end of the step v+ (the acceleration at h = 0),
 * length nv. CPK_EUNSUP for a local-form system.
 */
CPK_API int cpk_varmap_velocity(const cpk_varmap *m, const double *z, double *v, cpk_error *err);

/** Contact modes. A kelvin-voigt contact that reached its rigid core has CPK_MODE_CORE set too. */
enum {
  CPK_MODE_SEPARATING = 0, /**< no normal impulse */
  CPK_MODE_STICKING = 1,   /**< pressed, no slip (rolling) */
  CPK_MODE_SLIDING = 2,    /**< pressed and slipping */
  CPK_MODE_CORE = 4        /**< flag: kelvin-voigt deflection at its maximum (core reached) */
};
/** "separating", "sticking", "sliding" (the CPK_MODE_CORE flag is ignored). */
CPK_API const char *cpk_contact_mode_name(int mode);
/**
 * Mode of every contact (modes has nc entries). A normal impulse <= tol *
 * max(1, largest normal impulse) is separating; a slip speed (largest of
 * |U_t|, |U_o|, and |U_r| when the model has torsion) <= tol * max(1, |U|_inf)
 * is sticking. At h = 0 a contact sliding at the start is sliding.
 */
CPK_API int cpk_varmap_modes(const cpk_varmap *m, const double *z, double tol, int *modes,
                             cpk_error *err);
/**
 * A point z of this problem built from contact impulses P (4 per contact, n, t, o, r): the
 * velocities and contact velocities follow from P, sigma is the slip speed, a polyhedral
 * friction impulse goes to its best-aligned direction, and kelvin-voigt takes the
 * deflection from the spring law (P_n split between spring and core at delta_max). This is
 * how a solution of one model (or of the previous step) warm-starts a Newton method on
 * another; z is a starting point, not a solution.
 */
CPK_API int cpk_varmap_point(const cpk_varmap *m, const double *P, double *z, cpk_error *err);
/**
 * The recommended start of a compiled problem (z has cpk_varmap_n(m) entries): the free
 * motion of the step, cpk_varmap_point of zero impulses (velocities M^-1 rhs, contact
 * velocities and slip speeds that go with them). z = 0 is not a point of the step's
 * physics for a nonlinear model (its velocities and slip speeds are inconsistent), and
 * the Newton and interior-point solvers start far better from this one (issue 14: the
 * FCLIB files through the MCP route). `cpkit bench`, `cpkit solve-system` and the
 * time-stepper's cold starts pass it as the solver's z0 (cpk_settings.z0) for every
 * nonlinear MCP; a caller of the C API does the same:
 *
 *     double *z0 = malloc(cpk_varmap_n(map) * sizeof *z0);
 *     cpk_varmap_start(map, z0, &err);  settings.z0 = z0;  cpk_solve(...);
 */
CPK_API int cpk_varmap_start(const cpk_varmap *m, double *z, cpk_error *err);
/**
 * The physical check of a solution (cpk_varmap_check): every figure is relative, an
 * impulse divided by the largest contact impulse component and a velocity by the
 * largest contact velocity of the step (with or without the impulses, psi / h
 * included), so it reads the same in any units.
 */
typedef struct cpk_physics_check {
  int ok;             /**< 1 when every figure below is <= the tolerance */
  double cone;        /**< friction outside the friction cone/ellipsoid, |E^-1 P_F| - mu P_n */
  double normal;      /**< Signorini: negative P_n, penetrating U_n + psi / h, or both positive */
  double dissipation; /**< slipping contact: |P_F - (-mu P_n E^2 U_F / |E U_F|)|_inf */
  double pscale, /**< the impulse scale used */ vscale; /**< the velocity scale used */
  size_t contact;     /**< 0-based contact of the worst figure, (size_t)-1 when ok */
  char message[200];  /**< what fails, in words; empty when ok */
} cpk_physics_check;

/**
 * Check a solution z at the level of the model, independently of the problem's residual:
 * per contact P_n >= 0, the normal velocity U_n + psi / h (U_n at h = 0) >= 0 and not both
 * positive; for point-coulomb, elliptic-torsional and kelvin-voigt also the friction inside
 * the cone/ellipsoid (|E^-1 P_F| <= mu P_n) and, on a slipping contact, maximum dissipation
 * (the friction is -mu P_n E^2 U_F / |E U_F|). The polyhedral and distributed models are
 * checked for the normal conditions only (their friction lives on their own polytopes),
 * kelvin-voigt and distributed for P_n >= 0 only in the normal direction (compliance).
 * tol is relative (see cpk_physics_check; <= 0: 1e-3). This is what tells a physically
 * wrong answer that passes a squared cone row (issue 14's false `solved`). It allocates
 * nothing (its arrays are the map's): do not check with one map from two threads at once.
 */
CPK_API int cpk_varmap_check(const cpk_varmap *m, const double *z, double tol,
                             cpk_physics_check *out, cpk_error *err);

/** Kelvin-voigt: deflection (n, t, o) of contact c at the end of the step. CPK_EUNSUP otherwise. */
CPK_API int cpk_varmap_deflection(const cpk_varmap *m, const double *z, size_t c, double delta[3]);

/** Free (NULL is a no-op). */
CPK_API void cpk_varmap_free(cpk_varmap *m);

/* ---- distributed compliance (seed 001 section 4) ---- */

/**
 * Influence coefficients of the "distributed" model (seed 001 section 4.2):
 * every contact is one element of a discretized contact patch, and G (3 nc x 3 nc,
 * sorted CSC, rows and columns ordered (n, t, o) per contact) gives the elastic
 * displacement of the surfaces per unit force: G(3i + a, 3j + b) is the
 * displacement of element i along a caused by a unit force on element j along b
 * (the influence functions xi^n, xi^t, gamma^n, gamma^t of eqs. (4.4), (4.6),
 * summed over both bodies). A displacement along n opens the gap. Elements of
 * different patches are uncoupled: leave their blocks empty. u0 (3 nc values,
 * NULL = zeros) is the elastic displacement at the start of the step; only its
 * tangential parts are used (the normal displacement follows the current forces
 * and psi is the gap of the undeformed profiles). Both are copied. G NULL removes
 * the data. Set it after the last contact is added: its size follows nc.
 * CPK_EINVAL for a wrong size, an invalid matrix or non-finite values.
 */
CPK_API int cpk_contact_system_set_compliance_matrix(cpk_contact_system *s, const cpk_csc *G,
                                                     const double *u0, cpk_error *err);

/**
 * Distributed compliance with polyhedral (plane) friction per element: with
 * u = G P / h the displacement under the forces of the step (P impulses), the
 * velocity of element i becomes U_n + u_n / h along n and U_k + (u_k - u0_k) / h
 * along k = t, o, and the rows are those of the polyhedral model with it. An LCP (reduced, the default) or a
 * mixed LCP. Needs h > 0 and the influence matrix. See doc/formulations.md.
 */
CPK_API int cpk_compile_distributed(const cpk_contact_system *s, const cpk_compile_options *o,
                                    cpk_problem **problem, cpk_varmap **map, cpk_error *err);

/**
 * Distributed model: elastic displacement u = G P / h of every element at the end
 * of the step (3 per contact, (n, t, o)) from a solution z; it is the u0 of the
 * next step. CPK_EUNSUP for the other models.
 */
CPK_API int cpk_varmap_elastic_displacement(const cpk_varmap *m, const double *z, double *u);

CPK_END_DECLS
#endif
