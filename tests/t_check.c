/* t_check.c: the check module on matrices whose classes are known by hand, random agreement with enum/lemke, speed, and the contact conditions (Theorem 1 friction bounds and part B, Stewart-Trinkle). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

static cpk_check_report *classes(size_t n, const double *a)
{
  cpk_matrix *M = NULL;
  cpk_check_report *r = NULL;
  cpk_matrix_alloc_dense(n, n, &M);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) gsl_matrix_set(M->dense, i, j, a[i * n + j]);
  cpk_check_report_alloc(&r);
  int rc = cpk_check_matrix_classes(M, NULL, r, NULL);
  t_ok(rc == CPK_OK, "classes of a %zux%zu matrix computed", n, n);
  cpk_matrix_free(M);
  return r;
}

static int verdict(const cpk_check_report *r, const char *name)
{
  const cpk_check_entry *e = cpk_check_report_find(r, name);
  return e ? (int)e->verdict : -1;
}

static void expect(const cpk_check_report *r, const char *label, const char *name, cpk_verdict v)
{
  t_ok(verdict(r, name) == (int)v, "%s: %s %s", label, name, cpk_verdict_name(v));
}

static void known_matrices(void)
{
  double pnotpd[] = {1, -3, 0, 1}; /* minors 1, 1, 1; (M+M')/2 has eigenvalue -0.5 */
  cpk_check_report *r = classes(2, pnotpd);
  expect(r, "P not PD", "p_matrix", CPK_VERDICT_HOLDS);
  expect(r, "P not PD", "sym_pd", CPK_VERDICT_FAILS);
  expect(r, "P not PD", "r0", CPK_VERDICT_HOLDS);
  cpk_check_report_free(r);
  double cop_not_plus[] = {0, 1, 0, 0}; /* z = e1: z'Mz = 0 but (M+M')z = e2 */
  r = classes(2, cop_not_plus);
  expect(r, "copositive not plus", "copositive", CPK_VERDICT_HOLDS);
  expect(r, "copositive not plus", "copositive_plus", CPK_VERDICT_FAILS);
  expect(r, "copositive not plus", "strictly_copositive", CPK_VERDICT_FAILS);
  cpk_check_report_free(r);
  double psd_not_p[] = {0, 0, 0, 1}; /* z = e1 solves LCP(0, M): not R0 */
  r = classes(2, psd_not_p);
  expect(r, "PSD not P", "sym_psd", CPK_VERDICT_HOLDS);
  expect(r, "PSD not P", "p_matrix", CPK_VERDICT_FAILS);
  expect(r, "PSD not P", "p0_matrix", CPK_VERDICT_HOLDS);
  expect(r, "PSD not P", "r0", CPK_VERDICT_FAILS);
  expect(r, "PSD not P", "copositive_plus", CPK_VERDICT_HOLDS);
  cpk_check_report_free(r);
  double ones[] = {1, 1, 1, 1}; /* singular PSD, yet z >= 0, Mz = 0 forces z = 0 */
  r = classes(2, ones);
  expect(r, "ones", "p_matrix", CPK_VERDICT_FAILS);
  expect(r, "ones", "r0", CPK_VERDICT_HOLDS);
  cpk_check_report_free(r);
  double strict[] = {1, 3, 3, 1}; /* indefinite, non-negative entries, positive diagonal */
  r = classes(2, strict);
  expect(r, "non-negative", "strictly_copositive", CPK_VERDICT_HOLDS);
  expect(r, "non-negative", "sym_psd", CPK_VERDICT_FAILS);
  expect(r, "non-negative", "p_matrix", CPK_VERDICT_FAILS);
  cpk_check_report_free(r);
  double neg3[] = {1, -0.6, -0.6, -0.6, 1, -0.6, -0.6, -0.6, 1}; /* (1,1,1)'M(1,1,1) = -0.6 */
  r = classes(3, neg3);
  expect(r, "2x2-copositive 3x3", "copositive", CPK_VERDICT_FAILS);
  cpk_check_report_free(r);
  double horn[] = {1, -1, 1,  1,  -1, -1, 1, -1, 1,  1, 1, -1, 1, -1, 1,
                   1, 1, -1, 1, -1, -1, 1, 1,  -1, 1}; /* Horn: copositive, not PSD */
  r = classes(5, horn);
  expect(r, "Horn", "copositive", CPK_VERDICT_HOLDS);
  expect(r, "Horn", "strictly_copositive", CPK_VERDICT_FAILS);
  expect(r, "Horn", "sym_psd", CPK_VERDICT_FAILS);
  cpk_check_report_free(r);
}

