/* tilted_scene.c: seed 003's tilted ellipsoid with the elliptic-torsional model, set up for a run (see tilted_scene.h). */
#include <stdio.h>
#include <stdlib.h>
#include "tilted_scene.h"

cpk_sim_settings *tilted_scene(const char *solver, const char *fallback, int flags,
                               cpk_scene **sc, cpk_error *err)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/../examples/" TILTED_SCENE ".scene.json",
           getenv("CPK_TEST_SRCDIR") ? getenv("CPK_TEST_SRCDIR") : ".");
  if (cpk_scene_read_file(path, sc, err)) return NULL;
  cpk_sim_settings *ss = cpk_scene_settings(*sc);
  snprintf(ss->model, sizeof ss->model, "elliptic-torsional");
  snprintf(ss->solver, sizeof ss->solver, "%s", solver);
  if (fallback) snprintf(ss->fallback, sizeof ss->fallback, "%s", fallback);
  ss->compile.exact_scales = (flags & TILTED_EXACT) != 0;
  ss->physics_finish = !(flags & TILTED_NO_FINISH);
  ss->physics_continue = (flags & TILTED_CONTINUE) != 0;
  if (flags & TILTED_FEW) ss->solve.max_iter = TILTED_FEW_ITERATIONS;
  return ss;
}
