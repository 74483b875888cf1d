/* sim.h: a small rigid-body time-stepper (bodies, shapes, driven motions) that compiles and solves one contact problem per step. */
#ifndef CPKIT_SIM_H
#define CPKIT_SIM_H
#include <stddef.h>
#include <stdio.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/contact.h>
#include <cpkit/result.h>
#include <cpkit/settings.h>

CPK_BEGIN_DECLS

/**
 * @file
 * A *world* holds rigid bodies in 3D. Every body has a pose (position x of
 * its centre of mass, unit quaternion q = (w, x, y, z) from body to world
 * frame), a velocity (linear v and angular w, both in the world frame) and
 * one shape. Planar experiments (a disc on a line, a rod falling in a plane)
 * are 3D scenes whose initial conditions keep the motion in a plane: a disc
 * is a sphere, a line is a plane.
 *
 * Each step (Stewart-Trinkle, seed 004 eq. 15 and seed 000 section 4, with
 * any contact model): find the contacts (pairs with gap below the margin),
 * build a body-form cpk_contact_system (6 velocities per dynamic body; gravity
 * and the gyroscopic term in k; a driven body enters through the contact
 * drift), compile it with the chosen model, solve it with the chosen solver
 * warm-started from the previous step's impulses, and integrate:
 * x+ = x + h v+, q+ = exp(h w+ / 2) q (exact rotation, renormalised).
 *
 * With `implicit_iterations` > 0 the geometry is evaluated at the end of the
 * step instead (a fixed-point iteration: solve, advance the poses, recompute
 * normals and wrenches at the advanced pose with the gap of the start
 * linearised there, until v+ stops changing), the geometrically implicit
 * scheme of seed 000's Tzitzouris-Pang comparison and seed 003.
 */

/** Shapes. Sizes in cpk_shape.size. */
typedef enum cpk_shape_kind {
  CPK_SHAPE_PLANE = 0,     /**< half-space z <= 0 of the body frame (outward normal +z); no size */
  CPK_SHAPE_SPHERE = 1,    /**< size[0] = radius (0: a particle) */
  CPK_SHAPE_ELLIPSOID = 2, /**< size[0..2] = semi-axes along the body x, y, z axes */
  CPK_SHAPE_ROD = 3,       /**< segment along body x from -size[0] to +size[0], radius size[1] >= 0 */
  CPK_SHAPE_POINTS = 4     /**< feet: spheres of radius size[0] >= 0 centred at points[0..npoints-1]
                                (body frame), e.g. a tripod; each one a contact against planes */
} cpk_shape_kind;

#define CPK_SHAPE_MAX_POINTS 8 /**< most feet of a CPK_SHAPE_POINTS shape */
/** The shape of a body, in its frame. */
typedef struct cpk_shape {
  cpk_shape_kind kind;                     /**< sphere, box, ... */
  double size[3];                          /**< dimensions of the kind (see cpk_shape_kind) */
  size_t npoints;                          /**< CPK_SHAPE_POINTS: 1 .. CPK_SHAPE_MAX_POINTS */
  double points[CPK_SHAPE_MAX_POINTS][3];  /**< CPK_SHAPE_POINTS: body-frame centres */
} cpk_shape;

/** How a body moves. */
typedef enum cpk_body_kind {
  CPK_BODY_DYNAMIC = 0, /**< moved by gravity, applied force and contacts */
  CPK_BODY_FIXED = 1,   /**< never moves */
  CPK_BODY_DRIVEN = 2   /**< follows a prescribed motion (cpk_motion) */
} cpk_body_kind;

