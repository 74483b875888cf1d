/* t_distributed.c: the distributed compliance model of seed 001 section 4 against hand-derived punches (Winkler, tilted, sliding, partial slip), a dense active-set solve with coupled influence coefficients, kelvin-voigt, and its file format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include "formtest.h"
#include "testlib.h"

#define MAXE 9
#define S_PSI 0.01 /* scale of the gaps: with gn = S_PSI, an overlap of S_PSI * a carries force a */

/*
 * A rigid punch with generalized velocities (x, z, theta), mass diag(1, 1, 1), and
 * n elements on its face at x = xi_j: U_n = v_z + xi_j omega, U_t = v_x (the face is
 * at the height of the centre of mass, so friction makes no moment), no o motion.
 * Influence: G_nn(i, j) = gn exp(-|xi_i - xi_j| / ell) (ell = 0: diagonal, the
 * Winkler foundation), G_tt and G_oo diagonal gt.
 */
typedef struct scene {
  size_t n;
  double xi[MAXE], psi[MAXE], u0t[MAXE];
  double mu, v[3], k[3], h, gn, gt, ell;
} scene;

static double g_nn(const scene *S, size_t i, size_t j)
{
  if (S->ell == 0) return i == j ? S->gn : 0.0;
  return S->gn * exp(-fabs(S->xi[i] - S->xi[j]) / S->ell);
}

static int set_influence(const scene *S, cpk_contact_system *s)
{
  size_t m = 3 * S->n, nt = 0;
  cpk_int ti[3 * MAXE * MAXE], tj[3 * MAXE * MAXE];
  double tx[3 * MAXE * MAXE], u0[3 * MAXE] = {0};
  cpk_csc *G = NULL;
  for (size_t i = 0; i < S->n; i++) {
    for (size_t j = 0; j < S->n; j++)
      if (g_nn(S, i, j) != 0.0) {
        ti[nt] = (cpk_int)(3 * i), tj[nt] = (cpk_int)(3 * j), tx[nt++] = g_nn(S, i, j);
      }
    for (size_t a = 1; a < 3 && S->gt > 0; a++)
      ti[nt] = tj[nt] = (cpk_int)(3 * i + a), tx[nt++] = S->gt;
    u0[3 * i + 1] = S->u0t[i];
  }
  int rc = cpk_csc_from_triplets((cpk_int)m, (cpk_int)m, (cpk_int)nt, ti, tj, tx, &G);
  if (!rc) rc = cpk_contact_system_set_compliance_matrix(s, G, u0, NULL);
  cpk_csc_free(G);
  return rc;
}

