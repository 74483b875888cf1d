/* world.c: the world object: bodies, materials per body pair, settings, accessors and energy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "rotation.h"
#include "assemble.h"
#include "world.h"

void cpk_body_default(cpk_body *b)
{
  memset(b, 0, sizeof *b);
  b->kind = CPK_BODY_DYNAMIC;
  b->shape.kind = CPK_SHAPE_SPHERE;
  b->shape.size[0] = 1;
  b->mass = 1;
  for (int i = 0; i < 3; i++) b->inertia[i] = 0.4; /* solid unit sphere */
  b->q[0] = 1;
}

int cpk_sim_model_known(const char *name)
{
  cpk_contact_model m;
  return cpk_contact_model_from_name(name, &m) == CPK_OK || strcmp(name, SIM_MODEL_KV_IMPLICIT) == 0;
}

void cpk_sim_settings_default(cpk_sim_settings *s)
{
  memset(s, 0, sizeof *s);
  strcpy(s->model, "polyhedral");
  cpk_compile_options_default(&s->compile);
  cpk_settings_default(&s->solve);
  s->h = 1e-3;
  s->gravity[2] = -9.81;
  s->margin = 1e-3;
  s->warm_start = 1;
  s->implicit_tol = 1e-10;
  s->reuse = 1;
  s->physics_finish = 1;
}

static int check_settings(const cpk_sim_settings *s, cpk_error *err)
{
  if (memchr(s->model, 0, sizeof s->model) == NULL || memchr(s->solver, 0, sizeof s->solver) == NULL)
    return cpk_error_set(err, CPK_EINVAL, "model or solver name not terminated");
  if (!cpk_sim_model_known(s->model))
    return cpk_error_set(err, CPK_EINVAL, "unknown contact model '%s'", s->model);
  if (s->solver[0] && !cpk_solver_find(s->solver))
    return cpk_error_set(err, CPK_EINVAL, "unknown solver '%s'", s->solver);
  if (memchr(s->fallback, 0, sizeof s->fallback) == NULL ||
      (s->fallback[0] && !cpk_solver_find(s->fallback)))
    return cpk_error_set(err, CPK_EINVAL, "unknown fallback solver");
  if (!(s->h > 0) || !isfinite(s->h))
    return cpk_error_set(err, CPK_EINVAL, "step h must be > 0 (got %g)", s->h);
  if (!(s->margin >= 0) || !isfinite(s->margin))
    return cpk_error_set(err, CPK_EINVAL, "contact margin must be >= 0");
  for (int i = 0; i < 3; i++)
    if (!isfinite(s->gravity[i])) return cpk_error_set(err, CPK_EINVAL, "gravity not finite");
  if (s->implicit_iterations < 0 || !(s->implicit_tol > 0))
    return cpk_error_set(err, CPK_EINVAL, "implicit_iterations must be >= 0, implicit_tol > 0");
  return cpk_settings_validate(&s->solve, err);
}

int cpk_world_alloc(const cpk_sim_settings *settings, cpk_world **out, cpk_error *err)
{
  *out = NULL;
  int rc = check_settings(settings, err);
  if (rc) return rc;
  cpk_world *w = calloc(1, sizeof *w);
  if (!w) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  w->settings = *settings;
  w->settings.solve.z0 = NULL;
  w->settings.solve.basis0 = NULL;
  cpk_contact_params_default(&w->default_material);
  *out = w;
  return CPK_OK;
}

/*
 * New settings take effect at the next step: the kept problem, its map and the solver bound
 * to it were made with the old model, compile options, h and solver settings, so they go
 * (the next step compiles and binds anew), and so do the look-ups by name and the
 * kelvin-voigt-implicit start point (its layout is the old model's). The contacts' remembered
 * impulses stay: they warm-start any model.
 */
int cpk_world_set_settings(cpk_world *w, const cpk_sim_settings *settings, cpk_error *err)
{
  int rc = check_settings(settings, err);
  if (rc) return rc; /* the world keeps its settings */
  w->settings = *settings;
  w->settings.solve.z0 = NULL;
  w->settings.solve.basis0 = NULL;
  sim_cache_drop(&w->cache);
  memset(&w->lookup, 0, sizeof w->lookup);
  w->niz = 0;
  w->nikeys = 0;
  return CPK_OK;
}

