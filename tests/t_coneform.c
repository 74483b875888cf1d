/* t_coneform.c: the cone form of point-coulomb and elliptic-torsional: hand-known answers satisfy the compiled cone problem and wrong ones do not; the variable map agrees with the NCP form's; local (FCLIB) systems; refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "formtest.h"
#include "testlib.h"

#define H 0.01

static cpk_compile_options cone_options(void)
{
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_CONE;
  return o;
}

/* The cone point z of impulses P (4 per contact) through the map. */
static double *point_of(const cpk_varmap *m, const double *P)
{
  double *z = calloc(cpk_varmap_n(m) + 1, sizeof *z);
  if (z && cpk_varmap_point(m, P, z, NULL)) {
    free(z);
    z = NULL;
  }
  return z;
}

/* 1 when impulses P (4 per contact) solve the cone form of s with this model. */
static int solves_cone(const cpk_contact_system *s, const char *model, const double *P, double tol)
{
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  int ok = 0;
  if (cpk_compile(s, model, &o, &p, &m, NULL)) return -1;
  double *z = point_of(m, P);
  ok = z && t_is_fc_solution(p, z, tol);
  free(z);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return ok;
}

/* A particle of mass m resting on the plane: P = (m g h, 0, 0). */
/* A particle of mass m, velocity v, on the plane with friction mu and ellipsoid (e_t, e_o). */
static cpk_contact_system *particle_on_plane(double m, const double *v, double mu, double et,
                                             double eo)
{
  cpk_contact_system *s = ft_particle(m, H, v);
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = mu;
  cp.e_t = et;
  cp.e_o = eo;
  ft_plane_contact(s, &cp);
  return s;
}