static double det3(const double *a, const int *s, int k)
{
  if (k == 1) return a[s[0] * 3 + s[0]];
  if (k == 2) return a[s[0] * 3 + s[0]] * a[s[1] * 3 + s[1]] - a[s[0] * 3 + s[1]] * a[s[1] * 3 + s[0]];
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* P by all seven principal minors, computed here independently. */
static int is_p3(const double *a)
{
  for (unsigned m = 1; m < 8; m++) {
    int s[3], k = 0;
    for (int i = 0; i < 3; i++)
      if (m >> i & 1) s[k++] = i;
    if (!(det3(a, s, k) > 1e-9)) return 0;
  }
  return 1;
}

static size_t nsolutions(const cpk_matrix *M, const double *q, cpk_status *st)
{
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_problem_alloc_lcp(M, q, &p);
  cpk_result_alloc(3, &r);
  cpk_solve(p, "enum", NULL, r, NULL);
  size_t k = r->status == CPK_STATUS_SOLVED ? r->nsolutions : 0;
  *st = r->status;
  cpk_solve(p, "lemke", NULL, r, NULL);
  if (k && r->status != CPK_STATUS_SOLVED) *st = CPK_STATUS_STALLED; /* lemke missed one */
  cpk_result_free(r);
  cpk_problem_free(p);
  return k;
}

static void random_agreement(void)
{
  srand(12345);
  int bad_p = 0, bad_unique = 0, bad_exist = 0, bad_lemke = 0, np = 0, ncp = 0;
  for (int t = 0; t < 60; t++) {
    double a[9], q[3];
    for (int i = 0; i < 9; i++) a[i] = 4.0 * rand() / RAND_MAX - 1.0;
    cpk_check_report *r = classes(3, a);
    int p = verdict(r, "p_matrix") == CPK_VERDICT_HOLDS;
    int cplus = verdict(r, "copositive_plus") == CPK_VERDICT_HOLDS;
    int scop = verdict(r, "strictly_copositive") == CPK_VERDICT_HOLDS;
    bad_p += p != is_p3(a);
    np += p;
    ncp += cplus;
    cpk_matrix *M = NULL;
    cpk_matrix_alloc_dense(3, 3, &M);
    memcpy(M->dense->data, a, sizeof a);
    for (int s = 0; s < 5; s++) {
      for (int i = 0; i < 3; i++) q[i] = 2.0 * rand() / RAND_MAX - 1.0;
      cpk_status st;
      size_t k = nsolutions(M, q, &st);
      if (p && k != 1) bad_unique++;
      if (scop && k == 0) bad_exist++;
      if (cplus && st == CPK_STATUS_STALLED) bad_lemke++;
    }
    cpk_matrix_free(M);
    cpk_check_report_free(r);
  }
  t_ok(bad_p == 0, "P verdict agrees with all principal minors (%d disagreements, %d P)", bad_p, np);
  t_ok(bad_unique == 0, "P-matrices: enum finds exactly one solution for random q");
  t_ok(bad_exist == 0, "strictly copositive: enum finds a solution for random q");
  t_ok(bad_lemke == 0, "copositive-plus: lemke solves whenever enum finds a solution (%d such M)", ncp);
}

static void painleve(void)
{
  const char *names[] = {"data/check/painleve_peg.cpk", "data/check/sliding_rod.cpk"};
  size_t expected[] = {0, 2};
  for (int k = 0; k < 2; k++) {
    cpk_problem *p = NULL;
    cpk_check_report *r = NULL;
    int rc = cpk_problem_read_file(t_srcpath(names[k]), &p, NULL);
    cpk_check_report_alloc(&r);
    if (!rc) rc = cpk_check_problem(p, NULL, r, NULL);
    t_ok(rc == CPK_OK && verdict(r, "solution_count") == CPK_VERDICT_HOLDS &&
             r->nsolutions == expected[k],
         "%s: %zu solutions by enumeration", names[k], expected[k]);
    for (size_t s = 0; rc == CPK_OK && s < r->nsolutions; s++) {
      t_ok(t_is_mcp_solution(p, &r->solutions[s * p->n], 1e-9), "%s: listed solution %zu checks",
           names[k], s + 1);
    }
    cpk_check_report_free(r);
    cpk_problem_free(p);
  }
}

static void speed(void)
{
  size_t n = 500;
  cpk_matrix *M = NULL;
  cpk_check_report *r = NULL;
  cpk_matrix_alloc_dense(n, n, &M);
  srand(7);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set(M->dense, i, j, (i == j ? 2.0 : 0.0) + 0.01 * rand() / RAND_MAX);
  cpk_check_report_alloc(&r);
  double t0 = cpk_wtime();
  int rc = cpk_check_matrix_classes(M, NULL, r, NULL);
  double dt = cpk_wtime() - t0;
  t_diag("matrix classes for n = 500 took %.3f s", dt);
  t_ok(rc == CPK_OK && dt < 5.0, "n = 500 checked in %.3f s", dt);
  expect(r, "n=500", "r0", CPK_VERDICT_HOLDS);
  cpk_check_report_free(r);
  cpk_matrix_free(M);
}

/* Delassus eigenvalue range printed in the delassus_pd reason. */
/* One rigid body (mass 1, inertia 0.4 I) with point contacts at r[c] (normal n, tangent t, no o column). */
static cpk_contact_system *one_body(double h, const double *v, size_t nc, const double (*pt)[3],
                                    const double (*tan)[3], const double *mu, double psi)
{
  cpk_int ti[6] = {0, 1, 2, 3, 4, 5};
  double tx[6] = {1, 1, 1, 0.4, 0.4, 0.4}, nrm[3] = {0, 0, 1}, wn[6], wt[6], wo[6], wr[6];
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.psi = psi;
  int rc = cpk_csc_from_triplets(6, 6, 6, ti, ti, tx, &M);
  if (!rc) rc = cpk_contact_system_alloc_body(6, M, v, NULL, h, &s, NULL);
  for (size_t c = 0; c < nc && !rc; c++) {
    cp.mu = mu[c];
    rc = cpk_rigid_contact_wrenches(pt[c], nrm, tan[c], wn, wt, wo, wr);
    if (!rc) rc = cpk_contact_system_add_contact(s, &cp, 6, ti, wn, wt, NULL, NULL, NULL);
  }
  cpk_csc_free(M);
  t_ok(rc == CPK_OK, "system with %zu contact(s) built", nc);
  return s;
}

static double reason_number(const cpk_check_report *r, const char *name, const char *key)
{
  const cpk_check_entry *e = cpk_check_report_find(r, name);
  const char *at = e ? strstr(e->reason, key) : NULL;
  if (!at) return NAN;
  if (strncmp(at + strlen(key), "unbounded", 9) == 0) return INFINITY;
  return strtod(at + strlen(key), NULL);
}

static cpk_check_report *check_system(const cpk_contact_system *s, const char *model)
{
  cpk_check_report *r = NULL;
  cpk_check_report_alloc(&r);
  int rc = s && r ? cpk_check_contact(s, model, NULL, r, NULL) : CPK_EINVAL;
  t_ok(rc == CPK_OK, "contact system checked (model %s)", model ? model : "none");
  return r;
}

/*
 * A body sliding along +x at h = 0 on one contact at r = (x, 0, z) below its centre: by hand
 * A_nn = 1 + x^2/I, A_nt = -x z / I (I = 0.4), friction -mu c_n along t, so the normal
 * problem is (A_nn - mu A_nt) c_n + q: P (and PD) exactly for mu < A_nn / A_nt.
 */
static void friction_bound_one(void)
{
  const double pt[1][3] = {{1, 0, -1}}, tan[1][3] = {{1, 0, 0}}, v[6] = {1, 0, 0, 0, 0, 0};
  const double I = 0.4, x = 1, z = -1, bound = (1 + x * x / I) / (-x * z / I);
  const double mus[3] = {0.5 * bound, 0.99 * bound, 1.01 * bound};
  for (int k = 0; k < 3; k++) {
    cpk_contact_system *s = one_body(0, v, 1, pt, tan, &mus[k], 0);
    cpk_check_report *r = check_system(s, NULL);
    t_near(reason_number(r, "friction_bound", "mu_bar = "), bound, 1e-5 * bound,
           "one contact: mu_bar = A_nn / A_nt = %g", bound);
    t_near(reason_number(r, "friction_bound_pd", "for mu < "), bound, 1e-5 * bound,
           "one contact: uniform PD bound");
    t_near(reason_number(r, "friction_bound_p", "for mu < "), bound, 1e-5 * bound,
           "one contact: exact P bound");
    expect(r, "one contact", "friction_check", k < 2 ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS);
    expect(r, "one contact sliding", "theorem1_b", CPK_VERDICT_NOT_DECIDED);
    cpk_check_report_free(r);
    cpk_contact_system_free(s);
  }
}

/* p_matrix verdict of the problem compiled by point-coulomb, reduced: at h = 0 with every contact
 * sliding its M is the sliding-contact matrix, built by the compiler, not by the check module. */
static int compiled_is_p(const cpk_contact_system *s)
{
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  cpk_check_report *r = NULL;
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_REDUCED;
  int rc = cpk_compile(s, "point-coulomb", &o, &p, &map, NULL);
  if (!rc) rc = cpk_check_report_alloc(&r);
  if (!rc) rc = cpk_check_matrix_classes(p->M, NULL, r, NULL);
  int v = rc ? -1 : verdict(r, "p_matrix");
  cpk_check_report_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  return v;
}

/* Two contacts sliding in different directions: the three bounds are ordered, and the exact P
 * bound is where the compiler's own matrix stops being P. */
static void friction_bound_two(void)
{
  const double pt[2][3] = {{1, 0.3, -1}, {-0.4, 1, -0.5}}, tan[2][3] = {{1, 0, 0}, {0, 1, 0}};
  const double v[6] = {1, 1, 0, 0, 0, 0};
  double mu[2] = {0.1, 0.1};
  cpk_contact_system *s = one_body(0, v, 2, pt, tan, mu, 0);
  cpk_check_report *r = check_system(s, NULL);
  double mbox = reason_number(r, "friction_bound", "mu_bar = ");
  double mpd = reason_number(r, "friction_bound_pd", "for mu < ");
  double mp = reason_number(r, "friction_bound_p", "for mu < ");
  expect(r, "two contacts", "delassus_pd", CPK_VERDICT_HOLDS);
  t_ok(mbox > 0 && mbox <= mpd * (1 + 1e-9) && mpd <= mp * (1 + 1e-9) && isfinite(mp),
       "two contacts: 0 < box bound %g <= PD bound %g <= P bound %g", mbox, mpd, mp);
  cpk_check_report_free(r);
  /* between the PD and the P bound the matrix is P without a definite symmetric part */
  const double at[3] = {0.999 * mp, 0.5 * (mpd + mp), 1.001 * mp};
  for (int k = 0; k < 3 && isfinite(mp); k++) {
    mu[0] = mu[1] = at[k];
    cpk_contact_system *s2 = one_body(0, v, 2, pt, tan, mu, 0);
    t_ok(compiled_is_p(s2) == (k == 2 ? CPK_VERDICT_FAILS : CPK_VERDICT_HOLDS),
         "two contacts: compiled matrix at mu = %g is %sP", at[k], k == 2 ? "not " : "");
    r = check_system(s2, NULL);
    expect(r, "two contacts at the system's mu", "friction_check",
           k == 2 ? CPK_VERDICT_FAILS : CPK_VERDICT_HOLDS);
    cpk_check_report_free(r);
    cpk_contact_system_free(s2);
  }
  cpk_contact_system_free(s);
}

/* Contact 1 slides, contact 2 rolls with friction: the bound does not cover contact 2. */
static void rolling_not_covered(void)
{
  const double pt[2][3] = {{1, 0.3, -1}, {-0.4, 1, -0.5}}, tan[2][3] = {{1, 0, 0}, {0, 1, 0}};
  const double v[6] = {1, 0, 0, 0, 0, 0}, mu[2] = {0.1, 0.1};
  cpk_contact_system *s = one_body(0, v, 2, pt, tan, mu, 0);
  cpk_check_report *r = check_system(s, NULL);
  expect(r, "slide + roll", "friction_bound", CPK_VERDICT_HOLDS);
  expect(r, "slide + roll", "friction_check", CPK_VERDICT_NOT_DECIDED);
  const cpk_check_entry *e = cpk_check_report_find(r, "friction_check");
  t_ok(e && strstr(e->reason, "{2}"), "slide + roll: the rolling contact 2 is named");
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
}

/* Part (B), all contacts rolling at h = 0: exact when J has full rank, not decided otherwise. */
static void part_b(void)
{
  const double pt[2][3] = {{0, 0, -1}, {0, 0, -1}}, tan[2][3] = {{1, 0, 0}, {1, 0, 0}};
  const double mu[2] = {0.3, 0.3};
  cpk_contact_system *s = one_body(0, NULL, 1, pt, tan, mu, 0);
  cpk_check_report *r = check_system(s, NULL);
  expect(r, "rolling sphere", "theorem1_b", CPK_VERDICT_HOLDS);
  expect(r, "rolling sphere", "friction_bound", CPK_VERDICT_NOT_DECIDED);
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
  s = one_body(0, NULL, 2, pt, tan, mu, 0); /* two equal contacts: dependent columns */
  r = check_system(s, NULL);
  expect(r, "rolling dependent", "delassus_pd", CPK_VERDICT_FAILS);
  /* no applied force: b = 0, so b'c = 0 >= 0 on the cone */
  expect(r, "rolling dependent", "theorem1_b", CPK_VERDICT_HOLDS);
  const cpk_check_entry *e = cpk_check_report_find(r, "theorem1_b");
  t_ok(e && strstr(e->reason, "LP solved by Lemke"), "rolling dependent: decided by the LP");
  t_ok(!cpk_check_report_find(r, "friction_bound"), "rolling dependent: no friction bound claimed");
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
}

/*
 * A body squeezed between two walls x = -1 and x = 1 (normals +x and -x through its centre):
 * c = (1, 1) pushes the walls apart with no net wrench, so null(J) and F share c_n1 = c_n2.
 * With normal drift d at both contacts b'c = 2 d c_n1; normalized (1'x <= 1) the least value
 * is d: d = -1 fails with b'c = -1, d = +1 holds.
 */
static void walls(double drift, cpk_verdict want)
{
  cpk_int ti[6] = {0, 1, 2, 3, 4, 5};
  double tx[6] = {1, 1, 1, 0.4, 0.4, 0.4}, wn[6], wt[6], wo[6], wr[6], tan[3] = {0, 1, 0};
  double pts[2][3] = {{-1, 0, 0}, {1, 0, 0}}, nrm[2][3] = {{1, 0, 0}, {-1, 0, 0}};
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = 0.5;
  cp.drift[0] = drift;
  int rc = cpk_csc_from_triplets(6, 6, 6, ti, ti, tx, &M);
  if (!rc) rc = cpk_contact_system_alloc_body(6, M, NULL, NULL, 0, &s, NULL);
  for (int c = 0; c < 2 && !rc; c++) {
    rc = cpk_rigid_contact_wrenches(pts[c], nrm[c], tan, wn, wt, wo, wr);
    if (!rc) rc = cpk_contact_system_add_contact(s, &cp, 6, ti, wn, wt, wo, NULL, NULL);
  }
  cpk_check_report *r = check_system(rc ? NULL : s, NULL);
  expect(r, "walls", "delassus_pd", CPK_VERDICT_FAILS);
  expect(r, "walls", "theorem1_b", want);
  if (want == CPK_VERDICT_FAILS)
    t_near(reason_number(r, "theorem1_b", "b'c = "), drift, 1e-8, "walls: least b'c is %g", drift);
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
  cpk_csc_free(M);
}

/* Lemke on the compiled polyhedral problem: the guarantee checked against the solver. */
static int lemke_solves(const cpk_contact_system *s)
{
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  cpk_result *res = NULL;
  int ok = cpk_compile(s, "polyhedral", NULL, &p, &map, NULL) == CPK_OK &&
           cpk_result_alloc(p->n, &res) == CPK_OK && cpk_solve(p, "lemke", NULL, res, NULL) == CPK_OK &&
           res->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, res->z, 1e-8);
  cpk_result_free(res);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  return ok;
}

