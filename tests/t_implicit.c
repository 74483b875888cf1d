/* t_implicit.c: the geometrically implicit Kelvin-Voigt model on hand-derived cases: a sphere at rest on a compliant plane (m g / k), a sphere reaching the rigid core, the lowest point of a tilted ellipsoid, Jacobians by finite differences, Newton solves checked independently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "formtest.h"

#define G FT_G

static cpk_contact_params kv_params(double kn, double kt, double cn, double dmax, double mu,
                                    double e_r)
{
  cpk_contact_params p;
  cpk_contact_params_default(&p);
  p.compliant = 1;
  p.K[0] = kn, p.K[4] = p.K[8] = kt;
  p.C[0] = cn, p.C[4] = p.C[8] = cn;
  p.delta_max = dmax;
  p.mu = mu;
  p.e_r = e_r;
  return p;
}

/* One body above the compliant world plane z <= 0 (side 2). */
static cpk_implicit_system *on_plane(const cpk_implicit_surface *surf, double mass,
                                     const double pos[3], const double quat[4],
                                     const double vel[6], double h, const cpk_contact_params *cp)
{
  static const double up[3] = {0, 0, 1};
  cpk_implicit_system *s = NULL;
  cpk_implicit_surface plane;
  cpk_implicit_body b;
  cpk_error err;
  size_t k;
  cpk_implicit_body_default(&b);
  b.mass = mass;
  for (int a = 0; a < 3; a++) b.inertia[4 * a] = 0.4 * mass * 0.25;
  memcpy(b.position, pos, sizeof b.position);
  if (quat) memcpy(b.quat, quat, sizeof b.quat);
  if (vel) memcpy(b.velocity, vel, sizeof b.velocity);
  b.force[2] = -mass * G;
  if (cpk_implicit_system_alloc(h, &s, &err) || cpk_implicit_plane(up, 0.0, &plane) ||
      cpk_implicit_system_add_body(s, &b, &k, &err) ||
      cpk_implicit_system_add_pair(s, k, surf, CPK_IMPLICIT_WORLD, &plane, cp, NULL, NULL, &err)) {
    t_diag("building the system: %s", err.message);
    cpk_implicit_system_free(s);
    return NULL;
  }
  return s;
}

static cpk_problem *compile(const cpk_implicit_system *s, cpk_implicit_map **map)
{
  cpk_problem *p = NULL;
  cpk_error err;
  cpk_error_clear(&err);
  if (!s || cpk_compile_implicit_kelvin_voigt(s, NULL, &p, map, &err)) {
    t_diag("compile: %s", err.message);
    return NULL;
  }
  return p;
}

