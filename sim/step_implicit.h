/* step_implicit.h: the geometrically implicit compliant step (model "kelvin-voigt-implicit"), internal to sim/. */
#ifndef CPK_SIM_STEP_IMPLICIT_H
#define CPK_SIM_STEP_IMPLICIT_H
#include "assemble.h"

/* One step of the world with the closest points as unknowns (seed 003):
 * spheres, ellipsoids and planes with compliant materials. On failure the
 * world is not moved (the caller restores the bodies). */
int sim_implicit_step(cpk_world *w, cpk_sim_step_info *info, cpk_error *err);

#endif
