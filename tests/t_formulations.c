/* t_formulations.c: the compilers on hand-derived cases: seed 000's sphere on a plane (A, b, eq. (5)), the block on a plane against the family, one-contact answers per model, Jacobians by finite differences, polyhedral -> elliptic as d grows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "formtest.h"
#include "families.h"

#define S2 0.70710678118654752440

static cpk_problem *compile(const cpk_contact_system *s, const char *model,
                            const cpk_compile_options *o, cpk_varmap **map)
{
  cpk_problem *p = NULL;
  cpk_error err;
  cpk_error_clear(&err);
  *map = NULL;
  if (cpk_compile(s, model, o, &p, map, &err)) t_diag("compile %s: %s", model, err.message);
  return p;
}

static cpk_compile_options form(cpk_problem_form f)
{
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = f;
  return o;
}

/* ---- seed 000 section 4.1 ---------------------------------------------------- */

static void test_sphere_matrices(void)
{
  /* J of seed 000 section 4.1, columns n, t, o, r. */
  static const double J[6][4] = {{0, S2, -S2, 0}, {0, S2, S2, 0},  {1, 0, 0, 0},
                                 {0, S2, S2, 0},  {0, -S2, S2, 0}, {0, 0, 0, 1}};
  double v[6] = {0}, b[4], worst = 0;
  cpk_contact_system *s = ft_sphere(0.0, v);
  cpk_csc *A = NULL;
  t_ok(s != NULL, "sphere on plane: system built");
  if (!s) return;
  for (size_t k = 0; k < 6; k++)
    for (int a = 0; a < 4; a++) worst = fmax(worst, fabs(s->wval[4 * k + a] - J[s->wrow[k]][a]));
  t_ok(s->wptr[1] == 6 && worst < 1e-15, "wrench columns equal the paper's J (error %.1e)", worst);
  t_ok(cpk_contact_system_delassus(s, &A, b, NULL) == CPK_OK, "A = J^T M^-1 J computed");
  static const double Aref[4] = {1.0, 3.5, 3.5, 2.5};
  worst = 0;
  for (size_t i = 0; A && i < 4; i++)
    for (size_t j = 0; j < 4; j++) {
      double aij = 0;
      for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++)
        if ((size_t)A->i[k] == i) aij = A->x[k];
      worst = fmax(worst, fabs(aij - (i == j ? Aref[i] : 0.0)));
    }
  t_ok(A && worst < 1e-12, "A = diag(1, 3.5, 3.5, 2.5) as eq. (3) (error %.1e)", worst);
  t_ok(A && A->p[4] == 4, "A stored with its 4 non-zeros only");
  /* eq. (3) prints b = (9.81, 0, 0, 0); its own definition b = J^T M^-1 g_obj with
   * g_obj = (0, 0, -9.81, 0, 0, 0) gives -9.81: the sign is a slip in the paper (with
   * +9.81 the sphere would lift off, yet section 4.1.1 reports c_n = mg). */
  t_near(fabs(b[0]), 9.81, 1e-12, "|b_n| = 9.81 as eq. (3)");
  t_near(b[0], -9.81, 1e-12, "b_n = J_n^T M^-1 g_obj = -9.81 (gravity pushes into the plane)");
  t_ok(b[1] == 0 && b[2] == 0 && b[3] == 0, "b_t = b_o = b_r = 0");
  cpk_csc_free(A);
  cpk_contact_system_free(s);
}

/* Seed 000 eq. (5): the 20 directions in generalized coordinates, D = [W_t W_o W_r] d_j. */
static const double D5[6][20] = {
    {0.7071,  0.0000,  -0.7071, -1.0000, -0.7071, -0.0000, 0.7071,  1.0000, 0.4177, -0.2682,
     -0.5835, -0.0924, 0.5264,  0.4177,  -0.2682, -0.5835, -0.0924, 0.5264, 0.0000, 0.0000},
    {0.7071,  1.0000,  0.7071,  0.0000, -0.7071, -1.0000, -0.7071, -0.0000, 0.4177, 0.5264,
     -0.0924, -0.5835, -0.2682, 0.4177, 0.5264,  -0.0924, -0.5835, -0.2682, 0.0000, 0.0000},
    {0},
    {0.7071,  1.0000,  0.7071,  0.0000, -0.7071, -1.0000, -0.7071, -0.0000, 0.4177, 0.5264,
     -0.0924, -0.5835, -0.2682, 0.4177, 0.5264,  -0.0924, -0.5835, -0.2682, 0.0000, 0.0000},
    {-0.7071, -0.0000, 0.7071,  1.0000,  0.7071, 0.0000, -0.7071, -1.0000, -0.4177, 0.2682,
     0.5835,  0.0924,  -0.5264, -0.4177, 0.2682, 0.5835, 0.0924,  -0.5264, -0.0000, -0.0000},
    {0,      0,      0,      0,       0,       0,       0,       0,       0.3227, 0.3227,
     0.3227, 0.3227, 0.3227, -0.3227, -0.3227, -0.3227, -0.3227, -0.3227, 0.4000, -0.4000}};