/* Solve from z0 to natural residual tol; NULL when not solved. */
static cpk_result *solve_from(const cpk_problem *p, const char *solver, const double *z0, double tol)
{
  cpk_result *r = NULL;
  cpk_settings st;
  cpk_error err;
  cpk_settings_default(&st);
  st.tol = tol;
  st.z0 = z0;
  if (!cpk_solver_find(solver) || cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, solver, &st, r, &err) || r->status != CPK_STATUS_SOLVED) {
    t_diag("%s: %s (residual %.2e) %s", solver, cpk_status_name(r->status), r->residual,
           r->message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static double inf_norm(const double *f, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(f[i]));
  return m;
}

/* Friction inside the ellipsoid, p_n >= 0, and a1 - a2 along the normal. */
static int physical(const cpk_implicit_map *m, const double *z, const cpk_contact_params *cp,
                    double tol)
{
  cpk_implicit_contact c;
  if (cpk_implicit_map_contact(m, z, 0, &c)) return 0;
  double f = c.P[1] * c.P[1] / (cp->e_t * cp->e_t) + c.P[2] * c.P[2] / (cp->e_o * cp->e_o);
  if (cp->e_r > 0) f += c.P[3] * c.P[3] / (cp->e_r * cp->e_r);
  double d[3], dn, off = 0;
  for (int a = 0; a < 3; a++) d[a] = c.a1[a] - c.a2[a];
  dn = d[0] * c.n[0] + d[1] * c.n[1] + d[2] * c.n[2];
  for (int a = 0; a < 3; a++) off = fmax(off, fabs(d[a] - dn * c.n[a]));
  return c.p_ns >= -tol && c.p_nr >= -tol && f <= cp->mu * cp->mu * c.P[0] * c.P[0] + tol &&
         off <= tol && c.gap >= -tol && c.delta[0] <= cp->delta_max + tol;
}

/* ---- a sphere at rest: deflection m g / k, impulse m g h ---- */

static void test_rest(void)
{
  const double r = 0.5, m = 1.0, kn = 1000.0, h = 1e-3, d = m * G / kn;
  cpk_contact_params cp = kv_params(kn, 500.0, 20.0, 0.1, 0.5, 0.05);
  cpk_implicit_surface ball;
  cpk_implicit_sphere(r, &ball);
  cp.delta_prev[0] = d;
  double pos[3] = {0, 0, r - d};
  cpk_implicit_system *s = on_plane(&ball, m, pos, NULL, NULL, h, &cp);
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  t_ok(p && p->kind == CPK_KIND_NONLINEAR_MCP, "sphere on plane: nonlinear MCP");
  if (!p) goto done;
  t_ok(p->n == 6 + 18 && cpk_implicit_map_n(map) == p->n, "n = 6 + 18 (12 geometric and deflection unknowns, p_ns, p_nr, p_t, p_o, p_r, sigma)");
  t_ok(p->var_names && strcmp(p->var_names[cpk_implicit_map_index(map, CPK_IMPLICIT_A1, 0, 2)], "a1_z[1]") == 0,
       "variables are named (a1_z[1])");
  /* the equilibrium written down by hand must make every row vanish */
  double *z = calloc(p->n, sizeof *z), *f = calloc(p->n, sizeof *f);
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_A1, 0, 2)] = -d;
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_A2, 0, 2)] = -d;
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_L, 0, 0)] = 1.0;
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_DELTABAR, 0, 0)] = d;
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_DELTA, 0, 0)] = d;
  z[cpk_implicit_map_index(map, CPK_IMPLICIT_P_NS, 0, 0)] = m * G * h;
  int erc = cpk_problem_eval(p, z, f);
  for (size_t i = 0; i < p->n; i++)
    if (p->lower[i] != -INFINITY) f[i] = 0; /* complementarity rows are checked below */
  t_ok(erc == CPK_OK && inf_norm(f, p->n) < 1e-12,
       "every equation vanishes at the hand-derived equilibrium (|F| = %.1e)", inf_norm(f, p->n));
  t_ok(t_is_mcp_solution(p, z, 1e-12), "and it is an MCP solution (independent check)");
  double *z0 = calloc(p->n, sizeof *z0);
  cpk_implicit_map_start(map, z0);
  const char *solvers[2] = {"fbnewton", "bdnewton"};
  for (int k = 0; k < 2; k++) {
    cpk_result *res = solve_from(p, solvers[k], z0, 1e-10);
    t_ok(res != NULL, "%s solves the resting sphere", solvers[k]);
    if (!res) continue;
    double worst = 0;
    for (size_t i = 0; i < p->n; i++) worst = fmax(worst, fabs(res->z[i] - z[i]));
    t_ok(worst < 1e-8, "%s: the solution is the equilibrium (error %.1e)", solvers[k], worst);
    t_ok(t_is_mcp_solution(p, res->z, 1e-8) && physical(map, res->z, &cp, 1e-9),
         "%s: MCP solution, p_n >= 0, friction in its ellipsoid, a1 - a2 along n", solvers[k]);
    cpk_result_free(res);
  }
  free(z0);
  free(z);
  free(f);
done:
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
}

/* ---- dropped on the damped layer, the sphere settles at m g / k ---- */

