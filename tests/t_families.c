/* t_families.c: each family: planted solutions, matrix classes, certificates, sparsity, physics. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_sort_vector.h>
#include "families.h"
#include "testlib.h"

/* Dense copy of M (test-side, through cpk_matrix_get only). */
static gsl_matrix *dense_of(const cpk_problem *p)
{
  gsl_matrix *A = gsl_matrix_alloc(p->n, p->n);
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < p->n; j++) gsl_matrix_set(A, i, j, cpk_matrix_get(p->M, i, j));
  return A;
}

/* Smallest eigenvalue of the symmetric part (M + M')/2. */
static double min_sym_eig(const cpk_problem *p)
{
  size_t n = p->n;
  gsl_matrix *A = dense_of(p), *S = gsl_matrix_alloc(n, n);
  gsl_vector *ev = gsl_vector_alloc(n);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(n);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set(S, i, j, 0.5 * (gsl_matrix_get(A, i, j) + gsl_matrix_get(A, j, i)));
  gsl_eigen_symm(S, ev, ws);
  double m = gsl_vector_min(ev);
  gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(S);
  gsl_matrix_free(A);
  return m;
}

/* Eigenvalues of symmetric M into ev (ascending). */
static void sym_eigs(const cpk_problem *p, double *ev)
{
  gsl_matrix *A = dense_of(p);
  gsl_vector *v = gsl_vector_alloc(p->n);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(p->n);
  gsl_eigen_symm(A, v, ws);
  gsl_sort_vector(v);
  for (size_t i = 0; i < p->n; i++) ev[i] = gsl_vector_get(v, i);
  gsl_eigen_symm_free(ws);
  gsl_vector_free(v);
  gsl_matrix_free(A);
}

static double max_asym(const cpk_problem *p)
{
  double m = 0.0;
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < i; j++)
      m = fmax(m, fabs(cpk_matrix_get(p->M, i, j) - cpk_matrix_get(p->M, j, i)));
  return m;
}

/* Smallest principal minor over all 2^n - 1 index sets (n small). */
static double min_principal_minor(const cpk_problem *p)
{
  size_t n = p->n;
  double worst = INFINITY;
  for (unsigned long set = 1; set < (1UL << n); set++) {
    size_t idx[20], k = 0;
    int signum;
    for (size_t i = 0; i < n; i++)
      if (set & (1UL << i)) idx[k++] = i;
    gsl_matrix *A = gsl_matrix_alloc(k, k);
    gsl_permutation *perm = gsl_permutation_alloc(k);
    for (size_t a = 0; a < k; a++)
      for (size_t b = 0; b < k; b++) gsl_matrix_set(A, a, b, cpk_matrix_get(p->M, idx[a], idx[b]));
    gsl_linalg_LU_decomp(A, perm, &signum);
    worst = fmin(worst, gsl_linalg_LU_det(A, signum));
    gsl_permutation_free(perm);
    gsl_matrix_free(A);
  }
  return worst;
}

/* ------------------------------------------------------------------ Lemke */

/* lex-compare rows a and b of the ratio keys (rhs, w-columns) / T[.][col]. */
static int lex_less(const double *T, size_t w, size_t n, size_t a, size_t b, size_t col)
{
  for (size_t k = 0; k <= n; k++) {
    size_t c = k == 0 ? 2 * n + 1 : k - 1;
    double x = T[a * w + c] / T[a * w + col], y = T[b * w + c] / T[b * w + col];
    if (fabs(x - y) > 1e-9 * fmax(1.0, fmax(fabs(x), fabs(y)))) return x < y;
  }
  return 0;
}

static void pivot(double *T, size_t w, size_t n, size_t r, size_t c)
{
  double piv = T[r * w + c];
  for (size_t k = 0; k < w; k++) T[r * w + k] /= piv;
  for (size_t i = 0; i < n; i++) {
    double f = T[i * w + c];
    if (i == r || f == 0.0) continue;
    for (size_t k = 0; k < w; k++) T[i * w + k] -= f * T[r * w + k];
  }
}

/*
 * A small lexicographic Lemke (covering vector e, tableau [I -M -e q]) written here only to
 * count pivots independently of the library; counts the z0-entering and z0-leaving pivots.
 */
