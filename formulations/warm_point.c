/* warm_point.c: a starting point of a compiled problem built from contact impulses (warm starts across models and steps). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

/* v+ = M^-1 (rhs + J P) and U = J^T v+ + drift (body), or U = A P + b (local). */
int cvm_motion(const cpk_varmap *m, const double *P, double *v, double *U, cpk_error *err)
{
  if (m->sysform == CPK_SYSTEM_LOCAL) {
    cvm_contact_velocity(m, NULL, P, U);
    return CPK_OK;
  }
  memcpy(v, m->rhs, m->nv * sizeof *v);
  for (size_t c = 0; c < m->nc; c++)
    for (size_t k = m->wptr[c]; k < m->wptr[c + 1]; k++)
      for (int a = 0; a < 4; a++) v[m->wrow[k]] += m->wval[4 * k + a] * P[4 * c + a];
  int rc = cvm_mass_apply(m->mass, v);
  if (rc) cpk_error_set(err, rc, "solving with M: %s", cpk_strerror(rc));
  for (size_t c = 0; !rc && c < m->nc; c++)
    for (int a = 0; a < 4; a++) {
      double sum = m->drift[4 * c + a];
      for (size_t k = m->wptr[c]; k < m->wptr[c + 1]; k++)
        sum += m->wval[4 * k + a] * v[m->wrow[k]];
      U[4 * c + a] = sum;
    }
  return rc;
}

static double det3(const double S[9])
{
  return S[0] * (S[4] * S[8] - S[5] * S[7]) - S[1] * (S[3] * S[8] - S[5] * S[6]) +
         S[2] * (S[3] * S[7] - S[4] * S[6]);
}

/* x = S^-1 b by Cramer's rule (S was checked non-singular at compile time). */
static void solve3(const double S[9], const double b[3], double x[3])
{
  double d = det3(S);
  for (int k = 0; k < 3; k++) {
    double T[9];
    memcpy(T, S, sizeof T);
    for (int a = 0; a < 3; a++) T[3 * a + k] = b[a];
    x[k] = det3(T) / d;
  }
}

/* Spring part p_ns of P_n, capped where the deflection reaches delta_max. */
static void compliant_point(const cvm_contact *cc, const double *P, double *pns, double *pnr,
                            double delta[3])
{
  double b[3] = {P[0] + cc->Cdprev[0], P[1] + cc->Cdprev[1], P[2] + cc->Cdprev[2]};
  solve3(cc->S, b, delta);
  *pns = P[0];
  *pnr = 0.0;
  if (cc->npn < 2 || delta[0] <= cc->delta_max) return;
  double e0[3] = {1, 0, 0}, g[3];
  solve3(cc->S, e0, g); /* d delta / d p_ns */
  if (!(g[0] > 0)) return;
  double step = (cc->delta_max - delta[0]) / g[0];
  *pns = P[0] + step;
  *pnr = -step;
  for (int a = 0; a < 3; a++) delta[a] += step * g[a];
}

static double slip_speed(const cpk_varmap *m, const cvm_contact *cc, const double *U)
{
  if (m->model == CPK_MODEL_POLYHEDRAL) {
    double best = 0.0;
    for (size_t j = 0; j < cc->ndir; j++) {
      const double *d = m->dirs + 3 * (cc->dir_off + j);
      best = fmax(best, -(d[0] * U[1] + d[1] * U[2] + d[2] * U[3]));
    }
    return best;
  }
  double s2 = cc->e2[0] * U[1] * U[1] + cc->e2[1] * U[2] * U[2];
  if (cc->torsion) s2 += cc->e2[2] * U[3] * U[3];
  return sqrt(s2);
}

/* The direction that carries most of the friction impulse. */
static size_t best_direction(const cpk_varmap *m, const cvm_contact *cc, const double *P,
                             double *beta)
{
  size_t best = 0;
  double score = -INFINITY, pf = sqrt(P[1] * P[1] + P[2] * P[2] + P[3] * P[3]);
  for (size_t j = 0; j < cc->ndir; j++) {
    const double *d = m->dirs + 3 * (cc->dir_off + j);
    double nd = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double sc = nd > 0 ? (d[0] * P[1] + d[1] * P[2] + d[2] * P[3]) / nd : -INFINITY;
    if (sc > score) {
      score = sc;
      best = j;
      *beta = nd > 0 ? pf / nd : 0.0;
    }
  }
  return best;
}

