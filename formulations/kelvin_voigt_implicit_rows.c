/* kelvin_voigt_implicit_rows.c: the rows of one contact pair of the geometrically implicit Kelvin-Voigt model (seed 003 eqs. (11)-(15)) and their analytic partials over the pair's stencil. */
#include <math.h>
#include <string.h>
#include "implicit_internal.h"

/* The state of a pair at z. D* are 3 x 9 partials over (a2, V2): the frame moves with
 * the normal of side 2 at a2. */
typedef struct kin {
  const double *V[2];
  cim_eval e1, e2, e21, ey; /* f1 at a1, f2 at a2, f2 at a1, f2 at y = a2 + delta_n n */
  const double *a1, *a2;
  double s, l, db, dn;
  double n[3], t[3], o[3], Dn[27], Dt[27], Do[27], N2[9];
  double r[2][3], w[2][3]; /* lever arms from the end-of-step centres, point velocities */
} kin;

static void frame(const cim_mpair *p, kin *K)
{
  double g = sqrt(cim_dot(K->e2.g, K->e2.g)), G[27], u[3], Sa[9], SaDn[27], Pt[9];
  for (int a = 0; a < 3; a++) K->n[a] = K->e2.g[a] / g;
  for (int i = 0; i < 9; i++) K->N2[i] = ((i % 4 == 0) - K->n[i / 3] * K->n[i % 3]) / g;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 9; j++) G[9 * i + j] = j < 3 ? K->e2.Gx[3 * i + j] : K->e2.GV[6 * i + j - 3];
  cim_mul(K->N2, G, K->Dn, 3, 3, 9);
  /* t = axis x n / |axis x n|, o = n x t */
  cim_cross(p->axis, K->n, u);
  double lu = sqrt(cim_dot(u, u));
  for (int a = 0; a < 3; a++) K->t[a] = u[a] / lu;
  cim_cross(K->n, K->t, K->o);
  cim_skew(p->axis, Sa);
  cim_mul(Sa, K->Dn, SaDn, 3, 3, 9);
  for (int i = 0; i < 9; i++) Pt[i] = ((i % 4 == 0) - K->t[i / 3] * K->t[i % 3]) / lu;
  cim_mul(Pt, SaDn, K->Dt, 3, 3, 9);
  double St[9], Sn[9], A[27], B[27];
  cim_skew(K->t, St);
  cim_skew(K->n, Sn);
  cim_mul(St, K->Dn, A, 3, 3, 9);
  cim_mul(Sn, K->Dt, B, 3, 3, 9);
  for (int i = 0; i < 27; i++) K->Do[i] = B[i] - A[i];
}

static int kinematics(const cpk_implicit_map *M, const cim_mpair *p, const double *z, kin *K)
{
  const double *x = z + p->first;
  double h = M->h, y[3];
  for (int q = 0; q < 2; q++)
    K->V[q] = p->body[q] == CPK_IMPLICIT_WORLD ? NULL : z + 6 * p->body[q];
  K->a1 = x + CIM_A1;
  K->a2 = x + CIM_A2;
  K->s = x[CIM_S], K->l = x[CIM_L], K->db = x[CIM_DB], K->dn = x[CIM_DN];
  int rc = cim_place_eval(&p->place[0], K->V[0], h, K->a1, &K->e1);
  if (!rc) rc = cim_place_eval(&p->place[1], K->V[1], h, K->a2, &K->e2);
  if (!rc) rc = cim_place_eval(&p->place[1], K->V[1], h, K->a1, &K->e21);
  if (rc) return rc;
  if (!(cim_dot(K->e2.g, K->e2.g) > 0)) return CPK_EBADFUNC;
  frame(p, K);
  for (int a = 0; a < 3; a++) y[a] = K->a2[a] + K->dn * K->n[a];
  rc = cim_place_eval(&p->place[1], K->V[1], h, y, &K->ey);
  for (int q = 0; q < 2; q++) {
    const double *pt = q ? K->a2 : K->a1;
    for (int a = 0; a < 3; a++)
      K->r[q][a] = K->V[q] ? pt[a] - p->place[q].c[a] - h * K->V[q][a] : 0.0;
    if (K->V[q]) cim_cross(K->V[q] + 3, K->r[q], K->w[q]);
    for (int a = 0; a < 3; a++) K->w[q][a] = K->V[q] ? K->w[q][a] + K->V[q][a] : 0.0;
  }
  return rc;
}