static long lemke_pivots(const cpk_problem *p)
{
  size_t n = p->n, w = 2 * n + 2, r = 0, *basis = malloc(n * sizeof *basis);
  double *T = calloc(n * w, sizeof *T);
  long piv = 0;
  for (size_t i = 0; i < n; i++) {
    basis[i] = i;
    T[i * w + i] = 1.0;
    for (size_t j = 0; j < n; j++) T[i * w + n + j] = -cpk_matrix_get(p->M, i, j);
    T[i * w + 2 * n] = -1.0;
    T[i * w + 2 * n + 1] = p->q[i];
  }
  for (size_t i = 1; i < n; i++) /* z0 enters: most negative ratio; ties lexicographically */
    if (lex_less(T, w, n, r, i, 2 * n)) r = i;
  size_t leaving = basis[r];
  for (size_t enter = 2 * n; piv < 100000;) {
    pivot(T, w, n, r, enter);
    basis[r] = enter;
    piv++;
    if (leaving == 2 * n) break;
    enter = leaving < n ? leaving + n : leaving - n;
    int found = 0;
    for (size_t i = 0; i < n; i++)
      if (T[i * w + enter] > 1e-12 && (!found || lex_less(T, w, n, i, r, enter))) r = i, found = 1;
    if (!found) break;
    leaving = basis[r];
  }
  free(T);
  free(basis);
  return piv;
}

/* ------------------------------------------------------------- families */

static void test_murty_fathi(void)
{
  for (size_t n = 1; n <= 8; n++) {
    cpk_problem *p = NULL;
    double z[8];
    if (cpk_family_murty(n, &p)) abort();
    cpk_family_murty_solution(n, z);
    t_ok(t_is_mcp_solution(p, z, 1e-12), "murty %zu: 2^n e_1 solves", n);
    t_ok(min_principal_minor(p) > 0.5, "murty %zu: P-matrix (all principal minors = 1)", n);
    long piv = lemke_pivots(p);
    t_ok(piv == cpk_family_murty_pivots(n),
         "murty %zu: independent Lemke takes %ld pivots, "
         "documented %ld",
         n, piv, cpk_family_murty_pivots(n));
    cpk_problem_free(p);
    if (cpk_family_fathi(n, &p)) abort();
    cpk_family_fathi_solution(n, z);
    t_ok(t_is_mcp_solution(p, z, 1e-12), "fathi %zu: e_1 solves", n);
    t_ok(max_asym(p) == 0.0 && min_sym_eig(p) > 0.0, "fathi %zu: symmetric positive definite", n);
    piv = lemke_pivots(p);
    t_ok(piv == cpk_family_fathi_pivots(n),
         "fathi %zu: independent lexicographic Lemke takes "
         "%ld pivots, documented %ld",
         n, piv, cpk_family_fathi_pivots(n));
    cpk_problem_free(p);
  }
  cpk_problem *p = NULL;
  if (cpk_family_murty(3, &p)) abort();
  t_ok(p->q[0] == -8 && p->q[1] == -12 && p->q[2] == -14, "murty 3: q = (-8, -12, -14)");
  t_ok(cpk_matrix_get(p->M, 2, 0) == 2 && cpk_matrix_get(p->M, 0, 2) == 0 &&
           cpk_matrix_get(p->M, 1, 1) == 1,
       "murty 3: lower triangular 1/2 pattern");
  cpk_problem_free(p);
  t_ok(cpk_family_murty(0, &p) == CPK_EINVAL && cpk_family_murty(53, &p) == CPK_EINVAL,
       "murty: n = 0 and n = 53 refused");
}

static void test_random_pd(unsigned long seed)
{
  for (int storage = 0; storage < 2; storage++) {
    size_t n = storage ? 150 : 40;
    double *z = malloc(n * sizeof *z);
    cpk_problem *p = NULL, *p2 = NULL;
    if (cpk_family_random_pd(n, seed, storage, &p, z)) abort();
    t_ok(t_is_mcp_solution(p, z, 1e-10), "random PD %s: z* solves", storage ? "sparse" : "dense");
    t_ok(min_sym_eig(p) >= 0.1 - 1e-9, "random PD %s: symmetric part >= delta I (min eig %g)",
         storage ? "sparse" : "dense", min_sym_eig(p));
    t_ok(max_asym(p) > 1e-3, "random PD %s: not symmetric", storage ? "sparse" : "dense");
    t_ok(p->M->format == (storage ? CPK_MATRIX_CSC : CPK_MATRIX_DENSE) &&
             (!storage || cpk_matrix_nnz(p->M) <= 14 * n),
         "random PD: storage as asked, nnz %zu", cpk_matrix_nnz(p->M));
    if (cpk_family_random_pd(n, seed, storage, &p2, NULL)) abort();
    t_ok(memcmp(p->q, p2->q, n * sizeof *p->q) == 0, "random PD: same seed, same problem");
    cpk_problem_free(p2);
    if (cpk_family_random_pd(n, seed + 1, storage, &p2, NULL)) abort();
    t_ok(memcmp(p->q, p2->q, n * sizeof *p->q) != 0, "random PD: other seed, other problem");
    cpk_problem_free(p2);
    cpk_problem_free(p);
    free(z);
  }
}

