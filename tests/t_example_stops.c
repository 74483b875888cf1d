/* t_example_stops.c: stops of the examples matrix (doc/experiments.md) fixed on branch mcp4 (issue 14): bdnewton on seed 004's tripod at t = 0.0362, where an iterate with a negative sigma turned friction around and the search stalled at a minimum of the merit that is no solution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

#define STEPS 362 /* t = 0.0362 at h = 1e-4 */

static const char *scene_path(const char *name)
{
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/../examples/%s.scene.json",
           getenv("CPK_TEST_SRCDIR") ? getenv("CPK_TEST_SRCDIR") : ".", name);
  return buf;
}

/* The scene with the model (and the solver, "" = the scene's), its world after `steps` steps
   (NULL when a step fails: the stepper fails a step whose answer fails the physical check). */
static cpk_world *run(const char *name, const char *model, const char *solver, size_t steps,
                      cpk_scene **sc, cpk_error *err)
{
  cpk_world *w = NULL;
  int ok = cpk_scene_read_file(scene_path(name), sc, err) == CPK_OK;
  if (ok) {
    cpk_sim_settings *ss = cpk_scene_settings(*sc);
    snprintf(ss->model, sizeof ss->model, "%s", model);
    if (*solver) snprintf(ss->solver, sizeof ss->solver, "%s", solver);
    ok = cpk_scene_world(*sc, &w, err) == CPK_OK;
  }
  for (size_t k = 0; ok && k < steps; k++) ok = cpk_world_step(w, NULL, err) == CPK_OK;
  return ok ? w : (cpk_world_free(w), NULL);
}

/* max_i |z_i - mid(l_i, u_i, z_i - F_i(z))|, F evaluated here. */
static double mid_residual(const cpk_problem *p, const double *z, double *w)
{
  if (cpk_problem_eval(p, z, w)) return INFINITY;
  double r = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double y = fmin(fmax(z[i] - w[i], p->lower[i]), p->upper[i]);
    r = fmax(r, fabs(z[i] - y));
  }
  return r;
}

/* The problem the stepper gives bdnewton at t = 0.0362, solved from the stepper's start. */
static void tripod_step(cpk_world *w)
{
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  double *z0 = NULL, *f = NULL;
  size_t nc = 0;
  cpk_result *r = NULL;
  cpk_error err;
  int rc = cpk_world_next_problem(w, &p, &m, &z0, &nc, &err);
  if (!t_ok(rc == CPK_OK && nc == 3, "the tripod stands on 3 feet at t = 0.0362")) return;
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = z0;
  f = malloc(p->n * sizeof *f);
  rc = f && cpk_result_alloc(p->n, &r) == CPK_OK ? cpk_solve(p, "bdnewton", &s, r, &err) : CPK_ENOMEM;
  if (t_ok(rc == CPK_OK, "bdnewton runs (%s)", rc ? err.message : "")) {
    double res = mid_residual(p, r->z, f);
    t_ok(res <= 1e-6, "bdnewton solves it: mid residual %g (it stalled at 0.098 before |sigma| in the slip rows)",
         res);
    int below = 0;
    for (size_t i = 0; i < p->n; i++) below |= r->z[i] < p->lower[i];
    t_ok(!below, "the answer is inside the bounds (sigma >= 0)");
    cpk_physics_check chk;
    rc = cpk_varmap_check(m, r->z, 1e-3, &chk, &err);
    t_ok(rc == CPK_OK && chk.ok, "the answer passes the physical check (%s)", chk.message);
  }
  cpk_result_free(r);
  free(f);
  free(z0);
  cpk_varmap_free(m);
  cpk_problem_free(p);
}

int main(void)
{
  cpk_scene *sc = NULL;
  cpk_error err;
  cpk_world *w = run("seed004-tripod", "point-coulomb", "bdnewton", STEPS, &sc, &err);
  if (t_ok(w != NULL, "the tripod runs to t = 0.0362 with bdnewton (%s)", w ? "" : err.message))
    tripod_step(w);
  cpk_world_free(w);
  cpk_scene_free(sc);
  return t_done();
}