static cpk_contact_system *punch(const scene *S)
{
  static const cpk_int rows[3] = {0, 1, 2};
  const double one[3] = {1, 1, 1};
  cpk_int di[3] = {0, 1, 2};
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  int rc = cpk_csc_from_triplets(3, 3, 3, di, di, one, &M);
  if (!rc) rc = cpk_contact_system_alloc_body(3, M, S->v, S->k, S->h, &s, NULL);
  for (size_t j = 0; !rc && j < S->n; j++) {
    cpk_contact_params p;
    const double wn[3] = {0, 1, S->xi[j]}, wt[3] = {1, 0, 0};
    cpk_contact_params_default(&p);
    p.psi = S->psi[j];
    p.mu = S->mu;
    rc = cpk_contact_system_add_contact(s, &p, 3, rows, wn, wt, NULL, NULL, NULL);
  }
  if (!rc) rc = set_influence(S, s);
  cpk_csc_free(M);
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

/* Element forces of z read by role (independently of cpk_varmap_impulses): with d = 2 plane
 * directions they are (1, 0) and (-1, 0), so P_t = beta_0 - beta_1. */
static void element_impulses(const cpk_varmap *m, const double *z, size_t n, double *pn,
                             double *pt)
{
  for (size_t j = 0; j < n; j++) {
    pn[j] = ft_get(m, z, CPK_ROLE_P_N, j, 0);
    size_t b0 = cpk_varmap_find(m, CPK_ROLE_P_D, j, 0), b1 = cpk_varmap_find(m, CPK_ROLE_P_D, j, 1);
    pt[j] = b0 == (size_t)-1 ? 0.0 : z[b0] - z[b1];
  }
}

/* v+ = v + h M^-1 k + M^-1 sum_j W_j P_j with M = I. */
static void next_velocity(const scene *S, const double *pn, const double *pt, double vp[3])
{
  for (int a = 0; a < 3; a++) vp[a] = S->v[a] + S->h * S->k[a];
  for (size_t j = 0; j < S->n; j++) {
    vp[0] += pt[j];
    vp[1] += pn[j];
    vp[2] += S->xi[j] * pn[j];
  }
}

/* Seed 001 eqs. (4.3)-(4.10) checked on the physics: gaps of the deformed surfaces, slips,
 * Coulomb per element, and the library's impulses and velocity agreeing with ours. */
static int physics_ok(const scene *S, const cpk_varmap *m, const double *z, double tol)
{
  double pn[MAXE], pt[MAXE], vp[3], vlib[3], P[4 * MAXE];
  int ok = 1;
  element_impulses(m, z, S->n, pn, pt);
  next_velocity(S, pn, pt, vp);
  ok &= cpk_varmap_velocity(m, z, vlib, NULL) == CPK_OK;
  ok &= cpk_varmap_impulses(m, z, P) == CPK_OK;
  for (int a = 0; a < 3; a++) ok &= fabs(vlib[a] - vp[a]) <= tol;
  for (size_t i = 0; i < S->n; i++) {
    double gap = S->psi[i] + S->h * (vp[1] + S->xi[i] * vp[2]), slip = vp[0];
    for (size_t j = 0; j < S->n; j++) gap += g_nn(S, i, j) * pn[j] / S->h;
    slip += (S->gt * pt[i] / S->h - S->u0t[i]) / S->h;
    ok &= pn[i] >= -tol && gap >= -tol && fabs(pn[i] * gap) <= tol;
    ok &= fabs(pt[i]) <= S->mu * pn[i] + tol;
    if (fabs(slip) > tol) ok &= fabs(pt[i] + S->mu * pn[i] * (slip > 0 ? 1 : -1)) <= tol;
    ok &= fabs(P[4 * i] - pn[i]) <= tol && fabs(P[4 * i + 1] - pt[i]) <= tol;
    if (!ok) printf("# element %zu: p_n %g gap %g p_t %g slip %g\n", i, pn[i], gap, pt[i], slip);
  }
  return ok;
}

typedef int (*answer_fn)(const scene *S, const cpk_varmap *m, const double *z);

/* Every registered solver that takes the problem; lemke, enum (small n) and, on monotone
 * problems, pgs and ipm must solve it; any solution claimed is checked. */
static void solve_all(const char *what, const scene *S, const cpk_problem *p, const cpk_varmap *m,
                      int monotone, answer_fn answer)
{
  for (size_t i = 0; i < cpk_solver_count(); i++) {
    const cpk_solver_type *T = cpk_solver_at(i);
    if (!cpk_solver_accepts(T, p) || (strcmp(T->name, "enum") == 0 && p->n > 14)) continue;
    int must = strcmp(T->name, "lemke") == 0 || strcmp(T->name, "enum") == 0 ||
               (monotone && (strcmp(T->name, "pgs") == 0 || strcmp(T->name, "ipm") == 0));
    cpk_result *r = ft_solve(p, T->name, 1e-11);
    int solved = r && r->status == CPK_STATUS_SOLVED;
    if (must) t_ok(solved, "%s: %s solves it (n = %zu)", what, T->name, p->n);
    if (!must && !solved)
      t_diag("%s: %s: %s (not required)", what, T->name,
             r ? cpk_status_name(r->status) : "refused");
    if (solved) {
      t_ok(t_is_mcp_solution(p, r->z, 1e-8), "%s: %s: z solves the MCP", what, T->name);
      t_ok(physics_ok(S, m, r->z, 1e-8), "%s: %s: gaps, slips, Coulomb", what, T->name);
      if (answer) t_ok(answer(S, m, r->z), "%s: %s: the hand-derived answer", what, T->name);
      if (monotone && strcmp(T->name, "enum") == 0)
        t_ok(r->nsolutions == 1, "%s: enum: exactly one solution (positive definite)", what);
    }
    cpk_result_free(r);
  }
}

static void run_form(const char *what, const scene *S, size_t d, int monotone, answer_fn answer,
                     cpk_problem_form form)
{
  cpk_contact_system *s = punch(S);
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  cpk_compile_options_default(&o);
  o.directions.d = d;
  o.form = form;
  int rc = s ? cpk_compile(s, "distributed", &o, &p, &m, &err) : CPK_ENOMEM;
  cpk_problem_kind want = form == CPK_FORM_MIXED ? CPK_KIND_AFFINE_MCP : CPK_KIND_LCP;
  if (!t_ok(rc == CPK_OK && p->kind == want, "%s: compiles to an %s", what,
            cpk_problem_kind_name(want)))
    printf("# %s\n", rc ? err.message : "not an LCP");
  else
    solve_all(what, S, p, m, monotone, answer);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
}

static void run(const char *what, const scene *S, size_t d, int monotone, answer_fn answer)
{
  run_form(what, S, d, monotone, answer, CPK_FORM_AUTO);
}

/* Statics: the punch stays at rest and element j carries N_j = max(0, -psi_j) / gn
 * (Winkler: pressure proportional to the local overlap), so P_n = h N_j. */
static int at_rest_winkler(const scene *S, const cpk_varmap *m, const double *z)
{
  double pn[MAXE], pt[MAXE], vp[3], total = 0, load = 0;
  int ok = 1;
  element_impulses(m, z, S->n, pn, pt);
  next_velocity(S, pn, pt, vp);
  ok &= fabs(vp[1]) < 1e-9 && fabs(vp[2]) < 1e-9;
  for (size_t j = 0; j < S->n; j++) {
    ok &= fabs(pn[j] - S->h * fmax(0.0, -S->psi[j]) / S->gn) < 1e-9;
    total += pn[j] / S->h;
    load += fmax(0.0, -S->psi[j]) / S->gn;
  }
  return ok && fabs(total - load) < 1e-8 && fabs(total + S->k[1]) < 1e-8;
}

/* Winkler punch with a curved face: 5 of 7 elements touch. */
static void test_winkler(void)
{
  scene S = {.n = 7, .h = 0.1, .gn = S_PSI, .gt = S_PSI};
  double F = 0.0, Mo = 0.0;
  for (size_t j = 0; j < S.n; j++) {
    double x = (double)j - 3;
    S.xi[j] = 0.5 * x;
    S.psi[j] = S_PSI * (-2.5 + x * x / 2);
    F += fmax(0.0, -S.psi[j]) / S.gn; /* 2.5 + 2 * 2 + 2 * 0.5 = 7.5 */
    Mo += S.xi[j] * fmax(0.0, -S.psi[j]) / S.gn;
  }
  t_near(F, 7.5, 1e-12, "winkler: the load is 7.5 by hand");
  S.k[1] = -F;
  S.k[2] = -Mo;
  run("winkler punch", &S, 8, 1, at_rest_winkler);
}

/* A flat face tilted so the last element is open (psi > 0): the applied force and moment are
 * those of the Winkler pressures, so the punch stays at rest with element 7 separated. */
static void test_tilted(void)
{
  scene S = {.n = 7, .h = 0.1, .gn = S_PSI, .gt = S_PSI};
  for (size_t j = 0; j < S.n; j++) {
    double x = (double)j - 3;
    S.xi[j] = 0.5 * x;
    S.psi[j] = S_PSI * (-1.2 + 0.5 * x);
    S.k[1] -= fmax(0.0, -S.psi[j]) / S.gn;
    S.k[2] -= S.xi[j] * fmax(0.0, -S.psi[j]) / S.gn;
  }
  t_ok(S.psi[6] > 0 && S.psi[5] < 0, "tilted: element 7 is open, element 6 overlaps");
  run("tilted punch", &S, 8, 1, at_rest_winkler);
}

/* Sliding fast: every element slides, P_t = -mu P_n, v_x+ = v_x - mu h F / m. */
static int all_sliding(const scene *S, const cpk_varmap *m, const double *z)
{
  double pn[MAXE], pt[MAXE], vp[3], fn = 0, ft = 0;
  int ok = at_rest_winkler(S, m, z);
  element_impulses(m, z, S->n, pn, pt);
  next_velocity(S, pn, pt, vp);
  for (size_t j = 0; j < S->n; j++) {
    ok &= fabs(pt[j] + S->mu * pn[j]) < 1e-9;
    fn += pn[j] / S->h;
    ft += pt[j] / S->h;
  }
  return ok && fabs(ft + S->mu * fn) < 1e-8 && fabs(vp[0] - (S->v[0] + S->mu * S->h * S->k[1])) < 1e-9;
}

/* Slow: the three inner elements stick, held by their tangential compliance, the two edge
 * elements (least pressure) slip (Cattaneo-Mindlin partial slip). By hand, with P_n =
 * (0.05, 0.2, 0.25, 0.2, 0.05) and mu = 0.3: an edge slips with P_t = -0.015; a stuck
 * element has v_x+ + gt P_t / h^2 = 0, i.e. P_t = -v_x+; momentum v_x+ = 0.15 + sum P_t
 * gives v_x+ = 0.03 and P_t = -0.03 < mu P_n. */
static int partial_slip(const scene *S, const cpk_varmap *m, const double *z)
{
  static const double want[5] = {-0.015, -0.03, -0.03, -0.03, -0.015};
  double pn[MAXE], pt[MAXE], vp[3], u[3 * MAXE];
  int ok = at_rest_winkler(S, m, z);
  element_impulses(m, z, S->n, pn, pt);
  next_velocity(S, pn, pt, vp);
  ok &= fabs(vp[0] - 0.03) < 1e-9;
  ok &= cpk_varmap_elastic_displacement(m, z, u) == CPK_OK;
  double U[4 * MAXE];
  int modes[MAXE];
  ok &= cpk_varmap_contact_velocities(m, z, U, NULL) == CPK_OK;
  ok &= cpk_varmap_modes(m, z, 1e-7, modes, NULL) == CPK_OK;
  for (size_t j = 0; j < 5; j++) {
    int edge = j == 0 || j == 4;
    /* the surfaces' slip: rigid 0.03 less the elastic rate gt P_t / h^2 (0.015 or 0.03) */
    ok &= fabs(U[4 * j + 1] - (edge ? 0.015 : 0.0)) < 1e-9;
    ok &= fabs(U[4 * j] + S->psi[j] / S->h) < 1e-9; /* the overlap psi closes over the step */
    ok &= modes[j] == (edge ? CPK_MODE_SLIDING : CPK_MODE_STICKING);
    ok &= fabs(pt[j] - want[j]) < 1e-9;
    ok &= fabs(u[3 * j] - S->gn * pn[j] / S->h) < 1e-12; /* G P / h */
    ok &= fabs(u[3 * j + 1] - S->gt * pt[j] / S->h) < 1e-12;
  }
  return ok;
}

static void friction_scene(scene *S, double vx)
{
  memset(S, 0, sizeof *S);
  S->n = 5;
  S->h = 0.1;
  S->gn = S->gt = S_PSI;
  S->mu = 0.3;
  S->v[0] = vx;
  for (size_t j = 0; j < S->n; j++) {
    double x = (double)j - 2;
    S->xi[j] = 0.5 * x;
    S->psi[j] = S_PSI * (-2.5 + x * x / 2);
    S->k[1] -= -S->psi[j] / S->gn;
  }
}

static void test_friction(void)
{
  scene S;
  friction_scene(&S, 2.0);
  run("sliding patch", &S, 2, 0, all_sliding);
  friction_scene(&S, 0.15);
  run("partial slip", &S, 2, 0, partial_slip);
  run_form("partial slip, mixed form", &S, 2, 0, partial_slip, CPK_FORM_MIXED);
  friction_scene(&S, 0.15);
  S.n = 3; /* a small one for enumeration: the inner three elements alone */
  for (size_t j = 0; j < 3; j++) {
    S.xi[j] = S.xi[j + 1];
    S.psi[j] = S.psi[j + 1];
  }
  S.k[1] = -(2 + 2.5 + 2);
  run("three elements, friction", &S, 2, 0, NULL);
}

/* The active set of z, solved again as a dense linear system of the physics (GSL LU):
 *   v+ - sum_{j in A} W_j P_j = v + h k                              (momentum, M = I)
 *   h W_j^T v+ + sum_{l in A} G_jl P_l / h = -psi_j,  j in A         (closed gaps, eq. (4.3))
 * then P must be positive on A and the open gaps non-negative. */
static int active_set_ok(const scene *S, const cpk_varmap *m, const double *z)
{
  double pn[MAXE], pt[MAXE], vp[3], vlib[3];
  size_t A[MAXE], na = 0;
  element_impulses(m, z, S->n, pn, pt);
  for (size_t j = 0; j < S->n; j++)
    if (pn[j] > 1e-9) A[na++] = j;
  size_t N = 3 + na;
  gsl_matrix *K = gsl_matrix_calloc(N, N);
  gsl_vector *b = gsl_vector_alloc(N), *x = gsl_vector_alloc(N);
  gsl_permutation *perm = gsl_permutation_alloc(N);
  int sign, ok = na > 0 && na < S->n;
  for (size_t a = 0; a < 3; a++) {
    gsl_matrix_set(K, a, a, 1.0);
    gsl_vector_set(b, a, S->v[a] + S->h * S->k[a]);
  }
  for (size_t r = 0; r < na; r++) {
    const double w[3] = {0, 1, S->xi[A[r]]};
    for (size_t a = 0; a < 3; a++) {
      gsl_matrix_set(K, a, 3 + r, -w[a]);
      gsl_matrix_set(K, 3 + r, a, S->h * w[a]);
    }
    for (size_t c = 0; c < na; c++) gsl_matrix_set(K, 3 + r, 3 + c, g_nn(S, A[r], A[c]) / S->h);
    gsl_vector_set(b, 3 + r, -S->psi[A[r]]);
  }
  ok &= gsl_linalg_LU_decomp(K, perm, &sign) == 0 && gsl_linalg_LU_solve(K, perm, b, x) == 0;
  printf("# active set: %zu of %zu elements\n", na, S->n);
  ok &= cpk_varmap_velocity(m, z, vlib, NULL) == CPK_OK;
  for (size_t a = 0; ok && a < 3; a++) ok &= fabs(gsl_vector_get(x, a) - vlib[a]) < 1e-9;
  for (size_t r = 0; ok && r < na; r++)
    ok &= gsl_vector_get(x, 3 + r) > 0 && fabs(gsl_vector_get(x, 3 + r) - pn[A[r]]) < 1e-9;
  next_velocity(S, pn, pt, vp);
  for (size_t j = 0; ok && j < S->n; j++) {
    double gap = S->psi[j] + S->h * (vp[1] + S->xi[j] * vp[2]);
    for (size_t l = 0; l < S->n; l++) gap += g_nn(S, j, l) * pn[l] / S->h;
    ok &= pn[j] > 1e-9 || gap >= -1e-9;
  }
  gsl_matrix_free(K);
  gsl_vector_free(b);
  gsl_vector_free(x);
  gsl_permutation_free(perm);
  return ok;
}

/* Coupled influence coefficients (a positive definite exponential kernel: pressing one
 * element lowers its neighbours), a moving tilted punch: checked against a dense solve. */
static void test_coupled(void)
{
  scene S = {.n = 7, .h = 0.1, .gn = S_PSI, .gt = S_PSI, .ell = 0.6};
  S.v[1] = -0.02;
  S.v[2] = 0.02;
  S.k[1] = -0.5;
  for (size_t j = 0; j < S.n; j++) {
    double x = (double)j - 3;
    S.xi[j] = 0.5 * x;
    S.psi[j] = S_PSI * (-0.3 + 0.5 * x);
  }
  run("coupled influence, moving punch", &S, 8, 1, active_set_ok);
}

/* z solves U = G N + psi >= 0 _|_ N >= 0, and G_AA N_A = -psi_A on its active set (GSL LU). */
static int eq48_ok(size_t n, const double G[6][6], const double *psi, const double *z)
{
  size_t A[6], na = 0;
  int sign, ok = 1;
  for (size_t j = 0; j < n; j++)
    if (z[j] > 1e-12) A[na++] = j;
  size_t N = na ? na : 1;
  gsl_matrix *K = gsl_matrix_alloc(N, N);
  gsl_vector *b = gsl_vector_alloc(N), *x = gsl_vector_alloc(N);
  gsl_permutation *perm = gsl_permutation_alloc(N);
  for (size_t a = 0; a < na; a++) {
    for (size_t c = 0; c < na; c++) gsl_matrix_set(K, a, c, G[A[a]][A[c]]);
    gsl_vector_set(b, a, -psi[A[a]]);
  }
  ok &= na > 0 && na < n && gsl_linalg_LU_decomp(K, perm, &sign) == 0 &&
        gsl_linalg_LU_solve(K, perm, b, x) == 0;
  for (size_t a = 0; ok && a < na; a++) ok &= fabs(gsl_vector_get(x, a) - z[A[a]]) < 1e-9;
  for (size_t j = 0; ok && j < n; j++) {
    double u = psi[j];
    for (size_t l = 0; l < n; l++) u += G[j][l] * z[l];
    ok &= u >= -1e-10 && (z[j] <= 1e-12 || fabs(u) < 1e-10);
  }
  gsl_matrix_free(K);
  gsl_vector_free(b);
  gsl_vector_free(x);
  gsl_permutation_free(perm);
  return ok;
}

/* Eq. (4.8) alone (rigid motion prescribed): a local-form system with W = 0 and h = 1 is
 * U = G N + psi >= 0 _|_ N >= 0, checked by a dense solve of the active set. */
static void test_local_48(void)
{
  const size_t n = 6;
  double q[18] = {0}, psi[6] = {-0.03, -0.02, 0.005, -0.01, 0.02, -0.025};
  cpk_int ti[36], tj[36];
  double tx[36], Gd[6][6];
  size_t nt = 0;
  cpk_csc *W = NULL, *G = NULL;
  cpk_contact_system *s = NULL;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      Gd[i][j] = 0.01 / (1.0 + fabs((double)i - (double)j)); /* positive definite (Polya) */
      ti[nt] = (cpk_int)(3 * i), tj[nt] = (cpk_int)(3 * j), tx[nt++] = Gd[i][j];
    }
  int rc = cpk_csc_alloc(18, 18, 0, &W);
  for (cpk_int j = 0; !rc && j <= 18; j++) W->p[j] = 0;
  if (!rc) rc = cpk_contact_system_alloc_local(n, 3, W, q, NULL, 1.0, &s, NULL);
  for (size_t i = 0; !rc && i < n; i++) {
    cpk_contact_params cp = s->contacts[i];
    cp.psi = psi[i];
    rc = cpk_contact_set_params(s, i, &cp, NULL);
  }
  if (!rc) rc = cpk_csc_from_triplets(18, 18, (cpk_int)nt, ti, tj, tx, &G);
  if (!rc) rc = cpk_contact_system_set_compliance_matrix(s, G, NULL, NULL);
  if (!rc) rc = cpk_compile(s, "distributed", NULL, &p, &m, NULL);
  t_ok(rc == CPK_OK && p->n == n, "eq. (4.8): local form compiles to an LCP of size %zu", n);
  for (size_t i = 0; !rc && i < cpk_solver_count(); i++) {
    const cpk_solver_type *T = cpk_solver_at(i);
    cpk_result *r = cpk_solver_accepts(T, p) ? ft_solve(p, T->name, 1e-12) : NULL;
    if (!r) continue;
    int ok = r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-9);
    t_ok(ok && eq48_ok(n, (const double(*)[6])Gd, psi, r->z),
         "eq. (4.8): %s: N >= 0 _|_ G N + C >= 0, and G_AA N_A = -C_A on its active set",
         T->name);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s);
  cpk_csc_free(W);
  cpk_csc_free(G);
}

