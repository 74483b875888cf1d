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

/*
 * The rows below are seed 004 eq. (9) / seed 003 eq. (5) rewritten in units
 * (doc/formulations.md, "Scaled rows"). With y_a = p_a / e_a (impulse) and
 * s_a = e_a U_a (velocity), the seed's rows are e_a (mu P_n s_a + y_a sigma) = 0
 * and 0 <= sigma _|_ mu^2 P_n^2 - |y|^2 >= 0. Here, with g the normal row in
 * velocity units and phi = g+^2 / (V + g+), g+ = max(g, 0):
 *   (mu |P_n| s_a + y_a (|sigma| + phi)) / V = 0                   impulse units
 *   0 <= sigma _|_ w (mu P_n - |y|) + phi (sigma - |s|) / (V + phi) >= 0   velocity
 * w and V are the contact's scale factors (contact_scale.c). Where P_n > 0
 * (so g = 0) these are the seed's rows times positive factors (P_n, sigma >= 0
 * there, and mu P_n - |y| has the sign of mu^2 P_n^2 - |y|^2). Where g > 0
 * they force y = 0 and sigma = |s|: no friction, as with the seed's rows, and
 * sigma, which the seed's rows leave free there, is the slip speed, so the
 * separating contact is a regular point. |P_n| and |sigma| only matter away
 * from solutions: an iterate with P_n < 0 or sigma < 0 must not turn y along
 * the slip (the mirror image of a solution, y along s, stalls Newton methods:
 * bdnewton, whose iterates leave the bounds, stalled on the tripod of seed 004
 * at t = 0.0362 with sigma = -0.013 on one foot, through every restart).
 * max(sigma, 0) instead of |sigma| leaves the slip rows no slope in sigma
 * below 0, where bdnewton stalled too; the slope at sigma = 0 is the one from
 * inside the bound.
 */
static void slip_rows(cvm_rowctx *x, double pn, double phi, double dphi, size_t kgap, double dgap)
{
  const cvm_contact *cc = x->cc;
  double sigma = CVM_Z(x, cc->ksig), iv = 1.0 / cc->scale_v, mu = cc->mu;
  double sp = pn < 0 ? -1.0 : 1.0, apn = fabs(pn), slack = fabs(sigma) + phi;
  double dsig = sigma < 0 ? -1.0 : 1.0; /* at sigma = 0 (the bound) the slope from inside */
  for (size_t q = 0; q < cc->nf; q++) {
    size_t k = cc->kf[q], a = q + 1;
    double e = sqrt(cc->e2[q]), pk = CVM_Z(x, k);
    x->f[k] = (e * mu * apn * x->U[a] + pk * slack / e) * iv;
    x->dfdU[4 * k + a] = e * mu * apn * iv;
    x->dfdU[4 * k] = dphi * pk / e * iv;
    x->umask[k] = (unsigned char)(1u << a | 1u);
    for (size_t r = 0; r < cc->npn; r++)
      cvm_partial(x, k, cc->kpn[r], sp * e * mu * x->U[a] * iv);
    cvm_partial(x, k, k, slack / e * iv);
    cvm_partial(x, k, cc->ksig, dsig * pk / e * iv);
    if (kgap != (size_t)-1) cvm_partial(x, k, kgap, dphi * pk / e * iv * dgap);
  }
}

/* d|y|/dp_k for the cone row. |y| is not differentiable at y = 0, and y / |y|
 * beside 0 points anywhere: an iterate with a rounding-error friction would get
 * a random Newton direction for it. At |y| <= 1e-8 mu P_n the element of the
 * generalized gradient (the unit ball) taken is -s / |s|, the direction the
 * friction takes when the contact slides (0 when s = 0): the linearized cone
 * row then asks for y = -mu P_n s / |s|, as maximum dissipation does. */
static double cone_slope(const cvm_contact *cc, const cvm_rowctx *x, size_t q, double a, double r,
                         double snorm)
{
  double pk = CVM_Z(x, cc->kf[q]);
  if (r > 1e-8 * fabs(a) && r > 0) return pk / (cc->e2[q] * r);
  return snorm > 0 ? -x->U[q + 1] / snorm : 0.0; /* -s_q / |s| / e_q, s_q = e_q U_q */
}