static void test_resting(void)
{
  double v[3] = {0, 0, 0}, m = 2.0;
  cpk_contact_system *s = particle_on_plane(m, v, 0.5, 1.0, 1.0);
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  int rc = cpk_compile(s, "point-coulomb", &o, &p, &map, NULL);
  t_ok(rc == 0 && p->kind == CPK_KIND_FRICTION_CONE && p->cone_dim == 3 && p->nc == 1 &&
           p->n == 3 && cpk_varmap_form(map) == CPK_FORM_CONE,
       "point-coulomb cone form: a friction_cone problem of dim 3");
  if (rc) return;
  /* by hand: W = I / m, q = (-g h, 0, 0) */
  t_near(cpk_matrix_get(p->M, 0, 0), 1 / m, 1e-15, "W_nn = 1/m");
  t_near(cpk_matrix_get(p->M, 1, 1), 1 / m, 1e-15, "W_tt = 1/m");
  t_near(p->q[0], -FT_G * H, 1e-15, "q_n = -g h");
  double P[4] = {m * FT_G * H, 0, 0, 0}, wrong[4] = {0.5 * m * FT_G * H, 0, 0, 0};
  double side[4] = {m * FT_G * H, 0.1 * m * FT_G * H, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", P, 1e-12) == 1, "resting: P = (m g h, 0, 0) solves it");
  t_ok(solves_cone(s, "point-coulomb", wrong, 1e-9) == 0, "half the weight does not");
  t_ok(solves_cone(s, "point-coulomb", side, 1e-9) == 0, "a sideways friction does not");
  t_ok(strcmp(p->var_names[0], "p_n[1]") == 0 && strcmp(p->var_names[2], "p_o[1]") == 0,
       "unknowns named p_n[1], p_t[1], p_o[1]");
  cpk_problem_free(p);
  cpk_varmap_free(map);
  /* a gap: psi / h enters q_n, so a particle 1 mm above the plane falling 1 mm/step flies */
  cpk_contact_params cp = s->contacts[0];
  cp.psi = 0.002;
  cpk_contact_set_params(s, 0, &cp, NULL);
  double none[4] = {0, 0, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", none, 1e-12) == 1 &&
           solves_cone(s, "point-coulomb", P, 1e-9) == 0,
       "a 2 mm gap: no impulse (psi / h in q_n)");
  cpk_contact_system_free(s);
}

/* A block sliding along x at 1 m/s: P = (m g h, -e_t mu m g h, 0) (the ellipsoid's
 * friction along its t axis is e_t mu p_n). */
static void test_sliding(void)
{
  double v[3] = {1, 0, 0}, m = 1.0, mu = 0.5;
  cpk_contact_system *s = ft_particle(m, H, v);
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = mu;
  ft_plane_contact(s, &cp);
  double pn = m * FT_G * H;
  double P[4] = {pn, -mu * pn, 0, 0}, stick[4] = {pn, -m * 1.0, 0, 0}, half[4] = {pn, -0.5 * mu * pn, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", P, 1e-12) == 1, "sliding: P = (m g h, -mu m g h, 0)");
  t_ok(solves_cone(s, "point-coulomb", stick, 1e-9) == 0, "stopping it in one step breaks the cone");
  t_ok(solves_cone(s, "point-coulomb", half, 1e-9) == 0, "half the friction is not maximal dissipation");
  cp.e_t = 2.0;
  cp.e_o = 0.5;
  cpk_contact_set_params(s, 0, &cp, NULL);
  double Pe[4] = {pn, -2.0 * mu * pn, 0, 0};
  t_ok(solves_cone(s, "elliptic-torsional", Pe, 1e-12) == 1,
       "elliptic (e_t = 2): P = (m g h, -e_t mu m g h, 0) solves the scaled cone");
  t_ok(solves_cone(s, "elliptic-torsional", P, 1e-9) == 0,
       "the isotropic answer does not solve the elliptic one");
  t_ok(solves_cone(s, "point-coulomb", P, 1e-12) == 1, "point-coulomb ignores the ellipsoid");
  /* sliding at 45 degrees on the ellipse: friction -E^2 mu p_n U / |E U| (seed 003 eq. (5)) */
  /* (the slip is the end-of-step one: start at v = U+ - P_T / m so that U+ = (1, 1)) */
  double eu = hypot(2.0, 0.5); /* |E U+| for U+ = (1, 1), E = diag(2, .5) */
  double P2[4] = {pn, -4.0 * mu * pn / eu, -0.25 * mu * pn / eu, 0};
  double v2[3] = {1 - P2[1] / m, 1 - P2[2] / m, 0};
  cpk_contact_system *s2 = ft_particle(m, H, v2);
  ft_plane_contact(s2, &cp);
  t_ok(solves_cone(s2, "elliptic-torsional", P2, 1e-12) == 1,
       "elliptic, sliding diagonally: the friction of the ellipsoid's maximal dissipation");
  cpk_contact_system_free(s2);
  cpk_contact_system_free(s);
}

/* Seed 000's sphere spinning at 5 rad/s about the normal: the friction moment is
 * -e_r mu p_n and nothing else acts (dim 4). */
static void test_spinning(void)
{
  double v[6] = {0, 0, 0, 0, 0, 5};
  cpk_contact_system *s = ft_sphere(H, v);
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  int rc = cpk_compile(s, "elliptic-torsional", &o, &p, &m, NULL);
  t_ok(rc == 0 && p->cone_dim == 4 && p->n == 4, "elliptic-torsional with torsion: dim 4");
  double pn = FT_G * H, P[4] = {pn, 0, 0, -0.4 * 0.2 * pn}, none[4] = {pn, 0, 0, 0};
  t_ok(solves_cone(s, "elliptic-torsional", P, 1e-12) == 1, "spinning: moment -e_r mu p_n");
  t_ok(solves_cone(s, "elliptic-torsional", none, 1e-9) == 0, "no moment is wrong");
  t_ok(solves_cone(s, "point-coulomb", none, 1e-12) == 1, "point-coulomb has no moment (dim 3)");
  if (!rc) {
    double *z = point_of(m, P), Q[4], v1[6];
    t_ok(z && fabs(z[3] + 0.2 * pn) < 1e-15, "the unknown is the scaled moment r_r = p_r / e_r");
    cpk_varmap_impulses(m, z, Q);
    t_near(Q[3], P[3], 1e-15, "cpk_varmap_impulses gives the moment back");
    cpk_varmap_velocity(m, z, v1, NULL);
    t_near(v1[5], 5 + P[3] / 0.4, 1e-12, "and cpk_varmap_velocity the new spin");
    free(z);
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* Solve the NCP form, map its impulses into the cone form: it must solve it, and the map
 * must give the same impulses, contact velocities, velocity and modes from both. */
static void compare_forms(const cpk_contact_system *s, const char *model, const char *what)
{
  static const char *const solvers[] = {"bdnewton", "fbnewton", "ipm"};
  cpk_compile_options o = cone_options();
  cpk_problem *pn = NULL, *pc = NULL;
  cpk_varmap *mn = NULL, *mc = NULL;
  int rc = cpk_compile(s, model, NULL, &pn, &mn, NULL) || cpk_compile(s, model, &o, &pc, &mc, NULL);
  cpk_result *r = NULL;
  for (size_t k = 0; !rc && k < 3 && (!r || r->status != CPK_STATUS_SOLVED); k++) {
    cpk_result_free(r);
    r = ft_solve(pn, solvers[k], 1e-11);
  }
  if (!r || r->status != CPK_STATUS_SOLVED || !t_is_mcp_solution(pn, r->z, 1e-8)) {
    t_diag("%s: the NCP form was not solved; comparison skipped", what);
    t_ok(rc == 0, "%s: both forms compile", what);
  } else {
    size_t nc = s->nc, nv = cpk_varmap_nv(mn);
    double *P = calloc(4 * nc, sizeof *P), *Pc = calloc(4 * nc, sizeof *Pc);
    double *U = calloc(4 * nc, sizeof *U), *Uc = calloc(4 * nc, sizeof *Uc);
    double *v = calloc(nv + 1, sizeof *v), *vc = calloc(nv + 1, sizeof *vc), dP = 0, dU = 0, dv = 0;
    int *mo = calloc(nc, sizeof *mo), *moc = calloc(nc, sizeof *moc), same = 1;
    cpk_varmap_impulses(mn, r->z, P);
    double *z = point_of(mc, P);
    double *u = calloc(pc->n, sizeof *u), res = INFINITY;
    if (z) cpk_problem_residual(pc, z, u, &res);
    /* the NCP's cone row is squared: a residual e there lets |p_T| be off by sqrt(e)
     * (3e-6 at e = 1e-11) where p_n is near 0, so the cone residual is judged at 1e-5 */
    t_ok(z && res < 1e-5 && t_is_fc_solution(pc, z, 1e-5),
         "%s: the NCP's impulses solve the cone form (residual %.2g)", what, res);
    cpk_varmap_impulses(mc, z, Pc);
    cpk_varmap_contact_velocities(mn, r->z, U, NULL);
    cpk_varmap_contact_velocities(mc, z, Uc, NULL);
    cpk_varmap_modes(mn, r->z, 1e-6, mo, NULL);
    cpk_varmap_modes(mc, z, 1e-6, moc, NULL);
    for (size_t k = 0; k < 4 * nc; k++) {
      dP = fmax(dP, fabs(P[k] - Pc[k]));
      dU = fmax(dU, fabs(U[k] - Uc[k]));
    }
    for (size_t c = 0; c < nc; c++) same &= mo[c] == moc[c];
    if (nv) {
      cpk_varmap_velocity(mn, r->z, v, NULL);
      cpk_varmap_velocity(mc, z, vc, NULL);
    }
    for (size_t j = 0; j < nv; j++) dv = fmax(dv, fabs(v[j] - vc[j]));
    t_ok(dP < 1e-13 && dU < 1e-9 && dv < 1e-9 && same,
         "%s: same impulses (%.1g), contact velocities (%.1g), velocity (%.1g), modes", what, dP,
         dU, dv);
    free(P), free(Pc), free(U), free(Uc), free(v), free(vc), free(mo), free(moc), free(z), free(u);
  }
  cpk_result_free(r);
  cpk_problem_free(pn);
  cpk_problem_free(pc);
  cpk_varmap_free(mn);
  cpk_varmap_free(mc);
}

static void test_against_ncp(void)
{
  double v[6] = {0.3, -0.2, -0.1, 0.5, -0.4, 2.0};
  cpk_contact_system *s = ft_sphere(H, v);
  compare_forms(s, "elliptic-torsional", "sphere, elliptic-torsional");
  compare_forms(s, "point-coulomb", "sphere, point-coulomb");
  cpk_contact_system_free(s);
  for (unsigned long seed = 1; seed <= 8; seed++) {
    char what[64];
    cpk_contact_system *R = ft_random_bodies(2, 3, H, seed, 0);
    snprintf(what, sizeof what, "random bodies %lu, elliptic-torsional", seed);
    if (R) compare_forms(R, "elliptic-torsional", what);
    snprintf(what, sizeof what, "random bodies %lu, point-coulomb", seed);
    if (R) compare_forms(R, "point-coulomb", what);
    cpk_contact_system_free(R);
  }
}

/* Two contacts at the sphere's one point, one with torsion and one without (e_r = 0):
 * dim 4; any split of the weight solves it, with the moment on the first contact only,
 * and a twist unknown on the second contact must not. */
static void test_decoupled_twist(void)
{
  double v[6] = {0, 0, 0, 0, 0, 5}, W[4][6];
  const double r[3] = {0, 0, -1}, n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  const cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
  cpk_contact_system *s = ft_sphere(H, v);
  cpk_contact_params cp = s->contacts[0];
  cp.e_r = 0.0;
  cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]);
  cpk_contact_system_add_contact(s, &cp, 6, rows, W[0], W[1], W[2], W[3], NULL);
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  int rc = cpk_compile(s, "elliptic-torsional", &o, &p, &m, NULL);
  t_ok(rc == 0 && p->cone_dim == 4 && p->nc == 2, "one contact with torsion: dim 4 for both");
  if (!rc) {
    double pn = FT_G * H, a = 0.3 * pn;
    double P[8] = {pn - a, 0, 0, -0.4 * 0.2 * (pn - a), a, 0, 0, 0};
    double *z = point_of(m, P);
    t_ok(cpk_matrix_get(p->M, 7, 7) > 0 && p->q[7] == 0, "the unused twist row is u'_r = k r_r");
    t_ok(z && t_is_fc_solution(p, z, 1e-12), "a split of the weight with the moment on contact 1");
    if (z) z[7] = 0.5 * 0.2 * a; /* inside contact 2's cone, but a twist it does not have */
    t_ok(z && !t_is_fc_solution(p, z, 1e-9), "r_r != 0 on a contact without torsion is refused");
    free(z);
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* h = 0: a particle sliding at the start has its friction on p_n; the cone is mu = 0. */
static void test_force_level(void)
{
  double v[3] = {1, 0, 0}, m = 3.0, mu = 0.4;
  cpk_contact_system *s = ft_particle(m, 0.0, v);
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = mu;
  ft_plane_contact(s, &cp);
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  int rc = cpk_compile(s, "point-coulomb", &o, &p, &map, NULL);
  t_ok(rc == 0 && p->mu[0] == 0 && fabs(cpk_matrix_get(p->M, 1, 0) + mu / m) < 1e-15,
       "h = 0, sliding: cone mu = 0, friction -mu p_n in W's normal column");
  double P[4] = {m * FT_G, -mu * m * FT_G, 0, 0}, wrong[4] = {m * FT_G, 0, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", P, 1e-12) == 1, "h = 0: force (m g, -mu m g, 0)");
  double *z = point_of(map, wrong), Q[4] = {0, 0, 0, 0};
  if (z) cpk_varmap_impulses(map, z, Q);
  t_ok(z && z[1] == 0 && fabs(Q[1] + mu * m * FT_G) < 1e-12, "h = 0: the friction follows r_n (r_T = 0)");
  free(z);
  double half[4] = {0.5 * m * FT_G, -0.5 * mu * m * FT_G, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", half, 1e-9) == 0, "h = 0: half the weight is wrong");
  compare_forms(s, "point-coulomb", "h = 0, sliding");
  cpk_problem_free(p);
  cpk_varmap_free(map);
  cpk_contact_system_free(s);
  double rest[3] = {0, 0, 0};
  s = ft_particle(m, 0.0, rest);
  ft_plane_contact(s, &cp);
  s->k[0] = 0.5 * mu * m * FT_G; /* pushed below mu m g (k is the system's own copy): it stays */
  double Pr[4] = {m * FT_G, -0.5 * mu * m * FT_G, 0, 0};
  t_ok(solves_cone(s, "point-coulomb", Pr, 1e-12) == 1, "h = 0, rolling, pushed: friction balances");
  cpk_contact_system_free(s);
}

/* A local-form (FCLIB) system compiles into exactly the file's W, q and mu. */
static void test_local(void)
{
  cpk_contact_system *s = NULL;
  cpk_problem *ref = t_fclib_problem("data/fclib/Rover1040.hdf5"), *p = NULL;
  cpk_varmap *m = NULL;
  cpk_compile_options o = cone_options();
  if (!ref || cpk_contact_system_read_fclib(t_srcpath("data/fclib/Rover1040.hdf5"), &s, NULL)) {
    t_ok(1, "# SKIP no HDF5");
    cpk_problem_free(ref);
    return;
  }
  int rc = cpk_compile(s, "point-coulomb", &o, &p, &m, NULL);
  double dW = 0, dq = 0, dmu = 0;
  for (size_t i = 0; !rc && i < p->n; i++) {
    for (size_t j = 0; j < p->n; j++)
      dW = fmax(dW, fabs(cpk_matrix_get(p->M, i, j) - cpk_matrix_get(ref->M, i, j)));
    dq = fmax(dq, fabs(p->q[i] - ref->q[i]));
  }
  for (size_t c = 0; !rc && c < p->nc; c++) dmu = fmax(dmu, fabs(p->mu[c] - ref->mu[c]));
  t_ok(rc == 0 && p->n == ref->n && dW == 0 && dq == 0 && dmu == 0,
       "FCLIB Rover1040 (local form): the cone form is the file's problem (|dW| %g, |dq| %g)", dW,
       dq);
  o.form = CPK_FORM_MIXED;
  cpk_problem *pm = NULL;
  cpk_varmap *mm = NULL;
  t_ok(cpk_compile(s, "point-coulomb", &o, &pm, &mm, NULL) == CPK_EINVAL, "mixed: refused");
  cpk_problem_free(ref);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

static void test_refused(void)
{
  double v[3] = {0, 0, 0};
  cpk_contact_system *s = ft_particle(1, H, v);
  ft_plane_contact(s, NULL);
  cpk_compile_options o = cone_options();
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  const char *models[] = {"polyhedral", "kelvin-voigt", "distributed"};
  for (size_t k = 0; k < 3; k++) {
    int rc = cpk_compile(s, models[k], &o, &p, &m, &err);
    t_ok(rc == CPK_EINVAL && p == NULL && strstr(err.message, "cone form"),
         "%s: cone form refused (%s)", models[k], rc ? err.message : "accepted");
  }
  t_ok(cpk_compile(s, "point-coulomb", &o, &p, &m, NULL) == 0 && p->mu[0] == 0,
       "mu = 0: a cone of mu 0");
  if (p) { /* separating with mu = 0: r = 0 solves it (the projection once kept -u there) */
    double r[3] = {0, 0, 0}, u[3] = {5, 0, 0}, e[3];
    t_ok(cpk_cone_natural_map(3, 0.0, r, u, e) == 0.0, "mu = 0, separating: natural map 0");
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* The cone form's start point takes the impulses alone (no motion computed): the
 * impulses read back from it are the ones given, in both models. */
static void test_point_roundtrip(void)
{
  double v[3] = {1, 0.5, 0};
  cpk_contact_system *s = particle_on_plane(1.0, v, 0.5, 2.0, 0.5);
  const char *models[2] = {"point-coulomb", "elliptic-torsional"};
  for (int k = 0; k < 2; k++) {
    cpk_compile_options o = cone_options();
    cpk_problem *p = NULL;
    cpk_varmap *map = NULL;
    double P[4] = {0.3, -0.1, 0.05, 0}, Q[4] = {-1, -1, -1, -1}, worst = INFINITY;
    double *z = cpk_compile(s, models[k], &o, &p, &map, NULL) ? NULL : point_of(map, P);
    if (z && !cpk_varmap_impulses(map, z, Q)) {
      worst = 0;
      for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(Q[a] - P[a]));
    }
    t_ok(worst <= 1e-15, "%s cone form: the start point's impulses are the given ones (%.1e)",
         models[k], worst);
    free(z);
    cpk_problem_free(p);
    cpk_varmap_free(map);
  }
  cpk_contact_system_free(s);
}

int main(void)
{
  test_point_roundtrip();
  test_resting();
  test_sliding();
  test_spinning();
  test_against_ncp();
  test_decoupled_twist();
  test_force_level();
  test_local();
  test_refused();
  return t_done();
}
