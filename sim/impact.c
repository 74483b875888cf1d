/* impact.c: planar frictional impact at one contact (Routh's method in the normal impulse) under Newton's, Poisson's and Stronge's hypotheses. */
#include <math.h>
#include <string.h>
#include <cpkit/impact.h>

/*
 * The relative contact velocity is linear in the impulse on body 1:
 * (S, C) = (S0, C0) + K (P_x, P_y) with K the 2x2 collision matrix. With the
 * normal impulse p as the parameter, P_x grows at a constant rate a per phase
 * (-mu sign(S) while sliding, -K12/K11 while sticking), so the whole impact
 * is at most two straight segments in p: before and after the slip stops at
 * p_s. Every quantity (p_c, p_T, the work integrals) then follows in closed
 * form from linear or quadratic equations, with no time integration.
 */
typedef struct impact_path {
  double K11, K12, K22;
  double S0, C0;
  double a[2];  /* dP_x/dp before and after p_s */
  double p_s;   /* start of the second segment (INFINITY: never) */
  int sticks;   /* 1 if the second segment sticks, 0 if it slides back */
} impact_path;

static const char *const law_names[CPK_IMPACT_LAW_COUNT] = {"newton", "poisson", "stronge"};

const char *cpk_impact_law_name(cpk_impact_law law)
{
  return (unsigned)law < CPK_IMPACT_LAW_COUNT ? law_names[law] : NULL;
}

int cpk_impact_law_from_name(const char *name, cpk_impact_law *law)
{
  for (int i = 0; name && i < CPK_IMPACT_LAW_COUNT; i++)
    if (strcmp(name, law_names[i]) == 0) {
      *law = (cpk_impact_law)i;
      return CPK_OK;
    }
  return CPK_ENOTFOUND;
}

double cpk_impact_body_energy(const cpk_impact_body *b)
{
  double t = isinf(b->mass) ? 0 : b->mass * (b->v[0] * b->v[0] + b->v[1] * b->v[1]);
  double r = isinf(b->inertia) ? 0 : b->inertia * b->omega * b->omega;
  return 0.5 * (t + r);
}

static int body_ok(const cpk_impact_body *b)
{
  int finite = isfinite(b->r[0]) && isfinite(b->r[1]) && isfinite(b->v[0]) &&
               isfinite(b->v[1]) && isfinite(b->omega);
  return finite && b->mass > 0 && b->inertia > 0 && !isnan(b->mass) && !isnan(b->inertia);
}

/* Velocity of the contact point of b, and b's share of the collision matrix
 * (an impulse P at r changes it by P/m + (r x P)/I (-r_y, r_x)). */
static void body_terms(const cpk_impact_body *b, double u[2], double K[3])
{
  double im = 1.0 / b->mass, iI = 1.0 / b->inertia;
  u[0] = b->v[0] - b->omega * b->r[1];
  u[1] = b->v[1] + b->omega * b->r[0];
  K[0] += im + iI * b->r[1] * b->r[1];
  K[1] -= iI * b->r[0] * b->r[1];
  K[2] += im + iI * b->r[0] * b->r[0];
}

