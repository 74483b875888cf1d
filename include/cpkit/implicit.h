/* implicit.h: implicit contact systems (rigid bodies, implicit surfaces) and the geometrically implicit Kelvin-Voigt compiler of seed 003. */
#ifndef CPKIT_IMPLICIT_H
#define CPKIT_IMPLICIT_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/problem.h>
#include <cpkit/contact.h>

CPK_BEGIN_DECLS

/**
 * @file
 * An *implicit contact system* is one time step of rigid bodies whose contacts
 * are found by the step itself (seed 003, eqs. (11)-(15)): each contact pair
 * joins two convex implicit surfaces, and the closest points a1, a2 are
 * unknowns of the problem, evaluated at the poses of the end of the step.
 *
 * Body b has 6 generalized velocities (linear, then angular, world frame), the
 * unknowns z[6 b .. 6 b + 5] of the compiled problem.
 *
 * Side 1 of a pair is rigid; side 2 carries the compliant layer (seed 003
 * takes delta_n1 = 0). Either side (not both) may be the fixed world
 * (body CPK_IMPLICIT_WORLD), e.g. the compliant half-plane of the examples.
 */

/** Body index of the fixed world. */
#define CPK_IMPLICIT_WORLD ((size_t)-1)

/** A convex implicit surface (defined below). */
typedef struct cpk_implicit_surface cpk_implicit_surface;

/** f(x) in the body frame: < 0 inside, 0 on the surface, > 0 outside; f convex. */
typedef double (*cpk_surface_value)(const cpk_implicit_surface *s, const double x[3]);
/** Gradient of f at x (outward normal direction, not necessarily unit). */
typedef void (*cpk_surface_gradient)(const cpk_implicit_surface *s, const double x[3],
                                     double g[3]);
/** Hessian of f at x, 3x3 row-major. */
typedef void (*cpk_surface_hessian)(const cpk_implicit_surface *s, const double x[3],
                                    double H[9]);
/** The point of the surface whose outward normal is the unit vector n (body frame). */
typedef void (*cpk_surface_support)(const cpk_implicit_surface *s, const double n[3],
                                    double x[3]);

/**
 * A convex implicit surface given by callbacks in its body's frame. The
 * struct is copied into the system; `data` is the callbacks' own storage (the
 * ready-made surfaces keep their parameters there), `user` is borrowed and
 * must outlive the system and every problem compiled from it.
 */
struct cpk_implicit_surface {
  cpk_surface_value value;       /**< f(x) */
  cpk_surface_gradient gradient; /**< gradient of f */
  cpk_surface_hessian hessian;   /**< Hessian of f */
  cpk_surface_support support; /**< optional (NULL): used only for the starting point */
  double data[8];                /**< the callbacks' own parameters (copied with the struct) */
  void *user;                    /**< borrowed: must outlive the system and its problems */
};

/** Half-space n.x <= d (n normalized here, so f is the signed distance). CPK_EINVAL for n = 0. */
CPK_API int cpk_implicit_plane(const double n[3], double d, cpk_implicit_surface *s);
/** Sphere of radius r > 0 about the origin: f = (|x|^2 - r^2) / (2 r) (~ distance near it). */
CPK_API int cpk_implicit_sphere(double r, cpk_implicit_surface *s);
/**
 * Ellipsoid with semi-axes a, b, c > 0 along x, y, z:
 * f = m (x^2/a^2 + y^2/b^2 + z^2/c^2 - 1) / 2 with m = min(a, b, c) (the sphere's f when a = b = c).
 */
CPK_API int cpk_implicit_ellipsoid(double a, double b, double c, cpk_implicit_surface *s);

/** A rigid body at the start of the step. */
typedef struct cpk_implicit_body {
  double mass;        /**< > 0 */
  double inertia[9];  /**< body-frame inertia about the centre of mass, symmetric PD, row-major */
  double position[3]; /**< centre of mass, world frame */
  double quat[4];     /**< orientation (w, x, y, z), unit (normalized when added) */
  double velocity[6]; /**< linear, angular (world frame) */
  double force[6];    /**< applied force and torque about the centre of mass (world frame) */
} cpk_implicit_body;