/* Lemke's solution of system s compiled with model; impulses P (4 per contact) and v+. */
static int lemke_solution(const cpk_contact_system *s, const char *model, size_t d, double *P,
                          double *vp)
{
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_compile_options_default(&o);
  o.directions.d = d;
  int rc = cpk_compile(s, model, &o, &p, &m, NULL);
  cpk_result *r = rc ? NULL : ft_solve(p, "lemke", 1e-12);
  rc = r && r->status == CPK_STATUS_SOLVED ? cpk_varmap_impulses(m, r->z, P) : CPK_EINVAL;
  if (!rc && vp) rc = cpk_varmap_velocity(m, r->z, vp, NULL);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return rc;
}

/* A diagonal influence matrix is a spring per element: kelvin-voigt with K = 1/g, C = 0 and
 * no rigid core has the same normal rows, so both models must agree. */
static void test_kelvin_voigt(void)
{
  scene S = {.n = 7, .h = 0.1, .gn = S_PSI, .gt = S_PSI};
  double P1[4 * MAXE], P2[4 * MAXE], v1[3], v2[3];
  S.v[1] = -0.02;
  S.k[1] = -0.5;
  for (size_t j = 0; j < S.n; j++) {
    S.xi[j] = 0.5 * ((double)j - 3);
    S.psi[j] = S_PSI * (-0.3 + 0.5 * ((double)j - 3));
  }
  cpk_contact_system *dist = punch(&S), *kv = punch(&S);
  int rc = dist && kv ? cpk_contact_system_set_compliance_matrix(kv, NULL, NULL, NULL) : 1;
  for (size_t j = 0; !rc && j < S.n; j++) {
    cpk_contact_params p = kv->contacts[j];
    p.compliant = 1;
    p.K[0] = 1 / S.gn;
    p.K[4] = p.K[8] = 1 / S.gt;
    rc = cpk_contact_set_params(kv, j, &p, NULL);
  }
  if (!rc) rc = lemke_solution(dist, "distributed", 8, P1, v1);
  if (!rc) rc = lemke_solution(kv, "kelvin-voigt", 8, P2, v2);
  double diff = 0.0;
  for (size_t j = 0; !rc && j < S.n; j++) diff = fmax(diff, fabs(P1[4 * j] - P2[4 * j]));
  for (int a = 0; !rc && a < 3; a++) diff = fmax(diff, fabs(v1[a] - v2[a]));
  t_ok(rc == CPK_OK && diff < 1e-9, "diagonal influence = kelvin-voigt springs (difference %g)",
       diff);
  cpk_contact_system_free(dist);
  cpk_contact_system_free(kv);
}