/** Prescribed motions of driven bodies. */
typedef enum cpk_motion_kind {
  CPK_MOTION_NONE = 0,
  /**
   * Rotation about a fixed world axis through a point by the angle theta(t)
   * of seed 004 eq. (16) (a piecewise quadratic of period T with
   * acceleration +-alpha, repeated); params: axis point (3), unit axis
   * direction (3), alpha, T.
   */
  CPK_MOTION_ROTATING = 1,
  /** Translation x(t) = x0 + a (sin(2 pi f t + phase) - sin(phase)) d; params: unit direction d (3), a, f, phase. */
  CPK_MOTION_VIBRATING = 2,
  /**
   * Sinusoidal accelerations about and along one axis d through x0 (seed 004
   * section 3.3, the plate controllers of its eqs. (18)-(31) about one axis):
   * angular acceleration a_r sin(B t + c_r), linear acceleration
   * a_l sin(B t + c_l), B = 2 pi f, integrated to oscillate about the initial
   * pose: angle -a_r sin(B t + c_r) / B^2, displacement -a_l sin(B t + c_l) / B^2.
   * params: unit axis d (3), a_r, a_l, f, c_r, c_l.
   */
  CPK_MOTION_OSCILLATING = 3
} cpk_motion_kind;

#define CPK_MOTION_MAX_PARAMS 8 /**< most parameters of a motion */
/** A prescribed motion of a driven body. */
typedef struct cpk_motion {
  cpk_motion_kind kind;            /**< which motion */
  double p[CPK_MOTION_MAX_PARAMS]; /**< its parameters (see cpk_motion_kind) */
} cpk_motion;

/** A body. Start from cpk_body_default() and change fields. */
typedef struct cpk_body {
  char name[32];     /**< used in messages and outputs */
  cpk_body_kind kind; /**< dynamic, fixed or driven */
  cpk_shape shape;   /**< geometry, body frame */
  double mass;       /**< > 0 for a dynamic body */
  double inertia[3]; /**< principal moments about the body axes, > 0 for a dynamic body */
  double x[3];       /**< centre of mass, world frame */
  double q[4];       /**< orientation (w, x, y, z), normalised by the world */
  double v[3];       /**< linear velocity, world frame */
  double w[3];       /**< angular velocity, world frame */
  double force[3];   /**< constant applied force besides gravity, world frame */
  double torque[3];  /**< constant applied torque, world frame */
  cpk_motion motion; /**< CPK_BODY_DRIVEN only */
} cpk_body;

/** Dynamic sphere of radius 1 and mass 1 at the origin, at rest, identity orientation. */
CPK_API void cpk_body_default(cpk_body *b);

/** Step settings. Fill with cpk_sim_settings_default(). */
typedef struct cpk_sim_settings {
  char model[32];              /**< contact model name (cpk_compile), default "polyhedral" */
  char solver[32];             /**< solver name; default ("" ): "nsgs" on the cone form for
                                    point-coulomb and elliptic-torsional, else "lemke" for
                                    affine problems and "fbnewton" (with "ipm" as fallback) for nonlinear ones */
  char fallback[32];           /**< solver tried from the same start when `solver` fails ("" = none) */
  cpk_compile_options compile; /**< directions etc. */
  cpk_settings solve;          /**< solver settings; z0/basis0 are set by the stepper */
  double h;                    /**< step, > 0 (default 1e-3) */
  double gravity[3];           /**< default (0, 0, -9.81) */
  double margin;               /**< contacts are kept when gap <= margin (default 1e-3) */
  int warm_start;              /**< 1 (default): start from the previous step's impulses */
  int implicit_iterations;     /**< 0 (default): explicit geometry; > 0: fixed-point sweeps */
  double implicit_tol;         /**< stop the sweeps when |v+ change|_inf <= this (1e-10) */
  int physics_continue;        /**< 0 (default): a solve whose answer fails the physical check
                                    (cpk_varmap_check, relative tolerance max(1e-3, 100 tol)),
                                    after the fallback solver had its turn, fails the step with
                                    CPK_ENOCONV; 1: take the step and count it
                                    (cpk_sim_step_info.physics_failures) */
  int reuse;                   /**< 1 (default): while the contacts are the same ones (bodies
                                    and features), update the last step's compiled problem in
                                    place (cpk_compile_update) and keep the solver bound to it;
                                    0: compile and bind anew every step (same results) */
  int physics_finish;          /**< 1 (default): for a nonlinear MCP, a solve that stops
                                    short of the tolerance (after the fallback had its turn)
                                    or an answer that fails the physical check is finished
                                    before the check's fallback: the solver that produced the
                                    answer (the fallback's when it ran) starts from it on the
                                    contacts compiled with exact scales
                                    (cpk_compile_options.exact_scales; on the step's own problem
                                    when its scales are exact already: the option set, or the
                                    reduced form), at the step's tolerance, then, when that is
                                    solved but fails the check, from its answer with the
                                    tolerance tightened by its violation (an answer solved on
                                    that problem already starts at this second round, tightened
                                    by its own violation); an answer is kept
                                    when it is solved, passes the check and the step's own
                                    problem is solved there (its residual is reported), and
                                    counted in cpk_sim_step_info.finishes (doc/simulate.md,
                                    "compile and solve"); a finishing attempt that ends in an
                                    error other than memory is counted in
                                    cpk_sim_step_info.finish_errors and the step goes on
                                    without it; 0: never. Neither the physical check nor the
                                    finishing applies to "kelvin-voigt-implicit" (see
                                    cpk_sim_model_known) */
  int timings;                 /**< 0 (default): cpk_sim_step_info's solve_time_s,
                                    detect_time_s, compile_time_s and solver_time_s are 0;
                                    1: they are measured (seven clock reads a step, a few per
                                    cent of a small scene's step: bench/step_split sets it).
                                    The results are the same either way */
} cpk_sim_settings;

