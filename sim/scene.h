/* scene.h: the scene object shared by the scene reader and the scene runner (internal to sim/). */
#ifndef CPK_SIM_SCENE_H
#define CPK_SIM_SCENE_H
#include <cpkit/sim.h>

typedef struct scene_material {
  int pair;    /* 0: the default material of all pairs */
  size_t i, j; /* the pair (body indices) when pair */
  cpk_contact_params params;
  double *dirs; /* owned storage of params.directions */
} scene_material;

struct cpk_scene {
  char *name, *description;
  cpk_sim_settings settings;
  double duration;
  size_t nbodies;
  cpk_body *bodies;
  size_t nmaterials;
  scene_material *materials;
  size_t nignore;
  size_t (*ignore)[2];
  size_t nchecks;
  cpk_scene_check *checks;
};

/* Index of the body called `name`, or (size_t)-1. */
size_t sim_scene_body(const cpk_scene *s, const char *name, size_t len);

#endif
