/* variable_map.c: the variable map of a compiled problem: what each unknown is, and a solution turned back into impulses, velocities and contact modes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

size_t cpk_varmap_n(const cpk_varmap *m) { return m->n; }
size_t cpk_varmap_ncontacts(const cpk_varmap *m) { return m->nc; }
size_t cpk_varmap_nv(const cpk_varmap *m) { return m->nv; }
cpk_contact_model cpk_varmap_model(const cpk_varmap *m) { return m->model; }
int cpk_varmap_is_mixed(const cpk_varmap *m) { return m->mixed; }

cpk_problem_form cpk_varmap_form(const cpk_varmap *m)
{
  return m->cone ? CPK_FORM_CONE : m->mixed ? CPK_FORM_MIXED : CPK_FORM_REDUCED;
}

const char *cpk_problem_form_name(cpk_problem_form f)
{
  switch (f) {
  case CPK_FORM_AUTO: return "auto";
  case CPK_FORM_MIXED: return "mixed";
  case CPK_FORM_REDUCED: return "reduced";
  case CPK_FORM_CONE: return "cone";
  }
  return NULL;
}

const cpk_var_info *cpk_varmap_var(const cpk_varmap *m, size_t i)
{
  return i < m->n ? &m->info[i] : NULL;
}

size_t cpk_varmap_find(const cpk_varmap *m, cpk_var_role role, size_t contact, size_t index)
{
  if (role == CPK_ROLE_V) return m->mixed && index < m->nv ? index : (size_t)-1;
  if (contact >= m->nc) return (size_t)-1;
  const cvm_contact *cc = &m->cc[contact];
  for (size_t k = cc->first; k < cc->first + cc->m; k++)
    if (m->vars[k].role == role && m->vars[k].index == index) return m->gidx[k];
  return (size_t)-1;
}

size_t cpk_varmap_ndirections(const cpk_varmap *m, size_t c)
{
  return m->model == CPK_MODEL_POLYHEDRAL && c < m->nc ? m->cc[c].ndir : 0;
}

int cpk_varmap_direction(const cpk_varmap *m, size_t c, size_t j, double d[3])
{
  if (j >= cpk_varmap_ndirections(m, c)) return CPK_EINVAL;
  memcpy(d, m->dirs + 3 * (m->cc[c].dir_off + j), 3 * sizeof *d);
  return CPK_OK;
}

int cpk_varmap_impulses(const cpk_varmap *m, const double *z, double *P)
{
  if (!m || !z || !P) return CPK_EINVAL;
  cvm_impulses(m, z, P);
  return CPK_OK;
}

/* Work of 8 doubles a contact: on the stack for a few contacts (a stepper reads every
 * step's answer back through these functions), else allocated (NULL: out of memory). */
#define STACK_CONTACTS 16
static double *contact_work(const cpk_varmap *m, double *stack)
{
  return m->nc <= STACK_CONTACTS ? stack : cpk_alloc_array(8 * m->nc, sizeof *stack);
}

static void contact_work_free(double *P, const double *stack)
{
  if (P != stack) free(P);
}

int cpk_varmap_contact_velocities(const cpk_varmap *m, const double *z, double *U, cpk_error *err)
{
  double stack[8 * STACK_CONTACTS], *P = contact_work(m, stack);
  if (!P) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  cvm_impulses(m, z, P);
  cvm_contact_velocity(m, z, P, U);
  contact_work_free(P, stack);
  return CPK_OK;
}

