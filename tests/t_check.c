/* t_check.c: the check module on matrices whose classes are known by hand, random agreement with enum/lemke, speed. */
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
  return t_done();
}