static double sgn(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

/* The friction phases: slide against S0 until S = 0 (if it gets there), then
 * stick if |K12| <= mu K11, else slide back the way K12 pushes. */
static void build_path(impact_path *q, double mu)
{
  q->a[0] = q->a[1] = 0;
  q->p_s = INFINITY;
  q->sticks = 0;
  if (mu == 0) return;
  double s = sgn(q->S0);
  q->a[0] = -mu * s;
  if (s != 0) {
    double slope = q->K11 * q->a[0] + q->K12;
    if (s * slope < 0) q->p_s = -q->S0 / slope;
  } else {
    q->p_s = 0;
  }
  if (fabs(q->K12) <= mu * q->K11) {
    q->a[1] = -q->K12 / q->K11;
    q->sticks = 1;
  } else {
    q->a[1] = -mu * sgn(q->K12);
  }
}

/* P_x, S and C at normal impulse p. */
static void state_at(const impact_path *q, double p, double *Px, double *S, double *C)
{
  double px = p <= q->p_s ? q->a[0] * p : q->a[0] * q->p_s + q->a[1] * (p - q->p_s);
  *Px = px;
  *S = q->S0 + q->K11 * px + q->K12 * p;
  *C = q->C0 + q->K12 * px + q->K22 * p;
}

static double c_slope(const impact_path *q, int seg) { return q->K12 * q->a[seg] + q->K22; }

/* Integrals over [0, p] of C dp and of S dP_x (exact: both are piecewise linear). */
static void work_to(const impact_path *q, double p, double *wn, double *wt)
{
  double br[3] = {0, fmin(p, q->p_s), p}, px, S[3], C[3];
  *wn = *wt = 0;
  for (int k = 0; k < 3; k++) state_at(q, br[k], &px, &S[k], &C[k]);
  for (int seg = 0; seg < 2; seg++) {
    double len = br[seg + 1] - br[seg];
    *wn += 0.5 * (C[seg] + C[seg + 1]) * len;
    *wt += q->a[seg] * 0.5 * (S[seg] + S[seg + 1]) * len;
  }
}

/* First p >= p0 at which C reaches `target`, C increasing from p0 on
 * (INFINITY if it never does). */
static double reach_c(const impact_path *q, double p0, double target)
{
  double px, s, c;
  state_at(q, p0, &px, &s, &c);
  if (c >= target) return p0;
  if (p0 < q->p_s) {
    double cs = c_slope(q, 0), p = cs > 0 ? p0 + (target - c) / cs : INFINITY;
    if (p <= q->p_s) return p;
    if (isinf(q->p_s)) return INFINITY;
    p0 = q->p_s;
    state_at(q, p0, &px, &s, &c);
  }
  double cs = c_slope(q, 1);
  return cs > 0 ? p0 + (target - c) / cs : INFINITY;
}

/* Smallest L >= 0 with c0 L + cs L^2 / 2 = R (c0 >= 0, R >= 0), the stable root. */
static double quad_len(double c0, double cs, double R)
{
  double disc = c0 * c0 + 2 * cs * R;
  if (disc < 0) return INFINITY;
  double den = c0 + sqrt(disc);
  return den > 0 ? 2 * R / den : (R == 0 ? 0 : INFINITY);
}

/* Stronge: the p_T >= p_c at which the restitution work of P_y equals R. */
static double stronge_end(const impact_path *q, double p_c, double R)
{
  double px, s, c, p0 = p_c;
  if (p0 < q->p_s) {
    state_at(q, p0, &px, &s, &c);
    double cs = c_slope(q, 0), L = quad_len(fmax(c, 0), cs, R);
    if (p0 + L <= q->p_s) return p0 + L;
    double wn0, wn1, wt;
    work_to(q, p0, &wn0, &wt);
    work_to(q, q->p_s, &wn1, &wt);
    R -= wn1 - wn0;
    p0 = q->p_s;
  }
  state_at(q, p0, &px, &s, &c); /* C >= 0 from p_c on, but for rounding */
  return p0 + quad_len(fmax(c, 0), c_slope(q, 1), fmax(R, 0));
}

static double end_of_impact(const impact_path *q, double p_c, double e, cpk_impact_law law)
{
  if (law == CPK_IMPACT_POISSON) return (1 + e) * p_c;
  if (law == CPK_IMPACT_NEWTON) return reach_c(q, p_c, -e * q->C0);
  double wn, wt;
  work_to(q, p_c, &wn, &wt);
  return stronge_end(q, p_c, e * e * -wn);
}

static cpk_impact_case classify(const impact_path *q, double p_c, double p_T)
{
  if (!(q->p_s < p_T)) return CPK_IMPACT_FORWARD_SLIDING;
  if (q->p_s <= p_c)
    return q->sticks ? CPK_IMPACT_STICK_COMPRESSION : CPK_IMPACT_REVERSE_COMPRESSION;
  return q->sticks ? CPK_IMPACT_STICK_RESTITUTION : CPK_IMPACT_REVERSE_RESTITUTION;
}

/* Apply impulse P to body b (sign -1 for the reaction). */
static void apply(const cpk_impact_body *b, const double P[2], double sign, cpk_impact_body *out)
{
  *out = *b;
  double px = sign * P[0], py = sign * P[1];
  out->v[0] += px / b->mass;
  out->v[1] += py / b->mass;
  out->omega += (b->r[0] * py - b->r[1] * px) / b->inertia;
}

static int check_args(const cpk_impact_body *b1, const cpk_impact_body *b2, double mu, double e,
                      cpk_impact_law law, cpk_impact_result *out, cpk_error *err)
{
  if (!b1 || !out) return cpk_error_set(err, CPK_EINVAL, "impact: NULL body or result");
  if (!body_ok(b1) || (b2 && !body_ok(b2)))
    return cpk_error_set(err, CPK_EINVAL,
                         "impact: masses and inertias must be > 0 (or INFINITY), "
                         "positions and velocities finite");
  if (isinf(b1->mass) && isinf(b1->inertia) && (!b2 || (isinf(b2->mass) && isinf(b2->inertia))))
    return cpk_error_set(err, CPK_EINVAL, "impact: both bodies are immovable");
  if (!(mu >= 0) || !isfinite(mu)) return cpk_error_set(err, CPK_EINVAL, "impact: mu = %g", mu);
  if (!(e >= 0 && e <= 1))
    return cpk_error_set(err, CPK_EINVAL, "impact: e = %g is not in [0, 1]", e);
  if (!cpk_impact_law_name(law)) return cpk_error_set(err, CPK_EINVAL, "impact: unknown law");
  return CPK_OK;
}

/* Fill the result from the end of the impact p_T. */
static void finish(const impact_path *q, const cpk_impact_body *b1, const cpk_impact_body *b2,
                   double p_c, double p_T, cpk_impact_result *out)
{
  double wn, wt;
  out->kase = classify(q, p_c, p_T);
  out->p_c = p_c;
  out->p_s = q->p_s < p_T ? q->p_s : INFINITY;
  state_at(q, p_T, &out->P[0], &out->S, &out->C);
  out->P[1] = p_T;
  work_to(q, p_T, &wn, &wt);
  out->D_n = -wn;
  out->D_t = -wt;
  out->D = out->D_n + out->D_t;
  apply(b1, out->P, 1.0, &out->after[0]);
  apply(b2, out->P, -1.0, &out->after[1]);
}

int cpk_impact_solve(const cpk_impact_body *b1, const cpk_impact_body *b2, double mu, double e,
                     cpk_impact_law law, cpk_impact_result *out, cpk_error *err)
{
  static const cpk_impact_body ground = {INFINITY, INFINITY, {0, 0}, {0, 0}, 0};
  int rc = check_args(b1, b2, mu, e, law, out, err);
  if (rc) return rc;
  if (!b2) b2 = &ground;
  double u1[2], u2[2], K[3] = {0, 0, 0};
  body_terms(b1, u1, K);
  body_terms(b2, u2, K);
  impact_path q = {K[0], K[1], K[2], u1[0] - u2[0], u1[1] - u2[1], {0, 0}, INFINITY, 0};
  memset(out, 0, sizeof *out);
  out->S0 = q.S0;
  out->C0 = q.C0;
  if (!(q.C0 < 0)) { /* not approaching: nothing happens */
    out->kase = CPK_IMPACT_NO_IMPACT;
    out->p_s = INFINITY;
    out->S = q.S0;
    out->C = q.C0;
    out->after[0] = *b1;
    out->after[1] = *b2;
    return CPK_OK;
  }
  build_path(&q, mu);
  double p_c = reach_c(&q, 0, 0);
  double p_T = isfinite(p_c) ? end_of_impact(&q, p_c, e, law) : INFINITY;
  if (!isfinite(p_T))
    return cpk_error_set(err, CPK_EINVAL,
                         "impact: the %s never ends (mu = %g: sliding friction drives the "
                         "contact into the other body)",
                         isfinite(p_c) ? "restitution" : "compression", mu);
  finish(&q, b1, b2, p_c, p_T, out);
  if (out->C < -1e-12 * fabs(q.C0))
    return cpk_error_set(err, CPK_EINVAL,
                         "impact: the bodies still approach after the impact (mu = %g)", mu);
  return CPK_OK;
}
