/* elliptic_torsional.c: the Howe-Cutkosky friction ellipsoid with a moment about the normal (seed 000 eqs. (1)-(2), seed 003 eq. (5)), as a nonlinear MCP; its rows are shared with point-coulomb and kelvin-voigt. */
#include <math.h>
#include "compiled.h"

static const double T_N[4] = {1, 0, 0, 0};
static const double T_F[3][4] = {{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};

double cvm_start_slip(const cvm_contact *cc, double rolling_tol)
{
  if (!(cc->mu > 0)) return 0.0;
  double slip2 = cc->e2[0] * cc->s[1] * cc->s[1] + cc->e2[1] * cc->s[2] * cc->s[2];
  if (cc->torsion) slip2 += cc->e2[2] * cc->s[3] * cc->s[3];
  return sqrt(slip2) > rolling_tol ? sqrt(slip2) : 0.0;
}

void cvm_sliding0_impulse(const cvm_contact *cc, double slip, double T[4])
{
  T[0] = 1.0;
  for (size_t q = 0; q < 3; q++)
    T[q + 1] = q < 2 || cc->torsion ? -cc->mu * cc->e2[q] * cc->s[q + 1] / slip : 0.0;
}

/* h = 0 and slipping at the start (contact not in the rolling set R): friction is
 * -mu P_n E^2 s / |E s| (seed 000 eq. (2) with sigma = v), linear in P_n. */
static int setup_sliding0(cpk_varmap *C, size_t c, double slip)
{
  cvm_contact *cc = &C->cc[c];
  double T[4];
  cvm_sliding0_impulse(cc, slip, T);
  cc->sliding0 = 1;
  cc->kpn[0] = 0;
  cc->npn = 1;
  return cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, T);
}

/* p_t, p_o[, p_r] free and sigma >= 0 after the normal unknowns already added. */
static int add_friction_vars(cpk_varmap *C, size_t c)
{
  cvm_contact *cc = &C->cc[c];
  static const cpk_var_role roles[3] = {CPK_ROLE_P_T, CPK_ROLE_P_O, CPK_ROLE_P_R};
  int rc = CPK_OK;
  cc->nf = cc->torsion ? 3 : 2;
  for (size_t q = 0; q < cc->nf && !rc; q++) {
    cc->kf[q] = cc->m;
    rc = cvm_add_var(C, c, roles[q], 0, -INFINITY, INFINITY, T_F[q]);
  }
  cc->ksig = cc->m;
  if (!rc) rc = cvm_add_var(C, c, CPK_ROLE_SIGMA, 0, 0.0, INFINITY, NULL);
  cc->nonlinear = 1;
  C->affine = 0;
  return rc;
}

int cvm_setup_ellipsoid(cpk_varmap *C, const cpk_contact_system *s, size_t c, const double e[3],
                        int torsion, double rolling_tol, cpk_error *err)
{
  cvm_contact *cc = &C->cc[c];
  (void)s;
  cc->first = C->nvars;
  cc->torsion = torsion;
  for (int q = 0; q < 3; q++) cc->e2[q] = e[q] * e[q];
  int rc;
  double slip = C->h == 0 ? cvm_start_slip(cc, rolling_tol) : 0.0;
  if (slip > 0) {
    rc = setup_sliding0(C, c, slip);
    return rc ? cpk_error_set(err, rc, "out of memory") : CPK_OK;
  }
  cc->kpn[0] = 0;
  cc->npn = 1;
  rc = cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, T_N);
  if (!rc && cc->mu > 0) rc = add_friction_vars(C, c);
  return rc ? cpk_error_set(err, rc, "out of memory") : CPK_OK;
}

void cvm_friction_rows(cvm_rowctx *x)
{
  const cvm_contact *cc = x->cc;
  double pn = 0.0, mu = cc->mu, sigma = CVM_Z(x, cc->ksig);
  double zeta = 0.0;
  for (size_t q = 0; q < cc->npn; q++) pn += CVM_Z(x, cc->kpn[q]);
  for (size_t q = 0; q < cc->nf; q++) {
    size_t k = cc->kf[q], a = q + 1;
    double pk = CVM_Z(x, k);
    /* e^2 mu P_n U_a + p_a sigma = 0: p_a = -e^2 mu P_n U_a / sigma opposes the slip */
    x->f[k] = cc->e2[q] * mu * pn * x->U[a] + pk * sigma;
    x->dfdU[4 * k + a] = cc->e2[q] * mu * pn;
    x->umask[k] = (unsigned char)(1u << a);
    for (size_t r = 0; r < cc->npn; r++) cvm_partial(x, k, cc->kpn[r], cc->e2[q] * mu * x->U[a]);
    cvm_partial(x, k, k, sigma);
    cvm_partial(x, k, cc->ksig, pk);
    zeta -= pk * pk / cc->e2[q];
  }
  /* 0 <= sigma _|_ mu^2 P_n^2 - sum p_a^2 / e_a^2 >= 0 */
  x->f[cc->ksig] = mu * mu * pn * pn + zeta;
  for (size_t r = 0; r < cc->npn; r++) cvm_partial(x, cc->ksig, cc->kpn[r], 2 * mu * mu * pn);
  for (size_t q = 0; q < cc->nf; q++)
    cvm_partial(x, cc->ksig, cc->kf[q], -2 * CVM_Z(x, cc->kf[q]) / cc->e2[q]);
}

int cvm_rows_ellipsoid(cvm_rowctx *x)
{
  size_t k = x->cc->kpn[0];
  x->f[k] = cvm_normal_gap(x, 0.0);
  x->dfdU[4 * k] = 1.0;
  x->umask[k] = 1;
  if (x->cc->nonlinear) cvm_friction_rows(x);
  return CPK_OK;
}

static int setup_elliptic(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                          cpk_error *err)
{
  for (size_t c = 0; c < s->nc; c++) {
    const cpk_contact_params *p = &s->contacts[c];
    double e[3] = {p->e_t, p->e_o, p->e_r};
    /* Torsion needs both a semi-axis and a twist column to act through. */
    int torsion = p->e_r > 0 && cvm_has_twist(s, c);
    int rc = cvm_setup_ellipsoid(C, s, c, e, torsion, o->rolling_tol, err);
    if (rc) return rc;
  }
  return CPK_OK;
}

int cpk_compile_elliptic_torsional(const cpk_contact_system *s, const cpk_compile_options *o,
                                   cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  return cvm_compile(s, CPK_MODEL_ELLIPTIC_TORSIONAL, o, setup_elliptic, cvm_rows_ellipsoid,
                     problem, map, err);
}