/* One element in local form, W = I, G = I, h = 1, mu = 0.5, psi = -0.1: P_n + 0.1 ... gives
 * 2 P_n = 0.1. Tangentially the slip is P_t + (P_t - u0_t) = 2 P_t - u0_t: with u0_t = 0.02
 * the element sticks with P_t = 0.01 < mu P_n = 0.025 (the stored displacement pushes back);
 * with u0_t = 0.1 it slides back (slip -0.05) with P_t = mu P_n. */
static void test_history(void)
{
  const double u0s[2] = {0.02, 0.1}, pts[2] = {0.01, 0.025};
  cpk_int di[3] = {0, 1, 2};
  const double one[3] = {1, 1, 1}, q[3] = {0, 0, 0}, mu = 0.5;
  for (int c = 0; c < 2; c++) {
    cpk_csc *I3 = NULL;
    cpk_contact_system *s = NULL;
    double u0[3] = {0, u0s[c], 0}, P[4] = {0}, U[4] = {0};
    int rc = cpk_csc_from_triplets(3, 3, 3, di, di, one, &I3);
    if (!rc) rc = cpk_contact_system_alloc_local(1, 3, I3, q, &mu, 1.0, &s, NULL);
    if (!rc) {
      cpk_contact_params p = s->contacts[0];
      p.psi = -0.1;
      rc = cpk_contact_set_params(s, 0, &p, NULL);
    }
    if (!rc) rc = cpk_contact_system_set_compliance_matrix(s, I3, u0, NULL);
    if (!rc) rc = lemke_solution(s, "distributed", 4, P, NULL);
    U[1] = 2 * P[1] - u0s[c];
    t_ok(rc == CPK_OK && fabs(P[0] - 0.05) < 1e-12 && fabs(P[1] - pts[c]) < 1e-12 &&
             fabs(P[2]) < 1e-12,
         "history u0_t = %g: P = (%g, %g, %g), slip %g", u0s[c], P[0], P[1], P[2], U[1]);
    cpk_contact_system_free(s);
    cpk_csc_free(I3);
  }
}

