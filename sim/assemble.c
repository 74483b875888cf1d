/* assemble.c: the body-form contact system of one step: mass matrix, velocities, forces, and one contact per geometry found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "assemble.h"
#include "rotation.h"

int sim_dofs(const cpk_world *w, size_t *dof, size_t *nv)
{
  size_t k = 0;
  for (size_t b = 0; b < w->nbodies; b++) {
    dof[b] = w->bodies[b].kind == CPK_BODY_DYNAMIC ? k : (size_t)-1;
    if (w->bodies[b].kind == CPK_BODY_DYNAMIC) k += 6;
  }
  *nv = k;
  return k > 0;
}

/* World inertia R diag(I) R^T of body b, row-major. */
static void world_inertia(const cpk_body *b, double J[9])
{
  double R[9];
  sim_qmatrix(b->q, R);
  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) { /* one triangle, mirrored: M must be exactly symmetric */
      double s = 0;
      for (int k = 0; k < 3; k++) s += R[3 * i + k] * b->inertia[k] * R[3 * j + k];
      J[3 * i + j] = J[3 * j + i] = s;
    }
}

/* M (block diagonal: m I and the world inertia), v and k = m g + f, tau - w x (J w). M is
 * written straight in CSC (per body: three mass columns, then the inertia's three full
 * columns; bodies in dof order, so columns and rows come sorted): built every step, the
 * triplets and their sort cost more than the rest of the step's assembly. */
static int body_terms(const cpk_world *w, const size_t *dof, size_t nv, cpk_csc **M, double *v,
                      double *k)
{
  int rc = CPK_OK;
  if (!*M || (size_t)(*M)->n != nv) { /* else the last step's: same size, every entry rewritten */
    cpk_csc_free(*M);
    *M = NULL;
    rc = cpk_csc_alloc((cpk_int)nv, (cpk_int)nv, (cpk_int)(2 * nv), M);
  }
  cpk_int e = 0, col = 0;
  for (size_t b = 0; b < w->nbodies && !rc; b++) {
    const cpk_body *B = &w->bodies[b];
    if (dof[b] == (size_t)-1) continue;
    double J[9], Jw[3], gyro[3];
    size_t d = dof[b];
    world_inertia(B, J);
    sim_rotate(J, B->w, Jw);
    sim_vcross(B->w, Jw, gyro);
    for (int i = 0; i < 3; i++, col++) { /* the mass columns */
      (*M)->p[col] = e;
      (*M)->i[e] = (cpk_int)(d + i);
      (*M)->x[e++] = B->mass;
    }
    for (int j = 0; j < 3; j++, col++) { /* the inertia's columns (J is symmetric) */
      (*M)->p[col] = e;
      for (int i = 0; i < 3; i++) {
        (*M)->i[e] = (cpk_int)(d + 3 + i);
        (*M)->x[e++] = J[3 * i + j];
      }
    }
    for (int i = 0; i < 3; i++) {
      v[d + i] = B->v[i];
      v[d + 3 + i] = B->w[i];
      k[d + i] = B->mass * w->settings.gravity[i] + B->force[i];
      k[d + 3 + i] = B->torque[i] - gyro[i];
    }
  }
  if (!rc) (*M)->p[col] = e;
  return rc;
}

/* Velocity of the material point p of body b (zero for fixed, current for
 * driven and dynamic bodies). */
static void point_velocity(const cpk_body *b, const double p[3], double u[3])
{
  double r[3] = {p[0] - b->x[0], p[1] - b->x[1], p[2] - b->x[2]}, wr[3];
  sim_vcross(b->w, r, wr);
  for (int i = 0; i < 3; i++) u[i] = b->kind == CPK_BODY_FIXED ? 0 : b->v[i] + wr[i];
}

/* The drift of a contact: the motion of its non-dynamic bodies, in the contact frame. */
static void contact_drift(const cpk_world *w, const sim_geom *g, const double F[3][3],
                          double drift[4])
{
  for (int a = 0; a < 4; a++) drift[a] = 0;
  for (int s = 0; s < 2; s++) {
    const cpk_body *B = &w->bodies[g->body[s]];
    if (B->kind != CPK_BODY_DRIVEN) continue;
    double u[3], sign = s == 0 ? 1.0 : -1.0;
    point_velocity(B, g->point, u);
    for (int a = 0; a < 3; a++) drift[a] += sign * sim_vdot(F[a], u);
    drift[3] += sign * sim_vdot(F[0], B->w);
  }
}

