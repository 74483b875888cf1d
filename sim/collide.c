/* collide.c: contact geometry between pairs of shapes (sphere, ellipsoid, rod, feet against a plane; sphere against sphere), over the pairs of the broad phase. */
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

static int unsupported(const cpk_world *w, size_t i, size_t j, cpk_error *err)
{
  return cpk_error_set(err, CPK_EUNSUP,
                       "bodies '%s' and '%s': no contact routine for this pair of shapes "
                       "(supported: sphere, ellipsoid, rod, points against a plane; sphere "
                       "against sphere); ignore the pair",
                       w->bodies[i].name, w->bodies[j].name);
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
  return unsupported(w, i, j, err);
}

/* A pair the loop over pairs looks at: one body dynamic, not ignored. */
static int wanted(const cpk_world *w, size_t i, size_t j)
{
  int ignore = 0;
  if (w->bodies[i].kind != CPK_BODY_DYNAMIC && w->bodies[j].kind != CPK_BODY_DYNAMIC) return 0;
  sim_material_of(w, i, j, &ignore);
  return !ignore;
}

static int odd_shape(const cpk_body *b)
{
  return b->shape.kind != CPK_SHAPE_PLANE && b->shape.kind != CPK_SHAPE_SPHERE;
}

/* The first wanted partner j > i of body i among cand[0..ncand-1] (ascending; NULL: all
 * bodies) that no contact routine takes: an error. */
static int scan(const cpk_world *w, size_t i, const size_t *cand, size_t ncand, cpk_error *err)
{
  for (size_t k = 0; k < ncand; k++) {
    size_t j = cand ? cand[k] : k;
    if (j > i && w->bodies[j].shape.kind != CPK_SHAPE_PLANE && wanted(w, i, j))
      return unsupported(w, i, j, err);
  }
  return CPK_OK;
}

/* Two finite shapes other than two spheres have no contact routine, near or far: the
 * first such wanted pair (in index order) is an error, as when every pair was tested.
 * Only bodies of the other finite shapes can be in one, so only those are scanned. */
static int check_unsupported(const cpk_world *w, cpk_error *err)
{
  size_t n = w->nbodies, nodd = 0, stack[64]; /* a small world's on the stack: every step */
  size_t *odd = n < 64 ? stack : cpk_alloc_array(n + 1, sizeof *odd);
  if (!odd) return cpk_error_set(err, CPK_ENOMEM, "out of memory finding contacts");
  for (size_t b = 0; b < n; b++)
    if (odd_shape(&w->bodies[b])) odd[nodd++] = b;
  int rc = CPK_OK;
  for (size_t i = 0; nodd && i < n && !rc; i++)
    if (w->bodies[i].shape.kind != CPK_SHAPE_PLANE)
      rc = odd_shape(&w->bodies[i]) ? scan(w, i, NULL, n, err) : scan(w, i, odd, nodd, err);
  if (odd != stack) free(odd);
  return rc;
}

int sim_collide(const cpk_world *w, sim_geom **geoms, size_t *n, size_t *cap, sim_pair **pairs,
                size_t *pcap, cpk_error *err)
{
  size_t np = 0;
  *n = 0;
  int rc = check_unsupported(w, err);
  if (rc) return rc;
  if (sim_broad_phase(w, pairs, &np, pcap))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory finding contacts");
  const sim_pair *P = *pairs;
  for (size_t k = 0; k < np && !rc; k++)
    if (wanted(w, P[k].i, P[k].j)) rc = pair(w, P[k].i, P[k].j, geoms, n, cap, err);
  if (rc == CPK_ENOMEM) return cpk_error_set(err, rc, "out of memory finding contacts");
  return rc;
}