static void test_errors(void)
{
  scene S = {.n = 3, .h = 0.1, .gn = S_PSI, .gt = S_PSI, .xi = {-0.5, 0, 0.5}};
  cpk_contact_system *s = punch(&S);
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_contact_model model;
  cpk_error err;
  double u[9];
  t_ok(cpk_contact_model_from_name("distributed", &model) == CPK_OK &&
           model == CPK_MODEL_DISTRIBUTED &&
           strcmp(cpk_contact_model_name(CPK_MODEL_DISTRIBUTED), "distributed") == 0,
       "the model is called \"distributed\"");
  int rc = cpk_compile(s, "polyhedral", NULL, &p, &m, NULL);
  t_ok(rc == CPK_OK && cpk_varmap_elastic_displacement(m, u, u) == CPK_EUNSUP,
       "elastic displacement of another model: unsupported");
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_csc *bad = NULL;
  cpk_csc_alloc(6, 6, 0, &bad);
  for (int j = 0; bad && j <= 6; j++) bad->p[j] = 0;
  t_ok(cpk_contact_system_set_compliance_matrix(s, bad, NULL, &err) == CPK_EINVAL,
       "a 6 x 6 influence matrix for 3 contacts is refused: %s", err.message);
  cpk_csc_free(bad);
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  const cpk_int rows[1] = {1};
  const double wn[1] = {1};
  cpk_contact_system_add_contact(s, &cp, 1, rows, wn, NULL, NULL, NULL, NULL);
  rc = cpk_compile(s, "distributed", NULL, &p, &m, &err);
  t_ok(rc == CPK_EINVAL && !p && !m, "a contact added after the influence matrix: %s",
       err.message);
  cpk_contact_system_set_compliance_matrix(s, NULL, NULL, NULL);
  rc = cpk_compile(s, "distributed", NULL, &p, &m, &err);
  t_ok(rc == CPK_EINVAL, "no influence matrix: %s", err.message);
  cpk_contact_system_free(s);
  S.h = 0;
  s = punch(&S);
  rc = s ? cpk_compile(s, "distributed", NULL, &p, &m, &err) : CPK_ENOMEM;
  t_ok(rc == CPK_EINVAL, "h = 0: %s", err.message);
  cpk_contact_system_free(s);
}

