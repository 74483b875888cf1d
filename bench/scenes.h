/* scenes.h: generated contact scenes (stacked boxes, a pile of spheres, a brick wall, particles on a vibrating plate) as body-form contact systems, and their benchmark suites. */
#ifndef CPK_BENCH_SCENES_H
#define CPK_BENCH_SCENES_H
#include <stddef.h>
#include <cpkit/contact.h>
#include "harness.h"

/*
 * Every scene is one time step of rigid bodies with 6 velocities each
 * (linear, angular, world frame; body b owns rows 6b .. 6b+5), a diagonal
 * (sparse) mass matrix, gravity (0, 0, -9.81) in k, and point contacts built
 * with cpk_rigid_contact_wrenches: the normal points into the first body of
 * the pair, which carries the + columns; the second body (if any: -1 is the
 * ground, a wall of the container or the plate) carries the - columns. Every
 * contact has mu, e_t = e_o = 1, compliance data (K, C, delta_max) so the
 * kelvin-voigt model takes it, and a gap psi measured from the geometry.
 * Random choices come from GSL's mt19937 seeded with `seed`: the same
 * options give the same system on every platform.
 *
 * - stack: towers of up to 4 axis-aligned boxes on the ground, each box
 *   offset a little from the one below; every face-to-face contact is the 4
 *   corners of the overlap of the faces, so the contacts are redundant and
 *   the Delassus matrix J^T M^-1 J is singular.
 * - pile: spheres on a jittered cubic lattice in an open box (floor and four
 *   walls); a pair of spheres, or a sphere and a wall, is in contact when
 *   its gap is below `threshold` (some overlap slightly). Thousands of
 *   contacts at a few thousand spheres.
 * - wall: a brick wall in running bond (odd courses shifted by half a
 *   brick); bricks touch their neighbours in the course (side faces) and the
 *   bricks above and below (corners of the overlapping faces).
 * - plate: one layer of spheres on a plate that moves vertically with
 *   velocity `plate_velocity` (a phase of a sinusoidal vibration drawn from
 *   the seed): the plate contacts carry drift[0] = -plate_velocity. Sphere
 *   pairs below the threshold touch too.
 */

typedef enum cpk_bench_scene_kind {
  CPK_SCENE_STACK = 0,
  CPK_SCENE_PILE = 1,
  CPK_SCENE_WALL = 2,
  CPK_SCENE_PLATE = 3
} cpk_bench_scene_kind;
#define CPK_SCENE_COUNT 4

/* "stack", "pile", "wall", "plate"; NULL out of range. */
const char *cpk_bench_scene_name(cpk_bench_scene_kind k);
/* Parse a scene name; CPK_ENOTFOUND if unknown. */
int cpk_bench_scene_from_name(const char *name, cpk_bench_scene_kind *k);

/* What a scene is made of. Fill with cpk_bench_scene_options_default(). */
typedef struct cpk_bench_scene_options {
  size_t bodies;      /* number of bodies (boxes, spheres, bricks, particles), >= 1 */
  unsigned long seed; /* mt19937 seed */
  double mu;          /* friction coefficient of every contact, >= 0 */
  double h;           /* step, > 0 */
} cpk_bench_scene_options;

/* Defaults: 8 bodies, seed 1, mu 0.5, h 0.01. */
void cpk_bench_scene_options_default(cpk_bench_scene_options *o);

/* One body of a scene, for checks and pictures. */
typedef struct cpk_bench_scene_body {
  int sphere;       /* 1: a sphere of radius half[0]; 0: an axis-aligned box */
  double centre[3]; /* centre of mass (world frame) */
  double half[3];   /* box half extents (x, y, z); sphere: radius in all three */
  double mass;
} cpk_bench_scene_body;

/* The geometry behind a generated system. */
typedef struct cpk_bench_scene {
  cpk_bench_scene_kind kind;
  size_t nbodies;
  cpk_bench_scene_body *bodies;
  size_t nc;
  long *pair;            /* 2 per contact: the body with the + columns, the other body or -1 */
  double threshold;      /* pile, plate: a pair is in contact when its gap is below this */
  double plate_velocity; /* plate: vertical velocity of the plate during the step */
  double box[3];         /* pile: inner size of the container, from the origin */
} cpk_bench_scene;

/*
 * Generate scene `kind`: *sys receives the contact system (named after the
 * scene, validated with cpk_contact_system_validate), *geometry (may be NULL
 * when not wanted) its geometry. CPK_EINVAL for bad options, CPK_ENOMEM /
 * CPK_EOVERFLOW when the sizes do not fit.
 */
int cpk_bench_scene_generate(cpk_bench_scene_kind kind, const cpk_bench_scene_options *o, cpk_contact_system **sys,
                       cpk_bench_scene **geometry, cpk_error *err);
/* Free (NULL is a no-op). */
void cpk_bench_scene_free(cpk_bench_scene *g);

/* ---- benchmark suites ---------------------------------------------------------------- */

/*
 * The scene suites compile every scene with every contact model: point-coulomb,
 * elliptic-torsional, polyhedral with d = 4, 8, 16, 32 plane directions, and
 * kelvin-voigt. An instance's family is "SCENE/MODEL" (e.g. "stack/polyhedral-d8")
 * and its name adds bodies, h, mu and seed: "stack-b8-polyhedral-d8-h0.01-mu0.5-s1".
 * Its size is the number of bodies; the records' size is the number of contacts.
 */

/* 1 if `family` is a scene family ("SCENE/MODEL"). */
int cpk_bench_family_is_scene(const char *family);
/*
 * Add the instances of a scene suite: "scenes" (small scenes x every model x
 * h in {1e-2, 1e-3} x mu in {0.1, 0.5, 1.0}), "scenes-large" (up to more than
 * 10 000 contacts, for the sparse solvers) or "scenes-standard" (the slice
 * `standard` runs). Instances are labelled with suite `label`. CPK_ENOTFOUND
 * for another name.
 */
int cpk_bench_scene_suite_add(cpk_bench_suite *s, const char *suite, const char *label);
/*
 * Build a scene instance: generate, compile with its model (the nonlinear
 * models start from cpk_varmap_point of zero impulses: the free motion), and
 * set out->size to the number of contacts.
 */
int cpk_bench_build_scene(const cpk_bench_instance *inst, cpk_bench_built *out, cpk_error *err);

#endif