/* Reduced form: v+ = vstar + M^-1 sum_c J_c P_c (vstar holds the free motion). */
int cpk_varmap_velocity(const cpk_varmap *m, const double *z, double *v, cpk_error *err)
{
  if (m->sysform != CPK_SYSTEM_BODY)
    return cpk_error_set(err, CPK_EUNSUP, "a local-form system has no generalized velocities");
  if (m->mixed) {
    memcpy(v, z, m->nv * sizeof *v);
    return CPK_OK;
  }
  double stack[8 * STACK_CONTACTS], *P = contact_work(m, stack);
  if (!P) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  cvm_impulses(m, z, P);
  memset(v, 0, m->nv * sizeof *v);
  for (size_t c = 0; c < m->nc; c++)
    for (size_t k = m->wptr[c]; k < m->wptr[c + 1]; k++)
      for (int a = 0; a < 4; a++) v[m->wrow[k]] += m->wval[4 * k + a] * P[4 * c + a];
  contact_work_free(P, stack);
  int rc = cvm_mass_apply(m->mass, v);
  if (rc) cpk_error_set(err, rc, "solving with M: %s", cpk_strerror(rc));
  if (rc) return rc;
  for (size_t r = 0; r < m->nv; r++) v[r] += m->B.vstar[r];
  return CPK_OK;
}

const char *cpk_contact_mode_name(int mode)
{
  switch (mode & ~CPK_MODE_CORE) {
  case CPK_MODE_SEPARATING: return "separating";
  case CPK_MODE_STICKING: return "sticking";
  case CPK_MODE_SLIDING: return "sliding";
  default: return "unknown";
  }
}

static int core_reached(const cpk_varmap *m, const double *z, size_t c, double ptol)
{
  const cvm_contact *cc = &m->cc[c];
  if (!cc->compliant || cc->npn < 2) return 0;
  double pnr = z[m->gidx[cc->first + cc->kpn[1]]], dn = z[m->gidx[cc->first + cc->kdelta]];
  return pnr > ptol || dn >= cc->delta_max - 1e-9 * fmax(1.0, cc->delta_max);
}

static int contact_mode(const cpk_varmap *m, size_t c, const double *P, const double *U,
                        double ptol, double vtol)
{
  const cvm_contact *cc = &m->cc[c];
  const double *u = U + 4 * c;
  if (P[4 * c] <= ptol) return CPK_MODE_SEPARATING;
  if (cc->sliding0) return CPK_MODE_SLIDING;
  double slip = fmax(fabs(u[1]), fabs(u[2]));
  if (cc->torsion) slip = fmax(slip, fabs(u[3]));
  return slip > vtol ? CPK_MODE_SLIDING : CPK_MODE_STICKING;
}

int cpk_varmap_modes(const cpk_varmap *m, const double *z, double tol, int *modes, cpk_error *err)
{
  double stack[8 * STACK_CONTACTS], *P = contact_work(m, stack), pmax = 0.0, umax = 0.0;
  if (!P) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  double *U = P + 4 * m->nc;
  if (!(tol >= 0)) tol = 1e-7;
  cvm_impulses(m, z, P);
  cvm_contact_velocity(m, z, P, U);
  /* comparisons for fmax: pmax and umax are never NaN, a NaN entry is skipped alike */
  for (size_t c = 0; c < m->nc; c++)
    if (P[4 * c] > pmax) pmax = P[4 * c];
  for (size_t e = 0; e < 4 * m->nc; e++)
    if (fabs(U[e]) > umax) umax = fabs(U[e]);
  double ptol = tol * fmax(1.0, pmax), vtol = tol * fmax(1.0, umax);
  for (size_t c = 0; c < m->nc; c++) {
    modes[c] = contact_mode(m, c, P, U, ptol, vtol);
    if (modes[c] != CPK_MODE_SEPARATING && core_reached(m, z, c, ptol)) modes[c] |= CPK_MODE_CORE;
  }
  contact_work_free(P, stack);
  return CPK_OK;
}

int cpk_varmap_deflection(const cpk_varmap *m, const double *z, size_t c, double delta[3])
{
  if (c >= m->nc || !m->cc[c].compliant) return CPK_EUNSUP;
  for (int a = 0; a < 3; a++) delta[a] = z[m->gidx[m->cc[c].first + m->cc[c].kdelta + a]];
  return CPK_OK;
}