/* Written and read back, a system compiles to the same LCP, entry for entry. */
static void test_json(void)
{
  scene S = {.n = 4, .h = 0.1, .gn = S_PSI, .gt = 0.02, .ell = 0.6, .mu = 0.4,
             .xi = {-0.75, -0.25, 0.25, 0.75}, .psi = {-0.01, 0.002, -0.003, 0.004},
             .u0t = {0.001, -0.002, 0, 0.0005}, .v = {0.1, -0.2, 0.05}, .k = {0, -9.81, 0}};
  cpk_contact_system *s = punch(&S), *back = NULL;
  cpk_problem *p1 = NULL, *p2 = NULL;
  cpk_varmap *m1 = NULL, *m2 = NULL;
  char *text = NULL;
  size_t len = 0;
  cpk_error err;
  FILE *f = open_memstream(&text, &len);
  int rc = s && f ? cpk_contact_system_write_json(s, f, &err) : CPK_ENOMEM;
  if (f) fclose(f);
  if (!rc) rc = cpk_contact_system_read_json_string(text, "memory", &back, &err);
  t_ok(rc == CPK_OK, "influence and u0 written and read back%s%s", rc ? ": " : "",
       rc ? err.message : "");
  if (!rc) rc = cpk_compile(s, "distributed", NULL, &p1, &m1, &err);
  if (!rc) rc = cpk_compile(back, "distributed", NULL, &p2, &m2, &err);
  int same = !rc && p1->n == p2->n;
  for (size_t i = 0; same && i < p1->n; i++) {
    same &= p1->q[i] == p2->q[i];
    for (size_t j = 0; same && j < p1->n; j++)
      same &= cpk_matrix_get(p1->M, i, j) == cpk_matrix_get(p2->M, i, j);
  }
  for (size_t i = 0; same && i < 3 * S.n; i++) same &= s->u0[i] == back->u0[i];
  t_ok(same, "the read system compiles to the same LCP (n = %zu)", p1 ? p1->n : 0);
  static const char *const bad[2] = {
      "{\"cpkit_contact_system\": 1, \"form\": \"local\", \"q\": [0, 0, 0],\n"
      " \"W\": {\"diagonal\": [1, 1, 1]}, \"mu\": [0],\n \"influence\": {\"diagonal\": [1, 1]}}",
      "{\"cpkit_contact_system\": 1, \"form\": \"local\", \"q\": [0, 0, 0],\n"
      " \"W\": {\"diagonal\": [1, 1, 1]}, \"mu\": [0],\n \"u0\": [0, 0, 0]}"};
  for (int b = 0; b < 2; b++) {
    cpk_contact_system *x = NULL;
    rc = cpk_contact_system_read_json_string(bad[b], "bad.json", &x, &err);
    t_ok(rc == CPK_EPARSE && strstr(err.message, "bad.json:3:") != NULL, "bad file refused: %s",
         err.message);
    cpk_contact_system_free(x);
  }
  free(text);
  cpk_problem_free(p1);
  cpk_problem_free(p2);
  cpk_varmap_free(m1);
  cpk_varmap_free(m2);
  cpk_contact_system_free(s);
  cpk_contact_system_free(back);
}

int main(void)
{
  gsl_set_error_handler_off();
  test_winkler();
  test_tilted();
  test_friction();
  test_coupled();
  test_local_48();
  test_kelvin_voigt();
  test_history();
  test_errors();
  test_json();
  return t_done();
}
