/* impact.h: planar frictional impact of two rigid bodies at one contact under Newton's, Poisson's or Stronge's hypothesis (seed 001 section 2). */
#ifndef CPKIT_IMPACT_H
#define CPKIT_IMPACT_H
#include <cpkit/export.h>
#include <cpkit/errors.h>

CPK_BEGIN_DECLS

/**
 * @file
 * A collision of two planar rigid bodies at one point (seed 001 section 2,
 * Routh's method). Everything is written in the *contact frame*: x along the
 * common tangent, y along the normal, pointing from body 2 into body 1. The
 * relative velocity of the contact point is (S, C) = (tangential, normal) of
 * body 1 minus body 2; the bodies approach when C < 0.
 *
 * The impact is integrated in the normal impulse p = P_y, which grows from 0:
 * (S, C) is linear in the impulse P = (P_x, P_y) on body 1 (body 2 receives
 * -P), dP_x = -mu sign(S) dp while the contact slides (Coulomb's law for
 * impulses, eq. 2.2), and when S reaches 0 the contact sticks if the
 * tangential impulse ratio needed to keep S = 0 is inside the friction cone,
 * else it slides back (reverse sliding). The compression phase ends at p_c
 * where C = 0; the restitution phase ends at p_T given by the hypothesis:
 *
 * - Newton (kinematic, eq. 2.3): C_final = -e C_0;
 * - Poisson (impulse, eq. 2.4): p_T = (1 + e) p_c;
 * - Stronge (energy): the work of the normal impulse during restitution is
 *   e^2 times minus its work during compression.
 *
 * The energy dissipated is D = -integral of (S dP_x + C dP_y) (eq. 2.5), the
 * loss of kinetic energy; D_n = -integral of C dP_y is the part of the normal
 * impulse and D_t = D - D_n that of friction. Newton's hypothesis can make D
 * negative with friction; Stronge's never does (D_n = 0 when e = 1).
 */

/** Impact hypotheses. */
typedef enum cpk_impact_law {
  CPK_IMPACT_NEWTON = 0,  /**< "newton": C_final = -e C_0 */
  CPK_IMPACT_POISSON = 1, /**< "poisson": restitution impulse = e times compression impulse */
  CPK_IMPACT_STRONGE = 2  /**< "stronge": restitution work of P_y = e^2 times compression work */
} cpk_impact_law;

#define CPK_IMPACT_LAW_COUNT 3 /**< number of restitution laws */

/** "newton", "poisson", "stronge"; NULL for an unknown value. */
CPK_API const char *cpk_impact_law_name(cpk_impact_law law);
/** Parse a law name; CPK_ENOTFOUND if unknown. */
CPK_API int cpk_impact_law_from_name(const char *name, cpk_impact_law *law);

/**
 * What the slip does during the impact: the five cases of seed 001 Figure 2,
 * plus the impacts that start without slip.
 */
typedef enum cpk_impact_case {
  CPK_IMPACT_REVERSE_COMPRESSION = 0, /**< (a) slip stops and reverses during compression */
  CPK_IMPACT_REVERSE_RESTITUTION = 1, /**< (b) slip stops and reverses during restitution */
  CPK_IMPACT_STICK_COMPRESSION = 2,   /**< (c) slip stops during compression, then sticks */
  CPK_IMPACT_STICK_RESTITUTION = 3,   /**< (d) slip stops during restitution, then sticks */
  CPK_IMPACT_FORWARD_SLIDING = 4,     /**< (e) slides the same way throughout (or mu = 0) */
  CPK_IMPACT_NO_IMPACT = 5            /**< C_0 >= 0: the bodies do not approach, P = 0 */
} cpk_impact_case;

/**
 * A planar rigid body at the instant of impact, in the contact frame.
 * An immovable body (the ground) has mass and inertia INFINITY.
 */
typedef struct cpk_impact_body {
  double mass;    /**< > 0, or INFINITY */
  double inertia; /**< moment of inertia about the centre of mass, > 0, or INFINITY */
  double r[2];    /**< contact point minus centre of mass */
  double v[2];    /**< velocity of the centre of mass */
  double omega;   /**< angular velocity (counter-clockwise from x to y) */
} cpk_impact_body;

/** What an impact did. */
typedef struct cpk_impact_result {
  cpk_impact_case kase; /**< how the impact went (slip, stick, reversal) */
  double P[2];       /**< total impulse on body 1 (P_x tangential, P_y normal) */
  double p_c;        /**< normal impulse at the end of compression (P_yC) */
  double p_s;        /**< normal impulse at which slip stopped (P_yS); INFINITY if it never did */
  double S0, /**< relative tangential contact velocity before the impact */ C0; /**< relative normal contact velocity before the impact */
  double S, /**< relative tangential contact velocity after the impact */ C; /**< relative normal contact velocity after the impact */
  double D;          /**< energy dissipated (loss of kinetic energy); < 0 is a gain */
  double D_n, /**< part of D done by the normal impulse */ D_t; /**< part of D done by the tangential impulse */
  cpk_impact_body after[2]; /**< the two bodies after the impact */
} cpk_impact_result;

/**
 * Resolve the impact of body b1 against body b2 (NULL: immovable ground at
 * rest) with friction coefficient mu >= 0 and coefficient of restitution e in
 * [0, 1] under `law`. Fills *out. CPK_EINVAL (with a message) for bad
 * values and for two immovable bodies. The phase that lasts (sticking, or
 * sliding that never stops) always has dC/dp > 0 because K is positive
 * definite, so every impact with one contact ends; a configuration in which
 * it would not (rounding on a nearly singular K) is also CPK_EINVAL.
 * C_0 >= 0 is not an error: the result is CPK_IMPACT_NO_IMPACT with P = 0.
 */
CPK_API int cpk_impact_solve(const cpk_impact_body *b1, const cpk_impact_body *b2, double mu,
                             double e, cpk_impact_law law, cpk_impact_result *out,
                             cpk_error *err);

/**
 * Kinetic energy of a planar body (0 for an immovable one):
 * (m |v|^2 + I omega^2) / 2.
 */
CPK_API double cpk_impact_body_energy(const cpk_impact_body *b);

CPK_END_DECLS
#endif
