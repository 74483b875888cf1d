/* implicit_system.c: the implicit contact system object (rigid bodies, pairs of implicit surfaces) and the pose update that accepts a step's solution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "implicit_internal.h"

void cpk_implicit_body_default(cpk_implicit_body *b)
{
  memset(b, 0, sizeof *b);
  b->mass = 1.0;
  b->inertia[0] = b->inertia[4] = b->inertia[8] = 1.0;
  b->quat[0] = 1.0;
}

int cpk_implicit_system_alloc(double h, cpk_implicit_system **out, cpk_error *err)
{
  *out = NULL;
  if (!(h > 0) || !isfinite(h))
    return cpk_error_set(err, CPK_EINVAL, "the implicit model needs a step h > 0 (got %g)", h);
  cpk_implicit_system *s = calloc(1, sizeof *s);
  if (!s) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->h = h;
  *out = s;
  return CPK_OK;
}

void cpk_implicit_system_free(cpk_implicit_system *s)
{
  if (!s) return;
  free(s->bodies);
  free(s->pairs);
  free(s);
}

static int normalize_quat(double q[4])
{
  double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 0) || !isfinite(len)) return CPK_EINVAL;
  for (int a = 0; a < 4; a++) q[a] /= len;
  return CPK_OK;
}

/* Symmetric positive definite by Sylvester's criterion (leading minors). */
static int inertia_ok(const double I[9])
{
  for (int k = 0; k < 9; k++)
    if (!isfinite(I[k])) return 0;
  double tol = 1e-12 * (fabs(I[0]) + fabs(I[4]) + fabs(I[8]));
  if (fabs(I[1] - I[3]) > tol || fabs(I[2] - I[6]) > tol || fabs(I[5] - I[7]) > tol) return 0;
  double m2 = I[0] * I[4] - I[1] * I[3];
  double m3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
              I[2] * (I[3] * I[7] - I[4] * I[6]);
  return I[0] > 0 && m2 > 0 && m3 > 0;
}

static int check_body(const cpk_implicit_body *b, cpk_implicit_body *copy, cpk_error *err)
{
  int finite = isfinite(b->mass);
  for (int a = 0; a < 6; a++) finite &= isfinite(b->velocity[a]) && isfinite(b->force[a]);
  for (int a = 0; a < 3; a++) finite &= isfinite(b->position[a]);
  if (!finite || !(b->mass > 0))
    return cpk_error_set(err, CPK_EINVAL, "body: mass must be > 0 and all data finite");
  if (!inertia_ok(b->inertia))
    return cpk_error_set(err, CPK_EINVAL, "body: inertia must be symmetric positive definite");
  *copy = *b;
  if (normalize_quat(copy->quat))
    return cpk_error_set(err, CPK_EINVAL, "body: the quaternion must be non-zero and finite");
  return CPK_OK;
}

/* Grow an array of `size`-byte items to hold one more. */
static int grow(void **arr, size_t *cap, size_t count, size_t size)
{
  if (count < *cap) return CPK_OK;
  size_t ncap = *cap ? 2 * *cap : 4, bytes;
  if (ncap < *cap || cpk_size_mul(ncap, size, &bytes)) return CPK_ENOMEM;
  void *p = realloc(*arr, bytes);
  if (!p) return CPK_ENOMEM;
  *arr = p;
  *cap = ncap;
  return CPK_OK;
}

int cpk_implicit_system_add_body(cpk_implicit_system *s, const cpk_implicit_body *b, size_t *index,
                                 cpk_error *err)
{
  cpk_implicit_body copy;
  int rc = check_body(b, &copy, err);
  if (rc) return rc;
  if (grow((void **)&s->bodies, &s->cap_b, s->nb, sizeof *s->bodies))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->bodies[s->nb] = copy;
  if (index) *index = s->nb;
  s->nb++;
  return CPK_OK;
}

static int check_params(const cpk_contact_params *p, cpk_error *err)
{
  if (!p->compliant)
    return cpk_error_set(err, CPK_EINVAL,
                         "pair: the implicit model needs compliance data (compliant = 1, K, C)");
  int finite = isfinite(p->mu) && isfinite(p->e_t) && isfinite(p->e_o) && isfinite(p->e_r);
  for (int k = 0; k < 9; k++) finite &= isfinite(p->K[k]) && isfinite(p->C[k]);
  for (int a = 0; a < 3; a++) finite &= isfinite(p->delta_prev[a]);
  if (!finite || !(p->mu >= 0) || !(p->e_t > 0) || !(p->e_o > 0) || !(p->e_r >= 0))
    return cpk_error_set(err, CPK_EINVAL, "pair: need finite data, mu >= 0, e_t, e_o > 0, e_r >= 0");
  if (!(p->delta_max > 0))
    return cpk_error_set(err, CPK_EINVAL, "pair: delta_max must be > 0 (INFINITY: no core)");
  return CPK_OK;
}

