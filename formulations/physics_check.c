/* physics_check.c: the physical check of a solution at the level of the contact model (Signorini, the friction cone, maximum dissipation), in relative units. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

/* Models whose friction law is the cone/ellipsoid with maximum dissipation. */
static int ellipsoid_model(cpk_contact_model m)
{
  return m == CPK_MODEL_POINT_COULOMB || m == CPK_MODEL_ELLIPTIC_TORSIONAL ||
         m == CPK_MODEL_KELVIN_VOIGT;
}

/* Models whose normal row is U_n + psi / h (the others add a compliance). */
static int rigid_normal(cpk_contact_model m)
{
  return m != CPK_MODEL_KELVIN_VOIGT && m != CPK_MODEL_DISTRIBUTED;
}

typedef struct figures {
  double normal, cone, dissipation;
  int normal_kind; /* which normal condition gave `normal` (normal_text) */
  double gap;
  char what[120];
} figures;

/* The normal figure: the negative impulse, else (rigid normal rows) the penetrating
 * velocity or an impulse while separating, whichever fails most. Only numbers: the
 * text is written when the contact fails (normal_text), not on every check of a step. */
static void normal_figure(const cpk_varmap *m, const cvm_contact *cc, const double *P,
                          const double *U, double ps, double vs, figures *f)
{
  double g = U[0] + (m->h > 0 ? cc->psi / m->h : 0.0);
  f->normal = -P[0] / ps;
  f->normal_kind = 0;
  f->gap = g;
  if (!rigid_normal(m->model)) return;
  double pen = -g / vs, both = fmin(P[0] / ps, g / vs);
  if (pen > f->normal) {
    f->normal = pen;
    f->normal_kind = 1;
  }
  if (both > f->normal) {
    f->normal = both;
    f->normal_kind = 2;
  }
}

static void normal_text(const figures *f, double pn, char *what, size_t size)
{
  if (f->normal_kind == 1)
    snprintf(what, size, "normal velocity %.3g into the surface", f->gap);
  else if (f->normal_kind == 2)
    snprintf(what, size, "normal impulse %.3g while separating at %.3g", pn, f->gap);
  else
    snprintf(what, size, "negative normal impulse %.3g", pn);
}

/* The friction set |E^-1 P_F| <= mu P_n and, when slipping, P_F = -mu P_n E^2 U_F / |E U_F|. */
static void friction_figures(const cvm_contact *cc, const double *P, const double *U, double ps,
                             double vtol, figures *f)
{
  double ell2 = 0.0, slip2 = 0.0, extra = 0.0;
  for (int k = 1; k <= 3; k++) {
    if (k == 3 && !cc->torsion) {
      extra = fabs(P[3]); /* a moment the model does not have */
      continue;
    }
    ell2 += P[k] * P[k] / cc->e2[k - 1];
    slip2 += cc->e2[k - 1] * U[k] * U[k];
  }
  f->cone = (sqrt(ell2) - cc->mu * P[0] + extra) / ps;
  f->dissipation = 0.0;
  double slip = sqrt(slip2);
  if (cc->sliding0 || !(slip > vtol)) return;
  for (int k = 1; k <= (cc->torsion ? 3 : 2); k++) {
    double want = -cc->mu * P[0] * cc->e2[k - 1] * U[k] / slip;
    f->dissipation = fmax(f->dissipation, fabs(P[k] - want) / ps);
  }
}

/* Largest W_n^T M^-1 W_n over the contacts (M by its diagonal in body form): the
 * inverse of the lightest effective mass a unit normal impulse meets. */
static double normal_compliance(const cpk_varmap *m)
{
  double worst = 0.0;
  for (size_t c = 0; m->has_B && m->sysform == CPK_SYSTEM_LOCAL && c < m->nc; c++)
    for (size_t k = m->B.ptr[c]; k < m->B.ptr[c + 1]; k++)
      if (m->B.col[k] == c) worst = fmax(worst, m->B.val[16 * k]);
  for (size_t c = 0; m->sysform == CPK_SYSTEM_BODY && c < m->nc; c++) {
    double a = 0.0;
    for (size_t k = m->wptr[c]; k < m->wptr[c + 1]; k++) {
      double wn = m->wval[4 * k], d = 0.0;
      cpk_int j = m->wrow[k];
      for (cpk_int e = m->M->p[j]; e < m->M->p[j + 1]; e++)
        if (m->M->i[e] == j) d = m->M->x[e];
      if (d > 0) a += wn * wn / d;
    }
    worst = fmax(worst, a);
  }
  return worst;
}