void cpk_world_free(cpk_world *w)
{
  if (!w) return;
  for (size_t i = 0; i < w->nmaterials; i++) free(w->materials[i].dirs);
  free(w->materials);
  free(w->default_dirs);
  free(w->bodies);
  free(w->x0);
  free(w->q0);
  free(w->contacts);
  free(w->memory);
  free(w->iz);
  free(w->ikeys);
  sim_cache_drop(&w->cache);
  free(w->mem_slots);
  free(w->cache.key);
  sim_step_buf_free(&w->buf);
  free(w);
}

int sim_grow(void **arr, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap) return CPK_OK;
  size_t nc = *cap ? *cap : 8;
  while (nc < need) nc = nc <= SIZE_MAX / 2 ? 2 * nc : need;
  size_t bytes;
  if (cpk_size_mul(nc, size, &bytes)) return CPK_EOVERFLOW;
  void *p = realloc(*arr, bytes);
  if (!p) return CPK_ENOMEM;
  *arr = p;
  *cap = nc;
  return CPK_OK;
}

static int check_body(const cpk_body *b, cpk_error *err)
{
  const char *nm = memchr(b->name, 0, sizeof b->name) ? b->name : "?";
  if (b->kind < CPK_BODY_DYNAMIC || b->kind > CPK_BODY_DRIVEN)
    return cpk_error_set(err, CPK_EINVAL, "body '%s': unknown kind", nm);
  if (b->shape.kind < CPK_SHAPE_PLANE || b->shape.kind > CPK_SHAPE_POINTS)
    return cpk_error_set(err, CPK_EINVAL, "body '%s': unknown shape", nm);
  if (b->shape.kind == CPK_SHAPE_POINTS &&
      (b->shape.npoints < 1 || b->shape.npoints > CPK_SHAPE_MAX_POINTS))
    return cpk_error_set(err, CPK_EINVAL, "body '%s': 1 to %d points", nm, CPK_SHAPE_MAX_POINTS);
  for (size_t k = 0; b->shape.kind == CPK_SHAPE_POINTS && k < b->shape.npoints; k++)
    for (int i = 0; i < 3; i++)
      if (!isfinite(b->shape.points[k][i]))
        return cpk_error_set(err, CPK_EINVAL, "body '%s': points must be finite", nm);
  for (int i = 0; i < 3; i++)
    if (!(b->shape.size[i] >= 0) || !isfinite(b->shape.size[i]) || !isfinite(b->x[i]) ||
        !isfinite(b->v[i]) || !isfinite(b->w[i]) || !isfinite(b->force[i]) ||
        !isfinite(b->torque[i]))
      return cpk_error_set(err, CPK_EINVAL, "body '%s': sizes, position, velocity and forces "
                                            "must be finite (sizes >= 0)", nm);
  if (b->shape.kind == CPK_SHAPE_ELLIPSOID &&
      !(b->shape.size[0] > 0 && b->shape.size[1] > 0 && b->shape.size[2] > 0))
    return cpk_error_set(err, CPK_EINVAL, "body '%s': ellipsoid semi-axes must be > 0", nm);
  if (b->kind == CPK_BODY_DYNAMIC &&
      !(b->mass > 0 && b->inertia[0] > 0 && b->inertia[1] > 0 && b->inertia[2] > 0 &&
        isfinite(b->mass) && isfinite(b->inertia[0] + b->inertia[1] + b->inertia[2])))
    return cpk_error_set(err, CPK_EINVAL, "body '%s': a dynamic body needs mass > 0 and "
                                          "principal inertia > 0", nm);
  if (b->kind == CPK_BODY_DYNAMIC && b->shape.kind == CPK_SHAPE_PLANE)
    return cpk_error_set(err, CPK_EINVAL, "body '%s': a plane cannot be dynamic", nm);
  if (b->kind == CPK_BODY_DRIVEN && b->motion.kind != CPK_MOTION_ROTATING &&
      b->motion.kind != CPK_MOTION_VIBRATING && b->motion.kind != CPK_MOTION_OSCILLATING)
    return cpk_error_set(err, CPK_EINVAL, "body '%s': a driven body needs a motion", nm);
  return CPK_OK;
}

