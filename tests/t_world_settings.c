/* t_world_settings.c: cpk_world_set_settings between steps: solve's values (max_iter, tol), the model and the solver are followed from the next step on; invalid settings are refused with the world unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

/* The seed 004 tripod with point-coulomb and nsn, no fallback and no finishing (a solve
 * stopped short must show); NULL when it cannot be made. */
static cpk_world *tripod(cpk_scene **sc)
{
  cpk_error err = {0};
  cpk_world *w = t_tripod_world("point-coulomb", "nsn", 0, sc);
  if (!w) return NULL;
  cpk_sim_settings s = *cpk_world_settings(w);
  s.fallback[0] = '\0';
  s.physics_finish = 0;
  if (!cpk_world_set_settings(w, &s, &err)) return w;
  cpk_world_free(w);
  return NULL;
}

/* k steps; the largest residual and the last step's info. */
static int steps(cpk_world *w, int k, double *resmax, cpk_sim_step_info *info, cpk_error *err)
{
  int rc = CPK_OK;
  *resmax = 0.0;
  for (int i = 0; i < k && !rc; i++) {
    rc = cpk_world_step(w, info, err);
    if (!rc) *resmax = fmax(*resmax, info->residual);
  }
  return rc;
}

/* nsn takes about two Newton iterations a tripod step: with max_iter 1 (kept solver bound
 * with the old settings before the fix) a step must stop short and fail. */
static void solve_values_followed(cpk_world *w)
{
  cpk_error err = {0};
  cpk_sim_step_info info;
  double res;
  int rc = steps(w, 20, &res, &info, &err);
  t_ok(!rc, "20 steps with nsn's defaults (%s)", err.message);
  cpk_sim_settings s = *cpk_world_settings(w);
  s.solve.max_iter = 1;
  s.solve.tol = 1e-14;
  rc = cpk_world_set_settings(w, &s, &err);
  t_ok(!rc, "max_iter 1, tol 1e-14 accepted (%s)", err.message);
  rc = steps(w, 5, &res, &info, &err);
  t_ok(rc == CPK_ENOCONV && strstr(err.message, "nsn"),
       "the next steps follow them: a step stops short (rc %d: %s)", rc, err.message);
  s.solve.max_iter = 100;
  s.solve.tol = 1e-12;
  rc = cpk_world_set_settings(w, &s, &err);
  err.message[0] = '\0';
  if (!rc) rc = steps(w, 20, &res, &info, &err);
  t_ok(!rc && res <= 1e-12 * 10, "tol 1e-12, max_iter 100: 20 steps, residuals <= %g (%s)", res,
       err.message);
}

/* polyhedral with lemke: the next problem is an LCP; the tripod still stands. */
static void model_followed(cpk_world *w)
{
  cpk_error err = {0};
  cpk_sim_settings s = *cpk_world_settings(w);
  snprintf(s.model, sizeof s.model, "polyhedral");
  snprintf(s.solver, sizeof s.solver, "lemke");
  int rc = cpk_world_set_settings(w, &s, &err);
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  double *z0 = NULL;
  size_t nc = 0;
  if (!rc) rc = cpk_world_next_problem(w, &p, &map, &z0, &nc, &err);
  t_ok(!rc && p && p->kind == CPK_KIND_LCP, "model polyhedral: the next problem is an LCP (%s)",
       err.message);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  free(z0);
  cpk_sim_step_info info;
  double res;
  rc = steps(w, 50, &res, &info, &err);
  double z = NAN;
  if (!rc) rc = cpk_world_quantity(w, "tripod.x[2]", &z, &err);
  t_ok(!rc && fabs(z - 1.0186) < 0.05, "50 lemke steps; the tripod stands (z = %.4f cm) (%s)", z,
       err.message);
}

/* A bad value: refused naming it, the world's settings and steps unchanged. */
static void invalid_refused(cpk_world *w)
{
  cpk_error err = {0};
  cpk_sim_settings s = *cpk_world_settings(w);
  double h = s.h;
  s.h = -1.0;
  int rc = cpk_world_set_settings(w, &s, &err);
  t_ok(rc == CPK_EINVAL && strstr(err.message, "h must be"), "h = -1 refused (rc %d: %s)", rc,
       err.message);
  s = *cpk_world_settings(w);
  snprintf(s.solver, sizeof s.solver, "no-such-solver");
  rc = cpk_world_set_settings(w, &s, &err);
  t_ok(rc == CPK_EINVAL && strstr(err.message, "no-such-solver"), "an unknown solver refused (%s)",
       err.message);
  t_ok(cpk_world_settings(w)->h == h && !strcmp(cpk_world_settings(w)->solver, "lemke"),
       "the world keeps its settings");
  cpk_sim_step_info info;
  double res;
  err.message[0] = '\0';
  t_ok(!steps(w, 5, &res, &info, &err), "and steps on (%s)", err.message);
}

int main(void)
{
  cpk_scene *sc;
  cpk_world *w = tripod(&sc);
  t_ok(w != NULL, "the tripod world");
  if (w) {
    solve_values_followed(w);
    model_followed(w);
    invalid_refused(w);
  }
  cpk_world_free(w);
  cpk_scene_free(sc);
  return t_done();
}