/* 0 <= sigma _|_ w (mu P_n - |y|) + phi (sigma - |s|) / (V + phi) >= 0. |s| is not
 * differentiable at s = 0 (a separating contact at rest); slope 0 there. */
static void cone_row(cvm_rowctx *x, double pn, double phi, double dphi, size_t kgap, double dgap)
{
  const cvm_contact *cc = x->cc;
  size_t ks = cc->ksig;
  double sigma = CVM_Z(x, ks), iv = 1.0 / cc->scale_v, y2 = 0.0, s2 = 0.0;
  for (size_t q = 0; q < cc->nf; q++) {
    double pk = CVM_Z(x, cc->kf[q]);
    y2 += pk * pk / cc->e2[q];
    s2 += cc->e2[q] * x->U[q + 1] * x->U[q + 1];
  }
  /* the separation term phi / (V + phi) (sigma - |s|): a velocity, phi (sigma - |s|) / V
   * near g = 0, bounded by |sigma - |s|| far from it */
  double c = phi / (cc->scale_v + phi), dc = cc->scale_v * iv / (1 + phi * iv);
  dc = dc * dc * iv * dphi; /* d c / d g = V / (V + phi)^2 dphi */
  double snorm = sqrt(s2), t = sigma - snorm, a = cc->mu * pn, r = sqrt(y2);
  x->f[ks] = cc->scale_w * (a - r) + c * t;
  x->dfdU[4 * ks] = dc * t;
  x->umask[ks] = 1;
  for (size_t q = 0; q < cc->nf; q++) {
    x->dfdU[4 * ks + q + 1] = snorm > 0 ? -c * cc->e2[q] * x->U[q + 1] / snorm : 0.0;
    x->umask[ks] |= (unsigned char)(1u << (q + 1));
  }
  for (size_t k = 0; k < cc->npn; k++) cvm_partial(x, ks, cc->kpn[k], cc->scale_w * cc->mu);
  for (size_t q = 0; q < cc->nf; q++)
    cvm_partial(x, ks, cc->kf[q], -cc->scale_w * cone_slope(cc, x, q, a, r, snorm));
  cvm_partial(x, ks, ks, c);
  if (kgap != (size_t)-1) cvm_partial(x, ks, kgap, dc * t * dgap);
}

void cvm_friction_rows(cvm_rowctx *x, double gap, size_t kgap, double dgap)
{
  double pn = 0.0;
  for (size_t q = 0; q < x->cc->npn; q++) pn += CVM_Z(x, x->cc->kpn[q]);
  /* the separation indicator phi = g+^2 / (V + g+): a velocity, 0 with slope 0 at
   * g = 0, so a pressed contact (g = 0 up to rounding) sees the seed's rows and
   * slopes; growing like g far from it, so a wild iterate does not blow F up */
  double gp = gap > 0 ? gap : 0.0, V = x->cc->scale_v, d = V + gp;
  double phi = gp * gp / d, dphi = gp * (2 * V + gp) / (d * d);
  slip_rows(x, pn, phi, dphi, kgap, dgap);
  cone_row(x, pn, phi, dphi, kgap, dgap);
}

int cvm_rows_scaled(const cvm_rowctx *x) { return !x->C->affine; }

/* 0 <= p_n _|_ gap >= 0, divided by w in nonlinear problems so that it pairs an
 * impulse with an impulse (the impulse that closes the gap velocity). */
int cvm_rows_ellipsoid(cvm_rowctx *x)
{
  size_t k = x->cc->kpn[0];
  double gap = cvm_normal_gap(x, 0.0), iw = cvm_rows_scaled(x) ? 1.0 / x->cc->scale_w : 1.0;
  x->f[k] = gap * iw;
  x->dfdU[4 * k] = iw;
  x->umask[k] = 1;
  if (x->cc->nonlinear) cvm_friction_rows(x, gap, (size_t)-1, 0.0);
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