/* row += c^T D over (a2, V2) for a 3 x 9 partial D. */
static void add_D(double *row, const double c[3], const double D[27])
{
  for (int j = 0; j < 9; j++) {
    double v = c[0] * D[j] + c[1] * D[9 + j] + c[2] * D[18 + j];
    row[j < 3 ? CIM_A2 + j : CIM_V2 + j - 3] += v;
  }
}

/* Closest points (seed 003 eq. (11) with scalar multipliers s, l) and eq. (12). */
static void geometry_rows(const kin *K, cim_local *L, int jac)
{
  for (int i = 0; i < 3; i++) {
    L->f[CIM_A1 + i] = K->a1[i] - K->a2[i] + K->s * K->e1.g[i];
    L->f[CIM_A2 + i] = K->e1.g[i] + K->l * K->e2.g[i];
  }
  L->f[CIM_S] = K->e1.F;
  L->f[CIM_L] = K->e2.F + K->db;
  L->f[CIM_DB] = K->ey.F;
  if (!jac) return;
  for (int i = 0; i < 3; i++) {
    double *r0 = L->Jc[CIM_A1 + i], *r1 = L->Jc[CIM_A2 + i];
    for (int j = 0; j < 3; j++) {
      r0[CIM_A1 + j] = (i == j) + K->s * K->e1.Gx[3 * i + j];
      r1[CIM_A1 + j] = K->e1.Gx[3 * i + j];
      r1[CIM_A2 + j] = K->l * K->e2.Gx[3 * i + j];
    }
    r0[CIM_A2 + i] = -1.0;
    r0[CIM_S] = K->e1.g[i];
    r1[CIM_L] = K->e2.g[i];
    for (int j = 0; j < 6; j++) {
      r0[CIM_V1 + j] = K->s * K->e1.GV[6 * i + j];
      r1[CIM_V1 + j] = K->e1.GV[6 * i + j];
      r1[CIM_V2 + j] = K->l * K->e2.GV[6 * i + j];
    }
  }
  for (int j = 0; j < 3; j++) {
    L->Jc[CIM_S][CIM_A1 + j] = K->e1.g[j];
    L->Jc[CIM_L][CIM_A2 + j] = K->e2.g[j];
    L->Jc[CIM_DB][CIM_A2 + j] = K->ey.g[j];
  }
  for (int j = 0; j < 6; j++) {
    L->Jc[CIM_S][CIM_V1 + j] = K->e1.Fv[j];
    L->Jc[CIM_L][CIM_V2 + j] = K->e2.Fv[j];
    L->Jc[CIM_DB][CIM_V2 + j] = K->ey.Fv[j];
  }
  L->Jc[CIM_L][CIM_DB] = 1.0;
  /* y = a2 + delta_n n(a2, V2) */
  L->Jc[CIM_DB][CIM_DN] = cim_dot(K->ey.g, K->n);
  double c[3];
  for (int a = 0; a < 3; a++) c[a] = K->dn * K->ey.g[a];
  add_D(L->Jc[CIM_DB], c, K->Dn);
}