/* Stewart-Trinkle at h > 0: holds with every gap >= 0; a penetrating contact is named. */
static void stewart_trinkle(void)
{
  cpk_contact_system *s = NULL;
  cpk_contact_params cp;
  int rc = cpk_contact_system_read_file(t_srcpath("../examples/sphere-on-plane.json"), &s, NULL);
  t_ok(rc == CPK_OK, "sphere on plane read");
  if (rc) return;
  cpk_check_report *r = check_system(s, "polyhedral");
  expect(r, "no penetration", "stewart_trinkle", CPK_VERDICT_HOLDS);
  t_ok(lemke_solves(s), "no penetration: lemke solves the polyhedral LCP");
  cpk_check_report_free(r);
  cp = s->contacts[0];
  cp.psi = -0.01;
  rc = cpk_contact_set_params(s, 0, &cp, NULL);
  r = check_system(s, "polyhedral");
  expect(r, "penetration", "stewart_trinkle", CPK_VERDICT_NOT_DECIDED);
  const cpk_check_entry *e = cpk_check_report_find(r, "stewart_trinkle");
  t_ok(rc == CPK_OK && e && strstr(e->reason, "contact 1 (1-based) penetrates"),
       "penetration: the report names contact 1");
  cpk_check_report_free(r);
  r = check_system(s, "point-coulomb");
  t_ok(!cpk_check_report_find(r, "stewart_trinkle"), "the condition is only reported for polyhedral");
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
}

