/* cone_pile.h: what t_fc_rows and t_petsc_nsn_rows share: a generated pile of spheres stepped once and compiled in the cone form. */
#ifndef CPK_TESTS_CONE_PILE_H
#define CPK_TESTS_CONE_PILE_H
#include <stdio.h>
#include <cpkit/cpkit.h>
#include "sphere_pile.h"

/* The friction-cone problem (point-coulomb) of bench/sphere_pile.h's pile of `spheres` after one step; NULL on failure. */
static inline cpk_problem *t_cone_pile(size_t spheres)
{
  cpk_sim_settings set;
  cpk_world *w = NULL;
  cpk_contact_system *s = NULL;
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  cpk_compile_options co;
  cpk_sim_settings_default(&set);
  snprintf(set.model, sizeof set.model, "point-coulomb");
  cpk_compile_options_default(&co);
  co.form = CPK_FORM_CONE;
  if (cpk_world_alloc(&set, &w, NULL) || cpk_bench_sphere_pile(w, spheres, 2) || cpk_world_step(w, NULL, NULL) ||
      cpk_world_contact_system(w, &s, NULL) || cpk_compile(s, "point-coulomb", &co, &p, &map, NULL))
    p = NULL;
  cpk_varmap_free(map);
  cpk_contact_system_free(s);
  cpk_world_free(w);
  return p;
}
#endif
