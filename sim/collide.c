/* collide.c: contact geometry between pairs of shapes (sphere, ellipsoid, rod, feet against a plane; sphere against sphere). */
#include <math.h>
#include <stdlib.h>
#include <cpkit/util.h>
#include "rotation.h"
#include "world.h"

static int push(sim_geom **g, size_t *n, size_t *cap, const sim_geom *add)
{
  int rc = sim_grow((void **)g, cap, *n + 1, sizeof **g);
  if (!rc) (*g)[(*n)++] = *add;
  return rc;
}

/* Deepest points of body a's shape below the plane of body p: each feature is
 * one geom (a sphere and an ellipsoid have one, a rod two). */
static int against_plane(const cpk_world *w, size_t a, size_t p, sim_geom **g, size_t *n,
                         size_t *cap)
{
  const cpk_body *A = &w->bodies[a], *Pl = &w->bodies[p];
  double Rp[9], Ra[9], np[3], ez[3] = {0, 0, 1};
  sim_qmatrix(Pl->q, Rp);
  sim_rotate(Rp, ez, np);
  sim_qmatrix(A->q, Ra);
  double pts[CPK_SHAPE_MAX_POINTS][3];
  int npts = 1;
  if (A->shape.kind == CPK_SHAPE_SPHERE) {
    for (int i = 0; i < 3; i++) pts[0][i] = A->x[i] - A->shape.size[0] * np[i];
  } else if (A->shape.kind == CPK_SHAPE_ELLIPSOID) {
    double m[3], s = 0, pb[3];
    sim_rotate_t(Ra, np, m);
    for (int i = 0; i < 3; i++) s += A->shape.size[i] * A->shape.size[i] * m[i] * m[i];
    s = sqrt(s);
    for (int i = 0; i < 3; i++) pb[i] = -A->shape.size[i] * A->shape.size[i] * m[i] / s;
    sim_rotate(Ra, pb, pts[0]);
    for (int i = 0; i < 3; i++) pts[0][i] += A->x[i];
  } else if (A->shape.kind == CPK_SHAPE_POINTS) { /* feet: each centre lowered by the radius */
    npts = (int)A->shape.npoints;
    for (int k = 0; k < npts; k++) {
      sim_rotate(Ra, A->shape.points[k], pts[k]);
      for (int i = 0; i < 3; i++) pts[k][i] += A->x[i] - A->shape.size[0] * np[i];
    }
  } else { /* rod: both ends, each lowered by the radius */
    double ex[3] = {A->shape.size[0], 0, 0}, e[3];
    sim_rotate(Ra, ex, e);
    for (int i = 0; i < 3; i++) {
      pts[0][i] = A->x[i] - e[i] - A->shape.size[1] * np[i];
      pts[1][i] = A->x[i] + e[i] - A->shape.size[1] * np[i];
    }
    npts = 2;
  }
  for (int k = 0; k < npts; k++) {
    double d[3] = {pts[k][0] - Pl->x[0], pts[k][1] - Pl->x[1], pts[k][2] - Pl->x[2]};
    sim_geom s = {{a, p}, k, {pts[k][0], pts[k][1], pts[k][2]}, {np[0], np[1], np[2]},
                  sim_vdot(d, np)};
    if (s.gap <= w->settings.margin && push(g, n, cap, &s)) return CPK_ENOMEM;
  }
  return CPK_OK;
}

static int sphere_sphere(const cpk_world *w, size_t a, size_t b, sim_geom **g, size_t *n,
                         size_t *cap)
{
  const cpk_body *A = &w->bodies[a], *B = &w->bodies[b];
  double d[3] = {A->x[0] - B->x[0], A->x[1] - B->x[1], A->x[2] - B->x[2]};
  double len = sim_vnorm(d);
  if (!(len > 0)) return CPK_OK; /* concentric: no defined normal */
  sim_geom s = {{a, b}, 0, {0, 0, 0}, {d[0] / len, d[1] / len, d[2] / len},
                len - A->shape.size[0] - B->shape.size[0]};
  for (int i = 0; i < 3; i++) s.point[i] = A->x[i] - A->shape.size[0] * s.normal[i];
  return s.gap <= w->settings.margin ? push(g, n, cap, &s) : CPK_OK;
}

static int pair(const cpk_world *w, size_t i, size_t j, sim_geom **g, size_t *n, size_t *cap,
                cpk_error *err)
{
  cpk_shape_kind ki = w->bodies[i].shape.kind, kj = w->bodies[j].shape.kind;
  if (ki != CPK_SHAPE_PLANE && kj == CPK_SHAPE_PLANE) return against_plane(w, i, j, g, n, cap);
  if (ki == CPK_SHAPE_PLANE && kj != CPK_SHAPE_PLANE) return against_plane(w, j, i, g, n, cap);
  if (ki == CPK_SHAPE_SPHERE && kj == CPK_SHAPE_SPHERE) /* the dynamic one first */
    return w->bodies[i].kind == CPK_BODY_DYNAMIC ? sphere_sphere(w, i, j, g, n, cap)
                                                 : sphere_sphere(w, j, i, g, n, cap);
  if (ki == CPK_SHAPE_PLANE && kj == CPK_SHAPE_PLANE) return CPK_OK; /* half-spaces: none */
  return cpk_error_set(err, CPK_EUNSUP,
                       "bodies '%s' and '%s': no contact routine for this pair of shapes "
                       "(supported: sphere, ellipsoid, rod, points against a plane; sphere "
                       "against sphere); ignore the pair",
                       w->bodies[i].name, w->bodies[j].name);
}

int sim_collide(const cpk_world *w, sim_geom **geoms, size_t *n, size_t *cap, cpk_error *err)
{
  *n = 0;
  for (size_t i = 0; i < w->nbodies; i++)
    for (size_t j = i + 1; j < w->nbodies; j++) {
      int ignore = 0;
      if (w->bodies[i].kind != CPK_BODY_DYNAMIC && w->bodies[j].kind != CPK_BODY_DYNAMIC)
        continue;
      sim_material_of(w, i, j, &ignore);
      if (ignore) continue;
      int rc = pair(w, i, j, geoms, n, cap, err);
      if (rc == CPK_ENOMEM) return cpk_error_set(err, rc, "out of memory finding contacts");
      if (rc) return rc;
    }
  return CPK_OK;
}