int cpk_world_add_body(cpk_world *w, const cpk_body *b, size_t *index, cpk_error *err)
{
  int rc = check_body(b, err);
  if (rc) return rc;
  if (sim_grow((void **)&w->bodies, &w->cap_bodies, w->nbodies + 1, sizeof *w->bodies))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory adding a body");
  /* x0 and q0 follow the capacity of bodies, whose element is larger (no overflow). */
  double(*nx)[3] = realloc(w->x0, w->cap_bodies * sizeof *nx);
  if (nx) w->x0 = nx;
  double(*nq)[4] = nx ? realloc(w->q0, w->cap_bodies * sizeof *nq) : NULL;
  if (!nq) return cpk_error_set(err, CPK_ENOMEM, "out of memory adding a body");
  w->q0 = nq;
  cpk_body *nb = &w->bodies[w->nbodies];
  *nb = *b;
  nb->name[sizeof nb->name - 1] = 0;
  if (!sim_qnormalize(nb->q))
    return cpk_error_set(err, CPK_EINVAL, "body '%s': orientation quaternion is zero", nb->name);
  for (int i = 0; i < 3; i++) w->x0[w->nbodies][i] = nb->x[i];
  for (int i = 0; i < 4; i++) w->q0[w->nbodies][i] = nb->q[i];
  if (nb->kind == CPK_BODY_DRIVEN) { /* start where the motion puts it now */
    sim_motion_eval(nb, w->x0[w->nbodies], w->q0[w->nbodies], w->time, nb->x, nb->q, nb->v, nb->w);
    if (!sim_state_finite(nb, 1))
      return cpk_error_set(err, CPK_EINVAL, "body '%s': its motion parameters give a non-finite "
                           "pose (a frequency or period too small?)", nb->name);
  }
  if (index) *index = w->nbodies;
  w->nbodies++;
  return CPK_OK;
}

/* Copy a material with its own directions (psi, drift and deflection are the stepper's). */
static int set_material(cpk_contact_params *dst, double **dirs, const cpk_contact_params *src,
                        cpk_error *err)
{
  double *nd = NULL;
  if (!(src->mu >= 0) || !(src->e_t > 0) || !(src->e_o > 0) || !(src->e_r >= 0))
    return cpk_error_set(err, CPK_EINVAL, "material: need mu >= 0, e_t, e_o > 0, e_r >= 0");
  if (src->compliant && !(src->delta_max > 0))
    return cpk_error_set(err, CPK_EINVAL, "material: delta_max must be > 0");
  if (src->ndirections) {
    nd = cpk_alloc_array(3 * src->ndirections, sizeof *nd);
    if (!nd) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
    memcpy(nd, src->directions, 3 * src->ndirections * sizeof *nd);
  }
  free(*dirs);
  *dirs = nd;
  *dst = *src;
  dst->directions = nd;
  dst->psi = 0;
  for (int i = 0; i < 4; i++) dst->drift[i] = 0;
  for (int i = 0; i < 3; i++) dst->delta_prev[i] = 0;
  return CPK_OK;
}

static sim_material *find_material(const cpk_world *w, size_t i, size_t j)
{
  if (i > j) {
    size_t t = i;
    i = j;
    j = t;
  }
  for (size_t k = 0; k < w->nmaterials; k++)
    if (w->materials[k].i == i && w->materials[k].j == j) return &w->materials[k];
  return NULL;
}

static sim_material *pair_entry(cpk_world *w, size_t i, size_t j, cpk_error *err)
{
  if (i >= w->nbodies || j >= w->nbodies || i == j) {
    cpk_error_set(err, CPK_EINVAL, "body pair (%zu, %zu): no such pair", i, j);
    return NULL;
  }
  sim_material *m = find_material(w, i, j);
  if (m) return m;
  if (sim_grow((void **)&w->materials, &w->cap_materials, w->nmaterials + 1, sizeof *m)) {
    cpk_error_set(err, CPK_ENOMEM, "out of memory");
    return NULL;
  }
  m = &w->materials[w->nmaterials++];
  memset(m, 0, sizeof *m);
  m->i = i < j ? i : j;
  m->j = i < j ? j : i;
  m->params = w->default_material;
  m->params.ndirections = 0;
  m->params.directions = NULL;
  return m;
}

