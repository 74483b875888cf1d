/* kelvin_voigt.c: the locally compliant contact of seed 003 eqs. (10)-(15), geometrically explicit: spring-damper plus rigid core in the normal direction, spring-damper tangentially, elliptic friction. */
#include <math.h>
#include "compiled.h"

/* Unknowns of a compliant contact, in this local order:
 *   p_ns >= 0, [p_nr >= 0 when delta_max is finite], [p_t, p_o, (p_r) free, sigma >= 0
 *   when mu > 0], delta_n, delta_t, delta_o free. */
static int setup_compliant(cpk_varmap *C, const cpk_contact_params *p, int torsion, size_t c)
{
  static const double T_N[4] = {1, 0, 0, 0}, T_F[3][4] = {{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  static const cpk_var_role fr[3] = {CPK_ROLE_P_T, CPK_ROLE_P_O, CPK_ROLE_P_R};
  static const cpk_var_role dr[3] = {CPK_ROLE_DELTA_N, CPK_ROLE_DELTA_T, CPK_ROLE_DELTA_O};
  cvm_contact *cc = &C->cc[c];
  int rc = cvm_add_var(C, c, CPK_ROLE_P_NS, 0, 0.0, INFINITY, T_N);
  cc->kpn[0] = 0;
  cc->npn = 1;
  if (!rc && isfinite(p->delta_max)) {
    cc->kpn[cc->npn++] = cc->m;
    rc = cvm_add_var(C, c, CPK_ROLE_P_NR, 0, 0.0, INFINITY, T_N);
  }
  if (cc->mu > 0) {
    cc->nf = torsion ? 3 : 2;
    for (size_t q = 0; q < cc->nf && !rc; q++) {
      cc->kf[q] = cc->m;
      rc = cvm_add_var(C, c, fr[q], 0, -INFINITY, INFINITY, T_F[q]);
    }
    cc->ksig = cc->m;
    if (!rc) rc = cvm_add_var(C, c, CPK_ROLE_SIGMA, 0, 0.0, INFINITY, NULL);
    cc->nonlinear = 1;
    C->affine = 0;
  }
  cc->kdelta = cc->m;
  for (int a = 0; a < 3 && !rc; a++) rc = cvm_add_var(C, c, dr[a], 0, -INFINITY, INFINITY, NULL);
  return rc;
}

static double det3(const double S[9])
{
  return S[0] * (S[4] * S[8] - S[5] * S[7]) - S[1] * (S[3] * S[8] - S[5] * S[6]) +
         S[2] * (S[3] * S[7] - S[4] * S[6]);
}

/* S = h K + C and C delta_prev: the impulse of the spring-damper over the step is
 * S delta - C delta_prev (seed 003 eq. (14): p = h K delta + C (delta - delta_prev)). */
static int compliance_data(cvm_contact *cc, const cpk_contact_params *p, double h, size_t c,
                           cpk_error *err)
{
  double scale = 0.0;
  for (int e = 0; e < 9; e++) {
    cc->S[e] = h * p->K[e] + p->C[e];
    scale = fmax(scale, fabs(cc->S[e]));
  }
  for (int a = 0; a < 3; a++)
    cc->Cdprev[a] = p->C[3 * a] * p->delta_prev[0] + p->C[3 * a + 1] * p->delta_prev[1] +
                    p->C[3 * a + 2] * p->delta_prev[2];
  if (!(fabs(det3(cc->S)) > 1e-14 * scale * scale * scale))
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): h K + C is singular", c + 1);
  cc->compliant = 1;
  cc->delta_max = p->delta_max;
  return CPK_OK;
}

static int setup_kv(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                    cpk_error *err)
{
  if (!(s->h > 0))
    return cpk_error_set(err, CPK_EINVAL,
                         "kelvin-voigt is an impulse-level model: the system needs h > 0");
  for (size_t c = 0; c < s->nc; c++) {
    const cpk_contact_params *p = &s->contacts[c];
    double e[3] = {p->e_t, p->e_o, p->e_r};
    int torsion = p->e_r > 0 && cvm_has_twist(s, c), rc;
    if (!p->compliant) { /* a contact without compliance data stays rigid */
      rc = cvm_setup_ellipsoid(C, s, c, e, torsion, o->rolling_tol, err);
      if (rc) return rc;
      continue;
    }
    cvm_contact *cc = &C->cc[c];
    cc->first = C->nvars;
    cc->torsion = torsion;
    for (int q = 0; q < 3; q++) cc->e2[q] = e[q] * e[q];
    rc = compliance_data(cc, p, s->h, c, err);
    if (!rc && setup_compliant(C, p, torsion, c))
      rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
    if (rc) return rc;
  }
  return CPK_OK;
}

/* S delta - C delta_prev - (p_ns, p_t, p_o) = 0, paired with delta_n, delta_t, delta_o. */
static void spring_rows(cvm_rowctx *x)
{
  const cvm_contact *cc = x->cc;
  size_t kd = cc->kdelta;
  size_t kp[3] = {cc->kpn[0], cc->nf > 0 ? cc->kf[0] : (size_t)-1,
                  cc->nf > 0 ? cc->kf[1] : (size_t)-1};
  for (int a = 0; a < 3; a++) {
    double f = -cc->Cdprev[a];
    for (int b = 0; b < 3; b++) {
      f += cc->S[3 * a + b] * CVM_Z(x, kd + b);
      cvm_partial(x, kd + a, kd + b, cc->S[3 * a + b]); /* structural: zeros too */
    }
    if (kp[a] != (size_t)-1) {
      f -= CVM_Z(x, kp[a]);
      cvm_partial(x, kd + a, kp[a], -1.0);
    }
    x->f[kd + a] = f;
  }
}

/*   0 <= p_ns _|_ U_n + (psi + delta_n) / h >= 0   (deformed surfaces do not overlap)
 *   0 <= p_nr _|_ (delta_max - delta_n) / h >= 0    (the layer is at most delta_max thick) */
static int rows_kv(cvm_rowctx *x)
{
  const cvm_contact *cc = x->cc;
  if (!cc->compliant) return cvm_rows_ellipsoid(x);
  /* both normal rows divided by w in nonlinear problems: impulses paired with impulses */
  double h = x->C->h, dn = CVM_Z(x, cc->kdelta), gap = cvm_normal_gap(x, dn);
  double iw = cvm_rows_scaled(x) ? 1.0 / cc->scale_w : 1.0;
  x->f[0] = gap * iw;
  x->dfdU[0] = iw;
  x->umask[0] = 1;
  cvm_partial(x, 0, cc->kdelta, iw / h);
  if (cc->npn > 1) {
    x->f[cc->kpn[1]] = (cc->delta_max - dn) / h * iw;
    cvm_partial(x, cc->kpn[1], cc->kdelta, -iw / h);
  }
  if (cc->nonlinear) cvm_friction_rows(x, gap, cc->kdelta, 1.0 / h);
  spring_rows(x);
  return CPK_OK;
}

int cpk_compile_kelvin_voigt(const cpk_contact_system *s, const cpk_compile_options *o,
                             cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  return cvm_compile(s, CPK_MODEL_KELVIN_VOIGT, o, setup_kv, rows_kv, problem, map, err);
}