/* Spring-damper (eq. (14)) and the two normal complementarity rows (eq. (15)), divided by h. */
static void compliance_rows(const cpk_implicit_map *M, const cim_mpair *p, const double *x,
                            const kin *K, cim_local *L, int jac)
{
  double h = M->h;
  size_t kp[3] = {CIM_PNS, p->nf ? p->kf : (size_t)-1, p->nf ? p->kf + 1 : (size_t)-1};
  for (int a = 0; a < 3; a++) {
    double f = -p->Cdprev[a];
    for (int b = 0; b < 3; b++) {
      f += p->S[3 * a + b] * x[CIM_DN + b];
      if (jac) L->Jc[CIM_DN + a][CIM_DN + b] = p->S[3 * a + b];
    }
    if (kp[a] != (size_t)-1) {
      f -= x[kp[a]];
      if (jac) L->Jc[CIM_DN + a][kp[a]] = -1.0;
    }
    L->f[CIM_DN + a] = f;
  }
  L->f[CIM_PNS] = (K->e21.F + K->db) / h;
  if (p->kpnr != (size_t)-1) L->f[p->kpnr] = (p->dmax - K->dn) / h;
  if (!jac) return;
  for (int j = 0; j < 3; j++) L->Jc[CIM_PNS][CIM_A1 + j] = K->e21.g[j] / h;
  for (int j = 0; j < 6; j++) L->Jc[CIM_PNS][CIM_V2 + j] = K->e21.Fv[j] / h;
  L->Jc[CIM_PNS][CIM_DB] = 1.0 / h;
  if (p->kpnr != (size_t)-1) L->Jc[p->kpnr][CIM_DN] = -1.0 / h;
}

/* row += sign d^T dw_q over (x_q, V_q): w = v + w x r with r = x - c - h v, so
 * dw/dx = [w]x, dw/dv = I - h [w]x, dw/dw = -[r]x. */
static void add_point_velocity(double *row, const kin *K, int q, double h, const double d[3],
                               double sign)
{
  const double *V = K->V[q];
  if (!V) return;
  double Sw[9], Sr[9];
  cim_skew(V + 3, Sw);
  cim_skew(K->r[q], Sr);
  size_t cx = q ? CIM_A2 : CIM_A1, cv = q ? CIM_V2 : CIM_V1;
  for (int j = 0; j < 3; j++) {
    double dSw = 0.0, dSr = 0.0;
    for (int i = 0; i < 3; i++) dSw += d[i] * Sw[3 * i + j], dSr += d[i] * Sr[3 * i + j];
    row[cx + j] += sign * dSw;
    row[cv + j] += sign * (d[j] - h * dSw);
    row[cv + 3 + j] -= sign * dSr;
  }
}

/* Relative velocity of side 1 over side 2 along t, o (a = 0, 1) and spin about n (a = 2),
 * with its partials in du when du is not NULL. */
static double contact_velocity(const kin *K, double h, int a, double *du)
{
  double rel[3], d[3], wr[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) rel[i] = K->w[0][i] - K->w[1][i];
  for (int q = 0; q < 2; q++)
    for (int i = 0; K->V[q] && i < 3; i++) wr[i] += q ? -K->V[q][3 + i] : K->V[q][3 + i];
  if (a == 2) {
    for (int j = 0; du && j < 3; j++) {
      if (K->V[0]) du[CIM_V1 + 3 + j] += K->n[j];
      if (K->V[1]) du[CIM_V2 + 3 + j] -= K->n[j];
    }
    if (du) add_D(du, wr, K->Dn);
    return cim_dot(K->n, wr);
  }
  memcpy(d, a ? K->o : K->t, sizeof d);
  if (du) {
    add_point_velocity(du, K, 0, h, d, 1.0);
    add_point_velocity(du, K, 1, h, d, -1.0);
    add_D(du, rel, a ? K->Do : K->Dt);
  }
  return cim_dot(d, rel);
}

static double normal_impulse(const cim_mpair *p, const double *x)
{
  return x[CIM_PNS] + (p->kpnr != (size_t)-1 ? x[p->kpnr] : 0.0);
}

/* The friction ellipsoid (seed 003 eq. (5)): e^2 mu P_n U_a + p_a sigma = 0, and
 * 0 <= sigma _|_ zeta / h >= 0, zeta = mu^2 P_n^2 - sum p_a^2 / e_a^2: eq. (15) divides by h
 * because zeta is quadratic in impulses of order h. */