int cpk_world_set_material(cpk_world *w, size_t i, size_t j, const cpk_contact_params *material,
                           cpk_error *err)
{
  cpk_contact_params checked; /* validate before a pair entry exists: a refused material */
  double *dirs = NULL;        /* must leave no trace behind */
  int rc = set_material(&checked, &dirs, material, err);
  free(dirs);
  if (rc) return rc;
  sim_material *m = pair_entry(w, i, j, err);
  return m ? set_material(&m->params, &m->dirs, material, err) : err ? err->code : CPK_EINVAL;
}

int cpk_world_set_default_material(cpk_world *w, const cpk_contact_params *material,
                                   cpk_error *err)
{
  return set_material(&w->default_material, &w->default_dirs, material, err);
}

int cpk_world_ignore_pair(cpk_world *w, size_t i, size_t j, cpk_error *err)
{
  sim_material *m = pair_entry(w, i, j, err);
  if (!m) return err ? err->code : CPK_EINVAL;
  m->ignore = 1;
  return CPK_OK;
}

const cpk_contact_params *sim_material_of(const cpk_world *w, size_t i, size_t j, int *ignore)
{
  const sim_material *m = find_material(w, i, j);
  if (ignore) *ignore = m ? m->ignore : 0;
  return m && !m->ignore ? &m->params : &w->default_material;
}

size_t cpk_world_nbodies(const cpk_world *w) { return w->nbodies; }
const cpk_body *cpk_world_body(const cpk_world *w, size_t i)
{
  return i < w->nbodies ? &w->bodies[i] : NULL;
}
double cpk_world_time(const cpk_world *w) { return w->time; }
const cpk_sim_settings *cpk_world_settings(const cpk_world *w) { return &w->settings; }

double cpk_world_energy(const cpk_world *w)
{
  double e = 0;
  for (size_t b = 0; b < w->nbodies; b++) {
    const cpk_body *B = &w->bodies[b];
    if (B->kind != CPK_BODY_DYNAMIC) continue;
    double R[9], wb[3];
    sim_qmatrix(B->q, R);
    sim_rotate_t(R, B->w, wb);
    e += 0.5 * B->mass * sim_vdot(B->v, B->v) - B->mass * sim_vdot(w->settings.gravity, B->x);
    for (int i = 0; i < 3; i++) e += 0.5 * B->inertia[i] * wb[i] * wb[i];
  }
  return e;
}

int sim_reserve_contacts(cpk_world *w, size_t n)
{
  w->mem_indexed = (size_t)-1; /* the memory is about to be written: index it again after */
  if (n + 1 <= w->cap_contacts && n + 1 <= w->cap_memory) return CPK_OK;
  cpk_sim_contact *c = cpk_alloc_array(n + 1, sizeof *c);
  sim_memory *m = cpk_alloc_array(n + 1, sizeof *m);
  if (!c || !m) {
    free(c);
    free(m);
    return CPK_ENOMEM;
  }
  if (w->ncontacts) memcpy(c, w->contacts, w->ncontacts * sizeof *c);
  if (w->nmemory) memcpy(m, w->memory, w->nmemory * sizeof *m);
  free(w->contacts);
  free(w->memory);
  w->contacts = c;
  w->memory = m;
  w->cap_contacts = w->cap_memory = n + 1;
  return CPK_OK;
}

int sim_state_finite(const cpk_body *bodies, size_t nb)
{
  for (size_t b = 0; b < nb; b++) {
    const cpk_body *B = &bodies[b];
    double s = B->q[0] + B->q[1] + B->q[2] + B->q[3];
    for (int i = 0; i < 3; i++) s += B->x[i] + B->v[i] + B->w[i];
    if (!isfinite(s)) return 0;
  }
  return 1;
}
