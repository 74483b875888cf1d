/* step_implicit.c: the geometrically implicit compliant step of seed 003 in the stepper: the world's bodies and near pairs as an implicit contact system (closest points as unknowns), solved and advanced. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/implicit.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "rotation.h"
#include "step_implicit.h"

/* One pair of the step: world bodies (side 1 rigid, side 2 compliant). */
typedef struct ipair {
  size_t body[2];
} ipair;

/* Radius of a ball around the centre holding the shape (0 for a plane). */
static double reach(const cpk_body *b)
{
  const double *a = b->shape.size;
  if (b->shape.kind == CPK_SHAPE_ELLIPSOID) return fmax(a[0], fmax(a[1], a[2]));
  return b->shape.kind == CPK_SHAPE_SPHERE ? a[0] : 0;
}

/* The surface of body b in its own frame. */
static int surface(const cpk_body *b, cpk_implicit_surface *s)
{
  static const double up[3] = {0, 0, 1};
  switch (b->shape.kind) {
  case CPK_SHAPE_PLANE: return cpk_implicit_plane(up, 0, s);
  case CPK_SHAPE_SPHERE: return b->shape.size[0] > 0 ? cpk_implicit_sphere(b->shape.size[0], s) : CPK_EINVAL;
  case CPK_SHAPE_ELLIPSOID:
    return cpk_implicit_ellipsoid(b->shape.size[0], b->shape.size[1], b->shape.size[2], s);
  default: return CPK_EINVAL;
  }
}

/* Coarse distance of the pair (bounding balls; a plane by its signed distance). */
static double coarse_gap(const cpk_body *A, const cpk_body *B)
{
  if (B->shape.kind == CPK_SHAPE_PLANE) {
    double R[9], n[3], ez[3] = {0, 0, 1}, d[3];
    sim_qmatrix(B->q, R);
    sim_rotate(R, ez, n);
    for (int i = 0; i < 3; i++) d[i] = A->x[i] - B->x[i];
    return sim_vdot(d, n) - reach(A);
  }
  double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
  return sim_vnorm(d) - reach(A) - reach(B);
}

/* Near pairs: side 1 the dynamic non-plane body, side 2 a plane or the other body. */
static int find_pairs(const cpk_world *w, ipair **out, size_t *n, cpk_error *err)
{
  size_t nb = w->nbodies, cap = nb * (nb - 1) / 2 + 1;
  double h = w->settings.h;
  *n = 0;
  *out = cpk_alloc_array(cap, sizeof **out);
  if (!*out) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t i = 0; i < nb; i++)
    for (size_t j = i + 1; j < nb; j++) {
      const cpk_body *A = &w->bodies[i], *B = &w->bodies[j];
      int ignore = 0;
      sim_material_of(w, i, j, &ignore);
      if (ignore || (A->kind != CPK_BODY_DYNAMIC && B->kind != CPK_BODY_DYNAMIC) ||
          (A->shape.kind == CPK_SHAPE_PLANE && B->shape.kind == CPK_SHAPE_PLANE))
        continue;
      int swap = A->shape.kind == CPK_SHAPE_PLANE || A->kind != CPK_BODY_DYNAMIC;
      size_t s1 = swap ? j : i, s2 = swap ? i : j;
      const cpk_body *S1 = &w->bodies[s1], *S2 = &w->bodies[s2];
      double speed = sim_vnorm(S1->v) + sim_vnorm(S1->w) * reach(S1) + sim_vnorm(S2->v) +
                     sim_vnorm(S2->w) * reach(S2);
      if (coarse_gap(S1, S2) > w->settings.margin + 2 * h * speed) continue;
      (*out)[(*n)++] = (ipair){{s1, s2}};
    }
  return CPK_OK;
}

/* The implicit body of a dynamic world body (gravity and applied force in force[]). */
static void implicit_body(const cpk_world *w, const cpk_body *B, cpk_implicit_body *b)
{
  cpk_implicit_body_default(b);
  b->mass = B->mass;
  memset(b->inertia, 0, sizeof b->inertia);
  for (int i = 0; i < 3; i++) {
    b->inertia[4 * i] = B->inertia[i];
    b->position[i] = B->x[i];
    b->velocity[i] = B->v[i];
    b->velocity[3 + i] = B->w[i];
    b->force[i] = B->mass * w->settings.gravity[i] + B->force[i];
    b->force[3 + i] = B->torque[i];
  }
  memcpy(b->quat, B->q, sizeof b->quat);
}

