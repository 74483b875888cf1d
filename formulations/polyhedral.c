/* polyhedral.c: the Stewart-Trinkle linearized friction cone/ellipsoid (seed 004 eq. (15), seed 000 eq. (5)): direction generation and the LCP rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

#define PI 3.14159265358979323846
#define MAX_DIRECTIONS 100000

/* Rounding noise such as cos(pi/2) = 6e-17 would add structural entries. */
static double snap(double x) { return fabs(x) < 1e-15 ? 0.0 : x; }

int cvm_push_dir(cpk_varmap *C, double t, double o, double r)
{
  if (C->ndirs == C->cap_dirs) {
    size_t cap = C->cap_dirs ? 2 * C->cap_dirs : 64;
    double *d = cpk_alloc_array(cap, 3 * sizeof *d);
    if (!d) return CPK_ENOMEM;
    if (C->ndirs) memcpy(d, C->dirs, 3 * C->ndirs * sizeof *d);
    free(C->dirs);
    C->dirs = d;
    C->cap_dirs = cap;
  }
  double *d = C->dirs + 3 * C->ndirs++;
  d[0] = snap(t);
  d[1] = snap(o);
  d[2] = snap(r);
  return CPK_OK;
}

/* n points of the ellipse of semi-axes (a, b) at height r, from angle `offset`. */
int cvm_push_circle(cpk_varmap *C, size_t n, double a, double b, double r, double offset)
{
  int rc = CPK_OK;
  for (size_t j = 0; j < n && !rc; j++) {
    double th = offset + 2.0 * PI * (double)j / (double)n;
    rc = cvm_push_dir(C, a * cos(th), b * sin(th), r);
  }
  return rc;
}

/* Equator, then the upper circles, the lower circles and the two poles, as in seed 000 eq. (5). */
static int push_ellipsoid(cpk_varmap *C, const double e[3], const cpk_compile_options *o)
{
  size_t K = o->directions.circles;
  int rc = cvm_push_circle(C, o->directions.equator, e[0], e[1], 0.0, o->directions.offset);
  for (int side = 1; side >= -1 && !rc; side -= 2)
    for (size_t k = 1; k <= K && !rc; k++) {
      double phi = K == 1 && o->directions.latitude > 0 ? o->directions.latitude
                                                        : (double)k * PI / (2.0 * (double)(K + 1));
      rc = cvm_push_circle(C, o->directions.per_circle, e[0] * cos(phi), e[1] * cos(phi),
                       side * e[2] * sin(phi), o->directions.offset);
    }
  if (!rc) rc = cvm_push_dir(C, 0.0, 0.0, e[2]);
  if (!rc) rc = cvm_push_dir(C, 0.0, 0.0, -e[2]);
  return rc;
}

static int check_options(const cpk_compile_options *o, cpk_error *err)
{
  if (o->directions.kind == CPK_DIRECTIONS_PLANE) {
    if (o->directions.d < 1 || o->directions.d > MAX_DIRECTIONS)
      return cpk_error_set(err, CPK_EINVAL, "need 1 <= d <= %d directions", MAX_DIRECTIONS);
    return CPK_OK;
  }
  if (o->directions.kind != CPK_DIRECTIONS_ELLIPSOID)
    return cpk_error_set(err, CPK_EINVAL, "unknown direction kind %d", (int)o->directions.kind);
  if (o->directions.equator < 1 || o->directions.equator > MAX_DIRECTIONS ||
      o->directions.circles > 1000 || o->directions.per_circle > MAX_DIRECTIONS ||
      (o->directions.circles > 0 && o->directions.per_circle < 1))
    return cpk_error_set(err, CPK_EINVAL, "bad ellipsoid direction counts");
  if (!isfinite(o->directions.latitude) || o->directions.latitude < 0 ||
      o->directions.latitude >= PI / 2)
    return cpk_error_set(err, CPK_EINVAL, "latitude must be in [0, pi/2)");
  return CPK_OK;
}

/* Directions of contact c: its own, or generated (the ellipsoid needs a twist to use). */
static int contact_directions(cpk_varmap *C, const cpk_contact_params *p, int torsion,
                              const cpk_compile_options *o, cvm_contact *cc)
{
  double e[3] = {p->e_t, p->e_o, p->e_r};
  size_t before = C->ndirs;
  int rc = CPK_OK;
  cc->dir_off = before;
  if (p->ndirections > 0)
    for (size_t j = 0; j < p->ndirections && !rc; j++)
      rc = cvm_push_dir(C, p->directions[3 * j], p->directions[3 * j + 1], p->directions[3 * j + 2]);
  else if (o->directions.kind == CPK_DIRECTIONS_ELLIPSOID && torsion)
    rc = push_ellipsoid(C, e, o);
  else if (o->directions.kind == CPK_DIRECTIONS_ELLIPSOID)
    rc = cvm_push_circle(C, o->directions.equator, e[0], e[1], 0.0, o->directions.offset);
  else
    rc = cvm_push_circle(C, o->directions.d, e[0], e[1], 0.0, o->directions.offset);
  cc->ndir = C->ndirs - before;
  return rc;
}

