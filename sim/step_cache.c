/* step_cache.c: the compiled problem, its map and the bound solver that the stepper keeps across steps while the contact set is unchanged. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "world.h"

int sim_cache_matches(const sim_cache *k, const sim_geom *g, size_t ng)
{
  if (!k->prob || k->n != ng) return 0;
  for (size_t c = 0; c < ng; c++)
    if (k->key[c][0] != g[c].body[0] || k->key[c][1] != g[c].body[1] ||
        k->key[c][2] != (size_t)g[c].feature)
      return 0;
  return 1;
}

int sim_cache_keep(sim_cache *k, const sim_geom *g, size_t ng)
{
  if (sim_grow((void **)&k->key, &k->cap, ng + 1, sizeof *k->key)) return CPK_ENOMEM;
  for (size_t c = 0; c < ng; c++) {
    k->key[c][0] = g[c].body[0];
    k->key[c][1] = g[c].body[1];
    k->key[c][2] = (size_t)g[c].feature;
  }
  k->n = ng;
  return CPK_OK;
}

void sim_cache_drop(sim_cache *k)
{
  cpk_solver_free(k->solver); /* before the problem it is bound to */
  cpk_result_free(k->res);
  cpk_problem_free(k->prob);
  cpk_varmap_free(k->map);
  k->solver = NULL;
  k->res = NULL;
  k->prob = NULL;
  k->map = NULL;
  k->n = 0;
}

/*
 * Lemke bound across steps on an affine problem starts from its last basis
 * (settings.resolve.warm) rather than from the stepper's point: the basis says
 * exactly which unknowns were active, where the point is rebuilt from four
 * remembered impulse components per contact, which with 32 friction directions
 * leaves the directions carrying the friction to a guess. On the tripod's LCP:
 * 0.4 pivots a step instead of 2.7, the same trajectory. The stepper's point
 * still starts the first solve and any solve after a failed one.
 */
static int keeps_own_start(const cpk_solver_type *T, const cpk_problem *p)
{
  return (p->kind == CPK_KIND_LCP || p->kind == CPK_KIND_AFFINE_MCP) && !strcmp(T->name, "lemke");
}

void sim_cache_solved(sim_cache *k, int solved) { k->solved = solved; }

int sim_cache_solver(sim_cache *k, const cpk_solver_type *T, const cpk_settings *s,
                     const double *z0, cpk_solver **out, cpk_error *err)
{
  *out = NULL;
  /* Every solver follows the problem's change counters (solvers/resolve.c: in place, or the
     driver rebuilds its state), so one bound instance serves while the cache's problem lives. */
  if (k->solver && cpk_solver_type_of(k->solver) == T && k->solver_bounds == k->prob->rev.bounds) {
    int rc = cpk_solver_set_warm_start(k->solver, k->own_start && k->solved ? NULL : z0, NULL);
    if (rc) return cpk_error_set(err, rc, "warm start: %s", cpk_strerror(rc));
    *out = k->solver;
    return CPK_OK;
  }
  cpk_solver_free(k->solver);
  k->solver = NULL;
  cpk_settings set = *s;
  set.z0 = z0;
  k->own_start = keeps_own_start(T, k->prob);
  k->solved = 0;
  /* else the stepper gives its own start every step (its warm_start setting) */
  set.resolve.warm = k->own_start;
  int rc = cpk_solver_alloc(T, k->prob, &set, &k->solver, err);
  if (rc) return rc;
  k->solver_bounds = k->prob->rev.bounds;
  *out = k->solver;
  return CPK_OK;
}
