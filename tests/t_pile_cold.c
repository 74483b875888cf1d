/* t_pile_cold.c: the first step of a pile of spheres (every contact new): nsgs's sweeps stop short and nsn's finish from their point converges in a few Newton iterations, not linearly at a shift pinned by the start's own merit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "sphere_pile.h"
#include "testlib.h"

/*
 * The pile of bench/step_split (bench/sphere_pile.h: two layers, each upper sphere in a hollow of
 * four lower ones, mu = 0.5, h = 1e-3) at 201 spheres. Its Delassus operator
 * couples the whole layer, and is singular (more contact unknowns than body
 * velocities): Gauss-Seidel converges at a rate that gets closer to 1 as the
 * layer grows, and nsn needs a shifted Newton matrix. nsn scaled its shift by
 * |Phi| / |Phi(start)|: from the sweeps' point (already near the answer) the
 * shift stayed at its cap 1e-2 and the finish converged linearly, about 12 %
 * a step at 3001 spheres, and ran out of its 2 x 50 iterations at 10 001.
 * The reference is now the larger of |Phi(start)| and |Phi(0)|, the problem's
 * own scale: the shift goes with the distance to the answer.
 */
#define PILE_SPHERES 201
#define PILE_SWEEPS 60 /* far short of the tolerance: the finish has work to do */

/* The world of the pile (bench's generator), point-coulomb model. */
static cpk_world *pile_world(size_t n)
{
  cpk_sim_settings set;
  cpk_world *w = NULL;
  cpk_sim_settings_default(&set);
  snprintf(set.model, sizeof set.model, "point-coulomb");
  if (cpk_world_alloc(&set, &w, NULL)) return NULL;
  if (cpk_bench_sphere_pile(w, n, 2)) {
    cpk_world_free(w);
    return NULL;
  }
  return w;
}

/* nsgs stopped after PILE_SWEEPS sweeps from the step's start, then nsn's finish. */
static void test_finish(const cpk_problem *p, const cpk_varmap *map, const double *z0)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_physics_check ck;
  cpk_settings_default(&s);
  s.z0 = z0;
  s.max_iter = PILE_SWEEPS;
  if (cpk_result_alloc(p->n, &r)) abort();
  int rc = cpk_solve(p, "nsgs", &s, r, &err);
  double pf = NAN, pi = NAN, polished = NAN;
  cpk_result_get_stat(r, "polish_factorizations", &pf);
  cpk_result_get_stat(r, "polish_iterations", &pi);
  cpk_result_get_stat(r, "polished", &polished);
  int phys = !rc && !cpk_varmap_check(map, r->z, 1e-3, &ck, &err) && ck.ok;
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && polished == 1.0 &&
           t_is_fc_solution(p, r->z, 1e-8) && phys,
       "pile of %d, %d sweeps then nsn's finish: solved (%s), a cone solution by the "
       "independent check, physical check passes", PILE_SPHERES, PILE_SWEEPS,
       cpk_status_name(r->status));
  /* with the shift scaled by the start's merit: 11 iterations, 12 factorizations */
  t_ok(pi >= 1.0 && pi <= 4.0 && pf <= 2.0 * pi + 1.0,
       "the finish converges as Newton does: %g iterations, %g factorizations", pi, pf);
  cpk_result_free(r);
}

int main(void)
{
  cpk_init();
  cpk_world *w = pile_world(PILE_SPHERES);
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  double *z0 = NULL;
  size_t nc = 0;
  int ok = w && !cpk_world_next_problem(w, &p, &map, &z0, &nc, NULL) &&
           p->kind == CPK_KIND_FRICTION_CONE;
  t_ok(ok && nc > PILE_SPHERES, "the pile's first problem: %zu contacts, all new", nc);
  if (ok) test_finish(p, map, z0);
  free(z0);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  cpk_world_free(w);
  return t_done();
}