static void test_random_p(unsigned long seed)
{
  for (unsigned long k = 0; k < 3; k++) {
    double z[9];
    cpk_problem *p = NULL;
    if (cpk_family_random_p(9, seed + k, &p, z)) abort();
    t_ok(t_is_mcp_solution(p, z, 1e-10), "random P (seed %lu): z* solves", seed + k);
    t_ok(min_principal_minor(p) > 0.0, "random P: all 511 principal minors positive");
    t_ok(min_sym_eig(p) < 0.0, "random P: not positive definite (min sym eig %g)", min_sym_eig(p));
    cpk_problem_free(p);
  }
}

static void test_random_psd(unsigned long seed)
{
  double z[10], y[10], ev[10], My[10];
  cpk_problem *p = NULL;
  if (cpk_family_random_psd(10, 4, seed, 1, &p, z)) abort();
  sym_eigs(p, ev);
  t_ok(t_is_mcp_solution(p, z, 1e-10), "random PSD feasible: z* solves");
  t_ok(max_asym(p) < 1e-14 && ev[0] > -1e-12 && fabs(ev[5]) < 1e-12 && ev[6] > 1e-6,
       "random PSD: symmetric, PSD, rank 4 (eigs %g %g %g)", ev[0], ev[5], ev[6]);
  cpk_problem_free(p);
  if (cpk_family_random_psd(10, 6, seed, 0, &p, y)) abort();
  double qy = 0.0, ymin = INFINITY, mymax = 0.0;
  cpk_matrix_mv(p->M, y, My, 1);
  for (size_t i = 0; i < 10; i++) {
    qy += p->q[i] * y[i];
    ymin = fmin(ymin, y[i]);
    mymax = fmax(mymax, My[i]);
  }
  t_ok(ymin >= 0.5 && mymax <= 1e-12 && qy < -0.5,
       "random PSD infeasible: certificate y >= 0, M'y <= 0, q'y = %g < 0", qy);
  cpk_problem_free(p);
  t_ok(cpk_family_random_psd(5, 5, seed, 0, &p, NULL) == CPK_EINVAL,
       "random PSD: infeasible with full rank refused");
}

static void test_degenerate(unsigned long seed)
{
  cpk_problem *p = NULL;
  if (cpk_family_degenerate(10, seed, &p)) abort();
  int small = 1, qok = 1, neg = 0;
  for (size_t i = 0; i < 10; i++) {
    qok &= p->q[i] == 0.0 || p->q[i] == -1.0;
    neg |= p->q[i] < 0.0;
    for (size_t j = 0; j < 10; j++) {
      double a = cpk_matrix_get(p->M, i, j);
      small &= a == floor(a) && (i == j ? a >= 1 && a <= 3 : fabs(a) <= 2);
    }
  }
  t_ok(small && qok && neg, "degenerate: small integers, q in {-1, 0}, some q < 0");
  t_ok(min_sym_eig(p) >= 1.0 - 1e-12, "degenerate: x'Mx >= |x|^2");
  cpk_problem_free(p);
  for (unsigned long k = 0; k < 3; k++) {
    double z[10], w[10];
    if (cpk_family_known_degenerate(10, seed + k, &p, z)) abort();
    cpk_matrix_mv(p->M, z, w, 0);
    int both = 0;
    for (size_t i = 0; i < 10; i++) both += z[i] == 0.0 && w[i] + p->q[i] == 0.0;
    t_ok(t_is_mcp_solution(p, z, 1e-12) && both >= 1,
         "known degenerate (seed %lu): z* solves, %d indices with z_i = w_i = 0", seed + k, both);
    cpk_problem_free(p);
  }
}

static void test_box_mcp(unsigned long seed)
{
  double z[16];
  cpk_problem *p = NULL;
  if (cpk_family_random_box_mcp(16, seed, &p, z)) abort();
  int kinds[4] = {0, 0, 0, 0}, inside = 0;
  for (size_t i = 0; i < 16; i++) {
    int lf = isfinite(p->lower[i]), uf = isfinite(p->upper[i]);
    kinds[lf * 2 + uf]++;
    inside += z[i] > p->lower[i] && z[i] < p->upper[i] && lf;
  }
  t_ok(kinds[0] && kinds[1] && kinds[2] && kinds[3],
       "box MCP: free, upper-only, lower-only, boxed");
  t_ok(t_is_mcp_solution(p, z, 1e-10) && inside > 0, "box MCP: z* solves (%d bounded inside)",
       inside);
  cpk_problem_free(p);
}