/* Scales: the largest contact velocity with the impulses or without them (the free
 * motion), psi / h included; the largest impulse component, or when larger 1e-6 of
 * the impulse that changes the lightest contact's velocity by that scale (so impulses that
 * are all nearly zero, and move nothing, are not taken for friction out of the cone). */
static void scales(const cpk_varmap *m, const double *P, const double *U, const double *U0,
                   double *ps, double *vs)
{
  double approach = 0.0, a = normal_compliance(m);
  *ps = *vs = 0.0;
  /* fmax(acc, x) for accumulators that start at 0 and are never NaN: a NaN x is skipped by
   * the comparison as by fmax, without a libm call per entry (fmax is not inlined) */
  double pm = 0.0, vm = 0.0;
  for (size_t e = 0; e < 4 * m->nc; e++) {
    double p = fabs(P[e]), u = fabs(U[e]), u0 = fabs(U0[e]);
    if (p > pm) pm = p;
    if (u > vm) vm = u;
    if (u0 > vm) vm = u0;
  }
  *ps = pm;
  *vs = vm;
  for (size_t c = 0; c < m->nc; c++) {
    double gap = m->h > 0 ? m->cc[c].psi / m->h : 0.0;
    *vs = fmax(*vs, fabs(gap));
    approach = fmax(approach, -(U0[4 * c] + gap));
  }
  /* Impulses below 1e-6 of the momentum scale |U| / a of the step change no contact
   * velocity by more than 1e-6 of the step's: nothing a tolerance of a solver resolves
   * (friction of 3e-12 on an unloaded contact of seed003's tilted ellipsoid, whose
   * impulses were all ~1e-11 at touch-down, failed with the round-off factor 1e-9). */
  if (a > 0) *ps = fmax(*ps, fmax(approach, 1e-6 * *vs) / a);
  if (!(*ps > 0)) *ps = 1.0;
  if (!(*vs > 0)) *vs = 1.0;
}

static void judge(const cpk_varmap *m, const double *P, const double *U, double tol,
                  cpk_physics_check *out)
{
  out->contact = (size_t)-1;
  double worst = tol;
  for (size_t c = 0; c < m->nc; c++) {
    const cvm_contact *cc = &m->cc[c];
    figures f = {0, 0, 0, 0, 0, ""};
    normal_figure(m, cc, P + 4 * c, U + 4 * c, out->pscale, out->vscale, &f);
    if (ellipsoid_model(m->model))
      friction_figures(cc, P + 4 * c, U + 4 * c, out->pscale, tol * out->vscale, &f);
    out->normal = fmax(out->normal, f.normal);
    out->cone = fmax(out->cone, f.cone);
    out->dissipation = fmax(out->dissipation, f.dissipation);
    double fw = fmax(f.normal, fmax(f.cone, f.dissipation));
    if (!(fw <= worst)) { /* NaN counts as a failure */
      worst = isnan(fw) ? INFINITY : fw;
      out->contact = c;
      if (f.cone >= fw)
        snprintf(f.what, sizeof f.what, "friction (%.3g, %.3g, %.3g) outside the cone (mu P_n = %.3g)",
                 P[4 * c + 1], P[4 * c + 2], P[4 * c + 3], cc->mu * P[4 * c]);
      else if (f.dissipation >= fw)
        snprintf(f.what, sizeof f.what, "friction (%.3g, %.3g, %.3g) not opposite to the slip "
                 "(%.3g, %.3g, %.3g)", P[4 * c + 1], P[4 * c + 2], P[4 * c + 3], U[4 * c + 1],
                 U[4 * c + 2], U[4 * c + 3]);
      else
        normal_text(&f, P[4 * c], f.what, sizeof f.what);
      snprintf(out->message, sizeof out->message, "contact %zu (1-based): %s (%.2g relative)", c + 1,
               f.what, fw);
    }
  }
  out->ok = out->contact == (size_t)-1;
}

int cpk_varmap_check(const cpk_varmap *m, const double *z, double tol, cpk_physics_check *out,
                     cpk_error *err)
{
  memset(out, 0, sizeof *out);
  if (!(tol > 0)) tol = 1e-3;
  double *P = m->check, *U = P + 4 * m->nc, *U0 = U + 4 * m->nc, *zero = U0 + 4 * m->nc;
  double *v = zero + 4 * m->nc;
  memset(P, 0, 16 * m->nc * sizeof *P);
  cvm_impulses(m, z, P);
  cvm_contact_velocity(m, z, P, U);
  int rc = cvm_motion(m, zero, v, U0, err); /* the free motion */
  if (!rc) {
    scales(m, P, U, U0, &out->pscale, &out->vscale);
    judge(m, P, U, tol, out);
  }
  return rc;
}