/** Defaults as documented on each field. */
CPK_API void cpk_sim_settings_default(cpk_sim_settings *s);
/**
 * 1 when the stepper takes this model name: a model of cpk_compile, or
 * "kelvin-voigt-implicit" (seed 003's geometrically implicit compliant step).
 * "kelvin-voigt-implicit" has no physical check and no finishing phase
 * (physics_continue, physics_finish and cpk_sim_step_info.physics_failures,
 * finishes, finish_errors do not apply): its step is solved on the residual alone. The check
 * (cpk_varmap_check) reads a cpk_varmap, the layout of the linearised models;
 * this model compiles through its own map (cpk_implicit_map: closest points,
 * deflections, a contact frame that moves with the unknowns), for which no
 * check is written, and the finishing reruns on the exact scales of the mixed
 * form, which it does not have (doc/simulate.md).
 */
CPK_API int cpk_sim_model_known(const char *name);

/** The world (opaque). */
typedef struct cpk_world cpk_world;

/** New empty world with these settings (copied). */
CPK_API int cpk_world_alloc(const cpk_sim_settings *settings, cpk_world **out, cpk_error *err);
/** Free (NULL is a no-op). */
CPK_API void cpk_world_free(cpk_world *w);
/** Add a body (copied; the quaternion is normalised); returns its index through *index (may be NULL). */
CPK_API int cpk_world_add_body(cpk_world *w, const cpk_body *b, size_t *index, cpk_error *err);
/**
 * Material of the contacts between bodies i and j (either order): mu, e_t,
 * e_o, e_r, compliance (K, C, delta_max) and user directions of
 * cpk_contact_params; psi, drift and delta_prev are set by the stepper.
 * Pairs without a material use the default one (cpk_world_set_default_material),
 * itself cpk_contact_params_default() with mu = 0 until set.
 */
CPK_API int cpk_world_set_material(cpk_world *w, size_t i, size_t j,
                                   const cpk_contact_params *material, cpk_error *err);
/** Material of the pairs without one of their own (see cpk_world_set_material). */
CPK_API int cpk_world_set_default_material(cpk_world *w, const cpk_contact_params *material,
                                           cpk_error *err);
/** Do not look for contacts between bodies i and j. */
CPK_API int cpk_world_ignore_pair(cpk_world *w, size_t i, size_t j, cpk_error *err);