static void friction_rows(const cpk_implicit_map *M, const cim_mpair *p, const double *x,
                          const kin *K, cim_local *L, int jac)
{
  double pn = normal_impulse(p, x), mu = p->mu, sig = x[p->ksig], zeta = mu * mu * pn * pn;
  for (size_t a = 0; a < p->nf; a++) {
    size_t k = p->kf + a;
    double du[CIM_MAXS] = {0}, c = p->e2[a] * mu;
    double U = contact_velocity(K, M->h, (int)a, jac ? du : NULL);
    L->f[k] = c * pn * U + x[k] * sig;
    zeta -= x[k] * x[k] / p->e2[a];
    if (!jac) continue;
    for (size_t j = 0; j < CIM_MAXS; j++) L->Jc[k][j] += c * pn * du[j];
    L->Jc[k][CIM_PNS] += c * U;
    if (p->kpnr != (size_t)-1) L->Jc[k][p->kpnr] += c * U;
    L->Jc[k][k] += sig;
    L->Jc[k][p->ksig] += x[k];
    L->Jc[p->ksig][k] = -2 * x[k] / (p->e2[a] * M->h);
  }
  L->f[p->ksig] = zeta / M->h;
  if (!jac) return;
  L->Jc[p->ksig][CIM_PNS] = 2 * mu * mu * pn / M->h;
  if (p->kpnr != (size_t)-1) L->Jc[p->ksig][p->kpnr] = 2 * mu * mu * pn / M->h;
}

/* Impulse P_n n + p_t t + p_o o on side 1 at a1, and the moment p_r n; side 2 gets the
 * opposite at a2. fm holds minus the generalized impulse (momentum rows are M v - ... ). */
static void momentum_forces(const cim_mpair *p, const double *x, const kin *K, cim_local *L)
{
  double pn = normal_impulse(p, x), pt = p->nf ? x[p->kf] : 0, po = p->nf ? x[p->kf + 1] : 0;
  double pr = p->nf == 3 ? x[p->kf + 2] : 0, f[3], m[3];
  for (int i = 0; i < 3; i++) f[i] = pn * K->n[i] + pt * K->t[i] + po * K->o[i];
  for (int q = 0; q < 2; q++) {
    double sg = q ? 1.0 : -1.0;
    cim_cross(K->r[q], f, m);
    for (int i = 0; i < 3; i++) {
      L->fm[6 * q + i] = sg * f[i];
      L->fm[6 * q + 3 + i] = sg * (m[i] + pr * K->n[i]);
    }
  }
}

/* Partials of fm with respect to an impulse unknown k acting along d (force) and e (moment). */
static void impulse_column(const kin *K, size_t k, const double d[3], const double e[3],
                           cim_local *L)
{
  double m[3];
  for (int q = 0; q < 2; q++) {
    double sg = q ? 1.0 : -1.0;
    cim_cross(K->r[q], d, m);
    for (int i = 0; i < 3; i++) {
      L->Jm[6 * q + i][k] += sg * d[i];
      L->Jm[6 * q + 3 + i][k] += sg * (m[i] + e[i]);
    }
  }
}