/** Defaults: unit mass and inertia, at the origin, identity orientation, at rest, no force. */
CPK_API void cpk_implicit_body_default(cpk_implicit_body *b);

/** The implicit contact system (opaque). */
typedef struct cpk_implicit_system cpk_implicit_system;
/** The variable map of a compiled implicit problem (opaque; owns the problem's params). */
typedef struct cpk_implicit_map cpk_implicit_map;

/** New system with step h > 0 and no bodies. */
CPK_API int cpk_implicit_system_alloc(double h, cpk_implicit_system **out, cpk_error *err);
/** Free (NULL is a no-op). */
CPK_API void cpk_implicit_system_free(cpk_implicit_system *s);
/** Add a body (copied); *index receives its index (0, 1, ...). */
CPK_API int cpk_implicit_system_add_body(cpk_implicit_system *s, const cpk_implicit_body *b,
                                         size_t *index, cpk_error *err);
/**
 * Add a contact pair between body1 (side 1, rigid, surface s1) and body2 (side
 * 2, compliant, surface s2); either may be CPK_IMPLICIT_WORLD, whose surface is
 * then fixed at pose (world_position, world_quat) (NULL: origin, identity).
 * params: mu, e_t, e_o, e_r, compliant = 1, K, C, delta_max (INFINITY: no
 * rigid core), delta_prev (deflection at the start of the step); psi and the
 * drift and direction fields are ignored. Everything is copied.
 */
CPK_API int cpk_implicit_system_add_pair(cpk_implicit_system *s, size_t body1,
                                         const cpk_implicit_surface *s1, size_t body2,
                                         const cpk_implicit_surface *s2,
                                         const cpk_contact_params *params,
                                         const double world_position[3],
                                         const double world_quat[4], cpk_error *err);
/** Number of bodies. */
CPK_API size_t cpk_implicit_system_nbodies(const cpk_implicit_system *s);
/** Number of body pairs that may touch. */
CPK_API size_t cpk_implicit_system_npairs(const cpk_implicit_system *s);
/** Time step h. */
CPK_API double cpk_implicit_system_step(const cpk_implicit_system *s);
/** Read body i (NULL if out of range). */
CPK_API const cpk_implicit_body *cpk_implicit_system_body(const cpk_implicit_system *s, size_t i);
/** Replace body i (copied; the quaternion is normalized). */
CPK_API int cpk_implicit_system_set_body(cpk_implicit_system *s, size_t i,
                                         const cpk_implicit_body *b, cpk_error *err);
/** Set the deflection (n, t, o) of pair i at the start of the step. */
CPK_API int cpk_implicit_system_set_deflection(cpk_implicit_system *s, size_t i,
                                               const double delta[3]);

/**
 * Accept a solution: every body takes v+ (from z), its centre moves by h v+
 * and its quaternion by q + (h/2) (0, w+) * q, then normalized (seed 003's
 * q+ = q + h G(q) v+), and every pair's delta_prev becomes its deflection in z.
 * `map` must come from compiling this system (same bodies and pairs).
 */
CPK_API int cpk_implicit_system_advance(cpk_implicit_system *s, const cpk_implicit_map *map,
                                        const double *z, cpk_error *err);

/* ---- the compiled problem ------------------------------------------------ */

/**
 * Compile the geometrically implicit Kelvin-Voigt step (doc/formulations.md,
 * "kelvin-voigt-implicit") into a nonlinear MCP with analytic Jacobian on a
 * fixed pattern and variable names. options may be NULL (no option is used
 * yet). Every pair must be compliant (CPK_EINVAL otherwise). The map holds
 * copies of the system data: the system may change or be freed afterwards.
 * Free the problem before, or together with, the map.
 */
CPK_API int cpk_compile_implicit_kelvin_voigt(const cpk_implicit_system *s,
                                              const cpk_compile_options *options,
                                              cpk_problem **problem, cpk_implicit_map **map,
                                              cpk_error *err);