/* A sphere sliding at h = 0: its contact's normal and tangent rows are uncoupled (A_nt = 0),
 * so friction cannot change the normal problem and every bound is unbounded. */
static void sphere_sliding(void)
{
  cpk_contact_system *s = NULL;
  int rc = cpk_contact_system_read_file(t_srcpath("../examples/sphere-translating-h0.json"), &s, NULL);
  t_ok(rc == CPK_OK, "sliding sphere read");
  if (rc) return;
  cpk_check_report *r = check_system(s, "point-coulomb");
  t_ok(isinf(reason_number(r, "friction_bound", "mu_bar = ")), "sliding sphere: mu_bar unbounded");
  t_ok(isinf(reason_number(r, "friction_bound_p", "for mu < ")), "sliding sphere: P bound unbounded");
  expect(r, "sliding sphere", "friction_check", CPK_VERDICT_HOLDS);
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
}

static int delassus_range(const cpk_check_report *r, double *lo, double *hi)
{
  const cpk_check_entry *e = cpk_check_report_find(r, "delassus_pd");
  const char *s = e ? strstr(e->reason, "eigenvalues in [") : NULL;
  return s && sscanf(s, "eigenvalues in [%lf, %lf]", lo, hi) == 2;
}

static void sphere_on_plane(void)
{
  cpk_contact_system *s = NULL;
  cpk_check_report *r = NULL;
  double lo = 0, hi = 0;
  int rc = cpk_contact_system_read_file(t_srcpath("../examples/sphere-on-plane.json"), &s, NULL);
  cpk_check_report_alloc(&r);
  if (!rc) rc = cpk_check_contact(s, "polyhedral", NULL, r, NULL);
  t_ok(rc == CPK_OK, "sphere on plane checked");
  expect(r, "sphere", "delassus_pd", CPK_VERDICT_HOLDS);
  expect(r, "sphere", "theorem1_a", CPK_VERDICT_HOLDS);
  /* m = 1, I = 0.4, r = 1: A = diag(1, 1 + 1/0.4, 1 + 1/0.4, 1/0.4) = diag(1, 3.5, 3.5, 2.5) */
  t_ok(delassus_range(r, &lo, &hi), "sphere: eigenvalue range printed");
  t_near(lo, 1.0, 1e-9, "sphere: smallest eigenvalue of A is 1");
  t_near(hi, 3.5, 1e-9, "sphere: largest eigenvalue of A is 3.5");
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
}