static int csc_symmetric(const cpk_csc *A)
{
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      cpk_int i = A->i[k], t = A->p[i];
      while (t < A->p[i + 1] && A->i[t] != j) t++;
      if (t == A->p[i + 1] || A->x[t] != A->x[k]) return 0;
    }
  return 1;
}

static void test_delassus(unsigned long seed)
{
  cpk_problem *p = NULL;
  if (cpk_family_delassus(40, 15, seed, &p)) abort();
  int neg = 0;
  for (size_t i = 0; i < p->n; i++) neg += p->q[i] < 0.0;
  t_ok(p->M->format == CPK_MATRIX_CSC && cpk_csc_check(p->M->csc) == CPK_OK, "delassus: valid CSC");
  t_ok(csc_symmetric(p->M->csc), "delassus: W exactly symmetric");
  t_ok(min_sym_eig(p) > 0.0 && neg > 0, "delassus: W positive definite, %d approaching contacts",
       neg);
  cpk_problem_free(p);
  double ratio[3];
  for (int k = 0; k < 3; k++) {
    size_t nc = (size_t)1000 << k;
    if (cpk_family_delassus(nc, nc / 2, seed, &p)) abort();
    ratio[k] = (double)cpk_matrix_nnz(p->M) / (double)nc;
    cpk_problem_free(p);
  }
  t_ok(fabs(ratio[1] / ratio[0] - 1.0) < 0.2 && fabs(ratio[2] / ratio[0] - 1.0) < 0.2,
       "delassus: nnz / ncontacts stays %.2f, %.2f, %.2f (linear growth)", ratio[0], ratio[1],
       ratio[2]);
  double t0 = cpk_wtime();
  int rc = cpk_family_delassus(20000, 8000, seed, &p);
  double dt = cpk_wtime() - t0;
  t_ok(rc == CPK_OK && p->n == 20000 && dt < 1.0, "delassus: 20000 contacts in %.3f s", dt);
  cpk_problem_free(p);
}

