/* t_lemke_reduced.c: Lemke's bases of few non-unit columns factored through their small block (n >= 64), checked against GSL's full-basis LU and the LCP conditions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define N 96

/* The LCP (M, q) with M given as CSC arrays (copied). */
static cpk_problem *lcp_from_csc(const cpk_int *cp, const cpk_int *ri, const double *x,
                                 const double *q)
{
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_csc_arrays(N, N, cp, ri, x, &M) == CPK_OK) cpk_problem_alloc_lcp(M, q, &p);
  cpk_matrix_free(M);
  return p;
}

/* A sparse, strictly diagonally dominant M (a P-matrix: one solution) with a band of
   off-diagonals and a few far entries (unsymmetric), CSC with sorted rows. */
static cpk_problem *banded_lcp(double scale, const double *q)
{
  static cpk_int cp[N + 1], ri[5 * N];
  static double x[5 * N];
  cpk_int e = 0;
  for (int j = 0; j < N; j++) {
    cp[j] = e;
    int rows[5] = {j - 7, j - 1, j, j + 1, j + 11};
    for (int t = 0; t < 5; t++) {
      int i = rows[t];
      if (i < 0 || i >= N) continue;
      ri[e] = i;
      x[e++] = i == j ? scale * (4.0 + 0.01 * j) : scale * (t % 2 ? -0.7 : 0.4) * (1 + 0.001 * i);
    }
  }
  cp[N] = e;
  return lcp_from_csc(cp, ri, x, q);
}

/* max over i of |min(z_i, w_i)| and the most negative z or w, w = M z + q computed here. */
static double lcp_error(const cpk_problem *p, const double *z)
{
  double w[N], worst = 0.0;
  cpk_matrix_mv(p->M, z, w, 0);
  for (size_t i = 0; i < N; i++) {
    w[i] += p->q[i];
    worst = fmax(worst, fabs(fmin(z[i], w[i])));
    worst = fmax(worst, fmax(-z[i], -w[i]));
  }
  return worst;
}

/* Most rows at rest (q_i > 0), `active` of them pressed (q_i < 0). */
static void make_q(double *q, int active, double shift)
{
  for (int i = 0; i < N; i++) q[i] = 1.0 + 0.01 * i + shift;
  for (int a = 0; a < active; a++) q[(a * 37 + 5) % N] = -1.0 - 0.1 * a - shift;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* The same problem by GSL's LU of all of B (no reduction for that backend): max |z - z_full|;
   *pivots: that cold run's pivots (the same path when every solve, x_B's slacks included, is
   right: wrong slack values change the ratio tests, not the final residual). */
static double diff_to_full(const cpk_problem *p, const double *z, double *pivots)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_dense;
  double d = INFINITY;
  if (!cpk_result_alloc(N, &r) && !cpk_solve(p, "lemke", &s, r, &err) &&
      r->status == CPK_STATUS_SOLVED && stat(r, "reduced_factorizations") == 0.0) {
    d = 0.0;
    for (size_t i = 0; i < N; i++) d = fmax(d, fabs(z[i] - r->z[i]));
    *pivots = stat(r, "pivots");
  }
  cpk_result_free(r);
  return d;
}