/** Number of bodies. */
CPK_API size_t cpk_world_nbodies(const cpk_world *w);
/** Current state of body i (NULL when out of range). */
CPK_API const cpk_body *cpk_world_body(const cpk_world *w, size_t i);
/** Current time. */
CPK_API double cpk_world_time(const cpk_world *w);
/**
 * The settings in use (read-only: change them with cpk_world_set_settings). A program that
 * writes them anyway between steps gets its solver and fallback names followed (a solver of
 * the other form recompiles the step's problem), but not a new model while the contacts stay
 * the same (the kept problem is updated in its own model) nor `solve`'s values (tol,
 * max_iter, ...: the step's solver stays bound with the ones it was made with).
 */
CPK_API const cpk_sim_settings *cpk_world_settings(const cpk_world *w);
/**
 * Replace the world's settings between steps (checked as cpk_world_alloc checks them;
 * CPK_EINVAL with the world unchanged when they are not valid). Everything follows from the
 * next step on: model, compile options, h, solver and fallback names, and `solve`'s values.
 * The step's kept problem and bound solver are dropped, so that step compiles and binds anew
 * (one step's worth of allocations); the contacts' remembered impulses still warm-start it.
 * Typical use: `cpk_sim_settings s = *cpk_world_settings(w); s.solve.tol = 1e-10;
 * cpk_world_set_settings(w, &s, &err);`.
 */
CPK_API int cpk_world_set_settings(cpk_world *w, const cpk_sim_settings *settings,
                                   cpk_error *err);

/** One contact of the last step. */
typedef struct cpk_sim_contact {
  size_t body[2];    /**< body[0] receives +P; body[1] the reaction (may be a fixed/driven body) */
  int feature;       /**< which point of body[0]'s shape (rod end 0 or 1), else 0 */
  double point[3];   /**< contact point on body[0], world frame: at the start of the step, or
                          at the end-of-step estimate with implicit sweeps or kelvin-voigt-implicit */
  double normal[3];  /**< unit normal, pointing into body[0] (same pose as point) */
  double gap;        /**< signed gap (same pose as point) */
  double P[4];       /**< impulses (n, t, o, r) over the step, in the contact frame (forces: P / h) */
  double delta[3];   /**< kelvin-voigt deflection at the end of the step (0 otherwise) */
  int mode;          /**< CPK_MODE_* */
} cpk_sim_contact;

/** What one step did. The contacts array is owned by the world and valid until the next step. */
typedef struct cpk_sim_step_info {
  double time;              /**< time at the end of the step */
  size_t ncontacts;         /**< contacts active in the step */
  const cpk_sim_contact *contacts; /**< ncontacts entries */
  cpk_status status;        /**< of the last solve (CPK_STATUS_SOLVED when there was no contact) */
  double residual;          /**< natural residual of the last solve */
  long iterations;          /**< solver iterations of the step: all sweeps and every attempt
                                 (the step solver's, its fallback's, the finishing rounds',
                                 the physical check's fallback), whether or not its answer
                                 was kept (a solve that ends in an error counts none) */
  int fallbacks;            /**< solves of the step that only the fallback solver finished */
  int sweeps;               /**< solves done (1 when explicit, 1 + implicit sweeps otherwise) */
  int implicit_converged;   /**< 1 when the sweeps met implicit_tol (always 1 when explicit) */
  double solve_time_s;      /**< wall time of the whole step (this and the three parts
                                 below: 0 unless cpk_sim_settings.timings is set) */
  double detect_time_s;     /**< part of it finding contacts (all sweeps) */
  double compile_time_s;    /**< part assembling and compiling the contact problems (or
                                 updating the last step's in place: same contacts) */
  double solver_time_s;     /**< part in the solvers (fallbacks included) */
  int compiles;             /**< problems compiled anew in the step (the others were the last
                                 step's, updated in place: see cpk_sim_settings.reuse) */
  int physics_failures;     /**< solves of the step taken although their answer fails the
                                 physical check (cpk_varmap_check, relative tolerance
                                 max(1e-3, 100 tol)): counted and reported, not hidden */
  char physics_message[200]; /**< the check's message for the first of them */
  int finishes;             /**< solves of the step whose answer the finishing phase replaced
                                 (cpk_sim_settings.physics_finish): answers that failed the
                                 physical check, or solves that stopped short, made to pass */
  int finish_errors;        /**< finishing attempts and solves of the check's fallback that
                                 ended in an error (of their solve, their compile or the
                                 check; not memory, which fails the step with CPK_ENOMEM):
                                 the step went on as if they had not finished (the check's
                                 fallback, or the solve's failure); when the step fails all
                                 the same, its error message names the first of them */
  char finish_message[200]; /**< the error of the first of them ("t = T: CPK_E...: detail";
                                 the detail of the check's fallback starts with its solver) */
} cpk_sim_step_info;

