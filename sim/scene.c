/* scene.c: scenes: their world, their run over the duration, and the measurement of their checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "scene.h"

void cpk_scene_free(cpk_scene *s)
{
  if (!s) return;
  free(s->name);
  free(s->description);
  free(s->bodies);
  for (size_t m = 0; m < s->nmaterials; m++) free(s->materials[m].dirs);
  free(s->materials);
  free(s->ignore);
  free(s->checks);
  free(s);
}

size_t sim_scene_body(const cpk_scene *s, const char *name, size_t len)
{
  for (size_t b = 0; b < s->nbodies; b++)
    if (strlen(s->bodies[b].name) == len && !strncmp(s->bodies[b].name, name, len)) return b;
  return (size_t)-1;
}

const char *cpk_scene_name(const cpk_scene *s) { return s->name ? s->name : ""; }
const char *cpk_scene_description(const cpk_scene *s) { return s->description ? s->description : ""; }
cpk_sim_settings *cpk_scene_settings(cpk_scene *s) { return &s->settings; }
double cpk_scene_duration(const cpk_scene *s) { return s->duration; }
void cpk_scene_set_duration(cpk_scene *s, double duration) { s->duration = duration; }
size_t cpk_scene_nchecks(const cpk_scene *s) { return s->nchecks; }
cpk_scene_check *cpk_scene_check_get(cpk_scene *s, size_t i)
{
  return i < s->nchecks ? &s->checks[i] : NULL;
}

int cpk_scene_world(const cpk_scene *s, cpk_world **out, cpk_error *err)
{
  cpk_world *w = NULL;
  int rc = cpk_world_alloc(&s->settings, &w, err);
  for (size_t b = 0; b < s->nbodies && !rc; b++) rc = cpk_world_add_body(w, &s->bodies[b], NULL, err);
  for (size_t m = 0; m < s->nmaterials && !rc; m++) {
    const scene_material *M = &s->materials[m];
    rc = M->pair ? cpk_world_set_material(w, M->i, M->j, &M->params, err)
                 : cpk_world_set_default_material(w, &M->params, err);
  }
  for (size_t k = 0; k < s->nignore && !rc; k++)
    rc = cpk_world_ignore_pair(w, s->ignore[k][0], s->ignore[k][1], err);
  if (rc) {
    cpk_world_free(w);
    w = NULL;
  }
  *out = w;
  return rc;
}

static void check_reset(cpk_scene_check *k)
{
  k->measured_valid = 0;
  k->measured = NAN;
  k->passed = 0;
}

static int first_holds(const cpk_scene_check *k, double v)
{
  if (!strcmp(k->op, "<=")) return v <= k->value;
  if (!strcmp(k->op, ">=")) return v >= k->value;
  return v == k->value;
}

/* Measure check k after a step ending at time t (final: the last step). */
static void check_update(cpk_scene_check *k, const cpk_world *w, double t, double h, int final)
{
  double v;
  if (cpk_world_quantity(w, k->quantity, &v, NULL)) return;
  switch (k->kind) {
  case CPK_CHECK_AT:
    /* the first step ending at or after `at` (1e-3 h absorbs the rounding of the summed steps) */
    if (!k->measured_valid && t >= k->at - 1e-3 * h) k->measured = v, k->measured_valid = 1;
    break;
  case CPK_CHECK_FINAL:
    if (final) k->measured = v, k->measured_valid = 1;
    break;
  case CPK_CHECK_MAX:
  case CPK_CHECK_MIN:
    if (!k->measured_valid || (k->kind == CPK_CHECK_MAX ? v > k->measured : v < k->measured))
      k->measured = v;
    k->measured_valid = 1;
    break;
  case CPK_CHECK_FIRST:
    if (!k->measured_valid && first_holds(k, v)) k->measured = t, k->measured_valid = 1;
    break;
  }
}

int cpk_scene_run(cpk_scene *s, cpk_world *w, cpk_scene_step_fn fn, void *data, long *steps,
                  cpk_error *err)
{
  double h = cpk_world_settings(w)->h;
  double want = ceil(s->duration / h - 1e-9);
  if (!(want >= 0 && want <= 1e12)) /* also keeps the conversion below defined */
    return cpk_error_set(err, CPK_EINVAL, "duration / step = %g steps: at most 1e12", want);
  long n = 0, nsteps = want < 1 ? 1 : (long)want; /* a duration shorter than h is one step */
  int rc = CPK_OK;
  /* measured after every step, not at the start: contact quantities (fn, mode,
   * contacts) exist only once a step has found the contacts */
  for (size_t c = 0; c < s->nchecks; c++) check_reset(&s->checks[c]);
  for (n = 0; n < nsteps; n++) {
    cpk_sim_step_info info;
    rc = cpk_world_step(w, &info, err);
    if (rc) break;
    for (size_t c = 0; c < s->nchecks; c++)
      check_update(&s->checks[c], w, info.time, h, n + 1 == nsteps);
    if (fn && fn(w, &info, data)) {
      n++;
      break;
    }
  }
  for (size_t c = 0; c < s->nchecks; c++) {
    cpk_scene_check *k = &s->checks[c];
    k->passed = k->measured_valid && fabs(k->measured - k->expected) <= k->tol;
  }
  if (steps) *steps = n;
  return rc;
}