static void run_case(int active, const char *label)
{
  double q[N];
  make_q(q, active, 0.0);
  cpk_problem *p = banded_lcp(1.0, q);
  cpk_solver *sv = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  if (!p || cpk_solver_alloc(cpk_solver_find("lemke"), p, NULL, &sv, &err) ||
      cpk_result_alloc(N, &r)) {
    t_ok(0, "%s: set up", label);
    return;
  }
  for (int round = 0; round < 3; round++) {
    if (round == 1) { /* q moves: the same active set, a warm re-solve */
      make_q(q, active, 0.05);
      cpk_problem_update_q(p, q);
    }
    if (round == 2) { /* M's values move (same pattern) */
      cpk_problem *p2 = banded_lcp(1.3, q);
      cpk_problem_update_matrix_values(p, p2->M->csc->x);
      cpk_problem_free(p2);
    }
    int rc = cpk_solver_solve(sv, r, &err);
    double fullpiv = -1, e = rc ? INFINITY : lcp_error(p, r->z);
    double d = rc ? INFINITY : diff_to_full(p, r->z, &fullpiv);
    t_ok(e <= 1e-10, "%s, round %d: the LCP conditions hold (error %.1e)", label, round, e);
    t_ok(d <= 1e-10, "%s, round %d: the same z as the full-basis LU (diff %.1e)", label, round, d);
    if (round == 0) /* both cold */
      t_ok(stat(r, "pivots") == fullpiv, "%s: the full LU's path (%g pivots, full %g)", label,
           stat(r, "pivots"), fullpiv);
    if (active <= N / 4)
      t_ok(stat(r, "reduced_factorizations") > 0, "%s, round %d: factored through the block (%g)",
           label, round, stat(r, "reduced_factorizations"));
  }
  cpk_result_free(r);
  cpk_solver_free(sv);
  cpk_problem_free(p);
}

/* A pseudo-random value in [-1, 1] (a fixed sequence). */
static double lcg(unsigned long *st)
{
  *st = *st * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*st >> 11) / (double)(1UL << 53) * 2.0 - 1.0;
}

/* M = I/2 + G G' (SPD: a P-matrix) with G sparse: rows strongly coupled, so Lemke's path
   drops variables it brought in and the ratio tests compare slacks' values. */
static cpk_problem *coupled_lcp(unsigned long seed, double shift, int degenerate)
{
  static double G[N][N], D[N * N], q[N];
  unsigned long st = seed;
  memset(G, 0, sizeof G);
  for (int j = 0; j < N; j++) {
    G[j][j] = lcg(&st);
    G[(j * 7 + 3) % N][j] = lcg(&st);
    G[(j * 13 + 5) % N][j] = lcg(&st);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double a = i == j ? 0.5 : 0.0;
      for (int k = 0; k < N; k++) a += G[i][k] * G[j][k];
      D[i + j * N] = a;
    }
  for (int i = 0; i < N; i++) q[i] = degenerate && i % 8 == 0 ? -0.5 : lcg(&st) + shift;
  static cpk_int cp[N + 1], ri[N * N];
  static double x[N * N];
  cpk_int e = 0;
  for (int j = 0; j < N; j++) {
    cp[j] = e;
    for (int i = 0; i < N; i++)
      if (D[i + j * N] != 0.0) {
        ri[e] = i;
        x[e++] = D[i + j * N];
      }
  }
  cp[N] = e;
  return lcp_from_csc(cp, ri, x, q);
}