/* Add pair k: surfaces, material with the remembered deflection. */
static int add_pair(const cpk_world *w, const ipair *p, const size_t *index,
                    cpk_implicit_system *s, cpk_error *err)
{
  const cpk_body *S1 = &w->bodies[p->body[0]], *S2 = &w->bodies[p->body[1]];
  cpk_implicit_surface f1, f2;
  if (surface(S1, &f1) || surface(S2, &f2))
    return cpk_error_set(err, CPK_EUNSUP,
                         "kelvin-voigt-implicit: bodies '%s' and '%s': only spheres (radius > 0), "
                         "ellipsoids and planes have implicit surfaces", S1->name, S2->name);
  cpk_contact_params par = *sim_material_of(w, p->body[0], p->body[1], NULL);
  if (!par.compliant)
    return cpk_error_set(err, CPK_EINVAL, "kelvin-voigt-implicit: bodies '%s' and '%s' need a "
                         "compliant material (stiffness, damping)", S1->name, S2->name);
  sim_geom key = {{p->body[0], p->body[1]}, 0, {0, 0, 0}, {0, 0, 0}, 0};
  const sim_memory *m = sim_memory_find(w, &key);
  for (int a = 0; a < 3; a++) par.delta_prev[a] = m ? m->delta[a] : 0;
  size_t i1 = index[p->body[0]], i2 = index[p->body[1]];
  return cpk_implicit_system_add_pair(s, i1, &f1, i2, &f2, &par, i2 == CPK_IMPLICIT_WORLD ? S2->x : NULL,
                                      i2 == CPK_IMPLICIT_WORLD ? S2->q : NULL, err);
}

/* The implicit system of the world now: dynamic bodies, and the near pairs. */
static int build_system(const cpk_world *w, const ipair *pairs, size_t np, size_t *index,
                        cpk_implicit_system **out, cpk_error *err)
{
  int rc = cpk_implicit_system_alloc(w->settings.h, out, err);
  for (size_t b = 0; b < w->nbodies && !rc; b++) {
    index[b] = CPK_IMPLICIT_WORLD;
    if (w->bodies[b].kind != CPK_BODY_DYNAMIC) continue;
    cpk_implicit_body ib;
    implicit_body(w, &w->bodies[b], &ib);
    rc = cpk_implicit_system_add_body(*out, &ib, &index[b], err);
  }
  for (size_t k = 0; k < np && !rc; k++) {
    if (index[pairs[k].body[0]] == CPK_IMPLICIT_WORLD)
      rc = cpk_error_set(err, CPK_EUNSUP, "kelvin-voigt-implicit: side 1 must be dynamic");
    else
      rc = add_pair(w, &pairs[k], index, *out, err);
  }
  return rc;
}

/* Start point: the previous step's solution when the pairs are the same, else the map's. */
static double *start_point(cpk_world *w, const cpk_implicit_map *map, const ipair *pairs, size_t np)
{
  size_t n = cpk_implicit_map_n(map);
  double *z = cpk_alloc_array(n, sizeof *z);
  int same = z && w->settings.warm_start && w->iz && w->niz == n && w->nikeys == np;
  for (size_t k = 0; same && k < np; k++)
    same = w->ikeys[k][0] == pairs[k].body[0] && w->ikeys[k][1] == pairs[k].body[1];
  if (same) memcpy(z, w->iz, n * sizeof *z);
  else if (z && cpk_implicit_map_start(map, z)) {
    free(z);
    z = NULL;
  }
  return z;
}

/* Remember the solution and its pairs for the next start point. */
static void remember(cpk_world *w, const double *z, size_t n, const ipair *pairs, size_t np)
{
  double *iz = cpk_alloc_array(n + 1, sizeof *iz);
  size_t(*keys)[2] = cpk_alloc_array(np + 1, sizeof *keys);
  free(w->iz);
  free(w->ikeys);
  w->iz = iz;
  w->ikeys = keys;
  w->niz = w->nikeys = 0;
  if (!iz || !keys) return; /* no warm start next time: harmless */
  memcpy(iz, z, n * sizeof *z);
  for (size_t k = 0; k < np; k++) keys[k][0] = pairs[k].body[0], keys[k][1] = pairs[k].body[1];
  w->niz = n;
  w->nikeys = np;
}

static int mode_of(const cpk_implicit_contact *c, double delta_max)
{
  double scale = fmax(1, fabs(c->P[0]));
  if (c->P[0] <= 1e-8 * scale) return CPK_MODE_SEPARATING;
  int m = hypot(c->U[1], c->U[2]) > 1e-8 * fmax(1, fabs(c->U[0])) ? CPK_MODE_SLIDING : CPK_MODE_STICKING;
  return m | (c->p_nr > 0 || c->delta[0] >= delta_max * (1 - 1e-9) ? CPK_MODE_CORE : 0);
}

