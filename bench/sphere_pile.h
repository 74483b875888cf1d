/* sphere_pile.h: the generated pile of spheres of bench/step_split (and of the tests of its first step). */
#ifndef CPK_BENCH_SPHERE_PILE_H
#define CPK_BENCH_SPHERE_PILE_H
#include <cpkit/cpkit.h>

/*
 * Add to w a fixed plane and n unit-mass spheres of radius 0.5: with layers = 2, a
 * square layer 2.2 radii apart on the plane and a second layer in its hollows, each
 * upper sphere touching four below (about 2.3 n contacts); with layers = 1, one layer
 * of touching spheres (about 3 n contacts, no load between them). The default material
 * gets mu = 0.5. Returns 0 or the error of the first call that failed.
 */
int cpk_bench_sphere_pile(cpk_world *w, size_t n, int layers);
#endif