/* Add geometry g as a contact of s: frame (n, t, o), wrenches of both bodies. */
static int add_geom(const cpk_world *w, const cpk_body *pose, const sim_geom *g,
                    const size_t *dof, double psi, cpk_contact_system *s, cpk_error *err)
{
  double F[3][3], W[4][12];
  cpk_int rows[12];
  size_t nr = 0;
  cpk_contact_params p = *sim_material_of(w, g->body[0], g->body[1], NULL);
  memcpy(F[0], g->normal, sizeof F[0]);
  sim_tangent(F[0], F[1]);
  sim_vcross(F[0], F[1], F[2]);
  p.psi = psi;
  contact_drift(w, g, F, p.drift);
  const sim_memory *m = p.compliant ? sim_memory_find(w, g) : NULL;
  for (int a = 0; a < 3; a++) p.delta_prev[a] = m ? m->delta[a] : 0;
  for (int side = 0; side < 2; side++) {
    size_t b = g->body[side];
    if (dof[b] == (size_t)-1) continue;
    const cpk_body *B = &pose[b];
    double r[3] = {g->point[0] - B->x[0], g->point[1] - B->x[1], g->point[2] - B->x[2]};
    double wr[4][6], sign = side == 0 ? 1.0 : -1.0;
    if (cpk_rigid_contact_wrenches(r, F[0], F[1], wr[0], wr[1], wr[2], wr[3]))
      return cpk_error_set(err, CPK_EINVAL, "contact frame not orthonormal");
    for (int i = 0; i < 6; i++, nr++) {
      rows[nr] = (cpk_int)(dof[b] + (size_t)i);
      for (int a = 0; a < 4; a++) W[a][nr] = sign * wr[a][i];
    }
  }
  return cpk_contact_system_add_contact(s, &p, nr, rows, W[0], W[1], W[2], W[3], err);
}

int sim_assemble(const cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                 const double *psi, cpk_contact_system **out, cpk_error *err)
{
  sim_step_buf B = {0};
  int rc = sim_assemble_again(w, &B, pose, g, ng, psi, err);
  *out = B.sys;
  B.sys = NULL;
  sim_step_buf_free(&B);
  return rc;
}

int sim_assemble_again(const cpk_world *w, sim_step_buf *B, const cpk_body *pose,
                       const sim_geom *g, size_t ng, const double *psi, cpk_error *err)
{
  size_t nv = 0;
  int rc = sim_grow((void **)&B->dof, &B->capdof, w->nbodies + 1, sizeof *B->dof);
  if (!rc) sim_dofs(w, B->dof, &nv);
  if (!rc && nv == 0) rc = cpk_error_set(err, CPK_EINVAL, "the world has no dynamic body");
  if (!rc) rc = sim_grow((void **)&B->vk, &B->capvk, 2 * nv, sizeof *B->vk);
  double *v = B->vk, *k = v ? v + nv : NULL;
  if (!rc) rc = body_terms(w, B->dof, nv, &B->M, v, k);
  if (!rc)
    rc = B->sys ? cpk_contact_system_reset_body(B->sys, nv, B->M, v, k, w->settings.h, err)
                : cpk_contact_system_alloc_body(nv, B->M, v, k, w->settings.h, &B->sys, err);
  for (size_t c = 0; c < ng && !rc; c++)
    rc = add_geom(w, pose ? pose : w->bodies, &g[c], B->dof, psi ? psi[c] : g[c].gap, B->sys,
                  err);
  if (rc == CPK_ENOMEM || rc == CPK_EOVERFLOW)
    cpk_error_set(err, rc, "out of memory assembling the contact system");
  if (rc) {
    cpk_contact_system_free(B->sys);
    B->sys = NULL;
  }
  return rc;
}

void sim_step_buf_free(sim_step_buf *B)
{
  free(B->dof);
  free(B->pose);
  free(B->saved);
  free(B->g);
  free(B->psi);
  free(B->vk);
  free(B->pairs);
  free(B->z0);
  free(B->out);
  cpk_csc_free(B->M);
  cpk_contact_system_free(B->sys);
  memset(B, 0, sizeof *B);
}