/* Two contacts at the same point with the same normal: equal wrench columns, A singular. */
static void dependent_contacts(void)
{
  cpk_int ti[6] = {0, 1, 2, 3, 4, 5}, rows[6] = {0, 1, 2, 3, 4, 5};
  double tx[6] = {1, 1, 1, 0.4, 0.4, 0.4}, wn[6], wt[6], wo[6], wr[6];
  double p[3] = {0, 0, -1}, nrm[3] = {0, 0, 1}, tan[3] = {1, 0, 0};
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  cpk_contact_params cp;
  cpk_check_report *r = NULL;
  cpk_contact_params_default(&cp);
  cp.mu = 0.3;
  int rc = cpk_csc_from_triplets(6, 6, 6, ti, ti, tx, &M);
  if (!rc) rc = cpk_contact_system_alloc_body(6, M, NULL, NULL, 0.01, &s, NULL);
  if (!rc) rc = cpk_rigid_contact_wrenches(p, nrm, tan, wn, wt, wo, wr);
  for (int c = 0; c < 2 && !rc; c++)
    rc = cpk_contact_system_add_contact(s, &cp, 6, rows, wn, wt, wo, NULL, NULL);
  cpk_check_report_alloc(&r);
  if (!rc) rc = cpk_check_contact(s, NULL, NULL, r, NULL);
  t_ok(rc == CPK_OK, "two dependent contacts checked");
  expect(r, "dependent", "delassus_pd", CPK_VERDICT_FAILS);
  expect(r, "dependent", "theorem1_a", CPK_VERDICT_NOT_DECIDED);
  const cpk_check_entry *e = cpk_check_report_find(r, "theorem1_a");
  t_ok(e && strstr(e->reason, "does not apply"), "dependent: the report says Theorem 1 (A) does not apply");
  cpk_check_report_free(r);
  cpk_contact_system_free(s);
  cpk_csc_free(M);
}

int main(void)
{
  known_matrices();
  random_agreement();
  painleve();
  speed();
  sphere_on_plane();
  dependent_contacts();
  friction_bound_one();
  friction_bound_two();
  sphere_sliding();
  rolling_not_covered();
  part_b();
  walls(-1.0, CPK_VERDICT_FAILS);
  walls(1.0, CPK_VERDICT_HOLDS);
  stewart_trinkle();
  return t_done();
}