static void test_kkt(unsigned long seed)
{
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  if (cpk_family_contact_kkt(3, 5, seed, &p)) abort();
  int layout = p->n == 23 && p->kind == CPK_KIND_AFFINE_MCP, skew = 1;
  for (size_t i = 0; i < 23; i++)
    layout &=
        i < 18 ? isinf(p->lower[i]) && isinf(p->upper[i]) : p->lower[i] == 0 && isinf(p->upper[i]);
  for (size_t i = 0; i < 18; i++)
    for (size_t k = 18; k < 23; k++)
      skew &= cpk_matrix_get(p->M, i, k) == -cpk_matrix_get(p->M, k, i);
  t_ok(layout, "contact KKT: 18 free velocities, 5 impulses >= 0");
  t_ok(skew && min_sym_eig(p) > 0.0, "contact KKT: [Mass -J'; J eps I], symmetric part PD");
  cpk_problem_free(p);
  for (int box = 0; box < 2; box++) {
    int rc = box ? cpk_family_contact_kkt_box(1, 3, 0.5, seed, &p)
                 : cpk_family_contact_kkt(1, 4, seed, &p);
    if (rc || cpk_result_alloc(p->n, &r)) abort();
    rc = cpk_solve(p, "enum", NULL, r, NULL);
    t_ok(rc == CPK_OK && r->status == CPK_STATUS_SOLVED && r->nsolutions == 1 &&
             t_is_mcp_solution(p, r->z, 1e-8),
         "contact KKT%s (n = %zu): one solution, checked", box ? " box" : "", p->n);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* ------------------------------------------------------------ block on plane */

static void test_block(void)
{
  const double m = CPK_BLOCK_MASS, g = CPK_BLOCK_GRAVITY, h = CPK_BLOCK_STEP;
  for (size_t d = 2; d <= 8; d += 2) {
    cpk_problem *p = NULL;
    double z[40];
    if (cpk_family_block_on_plane_lcp(d, &p) || cpk_family_block_on_plane_solution(d, z)) abort();
    double total = z[0] + z[1] + z[2] + z[3];
    t_ok(p->n == 8 + 4 * d && t_is_mcp_solution(p, z, 1e-12),
         "block d = %zu: resting-and-sliding answer solves the LCP", d);
    t_near(total, m * g * h, 1e-12, "block d = %zu: total normal impulse m g h", d);
    t_ok(z[0] > z[2] && z[4 + d / 2] > 0.0,
         "block d = %zu: front corners pressed harder, friction "
         "along -x",
         d);
    /* The documented continuum: shift normal impulses along (1,-1,-1,1), friction following. */
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double z2[40], t = 0.04 * sgn, dir[4] = {1, -1, -1, 1};
      memcpy(z2, z, (8 + 4 * d) * sizeof *z);
      for (size_t i = 0; i < 4; i++) {
        z2[i] += t * dir[i];
        z2[4 + i * d + d / 2] = CPK_BLOCK_MU * z2[i];
      }
      t_ok(t_is_mcp_solution(p, z2, 1e-12), "block d = %zu: shifted split t = %g also solves", d,
           t);
    }
    if (d == 4) {
      t_ok(strcmp(p->var_names[0], "p_n[1]") == 0 && strcmp(p->var_names[4 + 2], "p_t[1,3]") == 0 &&
               strcmp(p->var_names[20], "sigma[1]") == 0,
           "block: variable names");
    }
    cpk_problem_free(p);
  }
  double z[12];
  t_ok(cpk_family_block_on_plane_solution(3, z) == CPK_EINVAL, "block: no exact answer for odd d");
}

/* Minimal reader of the example file (comments, M coord, q), independent of io/. */
static int next_token(FILE *f, char *tok, size_t cap)
{
  int c;
  size_t k = 0;
  for (;;) {
    c = fgetc(f);
    if (c == '#')
      while (c != '\n' && c != EOF) c = fgetc(f);
    if (c == EOF) return 0;
    if (!isspace(c)) break;
  }
  while (c != EOF && !isspace(c) && c != '#' && k + 1 < cap) {
    tok[k++] = (char)c;
    c = fgetc(f);
  }
  if (c == '#') ungetc(c, f);
  tok[k] = '\0';
  return 1;
}

static void test_example_file(void)
{
  cpk_problem *p = NULL;
  char tok[64];
  FILE *f = fopen(t_srcpath("../examples/contact-lcp.cpk"), "r");
  t_ok(f != NULL, "examples/contact-lcp.cpk exists");
  if (!f || cpk_family_block_on_plane_lcp(4, &p)) {
    if (f) fclose(f);
    return;
  }
  size_t n = 0, nnz = 0, bad = 0;
  while (next_token(f, tok, sizeof tok) && strcmp(tok, "coord") != 0)
    if (strcmp(tok, "n") == 0 && next_token(f, tok, sizeof tok)) n = strtoul(tok, NULL, 10);
  if (next_token(f, tok, sizeof tok)) nnz = strtoul(tok, NULL, 10);
  double *M = calloc(24 * 24, sizeof *M);
  for (size_t k = 0; k < nnz && n == 24; k++) {
    size_t i, j;
    double x;
    if (fscanf(f, "%zu %zu %lf", &i, &j, &x) != 3 || i < 1 || j < 1 || i > 24 || j > 24) bad++;
    else M[(i - 1) * 24 + (j - 1)] += x;
  }
  while (next_token(f, tok, sizeof tok) && strcmp(tok, "q") != 0) continue;
  for (size_t i = 0; i < 24 && n == 24; i++) {
    bad += !next_token(f, tok, sizeof tok) || strtod(tok, NULL) != p->q[i];
    for (size_t j = 0; j < 24; j++) bad += M[i * 24 + j] != cpk_matrix_get(p->M, i, j);
  }
  t_ok(n == 24 && bad == 0, "example file matches cpk_family_block_on_plane_lcp(4) exactly");
  free(M);
  fclose(f);
  cpk_problem *read = NULL;
  cpk_error err;
  int rc = cpk_problem_read_file(t_srcpath("../examples/contact-lcp.cpk"), &read, &err);
  t_ok(rc == CPK_OK && read->n == 24 && read->kind == CPK_KIND_LCP,
       "example file reads with cpk_problem_read_file (%s)", rc ? err.message : "ok");
  cpk_problem_free(read);
  cpk_problem_free(p);
}

int main(void)
{
  unsigned long seed = t_seed();
  gsl_set_error_handler_off();
  test_murty_fathi();
  test_random_pd(seed);
  test_random_p(seed);
  test_random_psd(seed);
  test_degenerate(seed);
  test_box_mcp(seed);
  test_delassus(seed);
  test_kkt(seed);
  test_block();
  test_example_file();
  return t_done();
}
