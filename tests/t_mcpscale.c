/* t_mcpscale.c: the scaled NCP rows of the nonlinear contact models: the same scene at mass x1000 and x1/1000 solves alike, and a box pushed above mu m g gets physical impulses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "formtest.h"
#include "testlib.h"

/* One rigid body (6 velocities: linear, angular; diagonal mass diag(m, m, m, I)),
 * gravity along -z plus a horizontal push f along x through the centre of mass. */
static cpk_contact_system *body(double m, const double I[3], const double v[6], double f,
                                double h)
{
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  double k[6] = {f, 0, -m * FT_G, 0, 0, 0};
  if (cpk_csc_alloc(6, 6, 6, &M)) return NULL;
  for (cpk_int j = 0; j < 6; j++) {
    M->p[j + 1] = j + 1;
    M->i[j] = j;
    M->x[j] = j < 3 ? m : I[j - 3];
  }
  cpk_contact_system_alloc_body(6, M, v, k, h, &s, NULL);
  cpk_csc_free(M);
  return s;
}

/* A contact with the floor z = 0 at r from the centre of mass. */
static int floor_contact(cpk_contact_system *s, const double r[3], double mu, double psi)
{
  static const cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
  static const double n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  double wn[6], wt[6], wo[6], wr[6];
  cpk_contact_params p;
  cpk_contact_params_default(&p);
  p.mu = mu;
  p.psi = psi;
  p.e_r = 0.01;
  if (cpk_rigid_contact_wrenches(r, n, t, wn, wt, wo, wr)) return -1;
  return cpk_contact_system_add_contact(s, &p, 6, rows, wn, wt, wo, wr, NULL);
}

/* Table-tennis ball (2.7 g, r = 2 cm, thin shell I = 2/3 m r^2) times `scale` in
 * mass, sliding at 1 m/s with backspin, resting on the floor: h = 1 ms. */
