/* t_tilted_landing.c: seed 003's tilted ellipsoid with the rigid elliptic-torsional model through its landing (issue 14): the exact contact scales of the mixed form (the step's free contact velocity) and the stepper's finishing phase (with exact_scales set or not, a stopped solve finished and counted), and bdnewton, fbnewton and ipm with friction that obeys maximum dissipation by an independent check from the bodies' momenta. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"
#include "tilted_scene.h"

#define MU 0.4      /* the scene's material: mu, e_t = e_o = 1, e_r */
#define E_R 0.04
#define MASS 1.0
#define SEMI_AXIS 0.25 /* the ellipsoid's long semi-axis */
#define G 9.81
#define STOP_STEP 1771 /* t = 0.1771: bdnewton, ipm stopped here on main 7fd5a41 */
#define STEPS 3500     /* t = 0.35: fbnewton stopped at 0.3198 there */
#define STEPS_IPM_EXACT 6000 /* t = 0.6: ipm with exact_scales = 1 stopped at 0.541 on 55f5e22 */
#define STEPS_ALL 10000      /* t = 1, the scene's duration */

/* The scene with elliptic-torsional and `solver`, set up by flags (TILTED_*). */
static cpk_world *world_with(const char *solver, int flags, cpk_scene **sc, cpk_error *err)
{
  cpk_world *w = NULL;
  if (!tilted_scene(solver, NULL, flags, sc, err)) return NULL;
  return cpk_scene_world(*sc, &w, err) ? NULL : w;
}

static cpk_world *world(const char *solver, cpk_scene **sc, cpk_error *err)
{
  return world_with(solver, 0, sc, err);
}

/* The reduced form builds A = J^T M^-1 J and b exactly, so its scales are the exact
 * ones: the contact rows' scales (p_n, p_t, p_o, p_r: V / w; sigma: V) of the mixed form
 * with exact_scales must be the same numbers. */
static void same_scales_as_reduced(const cpk_contact_system *sys, const cpk_problem *pm,
                                   const cpk_varmap *mixed)
{
  static const cpk_var_role roles[5] = {CPK_ROLE_P_N, CPK_ROLE_P_T, CPK_ROLE_P_O, CPK_ROLE_P_R,
                                        CPK_ROLE_SIGMA};
  cpk_compile_options co;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  cpk_compile_options_default(&co);
  co.form = CPK_FORM_REDUCED;
  int ok = !cpk_compile(sys, "elliptic-torsional", &co, &p, &m, &err) && p->row_scale;
  double worst = 0.0;
  for (int r = 0; ok && r < 5; r++) {
    size_t i = cpk_varmap_find(m, roles[r], 0, 0), j = cpk_varmap_find(mixed, roles[r], 0, 0);
    ok = i < p->n && j < pm->n;
    if (ok) worst = fmax(worst, fabs(p->row_scale[i] - pm->row_scale[j]) / p->row_scale[i]);
  }
  t_ok(ok && worst <= 1e-9, "exact scales of the mixed form = the reduced form's (worst %.2g relative)",
       worst);
  cpk_problem_free(p);
  cpk_varmap_free(m);
}

/* At the step where the answers failed the physical check, compiled with exact scales:
 * the sigma row's scale (the contact's V, a velocity) against the free contact velocity
 * of the step, measured at the recommended start (zero impulses), |(b_n, b_t, b_o,
 * e_r b_r)|; with the default scales (diag(M) for the thin ellipsoid's world inertia) V
 * is 1.32 for 0.0186. Then bdnewton from the step's start passes the check. */