/** Free (NULL is a no-op). */
CPK_API void cpk_implicit_map_free(cpk_implicit_map *m);

/** Unknowns of the compiled problem. Components: 0..2 for x, y, z or n, t, o (r for P_F). */
typedef enum cpk_implicit_var {
  CPK_IMPLICIT_V = 0,     /**< "v[j]": generalized velocity j = 6 body + k at the end of the step */
  CPK_IMPLICIT_A1,        /**< "a1_x[i]": closest point on side 1 (world frame), components 0..2 */
  CPK_IMPLICIT_A2,        /**< "a2_x[i]": closest point on the deformed side 2 */
  CPK_IMPLICIT_S,         /**< "s[i]": a2 - a1 = s grad f1(a1) (signed, scaled distance) */
  CPK_IMPLICIT_L,         /**< "l[i]": grad f1(a1) + l grad f2(a2) = 0, l >= 0 (bounded) */
  CPK_IMPLICIT_DELTABAR,  /**< "deltabar[i]": algebraic deflection, f2(a2) + deltabar = 0 */
  CPK_IMPLICIT_DELTA,     /**< "delta_n[i]", "delta_t[i]", "delta_o[i]": Euclidean deflection */
  CPK_IMPLICIT_P_NS,      /**< "p_ns[i]": spring-damper normal impulse */
  CPK_IMPLICIT_P_NR,      /**< "p_nr[i]": rigid-core normal impulse (finite delta_max only) */
  CPK_IMPLICIT_P_F,       /**< "p_t[i]", "p_o[i]", "p_r[i]": friction impulses (mu > 0; r with e_r > 0) */
  CPK_IMPLICIT_SIGMA      /**< "sigma[i]": slip speed (mu > 0) */
} cpk_implicit_var;

/** Number of unknowns of the compiled problem. */
CPK_API size_t cpk_implicit_map_n(const cpk_implicit_map *m);
/** Index of an unknown (body index for V with component 0..5), or (size_t)-1 if absent. */
CPK_API size_t cpk_implicit_map_index(const cpk_implicit_map *m, cpk_implicit_var var,
                                      size_t pair_or_body, size_t component);

/** What a solution says about one pair. */
typedef struct cpk_implicit_contact {
  double a1[3], /**< closest point of side 1 at the end of the step */ a2[3]; /**< closest point of side 2 (deformed) */
  double n[3], /**< unit outward normal of side 2 at a2 (into side 1) */ t[3], /**< first tangent */ o[3]; /**< second tangent */
  double P[4];           /**< impulses (n, t, o, r) applied to side 1 (side 2 gets the opposite) */
  double p_ns, /**< spring-damper part of P[0] */ p_nr; /**< rigid-core part of P[0] */
  double delta[3];       /**< Euclidean deflection (n, t, o) at the end of the step */
  double deltabar;       /**< algebraic deflection */
  double gap;            /**< f2(a1) + deltabar: >= 0, 0 while pressed (seed 003 eq. (13)) */
  double distance;       /**< s |grad f1(a1)|: signed distance a1 to a2 along the normal */
  double U[4];           /**< relative velocity of side 1 over side 2 at the contact (n, t, o, r) */
} cpk_implicit_contact;

/** Next velocities v+ (6 per body) from a solution z. */
CPK_API int cpk_implicit_map_velocities(const cpk_implicit_map *m, const double *z, double *v);
/** The state of pair i in the solution z. CPK_EINVAL if i is out of range, CPK_EBADFUNC if
 * the surfaces cannot be evaluated there. */
CPK_API int cpk_implicit_map_contact(const cpk_implicit_map *m, const double *z, size_t i,
                                     cpk_implicit_contact *out);
/**
 * A starting point for the Newton solvers: velocities at the start of the
 * step, closest points from the surfaces' support functions at the start poses
 * (the centre of mass when side 1 has none), deflections delta_prev, no
 * impulse. The solution of the previous step (same system layout) is usually
 * a better start.
 */
CPK_API int cpk_implicit_map_start(const cpk_implicit_map *m, double *z);

CPK_END_DECLS
#endif