/**
 * Advance the world by one step. On a solver failure the world is not moved,
 * info->status says why, and the call returns CPK_ENOCONV with a message
 * naming the time, the solver and its status (the caller decides whether to
 * stop). Errors in compiling the step's problem return that error. The
 * finishing phase's attempts (cpk_sim_settings.physics_finish: their solves and
 * the compile of the exactly scaled problem) and the check fallback's solve do
 * not return theirs: an error other than CPK_ENOMEM is counted in
 * info->finish_errors and the step goes on without that attempt; when the step
 * then fails, it returns its own code (CPK_ENOCONV) and its message ends with
 * "; the finishing failed: " and the first such error (code and detail).
 * Running out of memory in them returns CPK_ENOMEM.
 */
CPK_API int cpk_world_step(cpk_world *w, cpk_sim_step_info *info, cpk_error *err);

/** Total mechanical energy (kinetic + gravitational; compliant springs not included). */
CPK_API double cpk_world_energy(const cpk_world *w);

/**
 * The contact system the world would solve now (explicit geometry), for
 * benchmarks and inspection: it is what cpk_world_step compiles. Free it with
 * cpk_contact_system_free.
 */
CPK_API int cpk_world_contact_system(cpk_world *w, cpk_contact_system **out, cpk_error *err);

/**
 * The contacts the world finds now (explicit geometry, the start of the next step), in
 * the order a step uses them: bodies, feature, point, normal and gap (impulses zero).
 * *contacts is allocated (free() it; NULL when there is none), *n their number.
 */
CPK_API int cpk_world_find_contacts(cpk_world *w, cpk_sim_contact **contacts, size_t *n,
                                    cpk_error *err);

/**
 * The problem the next step will solve first (explicit geometry), its
 * variable map, and the start point the step will give the solver (*z0 is
 * NULL when warm starts are off): what a benchmark of time-stepping traces
 * needs. Free them with cpk_problem_free, cpk_varmap_free and free().
 * CPK_ENOTFOUND when there is no contact now.
 */
CPK_API int cpk_world_next_problem(cpk_world *w, cpk_problem **problem, cpk_varmap **map,
                                   double **z0, size_t *ncontacts, cpk_error *err);

/* ---- quantities --------------------------------------------------------- */

/**
 * A named quantity of the world after its last step (names in
 * doc/simulate.md: "BODY.x[0]", "BODY.w[2]", "BODY.speed", "BODY.fn",
 * "BODY.mode", "energy", "time", ...). CPK_ENOTFOUND with a message for an
 * unknown body or quantity.
 */
CPK_API int cpk_world_quantity(const cpk_world *w, const char *name, double *value,
                               cpk_error *err);

/* ---- scenes: a world, its run and its checks, read from a file ---------- */

/** How a check measures its quantity. */
typedef enum cpk_check_kind {
  CPK_CHECK_AT = 0,    /**< value at time `at` (first step ending at or after it) */
  CPK_CHECK_FINAL = 1, /**< value at the end */
  CPK_CHECK_MAX = 2,   /**< largest value over the run */
  CPK_CHECK_MIN = 3,   /**< smallest value over the run */
  CPK_CHECK_FIRST = 4  /**< first time the quantity satisfies `op value` */
} cpk_check_kind;