/* degenerate: q_i = -0.5 on every eighth row, ties the lexicographic rule breaks with B' */
static void test_coupled(int degenerate)
{
  for (unsigned long seed = 1; seed <= 6; seed++) {
    cpk_problem *p = coupled_lcp(seed, 0.4, degenerate);
    cpk_result *r = NULL;
    cpk_error err;
    int ok = p && !cpk_result_alloc(N, &r) && !cpk_solve(p, "lemke", NULL, r, &err);
    double fullpiv = -1, e = ok ? lcp_error(p, r->z) : INFINITY;
    double d = ok ? diff_to_full(p, r->z, &fullpiv) : INFINITY;
    t_ok(e <= 1e-9 && d <= 1e-9, "coupled M%s, seed %lu: LCP error %.1e, diff to the full LU %.1e",
         degenerate ? ", degenerate q" : "", seed, e, d);
    if (degenerate) t_diag("seed %lu: %g lexicographic ties", seed, ok ? stat(r, "lex_ties") : NAN);
    t_ok(ok && stat(r, "pivots") == fullpiv && stat(r, "reduced_factorizations") > 0,
         "coupled M, seed %lu: the full LU's path (%g pivots, full %g), %g through the block",
         seed, ok ? stat(r, "pivots") : NAN, fullpiv, ok ? stat(r, "reduced_factorizations") : NAN);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* A degenerate q (ties in the ratio test: the lexicographic rule solves with B') */
static void test_degenerate(void)
{
  double q[N];
  for (int i = 0; i < N; i++) q[i] = i % 9 == 0 ? -1.0 : (i % 9 == 1 ? 0.0 : 1.0);
  cpk_problem *p = banded_lcp(1.0, q);
  cpk_result *r = NULL;
  cpk_error err;
  int ok = p && !cpk_result_alloc(N, &r) && !cpk_solve(p, "lemke", NULL, r, &err);
  double fullpiv = -1, e = ok ? lcp_error(p, r->z) : INFINITY;
  double d = ok ? diff_to_full(p, r->z, &fullpiv) : INFINITY;
  t_ok(e <= 1e-10 && d <= 1e-10, "degenerate q: LCP error %.1e, diff to the full LU %.1e", e, d);
  t_ok(ok && stat(r, "pivots") == fullpiv && stat(r, "lex_ties") > 0,
       "degenerate q: the full LU's path through %g lexicographic ties (%g pivots, full %g)",
       ok ? stat(r, "lex_ties") : NAN, ok ? stat(r, "pivots") : NAN, fullpiv);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* A large tridiagonal LCP (n = 4000) whose answer has 400 positive z: past 32 non-unit columns
   the bases must leave the block path for the backend's LU with eta updates (a block of order
   n/4 refactored every pivot took 14.8 s here against 0.13 s). Counted, not timed. */
static void test_many_basic(void)
{
  enum { BIG = 4000, NEG = 400 };
  cpk_int *cp = malloc((BIG + 1) * sizeof *cp), *ri = malloc(2 * BIG * sizeof *ri);
  double *x = malloc(2 * BIG * sizeof *x), *q = malloc(BIG * sizeof *q);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  size_t e = 0;
  if (!cp || !ri || !x || !q) abort();
  for (size_t k = 0; k < BIG; k++) {
    cp[k] = (cpk_int)e, ri[e] = (cpk_int)k, x[e++] = 2.0;
    if (k + 1 < BIG) ri[e] = (cpk_int)(k + 1), x[e++] = -0.5;
    q[k] = k < NEG ? -1.0 : 1.0;
  }
  cp[BIG] = (cpk_int)e;
  if (cpk_matrix_from_csc_arrays(BIG, BIG, cp, ri, x, &M) || cpk_problem_alloc_lcp(M, q, &p) ||
      cpk_result_alloc(BIG, &r))
    abort();
  cpk_settings s;
  cpk_settings_default(&s);
  int rc = cpk_solve(p, "lemke", &s, r, &err);
  double worst = 0.0; /* the LCP conditions at z, computed here: w = M z + q */
  for (size_t k = 0; k < BIG && rc == CPK_OK; k++) {
    double w = q[k] + 2.0 * r->z[k] + (k > 0 ? -0.5 * r->z[k - 1] : 0.0);
    worst = fmax(worst, fmax(fmax(-r->z[k], -w), fabs(fmin(r->z[k], w))));
  }
  t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && worst < 1e-9,
       "n = 4000, 400 positive z: solved, LCP conditions within 1e-9 (%g)", worst);
  t_ok(rc == CPK_OK && stat(r, "reduced_factorizations") <= 40 && stat(r, "pivots") >= NEG,
       "only the first bases (at most 32 non-unit columns) go through the block: %g of %g pivots",
       rc == CPK_OK ? stat(r, "reduced_factorizations") : NAN, rc == CPK_OK ? stat(r, "pivots") : NAN);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  free(cp), free(ri), free(x), free(q);
}

int main(void)
{
  run_case(6, "6 pressed rows");
  run_case(20, "20 pressed rows");
  run_case(40, "40 pressed rows (more than n/4: the full basis)");
  test_degenerate();
  test_coupled(0);
  test_coupled(1);
  test_many_basic();
  return t_done();
}
