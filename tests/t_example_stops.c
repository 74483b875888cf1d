/* t_example_stops.c: stops of the examples matrix (doc/experiments.md, issue 14): bdnewton on seed 004's tripod at t = 0.0362 (branch mcp4), where an iterate with a negative sigma turned friction around and the search stalled at a minimum of the merit that is no solution; ipm on seed 000's explicit two-sphere scene with point-coulomb at t = 0.1 (branch ipm2s), where the central path turns and potential reduction crept toward the sticking face. */
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

/* A stop's step: which solver, how many contacts, the residual it must reach and what it
   stopped at before, and the checks of its answer beyond the residual and the physical check. */
typedef struct stop_case {
  const char *what, *solver;
  size_t nc;
  double tol;
  const char *before;
  void (*answer)(const cpk_problem *p, const double *z);
} stop_case;

/* The problem the stepper gives the solver at the stop, solved from the stepper's start. */
static void stop_step(cpk_world *w, const stop_case *c)
{
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  double *z0 = NULL, *f = NULL;
  size_t nc = 0;
  cpk_result *r = NULL;
  cpk_error err;
  int rc = cpk_world_next_problem(w, &p, &m, &z0, &nc, &err);
  if (!t_ok(rc == CPK_OK && nc == c->nc, "%s: %zu contacts", c->what, c->nc)) return;
  cpk_settings s;
  cpk_settings_default(&s);
  s.z0 = z0;
  f = malloc(p->n * sizeof *f);
  rc = f && cpk_result_alloc(p->n, &r) == CPK_OK ? cpk_solve(p, c->solver, &s, r, &err) : CPK_ENOMEM;
  if (t_ok(rc == CPK_OK, "%s runs (%s)", c->solver, rc ? err.message : "")) {
    double res = mid_residual(p, r->z, f);
    t_ok(res <= c->tol, "%s solves it: mid residual %g (%s)", c->solver, res, c->before);
    c->answer(p, r->z);
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

static void tripod_answer(const cpk_problem *p, const double *z)
{
  int below = 0;
  for (size_t i = 0; i < p->n; i++) below |= z[i] < p->lower[i];
  t_ok(!below, "the answer is inside the bounds (sigma >= 0)");
}

/* The index of the variable named `name`, or p->n. */
static size_t var(const cpk_problem *p, const char *name)
{
  for (size_t i = 0; p->var_names && i < p->n; i++)
    if (p->var_names[i] && strcmp(p->var_names[i], name) == 0) return i;
  return p->n;
}

/*
 * The answer (bdnewton's, and the exact central path's limit): the ball rolls along the
 * seam, sliding slowly at contact 1 (sigma_1 = 2.7e-5 > 0, its friction on the cone:
 * mu p_n = |p_T|) and sticking at contact 2 (sigma_2 = 0); the friction along o,
 * internal to the wedge (W's null space), is p_o = -+0.0436. Both contacts sticking has
 * no solution: ipm's potential reduction crept toward that face and stalled at 1e-6.
 */
static void wedge_answer(const cpk_problem *p, const double *z)
{
  size_t s1 = var(p, "sigma[1]"), s2 = var(p, "sigma[2]"), o1 = var(p, "p_o[1]"), o2 = var(p, "p_o[2]");
  size_t n1 = var(p, "p_n[1]"), t1 = var(p, "p_t[1]");
  if (!t_ok(s1 < p->n && s2 < p->n && o1 < p->n && o2 < p->n && n1 < p->n && t1 < p->n,
            "the unknowns are named"))
    return;
  double pt = hypot(z[t1], z[o1]);
  t_ok(z[s1] > 1e-5 && z[s2] < 1e-9, "contact 1 slides (sigma %g), contact 2 sticks (sigma %g)", z[s1], z[s2]);
  t_ok(fabs(0.2 * z[n1] - pt) <= 1e-6 * z[n1], "contact 1's friction is on its cone: 0.2 p_n %g, |p_T| %g",
       0.2 * z[n1], pt);
  t_ok(fabs(z[o1] + z[o2]) < 1e-5 && fabs(fabs(z[o1]) - 0.0436) < 1e-3,
       "the internal friction of the wedge: p_o = %g, %g", z[o1], z[o2]);
}

int main(void)
{
  static const stop_case tripod = {"the tripod at t = 0.0362", "bdnewton", 3, 1e-6,
                                   "it stalled at 0.098 before |sigma| in the slip rows", tripod_answer};
  static const stop_case wedge = {"the wedged ball at t = 0.1", "ipm", 2, 1e-8,
                                  "it stalled at 1.1e-6 before ipm's watchdog", wedge_answer};
  cpk_scene *sc = NULL;
  cpk_error err;
  cpk_world *w = run("seed004-tripod", "point-coulomb", "bdnewton", STEPS, &sc, &err);
  if (t_ok(w != NULL, "the tripod runs to t = 0.0362 with bdnewton (%s)", w ? "" : err.message))
    stop_step(w, &tripod);
  cpk_world_free(w);
  cpk_scene_free(sc);
  sc = NULL;
  w = run("seed000-two-spheres-explicit", "point-coulomb", "ipm", 1, &sc, &err);
  if (t_ok(w != NULL, "the two-sphere scene's first step with ipm (%s)", w ? "" : err.message))
    stop_step(w, &wedge);
  cpk_world_free(w);
  cpk_scene_free(sc);
  sc = NULL;
  w = run("seed000-two-spheres-explicit", "point-coulomb", "ipm", 2, &sc, &err); /* the run to t = 0.15 */
  double t = NAN;
  if (w) cpk_world_quantity(w, "time", &t, &err);
  t_ok(w != NULL && fabs(t - 0.2) < 1e-12,
       "ipm's run to t = 0.15 (steps at t = 0 and 0.1) completes (%s; time after it %g)", w ? "" : err.message, t);
  cpk_world_free(w);
  cpk_scene_free(sc);
  return t_done();
}