static void scale_at_landing(void)
{
  cpk_scene *sc = NULL;
  cpk_error err;
  cpk_world *w = world("bdnewton", &sc, &err);
  int ok = w != NULL;
  for (int k = 0; ok && k < STOP_STEP; k++) ok = cpk_world_step(w, NULL, &err) == CPK_OK;
  cpk_problem *p = NULL, *p0 = NULL;
  cpk_varmap *m = NULL, *m0 = NULL;
  cpk_contact_system *sys = NULL;
  cpk_result *r = NULL;
  double *z0 = NULL, *z = NULL, U[4];
  size_t nc = 0;
  cpk_compile_options co;
  cpk_compile_options_default(&co);
  if (w) co = cpk_world_settings(w)->compile;
  co.exact_scales = 1;
  if (ok) ok = cpk_world_next_problem(w, &p0, &m0, &z0, &nc, &err) == CPK_OK && nc == 1;
  if (ok) ok = !cpk_world_contact_system(w, &sys, &err) &&
               !cpk_compile(sys, "elliptic-torsional", &co, &p, &m, &err) && p->n == p0->n;
  if (t_ok(ok, "the scene runs to t = 0.1771, the ellipsoid touches the floor (%s)",
           ok ? "" : err.message)) {
    size_t ks = cpk_varmap_find(m, CPK_ROLE_SIGMA, 0, 0);
    z = malloc(p->n * sizeof *z);
    ok = z && ks < p->n && p->row_scale && !cpk_varmap_start(m, z, &err) &&
         !cpk_varmap_contact_velocities(m, z, U, &err);
    double b = ok ? sqrt(U[0] * U[0] + U[1] * U[1] + U[2] * U[2] + E_R * E_R * U[3] * U[3]) : 0;
    t_ok(ok && fabs(p->row_scale[ks] - b) <= 1e-9 * b,
         "exact scales: V of the contact is its free velocity: %g, |b_c| = %g",
         ok ? p->row_scale[ks] : 0.0, b);
    same_scales_as_reduced(sys, p, m);
    cpk_settings s;
    cpk_physics_check ck;
    cpk_settings_default(&s);
    s.z0 = z0;
    s.tol = cpk_world_settings(w)->solve.tol;
    ok = !cpk_result_alloc(p->n, &r) && !cpk_solve(p, "bdnewton", &s, r, &err) &&
         t_is_mcp_solution(p, r->z, s.tol) && !cpk_varmap_check(m, r->z, 1e-3, &ck, &err);
    t_ok(ok && ck.ok, "bdnewton on the exactly scaled problem: passes the check (%s)",
         ok ? ck.message : err.message);
  }
  cpk_result_free(r);
  free(z);
  free(z0);
  cpk_contact_system_free(sys);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_problem_free(p0);
  cpk_varmap_free(m0);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

typedef struct worst {
  double cone, dissipation; /* relative to mu P_n */
  int sliding;              /* steps checked for dissipation */
} worst;

/* One step's contact, checked from the ellipsoid's velocities before (v0) and after the
 * step and its centre at the start x0, not from the solver's unknowns: the tangential
 * impulse is m (v+ - v0) - h m g - P_n n (linear momentum), the slip the contact point's
 * tangential velocity with v+, w+ (the explicit scheme's U = J^T v+ at the start pose),
 * the twist w+ . n. Sliding (slip above 1e-3 of the body's speed |v+| + a |w+|, a its long
 * semi-axis: not of the contact point's, which is near zero when it rolls): the friction must be
 * -mu P_n E^2 U / |E U| within 1% of mu P_n; always: inside the ellipsoid. */
static void check_contact(const cpk_sim_contact *c, const cpk_body *B, const double v0[3],
                          const double x0[3], double h, worst *wo)
{
  double s = c->body[0] == 1 ? 1.0 : -1.0, pn = c->P[0], a = MU * pn;
  if (!(pn > 0)) return;
  double F[3], u[3], r[3], wr[3];
  for (int i = 0; i < 3; i++) r[i] = c->point[i] - x0[i];
  wr[0] = B->w[1] * r[2] - B->w[2] * r[1];
  wr[1] = B->w[2] * r[0] - B->w[0] * r[2];
  wr[2] = B->w[0] * r[1] - B->w[1] * r[0];
  for (int i = 0; i < 3; i++) {
    double dp = MASS * (B->v[i] - v0[i]) - (i == 2 ? -h * MASS * G : 0.0);
    F[i] = s * dp - pn * c->normal[i];
    u[i] = s * (B->v[i] + wr[i]);
  }
  double un = dot3(u, c->normal), spin = s * dot3(B->w, c->normal), ut[3];
  for (int i = 0; i < 3; i++) ut[i] = u[i] - un * c->normal[i];
  double slip = sqrt(dot3(ut, ut) + E_R * E_R * spin * spin);
  double speed = sqrt(dot3(B->v, B->v)) + SEMI_AXIS * sqrt(dot3(B->w, B->w));
  double ell = sqrt(dot3(F, F) + c->P[3] * c->P[3] / (E_R * E_R));
  wo->cone = fmax(wo->cone, (ell - a) / a);
  if (!(slip > 1e-3 * speed)) return;
  double d = fabs(c->P[3] + a * E_R * E_R * spin / slip);
  for (int i = 0; i < 3; i++) d = fmax(d, fabs(F[i] + a * ut[i] / slip));
  wo->dissipation = fmax(wo->dissipation, d / a);
  wo->sliding++;
}

/* What a run did: steps taken, how it ended, the contact steps checked independently. */
typedef struct run_out {
  int steps, touched, ok;
  long finishes;
  int probe_finishes;    /* finishes of step `probe` (run_with) */
  double worst_residual; /* largest residual reported by a finished step */
  worst wo;
  cpk_error err;
} run_out;

/* Up to `steps` steps (fewer when one fails: o.steps counts the failed one). */
static run_out run_with(const char *solver, int flags, int steps, int probe)
{
  cpk_scene *sc = NULL;
  run_out o = {0, 0, 1, 0, 0, 0.0, {0, 0, 0}, {0, ""}};
  cpk_world *w = world_with(solver, flags, &sc, &o.err);
  o.ok = w != NULL;
  double h = o.ok ? cpk_world_settings(w)->h : 0;
  for (; o.ok && o.steps < steps; o.steps++) {
    const cpk_body *B = cpk_world_body(w, 1);
    double v0[3], x0[3];
    memcpy(v0, B->v, sizeof v0);
    memcpy(x0, B->x, sizeof x0);
    cpk_sim_step_info info;
    o.ok = cpk_world_step(w, &info, &o.err) == CPK_OK;
    if (o.ok && info.ncontacts == 1) {
      o.touched++;
      check_contact(&info.contacts[0], cpk_world_body(w, 1), v0, x0, h, &o.wo);
    }
    if (o.ok && info.finishes) o.worst_residual = fmax(o.worst_residual, info.residual);
    if (o.ok && o.steps == probe) o.probe_finishes = info.finishes;
    o.finishes += o.ok ? info.finishes : 0;
    if (o.ok && info.physics_failures) o.ok = 0;
  }
  cpk_world_free(w);
  cpk_scene_free(sc);
  return o;
}

/* The run's friction checked from the bodies' momenta (check_contact). */
static void friction_checked(const char *what, const run_out *o)
{
  t_ok(o->touched > 100 && o->wo.sliding > 10, "%s: %d steps in contact, %d of them sliding", what,
       o->touched, o->wo.sliding);
  t_ok(o->wo.cone <= 1e-3, "%s: friction inside the ellipsoid (worst %.2g of mu P_n outside)", what,
       o->wo.cone);
  t_ok(o->wo.dissipation <= 1e-2, "%s: sliding friction opposite to the slip (worst %.2g of mu P_n)",
       what, o->wo.dissipation);
}

/* A run that completes with every answer passing the check (the finishing phase replaces
 * those that do not, and reports the step's own residual for them). */
static void run(const char *solver, int flags, int steps)
{
  char what[64];
  snprintf(what, sizeof what, "%s%s%s", solver, flags & TILTED_EXACT ? ", exact_scales = 1" : "",
           flags & TILTED_FEW ? ", max_iter 5" : "");
  run_out o = run_with(solver, flags, steps, -1);
  t_ok(o.ok && o.steps == steps, "%s: %d steps to t = %g, every answer passes the physical check (%s)",
       what, o.steps, o.steps * 1e-4, o.ok ? "" : o.err.message);
  t_ok(o.worst_residual <= 1e-7, "%s: %ld answers finished, the step's residual reported for them "
       "within its tolerance (worst %.2g)", what, o.finishes, o.worst_residual);
  friction_checked(what, &o);
}

/* With an iteration limit of 5 bdnewton's solve stops short at t = 0.1763 (before any
 * answer fails the check): without the finishing phase the run stops there. The runs
 * with and without it are the same up to that step, so the finishing run's `finishes`
 * on it count the stopped solve finished (finish_stopped); that run completes, its
 * friction checked independently. */
static void stopped_solve_finished(void)
{
  run_out off = run_with("bdnewton", TILTED_FEW | TILTED_NO_FINISH, STEPS_ALL, -1);
  int k = off.steps - 1;
  t_ok(!off.ok && k > 1000 && strstr(off.err.message, "max_iterations"),
       "bdnewton, max_iter 5, physics_finish = 0: stops at step %d, its solve short of the "
       "tolerance (%s)", k, off.err.message);
  run_out on = run_with("bdnewton", TILTED_FEW, STEPS_ALL, k);
  t_ok(on.probe_finishes == 1, "the same with the finishing phase: step %d's stopped solve finished "
       "(%d)", k, on.probe_finishes);
  run("bdnewton", TILTED_FEW, STEPS_ALL);
}

int main(void)
{
  scale_at_landing();
  run("bdnewton", 0, STEPS);
  run("fbnewton", 0, STEPS);
  run("ipm", 0, STEPS);
  /* bdnewton's solve stalls at t = 0.8947 and is finished */
  run("bdnewton", 0, STEPS_ALL);
  /* the finishing phase with exact scales already set runs on the step's own problem */
  run("bdnewton", TILTED_EXACT, STEPS);
  run("ipm", TILTED_EXACT, STEPS_IPM_EXACT);
  stopped_solve_finished();
  return t_done();
}
