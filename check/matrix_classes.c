/* matrix_classes.c: diagonal dominance, definiteness of the symmetric part, P and P0 (Tsatsomeros-Li), and the class driver. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_vector.h>
#include <cpkit/check.h>
#include <cpkit/util.h>
#include "check_internal.h"

/* The exhaustive tests walk subsets as bit masks, so they stop well below the width of a long. */
#define CHK_HARD_MAX_N 40

void chk_format_set(char *buf, size_t size, unsigned long mask, size_t n)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && used + 8 < size; i++)
    if (mask >> i & 1UL)
      used += (size_t)snprintf(buf + used, size - used, "%s%zu", used ? "," : "{", i + 1);
  snprintf(buf + used, size - used, used ? "}" : "{}");
}

void chk_format_vec(char *buf, size_t size, const double *x, size_t n)
{
  size_t used = (size_t)snprintf(buf, size, "(");
  for (size_t i = 0; i < n && i < 8 && used + 16 < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%.4g", i ? ", " : "", x[i]);
  snprintf(buf + used, size - used, n > 8 ? ", ...)" : ")");
}

size_t chk_principal(const gsl_matrix *A, unsigned long mask, gsl_matrix *B, size_t *idx)
{
  size_t k = 0;
  for (size_t i = 0; i < A->size1; i++)
    if (mask >> i & 1UL) idx[k++] = i;
  for (size_t a = 0; a < k; a++)
    for (size_t b = 0; b < k; b++) gsl_matrix_set(B, a, b, gsl_matrix_get(A, idx[a], idx[b]));
  return k;
}

static void data_free(chk_data *d)
{
  gsl_matrix_free(d->M);
  gsl_matrix_free(d->S);
}

static int data_init(const cpk_matrix *A, const cpk_check_settings *s, chk_data *d)
{
  size_t n = A->n, bytes;
  memset(d, 0, sizeof *d);
  if (cpk_size_mul(n, n, &bytes) || cpk_size_mul(bytes, sizeof(double), &bytes))
    return CPK_EOVERFLOW;
  d->n = n;
  d->M = gsl_matrix_alloc(n, n);
  d->S = gsl_matrix_alloc(n, n);
  double *col = cpk_alloc_array(n, sizeof *col);
  if (!d->M || !d->S || !col) {
    free(col);
    data_free(d);
    return CPK_ENOMEM;
  }
  for (size_t j = 0; j < n; j++) {
    cpk_matrix_column(A, j, col);
    for (size_t i = 0; i < n; i++) gsl_matrix_set(d->M, i, j, col[i]);
  }
  free(col);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set(d->S, i, j, 0.5 * (gsl_matrix_get(d->M, i, j) + gsl_matrix_get(d->M, j, i)));
  if (cpk_matrix_norm_inf_checked(A, &d->norm)) { /* a NaN tolerance would decide every test */
    data_free(d);
    return CPK_ENOMEM;
  }
  d->tol = s->rel_tol * d->norm;
  d->max_n = s->max_n < CHK_HARD_MAX_N ? s->max_n : CHK_HARD_MAX_N;
  return CPK_OK;
}

/* Strict row diagonal dominance with a positive diagonal: every real eigenvalue positive, and a P-matrix. */
static int diag_dominance(const chk_data *d, cpk_check_report *r)
{
  for (size_t i = 0; i < d->n; i++) {
    double off = 0.0, dii = gsl_matrix_get(d->M, i, i);
    for (size_t j = 0; j < d->n; j++)
      if (j != i) off += fabs(gsl_matrix_get(d->M, i, j));
    if (!(dii > off + d->tol))
      return cpk_check_report_add(r, "diag_dominant", CPK_VERDICT_FAILS,
                                  "strictly diagonally dominant, positive diagonal: row %zu (1-based) has "
                                  "M_ii = %.4g, sum |M_ij| = %.4g off the diagonal",
                                  i + 1, dii, off) ? CPK_ENOMEM : 0;
  }
  return cpk_check_report_add(r, "diag_dominant", CPK_VERDICT_HOLDS,
                              "strictly diagonally dominant rows with a positive diagonal "
                              "(sufficient for a P-matrix)") ? CPK_ENOMEM : 1;
}

/* Smallest eigenvalue of the symmetric part decides PD (> tol) and PSD (>= -tol). */
static int definiteness(const chk_data *d, chk_known *k, cpk_check_report *r)
{
  size_t n = d->n;
  gsl_matrix *S = gsl_matrix_alloc(n, n);
  gsl_vector *ev = gsl_vector_alloc(n);
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
  if (!S || !ev || !w) {
    gsl_matrix_free(S);
    gsl_vector_free(ev);
    gsl_eigen_symm_free(w);
    return CPK_ENOMEM;
  }
  gsl_matrix_memcpy(S, d->S);
  gsl_eigen_symm(S, ev, w);
  double lmin = gsl_vector_min(ev);
  gsl_matrix_free(S);
  gsl_vector_free(ev);
  gsl_eigen_symm_free(w);
  k->sym_pd = lmin > d->tol;
  k->sym_psd = lmin >= -d->tol;
  int rc = cpk_check_report_add(r, "sym_pd", k->sym_pd ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
                                "symmetric part positive definite: smallest eigenvalue of "
                                "(M+M')/2 is %.6g (tolerance %.3g)", lmin, d->tol);
  rc |= cpk_check_report_add(r, "sym_psd", k->sym_psd ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
                             "symmetric part positive semidefinite (M monotone): smallest "
                             "eigenvalue %.6g", lmin);
  return rc ? CPK_ENOMEM : CPK_OK;
}

/*
 * Tsatsomeros-Li: A (k x k, in levels[depth]) is P iff a11 > 0 and both A(2:k,2:k)
 * and its Schur complement A/a11 are P. Each leaf pivot is the ratio of two principal
 * minors of M, so a non-positive pivot names a subset whose minor is <= 0. `inc` holds
 * the original indices eliminated so far, `rest` those still in A.
 */
typedef struct tl_state {
  gsl_matrix **levels;
  size_t n;
  double tol;
  unsigned long witness;
} tl_state;

static int tl_test(tl_state *t, size_t depth, unsigned long inc, const size_t *rest)
{
  gsl_matrix *A = t->levels[depth];
  size_t k = t->n - depth;
  double a11 = gsl_matrix_get(A, 0, 0);
  if (!(a11 > t->tol)) {
    t->witness = inc | 1UL << rest[0];
    return 0;
  }
  if (k == 1) return 1;
  gsl_matrix *B = t->levels[depth + 1];
  for (size_t i = 1; i < k; i++)
    for (size_t j = 1; j < k; j++) gsl_matrix_set(B, i - 1, j - 1, gsl_matrix_get(A, i, j));
  if (!tl_test(t, depth + 1, inc, rest + 1)) return 0;
  for (size_t i = 1; i < k; i++) {
    double f = gsl_matrix_get(A, i, 0) / a11;
    for (size_t j = 1; j < k; j++)
      gsl_matrix_set(B, i - 1, j - 1, gsl_matrix_get(A, i, j) - f * gsl_matrix_get(A, 0, j));
  }
  return tl_test(t, depth + 1, inc | 1UL << rest[0], rest + 1);
}

/* 1 if M + shift I is a P-matrix, 0 if not (witness set in *witness), negative on error. */
static int p_exact(const chk_data *d, double shift, unsigned long *witness)
{
  size_t n = d->n;
  tl_state t = {NULL, n, d->tol, 0};
  size_t *rest = cpk_alloc_array(n, sizeof *rest);
  t.levels = calloc(n, sizeof *t.levels);
  int ok = rest && t.levels;
  for (size_t l = 0; ok && l < n; l++) ok = (t.levels[l] = gsl_matrix_alloc(n - l, n - l)) != NULL;
  int res = -CPK_ENOMEM;
  if (ok) {
    for (size_t i = 0; i < n; i++) rest[i] = i;
    gsl_matrix_memcpy(t.levels[0], d->M);
    for (size_t i = 0; i < n; i++) *gsl_matrix_ptr(t.levels[0], i, i) += shift;
    res = tl_test(&t, 0, 0UL, rest);
    *witness = t.witness;
  }
  for (size_t l = 0; t.levels && l < n; l++) gsl_matrix_free(t.levels[l]);
  free(t.levels);
  free(rest);
  return res;
}

static int p_matrix(const chk_data *d, chk_known *k, int dd, cpk_check_report *r)
{
  char set[128];
  k->p = -1;
  for (size_t i = 0; i < d->n; i++)
    if (!(gsl_matrix_get(d->M, i, i) > d->tol)) {
      k->p = 0;
      return cpk_check_report_add(r, "p_matrix", CPK_VERDICT_FAILS,
                                  "P-matrix: the 1x1 principal minor M(%zu,%zu) = %.4g is not "
                                  "positive", i + 1, i + 1, gsl_matrix_get(d->M, i, i));
    }
  if (k->sym_pd || dd) {
    k->p = 1;
    return cpk_check_report_add(r, "p_matrix", CPK_VERDICT_HOLDS,
                                "P-matrix: every principal minor is positive (implied by %s)",
                                k->sym_pd ? "the positive definite symmetric part"
                                          : "strict diagonal dominance");
  }
  if (d->n > d->max_n)
    return cpk_check_report_add(r, "p_matrix", CPK_VERDICT_NOT_DECIDED,
                                "P-matrix: not decided (n too large: %zu > max_n %zu for the "
                                "exact test)", d->n, d->max_n);
  unsigned long w = 0;
  int res = p_exact(d, 0.0, &w);
  if (res < 0) return -res;
  k->p = res;
  chk_format_set(set, sizeof set, w, d->n);
  if (res)
    return cpk_check_report_add(r, "p_matrix", CPK_VERDICT_HOLDS,
                                "P-matrix: every principal minor is positive (Schur-complement "
                                "test of Tsatsomeros-Li)");
  return cpk_check_report_add(r, "p_matrix", CPK_VERDICT_FAILS,
                              "P-matrix: the principal minor on rows %s is not positive "
                              "(Schur-complement test)", set);
}

/* P0 = limit of P: M is P0 iff M + eps I is P for every eps > 0; tested at one small eps. */
static int p0_matrix(const chk_data *d, const chk_known *k, cpk_check_report *r)
{
  char set[128];
  for (size_t i = 0; i < d->n; i++)
    if (gsl_matrix_get(d->M, i, i) < -d->tol)
      return cpk_check_report_add(r, "p0_matrix", CPK_VERDICT_FAILS,
                                  "P0-matrix: the 1x1 principal minor M(%zu,%zu) = %.4g is negative",
                                  i + 1, i + 1, gsl_matrix_get(d->M, i, i));
  if (k->p == 1 || k->sym_psd)
    return cpk_check_report_add(r, "p0_matrix", CPK_VERDICT_HOLDS,
                                "P0-matrix: every principal minor is >= 0 (implied by %s)",
                                k->p == 1 ? "P" : "the semidefinite symmetric part");
  if (d->n > d->max_n)
    return cpk_check_report_add(r, "p0_matrix", CPK_VERDICT_NOT_DECIDED,
                                "P0-matrix: not decided (n too large: %zu > max_n %zu)", d->n,
                                d->max_n);
  double eps = 1e3 * d->tol > 0 ? 1e3 * d->tol : 1e-7;
  unsigned long w = 0;
  int res = p_exact(d, eps, &w);
  if (res < 0) return -res;
  chk_format_set(set, sizeof set, w, d->n);
  if (res)
    return cpk_check_report_add(r, "p0_matrix", CPK_VERDICT_HOLDS,
                                "P0-matrix: every principal minor is >= 0 (M + %.2g I is P)", eps);
  return cpk_check_report_add(r, "p0_matrix", CPK_VERDICT_FAILS,
                              "P0-matrix: the principal minor on rows %s is negative", set);
}

static int run_classes(const chk_data *d, cpk_check_report *r)
{
  chk_known k = {-1, -1, -1, -1, -1};
  int dd = diag_dominance(d, r);
  if (dd < 0 || dd == CPK_ENOMEM) return CPK_ENOMEM;
  int rc = definiteness(d, &k, r);
  if (!rc) rc = p_matrix(d, &k, dd, r);
  if (!rc) rc = p0_matrix(d, &k, r);
  if (!rc) rc = chk_copositivity(d, &k, r);
  if (!rc) rc = chk_copositive_plus(d, &k, r);
  if (!rc) rc = chk_r0(d, &k, r);
  return rc ? CPK_ENOMEM : CPK_OK;
}

int cpk_check_matrix_classes(const cpk_matrix *M, const cpk_check_settings *s,
                             cpk_check_report *r, cpk_error *err)
{
  cpk_check_settings def;
  if (!s) {
    cpk_check_settings_default(&def);
    s = &def;
  }
  if (!M || !r) return cpk_error_set(err, CPK_EINVAL, "check: NULL matrix or report");
  if (M->m != M->n || M->n == 0)
    return cpk_error_set(err, CPK_EINVAL, "check: M must be square and non-empty (%zu x %zu)",
                         M->m, M->n);
  if (!cpk_matrix_is_finite(M)) return cpk_error_set(err, CPK_EINVAL, "check: M is not finite");
  double t0 = cpk_wtime();
  chk_data d;
  int rc = data_init(M, s, &d);
  if (rc) return cpk_error_set(err, rc, "check: cannot copy the %zu x %zu matrix", M->n, M->n);
  r->n = M->n;
  rc = run_classes(&d, r);
  data_free(&d);
  r->time_s += cpk_wtime() - t0;
  return rc ? cpk_error_set(err, rc, "check: out of memory") : CPK_OK;
}