/* A friction unknown gives T[a] times itself along a (1 in the NCP, the ellipsoid's
 * semi-axis in the cone form); at h = 0 a contact sliding from the start has its
 * friction on p_n (cone form: these unknowns are 0). */
static double friction_unknown(const cvm_contact *cc, const cvm_var *v, const double *P)
{
  int a = v->role == CPK_ROLE_P_T ? 1 : v->role == CPK_ROLE_P_O ? 2 : 3;
  return cc->sliding0 || v->T[a] == 0.0 ? 0.0 : P[a] / v->T[a];
}

static void contact_point(const cpk_varmap *m, size_t c, const double *P, const double *U,
                          double *z)
{
  const cvm_contact *cc = &m->cc[c];
  double pns = 0, pnr = 0, delta[3] = {0, 0, 0}, beta = 0;
  size_t jbest = (size_t)-1;
  if (cc->compliant) compliant_point(cc, P, &pns, &pnr, delta);
  if (cc->ndir > 0) jbest = best_direction(m, cc, P, &beta);
  for (size_t k = cc->first; k < cc->first + cc->m; k++) {
    const cvm_var *v = &m->vars[k];
    double x = 0.0;
    switch (v->role) {
    case CPK_ROLE_P_N: x = P[0]; break;
    case CPK_ROLE_P_NS: x = pns; break;
    case CPK_ROLE_P_NR: x = pnr; break;
    case CPK_ROLE_P_T:
    case CPK_ROLE_P_O:
    case CPK_ROLE_P_R: x = friction_unknown(cc, v, P); break;
    case CPK_ROLE_P_D: x = v->index == jbest ? beta : 0.0; break;
    case CPK_ROLE_SIGMA: x = slip_speed(m, cc, U); break;
    case CPK_ROLE_DELTA_N: x = delta[0]; break;
    case CPK_ROLE_DELTA_T: x = delta[1]; break;
    case CPK_ROLE_DELTA_O: x = delta[2]; break;
    default: break;
    }
    z[m->gidx[k]] = x;
  }
}

/* 1 when a point needs the motion the impulses cause: the mixed form's velocities or a slip
 * speed; the cone form's unknowns are the impulses alone (a stepper builds its start point
 * every step: the motion was a tenth of a tripod cone step's compile). */
static int needs_motion(const cpk_varmap *m)
{
  if (m->mixed) return 1;
  for (size_t k = 0; k < m->nvars; k++)
    if (m->vars[k].role == CPK_ROLE_SIGMA) return 1;
  return 0;
}

int cpk_varmap_point(const cpk_varmap *m, const double *P, double *z, cpk_error *err)
{
  if (!needs_motion(m)) {
    for (size_t c = 0; c < m->nc; c++) contact_point(m, c, P + 4 * c, NULL, z);
    return CPK_OK;
  }
  /* a small system's motion on the stack: a stepper builds its start point every step */
  double sv[64], sU[64];
  int small = m->nv < 64 && m->nc <= 16;
  double *v = small ? sv : cpk_alloc_array(m->nv + 1, sizeof *v);
  double *U = small ? sU : cpk_alloc_array(4 * m->nc, sizeof *U);
  int rc = v && U ? cvm_motion(m, P, v, U, err) : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (!rc && m->mixed) memcpy(z, v, m->nv * sizeof *z);
  for (size_t c = 0; !rc && c < m->nc; c++) contact_point(m, c, P + 4 * c, U + 4 * c, z);
  if (!small) {
    free(v);
    free(U);
  }
  return rc;
}

int cpk_varmap_start(const cpk_varmap *m, double *z, cpk_error *err)
{
  double *P = cpk_calloc_array(m->nc + 1, 4 * sizeof *P);
  int rc = P ? cpk_varmap_point(m, P, z, err) : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  free(P);
  return rc;
}