static int step(cpk_implicit_system *s, double **zprev, cpk_implicit_contact *c)
{
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  int ok = 0;
  if (p) {
    if (!*zprev) {
      *zprev = calloc(p->n, sizeof **zprev);
      cpk_implicit_map_start(map, *zprev);
    }
    cpk_result *r = solve_from(p, "fbnewton", *zprev, 1e-10);
    if (r && !cpk_implicit_map_contact(map, r->z, 0, c) &&
        !cpk_implicit_system_advance(s, map, r->z, NULL)) {
      memcpy(*zprev, r->z, p->n * sizeof **zprev);
      ok = 1;
    }
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  return ok;
}

static void test_settle(void)
{
  const double r = 0.5, m = 2.0, kn = 2000.0, h = 2e-3;
  cpk_contact_params cp = kv_params(kn, 1000.0, 2 * sqrt(kn * m), INFINITY, 0.0, 0.0);
  cpk_implicit_surface ball;
  cpk_implicit_sphere(r, &ball);
  double pos[3] = {0, 0, r + 0.01};
  cpk_implicit_system *s = on_plane(&ball, m, pos, NULL, NULL, h, &cp);
  double *z = NULL;
  cpk_implicit_contact c;
  int ok = s != NULL, steps = 0;
  for (; ok && steps < 1000; steps++) ok = step(s, &z, &c);
  t_ok(ok, "1000 steps of a ball dropped on the damped layer");
  if (ok) {
    const cpk_implicit_body *b = cpk_implicit_system_body(s, 0);
    t_near(c.delta[0], m * G / kn, 1e-6, "settled deflection %.8f = m g / k", c.delta[0]);
    t_near(b->position[2], r - m * G / kn, 1e-6, "centre at r - m g / k");
    t_near(c.P[0], m * G * h, 1e-9, "normal impulse m g h");
    t_ok(fabs(b->velocity[2]) < 1e-6, "at rest (v_z = %.1e)", b->velocity[2]);
  }
  free(z);
  cpk_implicit_system_free(s);
}

/* ---- falling fast, the sphere reaches the rigid core ---- */

static void test_core(void)
{
  const double r = 0.5, m = 1.0, kn = 1000.0, h = 0.01, dmax = 0.005, v0 = -2.0;
  cpk_contact_params cp = kv_params(kn, 500.0, 0.0, dmax, 0.0, 0.0);
  cpk_implicit_surface ball;
  cpk_implicit_sphere(r, &ball);
  double pos[3] = {0, 0, r}, vel[6] = {0, 0, v0, 0, 0, 0};
  cpk_implicit_system *s = on_plane(&ball, m, pos, NULL, vel, h, &cp);
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  double *z0 = p ? calloc(p->n, sizeof *z0) : NULL;
  if (z0) cpk_implicit_map_start(map, z0);
  const char *solvers[2] = {"fbnewton", "bdnewton"};
  for (int k = 0; p && k < 2; k++) {
    cpk_result *res = solve_from(p, solvers[k], z0, 1e-10);
    cpk_implicit_contact c;
    t_ok(res && !cpk_implicit_map_contact(map, res->z, 0, &c), "%s solves the impact", solvers[k]);
    if (!res) continue;
    /* the layer is at most dmax thick: the centre ends at r - dmax, so v+ = -dmax / h,
     * the spring carries h k dmax and the core the rest of m (v+ - v) + m g h */
    double vz = -dmax / h, pns = h * kn * dmax, pnr = m * (vz - v0) + m * G * h - pns;
    t_near(c.delta[0], dmax, 1e-9, "%s: delta_n = delta_max", solvers[k]);
    t_near(res->z[2], vz, 1e-7, "%s: v+ = -delta_max / h", solvers[k]);
    t_near(c.p_ns, pns, 1e-7, "%s: p_ns = h k delta_max", solvers[k]);
    t_near(c.p_nr, pnr, 1e-7, "%s: p_nr = %.4f > 0 from momentum", solvers[k], pnr);
    t_ok(pnr > 0 && t_is_mcp_solution(p, res->z, 1e-8) && physical(map, res->z, &cp, 1e-9),
         "%s: independent MCP and physical checks", solvers[k]);
    cpk_result_free(res);
  }
  free(z0);
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
}

/* ---- the lowest point of a tilted ellipsoid ---- */

static void test_tilted(void)
{
  const double ax[3] = {0.5, 0.2, 0.1}, th = 0.3, h = 1e-2, cz = 0.6;
  cpk_contact_params cp = kv_params(1e4, 1e4, 10.0, 0.01, 0.0, 0.0);
  cpk_implicit_surface ell;
  cpk_implicit_ellipsoid(ax[0], ax[1], ax[2], &ell);
  double q[4] = {cos(th / 2), 0, sin(th / 2), 0}, pos[3] = {0.1, -0.2, cz};
  double vel[6] = {0.3, 0.0, -1.0, 0, 0, 0};
  cpk_implicit_system *s = on_plane(&ell, 1.0, pos, q, vel, h, &cp);
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  double *z0 = p ? calloc(p->n, sizeof *z0) : NULL;
  if (!z0) goto done;
  cpk_implicit_map_start(map, z0);
  for (size_t i = 6; i < p->n; i++) z0[i] += 0.01; /* make Newton do the work */
  /* x-z plane: body axes x' = (cos th, 0, -sin th), z' = (sin th, 0, cos th); the lowest
   * point is c - (a^2 x'_z x' + c^2 z'_z z') / sqrt(a^2 x'_z^2 + c^2 z'_z^2) */
  double xz = -sin(th), zz = cos(th), a2 = ax[0] * ax[0], c2 = ax[2] * ax[2];
  double depth = sqrt(a2 * xz * xz + c2 * zz * zz);
  double vz = vel[2] - G * h; /* free fall over the step */
  double low[3] = {pos[0] + h * vel[0] - (a2 * xz * cos(th) + c2 * zz * sin(th)) / depth,
                   pos[1], cz + h * vz - (a2 * xz * xz + c2 * zz * zz) / depth};
  const char *solvers[2] = {"fbnewton", "bdnewton"};
  for (int k = 0; k < 2; k++) {
    cpk_result *res = solve_from(p, solvers[k], z0, 1e-10);
    cpk_implicit_contact c;
    t_ok(res && !cpk_implicit_map_contact(map, res->z, 0, &c), "%s: tilted ellipsoid solved",
         solvers[k]);
    if (!res) continue;
    double e = 0;
    for (int a = 0; a < 3; a++) e = fmax(e, fabs(c.a1[a] - low[a]));
    t_ok(e < 1e-9, "%s: a1 is the analytic lowest point (error %.1e)", solvers[k], e);
    t_ok(fabs(c.a2[0] - low[0]) + fabs(c.a2[1] - low[1]) + fabs(c.a2[2]) < 1e-9,
         "%s: a2 is its foot on the plane", solvers[k]);
    t_near(c.gap, low[2], 1e-9, "%s: gap = height of the lowest point", solvers[k]);
    t_near(c.distance, low[2], 1e-9, "%s: distance a1 - a2 likewise", solvers[k]);
    t_ok(fabs(c.P[0]) < 1e-12 && fabs(res->z[2] - vz) < 1e-9, "%s: no impulse, free fall", solvers[k]);
    t_ok(t_is_mcp_solution(p, res->z, 1e-8) && physical(map, res->z, &cp, 1e-9),
         "%s: independent MCP and physical checks", solvers[k]);
    cpk_result_free(res);
  }
done:
  free(z0);
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
}

/* ---- Jacobians by finite differences ---- */

static double *perturbed_start(const cpk_problem *p, const cpk_implicit_map *map, unsigned seed)
{
  double *z = calloc(p->n, sizeof *z);
  if (!z) return NULL;
  cpk_implicit_map_start(map, z);
  srand(seed);
  for (size_t i = 0; i < p->n; i++) {
    double u = (double)rand() / RAND_MAX - 0.5;
    z[i] += 0.05 * u;
    if (p->lower[i] == 0) z[i] = fabs(z[i]) + 0.1; /* impulses and sigma positive */
  }
  return z;
}

static void check_jacobian(const cpk_problem *p, const cpk_implicit_map *map, const char *what)
{
  double *z = perturbed_start(p, map, 7);
  size_t outside = 0;
  double e = z ? ft_jacobian_error(p, z, 1e-7, 1e-6, &outside) : INFINITY;
  t_ok(e < 1e-5 && outside == 0, "%s: analytic Jacobian = finite differences (%.1e, %zu outside)",
       what, e, outside);
  free(z);
}

static void test_jacobians(void)
{
  cpk_contact_params cp = kv_params(3.6e4, 8e3, 300.0, 0.005, 0.4, 0.04);
  cp.K[1] = cp.K[3] = 500, cp.C[2] = cp.C[6] = 3; /* coupled spring, coupled damper */
  cpk_implicit_surface ell, ball;
  cpk_implicit_ellipsoid(0.25, 0.05, 0.08, &ell);
  cpk_implicit_sphere(0.3, &ball);
  double q[4] = {0.9962, 0.03, 0.0872, 0.01}, pos[3] = {0.02, 0.01, 0.04};
  double vel[6] = {0.3, -0.2, -1.0, 0.4, -0.7, 5.0};
  cpk_implicit_system *s = on_plane(&ell, 1.0, pos, q, vel, 1e-2, &cp);
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  if (p) check_jacobian(p, map, "spinning tilted ellipsoid on the plane");
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  /* two moving bodies: the ellipsoid (side 1) on a compliant ball (side 2) below it */
  cpk_implicit_body b;
  cpk_implicit_body_default(&b);
  b.position[2] = -0.33;
  b.velocity[0] = 0.1, b.velocity[4] = 2.0, b.velocity[5] = -1.0;
  b.inertia[1] = b.inertia[3] = 0.1;
  size_t k;
  cpk_error err;
  int rc = s ? cpk_implicit_system_add_body(s, &b, &k, &err) : 1;
  if (!rc) rc = cpk_implicit_system_add_pair(s, 0, &ell, k, &ball, &cp, NULL, NULL, &err);
  p = rc ? NULL : compile(s, &map);
  t_ok(p && p->n == 12 + 2 * 18, "body-body pair compiled (n = %zu)", p ? p->n : 0);
  if (p) check_jacobian(p, map, "ellipsoid on a moving compliant ball");
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
}

/* ---- seed 003's spinning ellipsoid, pressed into the layer ---- */

static void test_spinning(void)
{
  const double h = 1e-3, m = 1.0;
  cpk_contact_params cp = kv_params(36000, 8000, 0.0, 0.005, 0.4, 0.04);
  for (int a = 0; a < 3; a++) cp.C[4 * a] = 2 * sqrt(cp.K[4 * a]);
  cpk_implicit_surface ell;
  cpk_implicit_ellipsoid(0.25, 0.05, 0.05, &ell);
  cp.delta_prev[0] = 0.002;
  double pos[3] = {0, 0, 0.05 - 0.002}, vel[6] = {0.05, 0, -0.1, 0, 0, 5.0};
  cpk_implicit_system *s = on_plane(&ell, m, pos, NULL, vel, h, &cp);
  cpk_implicit_map *map = NULL;
  cpk_problem *p = compile(s, &map);
  double *z0 = p ? calloc(p->n, sizeof *z0) : NULL;
  if (z0) cpk_implicit_map_start(map, z0);
  const char *solvers[2] = {"fbnewton", "bdnewton"};
  for (int k = 0; z0 && k < 2; k++) {
    cpk_result *res = solve_from(p, solvers[k], z0, 1e-10);
    cpk_implicit_contact c;
    t_ok(res && !cpk_implicit_map_contact(map, res->z, 0, &c), "%s: spinning ellipsoid solved",
         solvers[k]);
    if (!res) continue;
    t_ok(t_is_mcp_solution(p, res->z, 1e-8) && physical(map, res->z, &cp, 1e-9),
         "%s: independent MCP and physical checks", solvers[k]);
    /* sliding in torsion: the moment opposes the spin and sits on the ellipsoid's rim */
    double rim = c.P[1] * c.P[1] + c.P[2] * c.P[2] + c.P[3] * c.P[3] / (0.04 * 0.04);
    t_ok(c.P[0] > 0 && c.P[3] < 0 && fabs(sqrt(rim) - 0.4 * c.P[0]) < 1e-8,
         "%s: pressed (P_n = %.4g), moment %.3g opposes the spin, on the rim", solvers[k], c.P[0],
         c.P[3]);
    /* a1 on the ellipsoid at the end-of-step pose: x_b = (I - h[w]x)(a1 - c - h v) */
    const double *v = res->z, *w = res->z + 3;
    double r[3], xb[3], f;
    for (int a = 0; a < 3; a++) r[a] = c.a1[a] - pos[a] - h * v[a];
    xb[0] = r[0] - h * (w[1] * r[2] - w[2] * r[1]);
    xb[1] = r[1] - h * (w[2] * r[0] - w[0] * r[2]);
    xb[2] = r[2] - h * (w[0] * r[1] - w[1] * r[0]);
    f = xb[0] * xb[0] / 0.0625 + xb[1] * xb[1] / 0.0025 + xb[2] * xb[2] / 0.0025 - 1;
    t_ok(fabs(f) < 1e-8 && fabs(c.a2[2] + c.deltabar) < 1e-10 && fabs(c.gap) < 1e-10,
         "%s: a1 on the moved ellipsoid, a2 on the deformed plane, touching", solvers[k]);
    cpk_result_free(res);
  }
  free(z0);
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
}

/* ---- the system object ---- */

static void test_system(void)
{
  cpk_implicit_system *s = NULL;
  cpk_implicit_surface ball, bad;
  cpk_implicit_body b;
  cpk_error err;
  size_t k;
  cpk_contact_params cp = kv_params(100, 100, 0, 1, 0, 0);
  t_ok(cpk_implicit_system_alloc(0.0, &s, &err) == CPK_EINVAL && !s, "h = 0 refused");
  t_ok(cpk_implicit_sphere(-1, &bad) == CPK_EINVAL, "negative radius refused");
  cpk_implicit_sphere(1, &ball);
  cpk_implicit_body_default(&b);
  b.quat[0] = 2.0; /* normalized when added */
  b.velocity[0] = 1, b.velocity[5] = 2;
  cpk_implicit_system_alloc(0.5, &s, &err);
  t_ok(s && cpk_implicit_system_add_body(s, &b, &k, &err) == CPK_OK && k == 0, "body added");
  t_ok(cpk_implicit_system_body(s, 0)->quat[0] == 1.0, "its quaternion is normalized");
  cpk_contact_params rigid = cp;
  rigid.compliant = 0;
  t_ok(cpk_implicit_system_add_pair(s, 0, &ball, CPK_IMPLICIT_WORLD, &ball, &rigid, NULL, NULL,
                                    &err) == CPK_EINVAL,
       "a pair without compliance is refused: %s", err.message);
  t_ok(cpk_implicit_system_add_pair(s, 0, &ball, 3, &ball, &cp, NULL, NULL, &err) == CPK_EINVAL,
       "unknown body refused");
  /* advancing: x += h v, q += h/2 (0, w) q then normalized: a turn about z by atan(h w / 2) * 2 */
  cpk_implicit_map *map = NULL;
  cpk_problem *p = NULL;
  t_ok(cpk_compile_implicit_kelvin_voigt(s, NULL, &p, &map, &err) == CPK_OK && p->n == 6,
       "no pairs: 6 unknowns");
  double z[6] = {1, 0, 0, 0, 0, 2};
  t_ok(map && cpk_implicit_system_advance(s, map, z, &err) == CPK_OK, "advanced");
  const cpk_implicit_body *nb = cpk_implicit_system_body(s, 0);
  double qn = 1 / sqrt(1 + 0.25);
  t_near(nb->position[0], 0.5, 1e-15, "x += h v");
  t_ok(fabs(nb->quat[0] - qn) < 1e-15 && fabs(nb->quat[3] - 0.5 * qn) < 1e-15,
       "quaternion (1, 0, 0, h w / 2) normalized");
  cpk_problem_free(p);
  cpk_implicit_map_free(map);
  cpk_implicit_system_free(s);
  cpk_implicit_system_free(NULL);
  cpk_implicit_map_free(NULL);
}

int main(void)
{
  test_system();
  test_rest();
  test_core();
  test_tilted();
  test_jacobians();
  test_spinning();
  test_settle();
  return t_done();
}
