/* tilted_scene.h: seed 003's tilted ellipsoid with the elliptic-torsional model, set up for a run: shared by the tests of its landing and of the stepper's finishing phase. */
#ifndef CPK_TESTS_TILTED_SCENE_H
#define CPK_TESTS_TILTED_SCENE_H
#include <cpkit/cpkit.h>

#define TILTED_SCENE "seed003-ellipsoid-tilted"
#define TILTED_FEW_ITERATIONS 5 /* bdnewton stops short at t = 0.1763 with it */

/* How a run is set up: compile.exact_scales, physics_finish off, an iteration limit
 * (TILTED_FEW_ITERATIONS), physics_continue. */
enum { TILTED_EXACT = 1, TILTED_NO_FINISH = 2, TILTED_FEW = 4, TILTED_CONTINUE = 8 };

/* The scene read from the examples (CPK_TEST_SRCDIR/../examples) into *sc with
 * elliptic-torsional, `solver` and `fallback` (NULL: the scene's; "" none), set up by
 * flags: its settings, for the caller to change further before cpk_scene_world, or NULL
 * when it cannot be read (err set). The caller frees *sc. */
cpk_sim_settings *tilted_scene(const char *solver, const char *fallback, int flags,
                               cpk_scene **sc, cpk_error *err);
#endif