/* h = 0, slipping at the start: maximum dissipation picks the direction most opposed to s. */
static int setup_sliding0(cpk_varmap *C, size_t c)
{
  cvm_contact *cc = &C->cc[c];
  size_t best = 0;
  double best_v = INFINITY, T[4] = {1, 0, 0, 0};
  for (size_t j = 0; j < cc->ndir; j++) {
    const double *d = C->dirs + 3 * (cc->dir_off + j);
    double v = d[0] * cc->s[1] + d[1] * cc->s[2] + d[2] * cc->s[3];
    if (v < best_v) {
      best_v = v;
      best = j;
    }
  }
  for (int a = 0; a < 3; a++) T[a + 1] = cc->mu * C->dirs[3 * (cc->dir_off + best) + a];
  cc->sliding0 = 1;
  return cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, T);
}

static int setup_contact(cpk_varmap *C, const cpk_contact_system *s, size_t c,
                         const cpk_compile_options *o)
{
  static const double T_N[4] = {1, 0, 0, 0};
  const cpk_contact_params *p = &s->contacts[c];
  cvm_contact *cc = &C->cc[c];
  int torsion = p->e_r > 0 && cvm_has_twist(s, c);
  cc->torsion = torsion; /* the mode counts a twist slip as sliding */
  cc->first = C->nvars;
  cc->kpn[0] = 0;
  cc->npn = 1;
  int rc = cc->mu > 0 ? contact_directions(C, p, torsion, o, cc) : CPK_OK;
  if (rc) return rc;
  double slip = sqrt(cc->s[1] * cc->s[1] + cc->s[2] * cc->s[2] + cc->s[3] * cc->s[3]);
  if (cc->mu > 0 && C->h == 0 && slip > o->rolling_tol) return setup_sliding0(C, c);
  rc = cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, T_N);
  for (size_t j = 0; j < cc->ndir && !rc; j++) {
    const double *d = C->dirs + 3 * (cc->dir_off + j);
    double T[4] = {0, d[0], d[1], d[2]};
    rc = cvm_add_var(C, c, CPK_ROLE_P_D, j, 0.0, INFINITY, T);
  }
  cc->ksig = cc->m;
  if (!rc && cc->ndir > 0) rc = cvm_add_var(C, c, CPK_ROLE_SIGMA, 0, 0.0, INFINITY, NULL);
  return rc;
}

static int setup_polyhedral(cpk_varmap *C, const cpk_contact_system *s,
                            const cpk_compile_options *o, cpk_error *err)
{
  int rc = check_options(o, err);
  for (size_t c = 0; c < s->nc && !rc; c++)
    if (setup_contact(C, s, c, o)) rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
  return rc;
}

/*   0 <= p_n   _|_ U_n + psi/h        >= 0
 *   0 <= beta_j _|_ d_j . U_(t,o,r) + sigma >= 0
 *   0 <= sigma _|_ mu p_n - sum_j beta_j   >= 0 */
int cvm_rows_polyhedral(cvm_rowctx *x)
{
  const cvm_contact *cc = x->cc;
  x->f[0] = cvm_normal_gap(x, 0.0);
  x->dfdU[0] = 1.0;
  x->umask[0] = 1;
  if (cc->m == 1) return CPK_OK;
  double sigma = CVM_Z(x, cc->ksig), sum = 0.0;
  for (size_t j = 0; j < cc->ndir; j++) {
    size_t k = 1 + j;
    const double *d = x->C->dirs + 3 * (cc->dir_off + j);
    x->f[k] = d[0] * x->U[1] + d[1] * x->U[2] + d[2] * x->U[3] + sigma;
    for (int a = 0; a < 3; a++) {
      x->dfdU[4 * k + 1 + a] = d[a];
      if (d[a] != 0.0) x->umask[k] |= (unsigned char)(1u << (a + 1));
    }
    cvm_partial(x, k, cc->ksig, 1.0);
    sum += CVM_Z(x, k);
  }
  x->f[cc->ksig] = cc->mu * CVM_Z(x, 0) - sum;
  cvm_partial(x, cc->ksig, 0, cc->mu);
  for (size_t j = 0; j < cc->ndir; j++) cvm_partial(x, cc->ksig, 1 + j, -1.0);
  return CPK_OK;
}

int cpk_compile_polyhedral(const cpk_contact_system *s, const cpk_compile_options *o,
                           cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  return cvm_compile(s, CPK_MODEL_POLYHEDRAL, o, setup_polyhedral, cvm_rows_polyhedral, problem, map,
                     err);
}