static cpk_compile_options eq5_options(void)
{
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.directions.kind = CPK_DIRECTIONS_ELLIPSOID;
  o.directions.equator = 8;
  o.directions.circles = 1;
  o.directions.per_circle = 5;
  o.directions.latitude = asin(0.3227 / 0.4); /* the paper prints the twist 0.3227 = e_r sin(lat) */
  return o;
}

static void test_sphere_directions(void)
{
  double v[6] = {0, 0, 0, 0, 0, 1.962}, worst = 0;
  cpk_compile_options o = eq5_options();
  cpk_contact_system *s = ft_sphere(0.07, v);
  cpk_varmap *m = NULL;
  cpk_problem *p = s ? compile(s, "polyhedral", &o, &m) : NULL;
  t_ok(p && p->kind == CPK_KIND_LCP && p->n == 22, "eq. (5) directions give an LCP of size 22");
  t_ok(m && cpk_varmap_ndirections(m, 0) == 20, "20 directions (8 + 5 + 5 + 2)");
  for (size_t j = 0; m && j < 20 && j < cpk_varmap_ndirections(m, 0); j++) {
    double d[3];
    cpk_varmap_direction(m, 0, j, d);
    for (size_t k = 0; k < 6; k++) {
      double col = 0; /* row k of W_t d_t + W_o d_o + W_r d_r */
      for (int a = 0; a < 3; a++) col += s->wval[4 * k + 1 + a] * d[a];
      worst = fmax(worst, fabs(col - D5[s->wrow[k]][j]));
    }
  }
  t_ok(m && worst < 3e-4, "D equals eq. (5) to its printed digits (error %.1e)", worst);
  /* Column 20 is the exact friction moment: p_r = -e_r mu p_n, spin slows at 1.962 rad/s^2. */
  cpk_result *r = p ? ft_solve(p, "lemke", 0) : NULL;
  double P[4], vn[6];
  int ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(m, r->z, P) &&
           !cpk_varmap_velocity(m, r->z, vn, NULL);
  t_ok(ok, "spinning sphere, eq. (5) directions: lemke solves");
  if (ok) {
    t_near(P[0], 9.81 * 0.07, 1e-12, "p_n = m g h");
    t_near(P[3], -0.4 * 0.2 * 9.81 * 0.07, 1e-12, "p_r = -e_r mu p_n (column 20 is exact)");
    t_near(vn[5], 1.962 - 1.962 * 0.07, 1e-12, "omega_z decreases by 1.962 h");
    t_ok(fabs(vn[0]) + fabs(vn[1]) + fabs(vn[2]) + fabs(vn[3]) + fabs(vn[4]) < 1e-12,
         "the other velocities stay zero");
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* h = 0 (seed 000 section 2): the spinning sphere is non-rolling, its friction is fixed by v. */
static void test_sphere_acceleration(void)
{
  double v[6] = {0, 0, 0, 0, 0, 1.962}, a[6], P[4];
  cpk_contact_system *s = ft_sphere(0.0, v);
  cpk_varmap *m = NULL;
  cpk_problem *p = s ? compile(s, "elliptic-torsional", NULL, &m) : NULL;
  t_ok(p && p->kind != CPK_KIND_NONLINEAR_MCP,
       "h = 0, spinning: the sliding contact gives an affine problem");
  cpk_result *r = p ? ft_solve(p, "lemke", 0) : NULL;
  int ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(m, r->z, P) &&
           !cpk_varmap_velocity(m, r->z, a, NULL);
  t_ok(ok, "h = 0 spinning sphere solved by lemke");
  if (ok) {
    t_near(P[0], 9.81, 1e-12, "c_n = m g (section 4.1.1)");
    t_near(P[3], -0.4 * 0.2 * 9.81, 1e-12, "c_r = -e_r mu c_n");
    t_near(a[5], -1.962, 1e-12, "d omega_z / dt = -1.962 rad/s^2, the slope of Figure 4");
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
  /* Translating sphere (section 4.1.3): slides, v_x decays at mu g, omega_y grows at 2.5 mu g. */
  double v2[6] = {2, 0, 0, 0, 0, 0};
  s = ft_sphere(0.0, v2);
  p = s ? compile(s, "point-coulomb", NULL, &m) : NULL;
  r = p ? ft_solve(p, "lemke", 0) : NULL;
  ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_velocity(m, r->z, a, NULL);
  t_ok(ok && fabs(a[0] + 0.2 * 9.81) < 1e-12 && fabs(a[4] - 2.5 * 0.2 * 9.81) < 1e-12,
       "h = 0 translating sphere: a_x = -mu g, d omega_y/dt = 2.5 mu g (t_trn = 2 v0 / (7 mu g))");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* ---- block on a plane against bench/families.h ------------------------------------- */

static cpk_contact_system *block_system(void)
{
  const double m = 2.0, a = 0.2, b = 0.15, c = 0.1, h = 0.01;
  double d[6] = {
      m, m, m, m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3};
  double v[6] = {1, 0, 0, 0, 0, 0}, k[6] = {0, 0, -m * 9.81, 0, 0, 0};
  const double n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  const cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  cpk_csc_alloc(6, 6, 6, &M);
  for (int j = 0; M && j < 6; j++) {
    M->p[j + 1] = j + 1;
    M->i[j] = j;
    M->x[j] = d[j];
  }
  if (!M || cpk_contact_system_alloc_body(6, M, v, k, h, &s, NULL)) s = NULL;
  for (size_t i = 0; s && i < 4; i++) {
    double r[3] = {i < 2 ? a : -a, i % 2 == 0 ? b : -b, -c}, W[4][6];
    cpk_contact_params p;
    cpk_contact_params_default(&p);
    p.mu = 0.3;
    cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]);
    cpk_contact_system_add_contact(s, &p, 6, rows, W[0], W[1], W[2], NULL, NULL);
  }
  cpk_csc_free(M);
  return s;
}

static void test_block(void)
{
  cpk_contact_system *s = block_system();
  cpk_problem *fam = NULL, *p;
  cpk_varmap *m = NULL;
  cpk_compile_options o = form(CPK_FORM_REDUCED);
  double worst = 0;
  p = s ? compile(s, "polyhedral", &o, &m) : NULL;
  cpk_family_block_on_plane_lcp(8, &fam);
  t_ok(p && fam && p->n == fam->n && p->kind == CPK_KIND_LCP, "block: LCP of the family's size");
  for (size_t i = 0; p && fam && p->n == fam->n && i < p->n; i++) {
    worst = fmax(worst, fabs(p->q[i] - fam->q[i]));
    for (size_t j = 0; j < p->n; j++)
      worst = fmax(worst, fabs(cpk_matrix_get(p->M, i, j) - cpk_matrix_get(fam->M, i, j)));
  }
  t_ok(p && fam && worst < 1e-12, "block: M and q equal cpk_family_block_on_plane_lcp(8) (%.1e)",
       worst);
  for (size_t i = 0; p && fam && p->var_names && i < p->n; i++)
    if (strcmp(p->var_names[i], fam->var_names[i]) != 0 &&
        !(strncmp(p->var_names[i], "p_d", 3) == 0 && strncmp(fam->var_names[i], "p_t", 3) == 0 &&
          strcmp(p->var_names[i] + 3, fam->var_names[i] + 3) == 0)) {
      t_diag("name %zu: %s vs %s", i, p->var_names[i], fam->var_names[i]);
      worst = INFINITY;
    }
  t_ok(p && isfinite(worst), "block: same unknowns in the same order (p_d for the family's p_t)");
  cpk_result *r = p ? ft_solve(p, "lemke", 0) : NULL;
  double P[16], vn[6], sum_n = 0, sum_t = 0, sum_o = 0;
  int ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(m, r->z, P) &&
           !cpk_varmap_velocity(m, r->z, vn, NULL);
  for (int i = 0; ok && i < 4; i++) {
    sum_n += P[4 * i];
    sum_t += P[4 * i + 1];
    sum_o += P[4 * i + 2];
  }
  t_ok(ok && fabs(sum_n - 2 * 9.81 * 0.01) < 1e-12 && fabs(sum_t + 0.3 * sum_n) < 1e-12 &&
           fabs(sum_o) < 1e-12,
       "block: total normal impulse m g h, friction mu m g h along -x");
  t_ok(ok && fabs(vn[0] - (1 - 0.3 * 9.81 * 0.01)) < 1e-12 && fabs(vn[2]) < 1e-12,
       "block: v_x+ = v_x - mu g h, v_z+ = 0");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_problem_free(fam);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

/* ---- one-contact systems with hand-derived answers -------------------------------- */

typedef struct hand {
  const char *what;
  double v[6]; /* next velocity (the first nv used) */
  double P[4]; /* impulses n, t, o, r */
  double sigma;
  double pns, pnr, delta[3]; /* kelvin-voigt */
  int mode;
} hand;

static void fill(const cpk_varmap *m, const hand *h, double *z)
{
  for (size_t i = 0; i < cpk_varmap_n(m); i++) {
    const cpk_var_info *v = cpk_varmap_var(m, i);
    switch (v->role) {
    case CPK_ROLE_V: z[i] = h->v[v->index]; break;
    case CPK_ROLE_P_N: z[i] = h->P[0]; break;
    case CPK_ROLE_P_T: z[i] = h->P[1]; break;
    case CPK_ROLE_P_O: z[i] = h->P[2]; break;
    case CPK_ROLE_P_R: z[i] = h->P[3]; break;
    case CPK_ROLE_SIGMA: z[i] = h->sigma; break;
    case CPK_ROLE_P_NS: z[i] = h->pns; break;
    case CPK_ROLE_P_NR: z[i] = h->pnr; break;
    case CPK_ROLE_DELTA_N: z[i] = h->delta[0]; break;
    case CPK_ROLE_DELTA_T: z[i] = h->delta[1]; break;
    case CPK_ROLE_DELTA_O: z[i] = h->delta[2]; break;
    default: z[i] = NAN; break;
    }
  }
}

static void check_answer(const char *tag, const cpk_varmap *m, const double *z, const hand *h,
                         double tol)
{
  double P[4], v[6] = {0}, worst = 0;
  int mode = -1;
  size_t nv = cpk_varmap_nv(m);
  cpk_varmap_impulses(m, z, P);
  cpk_varmap_velocity(m, z, v, NULL);
  cpk_varmap_modes(m, z, fmax(1e-7, tol), &mode, NULL);
  for (int a = 0; a < 4; a++) worst = fmax(worst, fabs(P[a] - h->P[a]));
  for (size_t k = 0; k < nv; k++) worst = fmax(worst, fabs(v[k] - h->v[k]));
  t_ok(worst < tol, "%s: %s: impulses and next velocity as derived (error %.1e)", h->what, tag,
       worst);
  t_ok(mode == h->mode, "%s: %s: mode %s (expected %s%s)", h->what, tag,
       cpk_contact_mode_name(mode), cpk_contact_mode_name(h->mode),
       h->mode & CPK_MODE_CORE ? ", core" : "");
}

/* Every other registered solver that takes the problem kind. A solver that refuses the data
 * for a documented precondition (PGS needs a positive diagonal, which the sigma rows lack) is
 * skipped with its reason; any other failure is a failure. */
static void other_solvers(const cpk_problem *p, const cpk_varmap *m, const hand *h,
                          const char *done, const char *tag, const char *model)
{
  for (size_t k = 0; k < cpk_solver_count(); k++) {
    const cpk_solver_type *T = cpk_solver_at(k);
    if (!cpk_solver_accepts(T, p) || (done && strcmp(T->name, done) == 0)) continue;
    cpk_settings st;
    cpk_error err;
    cpk_result *r = NULL;
    cpk_settings_default(&st);
    cpk_error_clear(&err);
    st.tol = p->kind == CPK_KIND_NONLINEAR_MCP ? 1e-8 : 1e-10;
    double tol = h->mode == CPK_MODE_SEPARATING ? 5e-4 : 1e-6;
    int rc = cpk_result_alloc(p->n, &r) ? CPK_ENOMEM : cpk_solve(p, T->name, &st, r, &err);
    if (rc == CPK_EINVAL || rc == CPK_EUNSUP || (!rc && r->status == CPK_STATUS_INVALID_INPUT)) {
      t_ok(1, "%s: %s %s by %s # SKIP the solver refuses this data: %s", h->what, model, tag,
           T->name, err.message[0] ? err.message : r->message);
    } else if (!rc && r->status == CPK_STATUS_SOLVED) {
      double P[4], v[6] = {0}, worst = 0;
      cpk_varmap_impulses(m, r->z, P);
      cpk_varmap_velocity(m, r->z, v, NULL);
      for (int a = 0; a < 4; a++) worst = fmax(worst, fabs(P[a] - h->P[a]));
      for (size_t j = 0; j < cpk_varmap_nv(m); j++) worst = fmax(worst, fabs(v[j] - h->v[j]));
      t_ok(worst < tol, "%s: %s %s by %s too (error %.1e)", h->what, model, tag, T->name, worst);
    } else if (!rc && strncmp(T->name, "tao-", 4) == 0) {
      /* PETSc TAO's methods are there for comparison: what they solve is checked above */
      t_ok(1, "%s: %s %s by %s # SKIP a comparison solver, not required to solve: %s", h->what,
           model, tag, T->name, r->message[0] ? r->message : cpk_status_name(r->status));
    } else {
      t_ok(0, "%s: %s %s by %s (%s)", h->what, model, tag, T->name,
           rc              ? err.message
           : r->message[0] ? r->message
                           : cpk_status_name(r->status));
    }
    cpk_result_free(r);
  }
}

static void check_case(const cpk_contact_system *s, const char *model, cpk_problem_form f,
                       const hand *h)
{
  cpk_compile_options o = form(f);
  cpk_varmap *m = NULL;
  cpk_problem *p = compile(s, model, &o, &m);
  const char *tag = f == CPK_FORM_MIXED ? "mixed" : "reduced";
  t_ok(p != NULL, "%s: %s %s compiled", h->what, model, tag);
  if (!p) return;
  double *z = calloc(p->n, sizeof *z);
  if (strcmp(model, "polyhedral") != 0) {
    fill(m, h, z);
    double r0 = ft_residual(p, z);
    t_ok(r0 < 1e-12, "%s: %s %s: the hand solution zeroes the natural residual (%.1e)", h->what,
         model, tag, r0);
    z[cpk_varmap_find(m, h->pns != 0 ? CPK_ROLE_P_NS : CPK_ROLE_P_N, 0, 0)] += 1e-3;
    t_ok(ft_residual(p, z) > 1e-6, "%s: %s %s: a perturbed point does not", h->what, model, tag);
  }
  int nonlinear = p->kind == CPK_KIND_NONLINEAR_MCP;
  const char *solver = nonlinear ? ft_nonlinear_solver() : "lemke";
  cpk_result *r = solver ? ft_solve(p, solver, nonlinear ? 1e-8 : 1e-12) : NULL;
  /* A separating contact of the quadratic-cone models is a degenerate solution (p_n = 0 leaves
   * sigma free, and F_sigma = -|p_f|^2): a natural residual of 1e-8 only bounds p_f by 1e-4. */
  double tol = !nonlinear ? 1e-10 : h->mode == CPK_MODE_SEPARATING ? 5e-4 : 1e-6;
  if (!solver) {
    t_ok(1, "%s: %s %s solved # SKIP no nonlinear MCP solver registered yet", h->what, model, tag);
    t_ok(1, "%s: mode # SKIP no nonlinear MCP solver registered yet", h->what);
  } else if (r && r->status == CPK_STATUS_SOLVED) {
    check_answer(solver, m, r->z, h, tol);
  } else {
    t_ok(0, "%s: %s %s solved by %s (%s)", h->what, model, tag, solver,
         r ? cpk_status_name(r->status) : "call failed");
  }
  cpk_result_free(r);
  other_solvers(p, m, h, solver, tag, model);
  free(z);
  cpk_problem_free(p);
  cpk_varmap_free(m);
}

/* A unit mass point on z = 0, h = 0.01, mu = 0.3 unless said otherwise. */
static cpk_contact_system *particle(const double v[3], double psi, double mu, double et, double eo)
{
  cpk_contact_system *s = ft_particle(1.0, 0.01, v);
  cpk_contact_params p;
  cpk_contact_params_default(&p);
  p.psi = psi;
  p.mu = mu;
  p.e_t = et;
  p.e_o = eo;
  if (s && ft_plane_contact(s, &p)) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

static void run_all_forms(const cpk_contact_system *s, const char *model, const hand *h)
{
  check_case(s, model, CPK_FORM_MIXED, h);
  check_case(s, model, CPK_FORM_REDUCED, h);
}

static void test_particle_cases(void)
{
  const double h = 0.01, mu = 0.3, pn = 9.81 * h;
  /* Sliding: the slip stays positive, friction -mu p_n, sigma = slip speed. */
  double v1[3] = {1, 0, 0};
  hand slide = {
      "sliding particle", {1 - mu * pn, 0, 0}, {pn, -mu * pn, 0, 0}, 1 - mu * pn, 0, 0, {0},
      CPK_MODE_SLIDING};
  cpk_contact_system *s = particle(v1, 0.0, mu, 1, 1);
  run_all_forms(s, "point-coulomb", &slide);
  run_all_forms(s, "polyhedral", &slide); /* direction 5 of 8 points along -x: exact */
  run_all_forms(s, "elliptic-torsional", &slide);
  cpk_contact_system_free(s);
  /* Anisotropic ellipse: along t the friction is mu p_n e_t, and sigma = e_t * slip. */
  s = particle(v1, 0.0, mu, 1.5, 0.5);
  hand aniso = {"sliding particle, e = (1.5, 0.5)",
                {1 - 1.5 * mu * pn, 0, 0},
                {pn, -1.5 * mu * pn, 0, 0},
                1.5 * (1 - 1.5 * mu * pn),
                0,
                0,
                {0},
                CPK_MODE_SLIDING};
  run_all_forms(s, "elliptic-torsional", &aniso);
  cpk_contact_system_free(s);
  /* Sticking: |p_t| needed to stop is 0.01 < mu p_n = 0.0294. */
  double v2[3] = {0.01, 0, 0};
  hand stick = {"sticking particle", {0, 0, 0}, {pn, -0.01, 0, 0}, 0, 0, 0, {0}, CPK_MODE_STICKING};
  s = particle(v2, 0.0, mu, 1, 1);
  run_all_forms(s, "point-coulomb", &stick);
  run_all_forms(s, "polyhedral", &stick);
  run_all_forms(s, "elliptic-torsional", &stick);
  cpk_contact_system_free(s);
  /* Separating: the gap 0.01 stays open after falling h^2 g; sigma is the slip speed 0.2
   * (the scaled rows keep sigma determined at separating contacts, doc/formulations.md). */
  double v3[3] = {0.2, 0, 0};
  hand sep = {"separating particle", {0.2, 0, -9.81 * h}, {0, 0, 0, 0}, 0.2, 0, 0, {0},
              CPK_MODE_SEPARATING};
  s = particle(v3, 0.01, mu, 1, 1);
  run_all_forms(s, "point-coulomb", &sep);
  run_all_forms(s, "polyhedral", &sep);
  run_all_forms(s, "elliptic-torsional", &sep);
  cpk_contact_system_free(s);
}

static void test_spinning(void)
{
  const double h = 0.07, pn = 9.81 * h, pr = -0.4 * 0.2 * pn, w = 1.962 + 2.5 * pr;
  double v[6] = {0, 0, 0, 0, 0, 1.962};
  hand spin = {"spinning sphere (pure torsion)",
               {0, 0, 0, 0, 0, w},
               {pn, 0, 0, pr},
               0.4 * w,
               0,
               0,
               {0},
               CPK_MODE_SLIDING};
  cpk_contact_system *s = ft_sphere(h, v);
  run_all_forms(s, "elliptic-torsional", &spin);
  cpk_contact_system_free(s);
  double v2[6] = {0, 0, 0, 0, 0, 0.01};
  hand stick = {"slowly spinning sphere (torsion sticks)",
                {0},
                {pn, 0, 0, -0.01 / 2.5},
                0,
                0,
                0,
                {0},
                CPK_MODE_STICKING};
  s = ft_sphere(h, v2);
  run_all_forms(s, "elliptic-torsional", &stick);
  cpk_contact_system_free(s);
}

/* Frictionless point on a compliant plane: k = 1000, C = 0, overlap 2 mm, delta_prev 2 mm:
 *   delta (1/h + h k / m) = h g - psi / h  ->  delta = 0.2981 / 110 (below delta_max = 5 mm);
 * with delta_max = 2.5 mm the core is reached: delta = 2.5 mm, p_nr = -0.05 + h g - h k delta. */
static cpk_contact_system *compliant_particle(double delta_max, double mu, const double v[3])
{
  cpk_contact_system *s = ft_particle(1.0, 0.01, v);
  cpk_contact_params p;
  cpk_contact_params_default(&p);
  p.psi = -0.002;
  p.mu = mu;
  p.compliant = 1;
  p.K[0] = p.K[4] = p.K[8] = 1000;
  p.delta_max = delta_max;
  p.delta_prev[0] = 0.002;
  if (s && ft_plane_contact(s, &p)) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

static void test_kelvin_voigt(void)
{
  const double h = 0.01, k = 1000, d = (h * 9.81 + 0.2) / (1 / h + h * k), vz = -(-0.002 + d) / h;
  double v0[3] = {0, 0, 0};
  hand below = {"compliant, below delta_max",
                {0, 0, vz},
                {h * k * d, 0, 0, 0},
                0,
                h * k * d,
                0,
                {d, 0, 0},
                CPK_MODE_STICKING};
  cpk_contact_system *s = compliant_particle(0.005, 0.0, v0);
  run_all_forms(s, "kelvin-voigt", &below);
  cpk_contact_system_free(s);
  const double dm = 0.0025, vz2 = -(-0.002 + dm) / h, pns = h * k * dm, pnr = vz2 + h * 9.81 - pns;
  hand core = {
      "compliant, at delta_max",        {0, 0, vz2}, {pns + pnr, 0, 0, 0}, 0, pns, pnr, {dm, 0, 0},
      CPK_MODE_STICKING | CPK_MODE_CORE};
  s = compliant_particle(dm, 0.0, v0);
  run_all_forms(s, "kelvin-voigt", &core);
  cpk_contact_system_free(s);
  /* With friction, sliding: same normal answer, p_t = -mu P_n, delta_t = p_t / (h k). */
  double v1[3] = {1, 0, 0};
  const double mu = 0.3, pt = -mu * (pns + pnr);
  hand slide = {"compliant, at delta_max, sliding",
                {1 + pt, 0, vz2},
                {pns + pnr, pt, 0, 0},
                1 + pt,
                pns,
                pnr,
                {dm, pt / (h * k), 0},
                CPK_MODE_SLIDING | CPK_MODE_CORE};
  s = compliant_particle(dm, mu, v1);
  run_all_forms(s, "kelvin-voigt", &slide);
  cpk_contact_system_free(s);
}

/* ---- exact Jacobians ------------------------------------------------------------------ */

static void jacobian_check(const cpk_contact_system *s, const char *model, cpk_problem_form f,
                           const char *what)
{
  cpk_compile_options o = form(f);
  cpk_varmap *m = NULL;
  cpk_problem *p = compile(s, model, &o, &m);
  if (!p || p->kind != CPK_KIND_NONLINEAR_MCP) {
    t_ok(0, "%s: %s gives a nonlinear MCP", what, model);
    cpk_problem_free(p);
    cpk_varmap_free(m);
    return;
  }
  double *z = malloc(p->n * sizeof *z);
  unsigned long x = 12345;
  for (size_t i = 0; i < p->n; i++) { /* a generic point: every product term non-zero */
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    z[i] = 0.05 + 0.5 * (double)(x >> 11) / 9007199254740992.0;
  }
  size_t outside = 0;
  double e = ft_jacobian_error(p, z, 1e-6, 1e-7, &outside);
  t_ok(e < 1e-6 && outside == 0,
       "%s: %s %s: Jacobian equals central differences (%.1e), nothing outside the pattern (%zu)",
       what, model, f == CPK_FORM_MIXED ? "mixed" : "reduced", e, outside);
  free(z);
  cpk_problem_free(p);
  cpk_varmap_free(m);
}

static void test_jacobians(void)
{
  double v[6] = {0.3, -0.2, 0, 0.1, 0.2, 1.0};
  cpk_contact_system *s = ft_sphere(0.07, v);
  cpk_contact_system *r = ft_random_bodies(4, 9, 0.01, t_seed(), 1);
  cpk_contact_system *kv = compliant_particle(0.0025, 0.3, v);
  static const char *const nl[3] = {"point-coulomb", "elliptic-torsional", "kelvin-voigt"};
  for (int f = CPK_FORM_MIXED; f <= CPK_FORM_REDUCED; f++) {
    jacobian_check(s, "elliptic-torsional", (cpk_problem_form)f, "sphere");
    jacobian_check(kv, "kelvin-voigt", (cpk_problem_form)f, "compliant particle");
    for (int k = 0; k < 3; k++)
      jacobian_check(r, nl[k], (cpk_problem_form)f, "4 bodies, 9 contacts");
  }
  cpk_contact_system_free(s);
  cpk_contact_system_free(r);
  cpk_contact_system_free(kv);
}

/* ---- polyhedral -> elliptic as d grows -------------------------------------------------- */

static int poly_friction(const cpk_contact_system *s, size_t d, double offset, double f[2])
{
  cpk_compile_options o;
  cpk_varmap *m = NULL;
  cpk_compile_options_default(&o);
  o.directions.d = d;
  o.directions.offset = offset;
  cpk_problem *p = compile(s, "polyhedral", &o, &m);
  cpk_result *r = p ? ft_solve(p, "lemke", 0) : NULL;
  double P[4];
  int ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(m, r->z, P);
  if (ok) {
    f[0] = P[1];
    f[1] = P[2];
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return ok;
}

/* A contact's own directions replace the generated ones. */
static void test_user_directions(void)
{
  static const double dirs[12] = {0, 1, 0, 1, 0, 0, 0, -1, 0, -1, 0, 0};
  double v[3] = {1, 0, 0}, d[3], P[4];
  cpk_contact_system *s = particle(v, 0.0, 0.3, 1, 1);
  cpk_contact_params p = s->contacts[0];
  p.ndirections = 4;
  p.directions = dirs;
  cpk_contact_set_params(s, 0, &p, NULL);
  cpk_varmap *m = NULL;
  cpk_problem *pr = compile(s, "polyhedral", NULL, &m);
  int ok = pr && cpk_varmap_ndirections(m, 0) == 4;
  for (size_t j = 0; ok && j < 4; j++)
    ok = !cpk_varmap_direction(m, 0, j, d) && memcmp(d, dirs + 3 * j, sizeof d) == 0;
  t_ok(ok && pr->n == 6, "user directions: 4 of them, in the given order, LCP of size 6");
  cpk_result *r = pr ? ft_solve(pr, "lemke", 0) : NULL;
  ok = r && r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(m, r->z, P);
  t_ok(ok && fabs(P[1] + 0.3 * 9.81 * 0.01) < 1e-12 &&
           fabs(ft_get(m, r->z, CPK_ROLE_P_D, 0, 3) - 0.3 * 9.81 * 0.01) < 1e-12,
       "user directions: the friction goes along the given -x direction (p_d[1,4])");
  cpk_result_free(r);
  cpk_problem_free(pr);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

static void test_polyhedral_limit(void)
{
  /* Slip at 20 degrees from t; the elliptic (here circular) answer is -mu p_n along the slip. */
  const double th = 20 * 3.14159265358979323846 / 180, mu = 0.5, pn = 9.81 * 0.01;
  double v[3] = {cos(th), sin(th), 0}, exact[2] = {-mu * pn * cos(th), -mu * pn * sin(th)}, f[2];
  cpk_contact_system *s = particle(v, 0.0, mu, 1, 1);
  double prev = INFINITY;
  int monotone = 1, bounded = 1;
  for (size_t d = 4; d <= 128; d *= 2) {
    if (!poly_friction(s, d, 0.0, f)) {
      t_ok(0, "polyhedral d = %zu solved", d);
      continue;
    }
    double err = hypot(f[0] - exact[0], f[1] - exact[1]);
    t_diag("d = %3zu: |p_f - p_f(elliptic)| = %.3e", d, err);
    monotone &= err <= prev * (1 + 1e-9);
    bounded &= err <= mu * pn * 3.14159265358979323846 / (double)d;
    prev = err;
  }
  t_ok(monotone, "polyhedral friction approaches the elliptic one as d doubles");
  t_ok(bounded && prev < 2e-3 * mu * pn * 10, "error within mu p_n pi / d (d = 128: %.1e)", prev);
  int ok = poly_friction(s, 4, th + 3.14159265358979323846, f);
  t_ok(ok && hypot(f[0] - exact[0], f[1] - exact[1]) < 1e-13,
       "a direction aligned with the slip gives the elliptic answer exactly");
  cpk_contact_system_free(s);
}

/* ---- refusals --------------------------------------------------------------------------- */

static void expect_error(const cpk_contact_system *s, const char *model,
                         const cpk_compile_options *o, int code, const char *needle,
                         const char *what)
{
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  cpk_error_clear(&err);
  int rc = cpk_compile(s, model, o, &p, &m, &err);
  t_ok(rc == code && !p && !m && strstr(err.message, needle) != NULL, "%s: %s (%s)", what,
       cpk_errname(rc), err.message);
  cpk_problem_free(p);
  cpk_varmap_free(m);
}

static void test_refusals(void)
{
  double v[3] = {0, 0, 0};
  cpk_contact_system *s = particle(v, 0.0, 0.3, 1, 1), *s0 = ft_particle(1.0, 0.0, v);
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  expect_error(s, "rigid", NULL, CPK_ENOTFOUND, "unknown model", "unknown model");
  o.directions.d = 0;
  expect_error(s, "polyhedral", &o, CPK_EINVAL, "directions", "d = 0 directions");
  cpk_compile_options_default(&o);
  o.directions.kind = CPK_DIRECTIONS_ELLIPSOID;
  o.directions.latitude = 2.0;
  expect_error(s, "polyhedral", &o, CPK_EINVAL, "latitude", "latitude beyond pi/2");
  cpk_compile_options_default(&o);
  o.form = (cpk_problem_form)7;
  expect_error(s, "point-coulomb", &o, CPK_EINVAL, "form", "unknown problem form");
  if (s0) ft_plane_contact(s0, NULL);
  expect_error(s0, "kelvin-voigt", NULL, CPK_EINVAL, "h > 0", "kelvin-voigt at h = 0");
  expect_error(NULL, "polyhedral", NULL, CPK_EINVAL, "system", "no system");
  cpk_contact_system *empty = ft_particle(1.0, 0.01, v);
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_REDUCED;
  expect_error(empty, "polyhedral", &o, CPK_EINVAL, "no contacts", "reduced form without contacts");
  o.form = CPK_FORM_MIXED; /* then the problem is the momentum balance alone: free fall */
  cpk_varmap *fm = NULL;
  cpk_problem *fp = compile(empty, "point-coulomb", &o, &fm);
  cpk_result *fr = fp ? ft_solve(fp, "lemke", 0) : NULL;
  double vf[3] = {0, 0, 0};
  int ok = fr && fr->status == CPK_STATUS_SOLVED && !cpk_varmap_velocity(fm, fr->z, vf, NULL);
  t_ok(ok && fabs(vf[2] + 9.81 * 0.01) < 1e-12, "no contacts, mixed form: free fall v_z+ = -h g");
  cpk_result_free(fr);
  cpk_problem_free(fp);
  cpk_varmap_free(fm);
  /* A local-form system has no velocities to keep. */
  cpk_csc *W = NULL;
  cpk_contact_system *loc = NULL;
  double q[3] = {-1, 0, 0};
  cpk_csc_alloc(3, 3, 3, &W);
  for (int j = 0; W && j < 3; j++) {
    W->p[j + 1] = j + 1;
    W->i[j] = j;
    W->x[j] = 1.0;
  }
  cpk_contact_system_alloc_local(1, 3, W, q, NULL, 1.0, &loc, NULL);
  o.form = CPK_FORM_MIXED;
  expect_error(loc, "polyhedral", &o, CPK_EINVAL, "local-form", "mixed form of a local system");
  cpk_csc_free(W);
  cpk_contact_system_free(loc);
  cpk_contact_system_free(empty);
  cpk_contact_system_free(s);
  cpk_contact_system_free(s0);
}

int main(void)
{
  test_sphere_matrices();
  test_sphere_directions();
  test_sphere_acceleration();
  test_block();
  test_particle_cases();
  test_spinning();
  test_kelvin_voigt();
  test_jacobians();
  test_polyhedral_limit();
  test_user_directions();
  test_refusals();
  return t_done();
}