/** A check of a scene: a measured quantity against a known answer. */
typedef struct cpk_scene_check {
  char label[128], /**< what is checked, for a person */ quantity[64], /**< the measured quantity's name */ why[512], /**< where the answer comes from */ source[128]; /**< the source (paper, section) */
  cpk_check_kind kind; /**< when the quantity is measured */
  double at;      /**< CPK_CHECK_AT */
  char op[3];     /**< CPK_CHECK_FIRST: "<=", ">=" or "==" */
  double value;   /**< CPK_CHECK_FIRST threshold */
  double expected, /**< the known answer */ tol; /**< how far the measurement may be from it */
  /* filled by a run */
  int measured_valid; /**< 0 when the run never reached the measurement */
  double measured;    /**< the measured value (when measured_valid) */
  int passed;         /**< 1 when the measurement agrees */
} cpk_scene_check;

/** A scene (opaque): bodies, materials, settings, duration and checks. */
typedef struct cpk_scene cpk_scene;

/**
 * Most bodies a scene file may hold (a limit on what a file can ask for; contact
 * detection is a broad phase, so a step's cost grows with the contacts rather than
 * with the square of the bodies); a larger world can still be built body by body
 * through cpk_world_add_body.
 */
#define CPK_SCENE_MAX_BODIES 10000

/** Read a scene file (schema in doc/simulate.md); errors `file:line: path: what`. */
CPK_API int cpk_scene_read_file(const char *path, cpk_scene **out, cpk_error *err);
/** Same from a string; `name` is used in messages. */
CPK_API int cpk_scene_read_string(const char *text, const char *name, cpk_scene **out,
                                  cpk_error *err);
/** Free (NULL is a no-op). */
CPK_API void cpk_scene_free(cpk_scene *s);
/** Name and description ("" when absent). */
CPK_API const char *cpk_scene_name(const cpk_scene *s);
/** Description ("" when absent). */
CPK_API const char *cpk_scene_description(const cpk_scene *s);
/** The settings the world will be built with: change them before cpk_scene_world. */
CPK_API cpk_sim_settings *cpk_scene_settings(cpk_scene *s);
/** Simulated time of a run, seconds. */
CPK_API double cpk_scene_duration(const cpk_scene *s);
/** Change the simulated time of a run. */
CPK_API void cpk_scene_set_duration(cpk_scene *s, double duration);
/** A new world in the scene's initial state. */
CPK_API int cpk_scene_world(const cpk_scene *s, cpk_world **out, cpk_error *err);
/** Number of checks of the scene. */
CPK_API size_t cpk_scene_nchecks(const cpk_scene *s);
/** Check i (NULL when out of range); a run fills its measurement. */
CPK_API cpk_scene_check *cpk_scene_check_get(cpk_scene *s, size_t i);

/** Called after every step of cpk_scene_run; return non-zero to stop the run. */
typedef int (*cpk_scene_step_fn)(const cpk_world *w, const cpk_sim_step_info *info, void *data);

/**
 * Run the scene on world w (from cpk_scene_world) until its duration,
 * calling fn (may be NULL) after every step and measuring the checks. A step
 * error stops the run and is returned (the checks keep what was measured).
 * *steps (may be NULL) receives the number of steps done.
 */
CPK_API int cpk_scene_run(cpk_scene *s, cpk_world *w, cpk_scene_step_fn fn, void *data,
                          long *steps, cpk_error *err);

/* ---- trajectories (CSV, columns in doc/simulate.md) ---------------------- */

/** Header row of the trajectory CSV: time, then per dynamic body its state and contact sums, energy, iterations, residual. */
CPK_API int cpk_world_csv_header(const cpk_world *w, FILE *f);
/** One row after a step (info from cpk_world_step). CPK_EIO on a write error. */
CPK_API int cpk_world_csv_row(const cpk_world *w, const cpk_sim_step_info *info, FILE *f);
/** Header of the per-contact CSV. */
CPK_API int cpk_world_contacts_csv_header(FILE *f);
/** One row per contact of the last step. */
CPK_API int cpk_world_contacts_csv_rows(const cpk_world *w, FILE *f);

CPK_END_DECLS
#endif