static void momentum_partials(const cpk_implicit_map *M, const cim_mpair *p, const double *x,
                              const kin *K, cim_local *L)
{
  static const double zero[3] = {0, 0, 0};
  double pn = normal_impulse(p, x), pt = p->nf ? x[p->kf] : 0, po = p->nf ? x[p->kf + 1] : 0;
  double pr = p->nf == 3 ? x[p->kf + 2] : 0, f[3], Sf[9], Df[27], Sr[9], SrDf[27];
  impulse_column(K, CIM_PNS, K->n, zero, L);
  if (p->kpnr != (size_t)-1) impulse_column(K, p->kpnr, K->n, zero, L);
  if (p->nf) impulse_column(K, p->kf, K->t, zero, L), impulse_column(K, p->kf + 1, K->o, zero, L);
  if (p->nf == 3) impulse_column(K, p->kf + 2, zero, K->n, L);
  for (int i = 0; i < 27; i++) Df[i] = pn * K->Dn[i] + pt * K->Dt[i] + po * K->Do[i];
  for (int i = 0; i < 3; i++) f[i] = pn * K->n[i] + pt * K->t[i] + po * K->o[i];
  cim_skew(f, Sf);
  for (int q = 0; q < 2; q++) {
    double sg = q ? 1.0 : -1.0;
    size_t cx = q ? CIM_A2 : CIM_A1, cv = q ? CIM_V2 : CIM_V1;
    cim_skew(K->r[q], Sr);
    cim_mul(Sr, Df, SrDf, 3, 3, 9);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 9; j++) {
        size_t col = j < 3 ? CIM_A2 + (size_t)j : CIM_V2 + (size_t)j - 3;
        L->Jm[6 * q + i][col] += sg * Df[9 * i + j];
        L->Jm[6 * q + 3 + i][col] += sg * (SrDf[9 * i + j] + pr * K->Dn[9 * i + j]);
      }
      /* r x f with dr = dx - h dv: d(r x f) = -[f]x dr */
      for (int j = 0; j < 3; j++) {
        L->Jm[6 * q + 3 + i][cx + j] -= sg * Sf[3 * i + j];
        L->Jm[6 * q + 3 + i][cv + j] += sg * M->h * Sf[3 * i + j];
      }
    }
  }
}

int cim_pair_rows(const cpk_implicit_map *M, const cim_mpair *p, const double *z, int jac,
                  cim_local *L)
{
  kin K;
  const double *x = z + p->first;
  int rc = kinematics(M, p, z, &K);
  if (rc) return rc;
  if (jac) memset(L->Jc, 0, sizeof L->Jc), memset(L->Jm, 0, sizeof L->Jm);
  geometry_rows(&K, L, jac);
  compliance_rows(M, p, x, &K, L, jac);
  if (p->nf) friction_rows(M, p, x, &K, L, jac);
  momentum_forces(p, x, &K, L);
  if (jac) momentum_partials(M, p, x, &K, L);
  return CPK_OK;
}

size_t cim_stencil_col(const cpk_implicit_map *M, const cim_mpair *p, size_t k)
{
  (void)M;
  if (k < p->m) return p->first + k;
  if (k >= CIM_V1 && k < CIM_V1 + 6 && p->body[0] != CPK_IMPLICIT_WORLD)
    return 6 * p->body[0] + k - CIM_V1;
  if (k >= CIM_V2 && k < CIM_V2 + 6 && p->body[1] != CPK_IMPLICIT_WORLD)
    return 6 * p->body[1] + k - CIM_V2;
  return (size_t)-1;
}

int cim_pair_contact(const cpk_implicit_map *M, const cim_mpair *p, const double *z,
                     cpk_implicit_contact *out)
{
  kin K;
  const double *x = z + p->first;
  int rc = kinematics(M, p, z, &K);
  if (rc) return rc;
  memcpy(out->a1, K.a1, sizeof out->a1);
  memcpy(out->a2, K.a2, sizeof out->a2);
  memcpy(out->n, K.n, sizeof out->n);
  memcpy(out->t, K.t, sizeof out->t);
  memcpy(out->o, K.o, sizeof out->o);
  out->p_ns = x[CIM_PNS];
  out->p_nr = p->kpnr != (size_t)-1 ? x[p->kpnr] : 0.0;
  out->P[0] = out->p_ns + out->p_nr;
  for (size_t a = 0; a < 3; a++) out->P[a + 1] = a < p->nf ? x[p->kf + a] : 0.0;
  memcpy(out->delta, x + CIM_DN, sizeof out->delta);
  out->deltabar = K.db;
  out->gap = K.e21.F + K.db;
  out->distance = K.s * sqrt(cim_dot(K.e1.g, K.e1.g));
  double rel[3];
  for (int i = 0; i < 3; i++) rel[i] = K.w[0][i] - K.w[1][i];
  out->U[0] = cim_dot(K.n, rel);
  for (int a = 0; a < 3; a++) out->U[a + 1] = contact_velocity(&K, M->h, a, NULL);
  return CPK_OK;
}