static int set_side(const cpk_implicit_system *s, cim_side *side, size_t body,
                    const cpk_implicit_surface *surf, const double pos[3], const double q[4])
{
  static const double id[4] = {1, 0, 0, 0};
  if (!surf || !surf->value || !surf->gradient || !surf->hessian) return CPK_EINVAL;
  if (body != CPK_IMPLICIT_WORLD && body >= s->nb) return CPK_EINVAL;
  side->body = body;
  side->surf = *surf;
  memset(side->pos, 0, sizeof side->pos);
  memcpy(side->quat, q ? q : id, sizeof side->quat);
  for (int a = 0; pos && a < 3; a++) side->pos[a] = pos[a];
  int finite = 1;
  for (int a = 0; a < 3; a++) finite &= isfinite(side->pos[a]);
  return finite ? normalize_quat(side->quat) : CPK_EINVAL;
}

int cpk_implicit_system_add_pair(cpk_implicit_system *s, size_t body1,
                                 const cpk_implicit_surface *s1, size_t body2,
                                 const cpk_implicit_surface *s2, const cpk_contact_params *params,
                                 const double world_position[3], const double world_quat[4],
                                 cpk_error *err)
{
  cim_pair pr;
  memset(&pr, 0, sizeof pr);
  int rc = check_params(params, err);
  if (rc) return rc;
  if (body1 == body2)
    return cpk_error_set(err, CPK_EINVAL, "pair: the two sides must be different bodies");
  if (set_side(s, &pr.side[0], body1, s1, world_position, world_quat) ||
      set_side(s, &pr.side[1], body2, s2, world_position, world_quat))
    return cpk_error_set(err, CPK_EINVAL,
                         "pair: unknown body, incomplete surface or bad world pose");
  pr.params = *params;
  pr.params.directions = NULL; /* never keep the caller's pointer */
  pr.params.ndirections = 0;
  if (grow((void **)&s->pairs, &s->cap_p, s->np, sizeof *s->pairs))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->pairs[s->np++] = pr;
  return CPK_OK;
}

size_t cpk_implicit_system_nbodies(const cpk_implicit_system *s) { return s->nb; }
size_t cpk_implicit_system_npairs(const cpk_implicit_system *s) { return s->np; }
double cpk_implicit_system_step(const cpk_implicit_system *s) { return s->h; }

const cpk_implicit_body *cpk_implicit_system_body(const cpk_implicit_system *s, size_t i)
{
  return i < s->nb ? &s->bodies[i] : NULL;
}

int cpk_implicit_system_set_body(cpk_implicit_system *s, size_t i, const cpk_implicit_body *b,
                                 cpk_error *err)
{
  if (i >= s->nb) return cpk_error_set(err, CPK_EINVAL, "no body %zu (1-based)", i + 1);
  return check_body(b, &s->bodies[i], err);
}

int cpk_implicit_system_set_deflection(cpk_implicit_system *s, size_t i, const double delta[3])
{
  if (i >= s->np) return CPK_EINVAL;
  for (int a = 0; a < 3; a++)
    if (!isfinite(delta[a])) return CPK_EINVAL;
  memcpy(s->pairs[i].params.delta_prev, delta, 3 * sizeof *delta);
  return CPK_OK;
}

/* q+ = q + (h/2) (0, w) * q, the quaternion form of q+ = q + h G(q) v+ with w in the world frame. */
static void advance_body(cpk_implicit_body *b, const double v[6], double h)
{
  const double *w = v + 3, *q = b->quat;
  double dq[4] = {-w[0] * q[1] - w[1] * q[2] - w[2] * q[3],
                  w[0] * q[0] + w[1] * q[3] - w[2] * q[2],
                  -w[0] * q[3] + w[1] * q[0] + w[2] * q[1],
                  w[0] * q[2] - w[1] * q[1] + w[2] * q[0]};
  for (int a = 0; a < 4; a++) b->quat[a] += 0.5 * h * dq[a];
  normalize_quat(b->quat);
  for (int a = 0; a < 3; a++) b->position[a] += h * v[a];
  memcpy(b->velocity, v, 6 * sizeof *v);
}

int cpk_implicit_system_advance(cpk_implicit_system *s, const cpk_implicit_map *map,
                                const double *z, cpk_error *err)
{
  if (!map || map->nb != s->nb || map->np != s->np || map->h != s->h)
    return cpk_error_set(err, CPK_EINVAL, "the map was not compiled from this system");
  for (size_t i = 0; i < s->nb * 6; i++)
    if (!isfinite(z[i])) return cpk_error_set(err, CPK_EINVAL, "non-finite velocity in z");
  for (size_t b = 0; b < s->nb; b++) advance_body(&s->bodies[b], z + 6 * b, s->h);
  for (size_t i = 0; i < s->np; i++)
    memcpy(s->pairs[i].params.delta_prev, z + map->pairs[i].first + CIM_DN, 3 * sizeof *z);
  return CPK_OK;
}