static cpk_contact_system *ball(double scale)
{
  const double m = 2.7e-3 * scale, R = 0.02, I = 2.0 / 3.0 * m * R * R;
  const double Iv[3] = {I, I, I}, v[6] = {1, 0, 0, 0, -60, 0}, r[3] = {0, 0, -R};
  cpk_contact_system *s = body(m, Iv, v, 0.0, 1e-3);
  if (s && floor_contact(s, r, 0.3, 0.0)) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

/* Box 2a x 0.2 x 2c m of mass m on its four bottom corners, pushed along x by
 * push * mu m g (through the centre of mass), at rest: h = 10 ms. */
static cpk_contact_system *box(double m, double push, double a, double c)
{
  const double b = 0.1, mu = 0.4, v[6] = {0};
  const double I[3] = {m * (4 * b * b + 4 * c * c) / 12, m * (4 * a * a + 4 * c * c) / 12,
                       m * (4 * a * a + 4 * b * b) / 12};
  cpk_contact_system *s = body(m, I, v, push * mu * m * FT_G, 0.01);
  for (int k = 0; s && k < 4; k++) {
    double r[3] = {k & 1 ? a : -a, k & 2 ? b : -b, -c};
    if (floor_contact(s, r, mu, 0.0)) {
      cpk_contact_system_free(s);
      return NULL;
    }
  }
  return s;
}

typedef struct outcome {
  int solved;
  long iterations;
  double v[6];
  double *P; /* 4 per contact */
  double *U;
} outcome;

static void outcome_free(outcome *o)
{
  free(o->P);
  free(o->U);
}

/* Solve from the free motion (zero impulses, cpk_varmap_point), the start of a
 * cold time step (the stepper's and the bench's). */
static cpk_result *solve_from_free_motion(const cpk_problem *p, const cpk_varmap *m,
                                          const char *solver, double tol)
{
  double P[4 * 4] = {0}, *z0 = calloc(p->n, sizeof *z0);
  cpk_result *r = NULL;
  cpk_settings st;
  cpk_error err;
  cpk_settings_default(&st);
  st.tol = tol;
  st.z0 = z0;
  if (!z0 || cpk_varmap_ncontacts(m) > 4 || cpk_varmap_point(m, P, z0, &err) ||
      cpk_result_alloc(p->n, &r) || cpk_solve(p, solver, &st, r, &err)) {
    cpk_result_free(r);
    r = NULL;
  }
  free(z0);
  return r;
}

static int solve(const cpk_contact_system *s, const char *model, const char *solver, double tol,
                 outcome *o)
{
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  memset(o, 0, sizeof *o);
  if (cpk_compile(s, model, NULL, &p, &m, &err)) {
    t_diag("compile %s: %s", model, err.message);
    return 0;
  }
  cpk_result *r = solve_from_free_motion(p, m, solver, tol);
  size_t nc = cpk_varmap_ncontacts(m);
  o->P = calloc(4 * nc, sizeof *o->P);
  o->U = calloc(4 * nc, sizeof *o->U);
  if (r && o->P && o->U) {
    o->solved = r->status == CPK_STATUS_SOLVED;
    o->iterations = r->iterations;
    if (!o->solved)
      t_diag("%s by %s: %s after %ld iterations, residual %.2e: %s", model, solver,
             cpk_status_name(r->status), r->iterations, r->residual, r->message);
    cpk_varmap_impulses(m, r->z, o->P);
    cpk_varmap_contact_velocities(m, r->z, o->U, NULL);
    cpk_varmap_velocity(m, r->z, o->v, NULL);
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return o->solved;
}

/* F at z, or NULL. */
static double *eval(const cpk_problem *p, const double *z)
{
  double *f = calloc(p->n, sizeof *f);
  if (f && cpk_problem_eval(p, z, f)) {
    free(f);
    f = NULL;
  }
  return f;
}

/* (i-a) The rows are covariant under a change of mass unit: with masses times s, the
 * point z_s (impulses times s, velocities and sigma unchanged) gives F_s(z_s) = D F(z)
 * with D = s on the rows paired with impulses and velocities (impulse units) and 1 on
 * the sigma rows (velocity units): every complementarity pair scales as one, so the
 * natural-map and Fischer-Burmeister residuals of a pair see one unit. */
static void test_covariance(const char *model, double s)
{
  cpk_problem *p = NULL, *ps = NULL;
  cpk_varmap *m = NULL, *ms = NULL;
  cpk_contact_system *a = ball(1000.0), *b = ball(1000.0 * s);
  int ok = a && b && !cpk_compile(a, model, NULL, &p, &m, NULL) &&
           !cpk_compile(b, model, NULL, &ps, &ms, NULL) && p->n == ps->n;
  double worst = ok ? 0.0 : INFINITY, *z = ok ? calloc(2 * p->n, sizeof *z) : NULL;
  /* a point off the solution: the free motion with some normal and friction impulse */
  double P[4] = {0.02, -0.003, 0.001, 0.0};
  ok = ok && z && !cpk_varmap_point(m, P, z, NULL);
  for (size_t i = 0; ok && i < p->n; i++) {
    const cpk_var_info *v = cpk_varmap_var(m, i);
    int impulse = v->role != CPK_ROLE_V && v->role != CPK_ROLE_SIGMA;
    z[p->n + i] = impulse ? s * z[i] : z[i];
  }
  double *f = ok ? eval(p, z) : NULL, *fs = ok ? eval(ps, z + p->n) : NULL;
  for (size_t i = 0; f && fs && i < p->n; i++) {
    double d = cpk_varmap_var(m, i)->role == CPK_ROLE_SIGMA ? 1.0 : s;
    worst = fmax(worst, fabs(fs[i] - d * f[i]) / fmax(1e-300, fabs(d) * fmax(1e-3, fabs(f[i]))));
  }
  t_ok(f && fs && worst < 1e-10, "%s: mass x%g: F_s(z_s) = D F(z) (rel. %.1e)", model, s, worst);
  /* the row scales the Newton merits divide by scale as the rows do: D */
  double rworst = ok && p->row_scale && ps->row_scale ? 0.0 : INFINITY;
  for (size_t i = 0; isfinite(rworst) && i < p->n; i++) {
    double d = cpk_varmap_var(m, i)->role == CPK_ROLE_SIGMA ? 1.0 : s;
    rworst = fmax(rworst, fabs(ps->row_scale[i] / (d * p->row_scale[i]) - 1.0));
  }
  t_ok(rworst < 1e-10, "%s: mass x%g: row scales times D (rel. %.1e)", model, s, rworst);
  /* the recommended start is the free motion: zero impulses, cpk_varmap_point of P = 0 */
  double P0[4] = {0}, *za = ok ? calloc(2 * p->n, sizeof *za) : NULL;
  int same = za && !cpk_varmap_start(m, za, NULL) && !cpk_varmap_point(m, P0, za + p->n, NULL);
  for (size_t i = 0; same && i < p->n; i++) same = za[i] == za[p->n + i];
  t_ok(same, "%s: cpk_varmap_start is the point of zero impulses", model);
  cpk_problem *pc = NULL;
  int copied = ok && !cpk_problem_copy(p, &pc) && pc->row_scale && pc->row_scale != p->row_scale &&
               !memcmp(pc->row_scale, p->row_scale, p->n * sizeof *p->row_scale);
  double keep = ok ? p->row_scale[0] : 0.0;
  if (ok) p->row_scale[0] = 0.0; /* a copy of the scales with a bad value is refused */
  copied = copied && cpk_problem_set_row_scale(pc, p->row_scale) == CPK_EINVAL &&
           pc->row_scale[0] == keep && !cpk_problem_set_row_scale(pc, NULL) && !pc->row_scale;
  if (ok) p->row_scale[0] = keep;
  t_ok(copied, "%s: row scales copied with the problem, bad ones refused", model);
  cpk_problem_free(pc);
  free(za);
  free(f);
  free(fs);
  free(z);
  cpk_problem_free(p);
  cpk_problem_free(ps);
  cpk_varmap_free(m);
  cpk_varmap_free(ms);
  cpk_contact_system_free(a);
  cpk_contact_system_free(b);
}

/* (i-b) Units: a 2.7 kg ball and the same at mass x1000 and x1/1000 (the 2.7 g
 * table-tennis ball of issue 14): the impulses scale, the velocities do not, and a
 * Newton method takes the same number of iterations within a few. The x1/1000 ball
 * stalled in both methods (500 iterations) until their merits divided each row by its
 * size (the problem's row_scale, newton_set_row_weights). */
static void test_units(const char *model, const char *solver)
{
  static const double scales[2] = {1e3, 1e-3};
  outcome ref;
  cpk_contact_system *s = ball(1000.0);
  int ok = s && solve(s, model, solver, 1e-8, &ref);
  cpk_contact_system_free(s);
  t_ok(ok, "%s, %s: the 2.7 kg ball solved (%ld iterations)", model, solver, ref.iterations);
  for (int k = 0; ok && k < 2; k++) {
    outcome o;
    s = ball(1000.0 * scales[k]);
    /* the residual's tolerance is absolute: the lighter ball's impulse rows get a
       proportionally smaller one, for the same relative accuracy */
    int solved = s && solve(s, model, solver, 1e-8 * fmin(1.0, scales[k]), &o);
    cpk_contact_system_free(s);
    double dv = 0.0, dp = 0.0;
    for (int j = 0; solved && j < 6; j++) dv = fmax(dv, fabs(o.v[j] - ref.v[j]));
    for (int a = 0; solved && a < 4; a++)
      dp = fmax(dp, fabs(o.P[a] / scales[k] - ref.P[a]) / fmax(1e-12, fabs(ref.P[0])));
    t_ok(solved && labs(o.iterations - ref.iterations) <= 3,
         "%s, %s: mass x%g solved in %ld iterations (x1: %ld)", model, solver, scales[k],
         o.iterations, ref.iterations);
    t_ok(solved && dv < 1e-7, "%s, %s: mass x%g: the same velocities (%.1e)", model, solver,
         scales[k], dv);
    t_ok(solved && dp < 1e-6, "%s, %s: mass x%g: impulses scaled by the mass (rel. %.1e)", model,
         solver, scales[k], dp);
    outcome_free(&o);
  }
  outcome_free(&ref);
}

/* Coulomb's law at contact c with physical tolerances: |P_T| <= mu P_n + ptol, no friction
 * without normal impulse, and on a slipping contact the friction opposes the slip at full
 * strength. Returns the violation, in impulse units. */
static double coulomb_violation(const outcome *o, size_t c, double mu, double vtol)
{
  const double *P = o->P + 4 * c, *U = o->U + 4 * c;
  double pt = hypot(P[1], P[2]), slip = hypot(U[1], U[2]);
  double worst = fmax(pt - mu * P[0], -P[0]);
  if (slip > vtol) {
    worst = fmax(worst, fabs(P[1] + mu * P[0] * U[1] / slip));
    worst = fmax(worst, fabs(P[2] + mu * P[0] * U[2] / slip));
  }
  return worst;
}

/* The friction impulse the residual tolerance tol lets through at contact c: 1e-6 of
 * m g h (pscale) in general, and at an unloaded contact separating at g = U_n > 0 what
 * the scaled slip rows allow (doc/formulations.md, "Scaled rows"): their residual
 * |mu |P_n| s_k + y_k (sigma + phi)| / V <= tol with |P_n| <= tol (its row g / w is
 * positive), sigma >= -tol and y_k = P_k (e = 1) gives |P_k| <= tol (V + mu |s|) /
 * (phi - tol), phi = g^2 / (V + g): weak for a slowly separating contact, and sqrt(2)
 * times that for |P_T|, plus mu tol for the Coulomb test. V is the contact's free
 * velocity, the same at every corner of the pushed box. */
static double friction_allowance(const outcome *o, size_t c, double tol, double V, double mu,
                                 double pscale)
{
  const double *P = o->P + 4 * c, *U = o->U + 4 * c;
  double g = U[0], phi = g > 0.0 ? g * g / (V + g) : 0.0, slip = hypot(U[1], U[2]);
  if (P[0] > 1e-9 * pscale || !(phi > 2.0 * tol)) return 1e-6 * pscale;
  return fmax(1e-6 * pscale, sqrt(2.0) * tol * (V + mu * slip) / (phi - tol) + mu * tol);
}

/* (ii) The box pushed at 1.5 mu m g slides along x: no sideways or yaw velocity, no
 * friction on a corner without normal impulse, Coulomb at every corner. A flat box
 * (0.4 x 0.2 x 0.1 m) keeps its four corners loaded and slides at v_x = 0.5 mu g h; a
 * tall one (0.2 x 0.2 x 0.6 m: the push's moment 0.6 m g * 0.3 exceeds m g * 0.1)
 * tips onto its front edge, so its rear corners carry nothing; fbnewton may stall on it,
 * and the test asks only that a claimed solution be physical, within what the residual
 * tolerance allows (friction_allowance). */
static void test_pushed_box(const char *model, const char *solver, double m, int tall)
{
  const double mu = 0.4, pscale = m * FT_G * 0.01; /* the weight's impulse over the step */
  const double tol = 1e-8 * fmin(1.0, m), V = FT_G * 0.01 * hypot(1.0, 1.5 * mu);
  outcome o;
  cpk_contact_system *s = tall ? box(m, 1.5, 0.1, 0.3) : box(m, 1.5, 0.2, 0.05);
  int solved = s && solve(s, model, solver, tol, &o);
  cpk_contact_system_free(s);
  const char *what = tall ? "tall box" : "box";
  if (tall && !solved) { /* a stall is no false answer; what is tested is "solved" */
    t_ok(1, "%s %g kg, %s: %s does not claim a solution", what, m, model, solver);
    outcome_free(&o);
    return;
  }
  t_ok(solved, "%s %g kg pushed at 1.5 mu m g, %s: %s solves", what, m, model, solver);
  if (!solved) {
    outcome_free(&o);
    return;
  }
  double worst = 0.0, unloaded = 0.0, ptotal = 0.0, vmax = 0.0, umax = 0.0; /* of the allowance */
  int nunloaded = 0;
  for (size_t c = 0; c < 4; c++) {
    const double *P = o.P + 4 * c;
    double allow = friction_allowance(&o, c, tol, V, mu, pscale);
    double v = coulomb_violation(&o, c, mu, 1e-6);
    worst = fmax(worst, v / allow);
    vmax = fmax(vmax, v);
    ptotal += P[0];
    if (P[0] > 1e-9 * pscale) continue;
    nunloaded++;
    unloaded = fmax(unloaded, hypot(P[1], P[2]) / allow);
    umax = fmax(umax, hypot(P[1], P[2]));
  }
  t_ok(worst <= 1.0,
       "%s %g kg, %s, %s: Coulomb at every corner (%.1e of m g h, %.2f of the allowance)", what, m,
       model, solver, vmax / pscale, worst);
  t_ok(unloaded <= 1.0,
       "%s %g kg, %s, %s: no friction without normal impulse (%.1e of m g h, %.2f of the "
       "allowance, %d corners)", what, m, model, solver, umax / pscale, unloaded, nunloaded);
  t_ok(fabs(o.v[1]) < 1e-7 && fabs(o.v[5]) < 1e-7,
       "%s %g kg, %s, %s: no sideways (%.1e) or yaw (%.1e) velocity", what, m, model, solver,
       o.v[1], o.v[5]);
  if (tall) {
    t_ok(nunloaded == 2, "%s %g kg, %s, %s: tips, 2 unloaded corners (%d)", what, m, model,
         solver, nunloaded);
  } else { /* four corners loaded, no vertical motion: v_x+ = h g (1.5 mu - mu) */
    t_near(ptotal / pscale, 1.0, 1e-6, "%s %g kg, %s, %s: the corners carry the weight", what, m,
           model, solver);
    t_near(o.v[0], 0.5 * mu * FT_G * 0.01, 1e-7, "%s %g kg, %s, %s: v_x = 0.5 mu g h", what, m,
           model, solver);
  }
  outcome_free(&o);
}

int main(void)
{
  static const char *const models[2] = {"point-coulomb", "elliptic-torsional"};
  static const char *const solvers[2] = {"bdnewton", "fbnewton"};
  for (int i = 0; i < 2; i++) {
    test_covariance(models[i], 1e3);
    test_covariance(models[i], 1e-3);
    for (int j = 0; j < 2; j++) test_units(models[i], solvers[j]);
  }
  for (int i = 0; i < 2; i++) {
    for (int tall = 0; tall < 2; tall++) {
      test_pushed_box(models[i], "fbnewton", 1.0, tall);
      test_pushed_box(models[i], "fbnewton", 1e-3, tall);
    }
  }
  return t_done();
}