/* Contact k of solution z as the world reports and remembers it. */
static int contact_of(cpk_world *w, const cpk_implicit_map *map, const double *z,
                      const ipair *pair, size_t k, cpk_error *err)
{
  cpk_implicit_contact c;
  int rc = cpk_implicit_map_contact(map, z, k, &c);
  if (rc) return cpk_error_set(err, rc, "kelvin-voigt-implicit: pair %zu (1-based) cannot be evaluated", k + 1);
  cpk_sim_contact *K = &w->contacts[k];
  sim_memory *M = &w->memory[k];
  K->body[0] = M->body[0] = pair->body[0];
  K->body[1] = M->body[1] = pair->body[1];
  K->feature = M->feature = 0;
  memcpy(K->point, c.a1, sizeof K->point);
  memcpy(K->normal, c.n, sizeof K->normal);
  K->gap = c.gap;
  memcpy(K->P, c.P, sizeof K->P);
  memcpy(M->P, c.P, sizeof M->P);
  memcpy(K->delta, c.delta, sizeof K->delta);
  memcpy(M->delta, c.delta, sizeof M->delta);
  K->mode = mode_of(&c, sim_material_of(w, pair->body[0], pair->body[1], NULL)->delta_max);
  return CPK_OK;
}

/* Accept solution z: poses (checked finite), contacts and their memory, time.
 * The system is advanced first, so a failure leaves the world as it was. */
static int accept(cpk_world *w, cpk_implicit_system *sys, const cpk_implicit_map *map,
                  const double *z, const ipair *pairs, size_t np, const size_t *index,
                  cpk_error *err)
{
  int rc = cpk_implicit_system_advance(sys, map, z, err);
  for (size_t b = 0; !rc && b < w->nbodies; b++) {
    const cpk_implicit_body *ib = index[b] == CPK_IMPLICIT_WORLD ? NULL : cpk_implicit_system_body(sys, index[b]);
    double s = 0;
    for (int i = 0; ib && i < 6; i++) s += ib->velocity[i] + (i < 3 ? ib->position[i] : 0);
    if (ib && !isfinite(s))
      rc = cpk_error_set(err, CPK_EBADFUNC, "t = %g: a body's state is no longer finite", w->time);
  }
  if (!rc && sim_reserve_contacts(w, np)) rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t k = 0; k < np && !rc; k++) {
    rc = contact_of(w, map, z, &pairs[k], k, err);
    if (rc) w->ncontacts = w->nmemory = 0; /* half-written: forget them, keep the poses */
  }
  if (rc) return rc;
  w->ncontacts = w->nmemory = np;
  sim_memory_reindex(w);
  remember(w, z, cpk_implicit_map_n(map), pairs, np);
  w->time += w->settings.h;
  for (size_t b = 0; b < w->nbodies; b++) {
    cpk_body *B = &w->bodies[b];
    if (B->kind == CPK_BODY_DRIVEN)
      sim_motion_eval(B, w->x0[b], w->q0[b], w->time, B->x, B->q, B->v, B->w);
    if (index[b] == CPK_IMPLICIT_WORLD) continue;
    const cpk_implicit_body *ib = cpk_implicit_system_body(sys, index[b]);
    memcpy(B->x, ib->position, sizeof B->x);
    memcpy(B->q, ib->quat, sizeof B->q);
    memcpy(B->v, ib->velocity, sizeof B->v);
    memcpy(B->w, ib->velocity + 3, sizeof B->w);
  }
  return CPK_OK;
}

int sim_implicit_step(cpk_world *w, cpk_sim_step_info *info, cpk_error *err)
{
  ipair *pairs = NULL;
  size_t np = 0, *index = cpk_alloc_array(w->nbodies, sizeof *index);
  cpk_implicit_system *sys = NULL;
  cpk_problem *p = NULL;
  cpk_implicit_map *map = NULL;
  cpk_result *r = NULL;
  double *z0 = NULL;
  int rc = index ? find_pairs(w, &pairs, &np, err) : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (!rc) rc = build_system(w, pairs, np, index, &sys, err);
  if (!rc) rc = cpk_compile_implicit_kelvin_voigt(sys, &w->settings.compile, &p, &map, err);
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  if (!rc && !(z0 = start_point(w, map, pairs, np))) rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (!rc) {
    long it = 0;
    const char *solver = w->settings.solver[0] ? w->settings.solver : "fbnewton";
    rc = sim_solve(w, p, z0, solver, np, "pairs (kelvin-voigt-implicit)", r, &it, &info->fallbacks, err);
    info->iterations = it;
    info->status = r->status;
    info->residual = r->residual;
  }
  if (!rc) rc = accept(w, sys, map, r->z, pairs, np, index, err);
  info->sweeps = 1;
  info->implicit_converged = 1;
  free(z0);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(sys);
  free(pairs);
  free(index);
  return rc;
}
