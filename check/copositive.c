/* copositive.c: exact finite tests over principal submatrices: copositivity (Kaplan), copositive-plus, R0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/check.h>
#include <cpkit/util.h>
#include "check_internal.h"

/* Components below this (relative to the unit vector) count as zero in "strictly positive". */
#define POS_TOL 1e-9

typedef struct sub_ws {
  gsl_matrix *B, *V;
  gsl_vector *ev, *work;
  gsl_eigen_symmv_workspace *w;
  size_t *idx;
} sub_ws;

static void ws_free(sub_ws *s)
{
  gsl_matrix_free(s->B);
  gsl_matrix_free(s->V);
  gsl_vector_free(s->ev);
  gsl_vector_free(s->work);
  gsl_eigen_symmv_free(s->w);
  free(s->idx);
}

static int ws_alloc(sub_ws *s, size_t n)
{
  s->B = gsl_matrix_alloc(n, n);
  s->V = gsl_matrix_alloc(n, n);
  s->ev = gsl_vector_alloc(n);
  s->work = gsl_vector_alloc(n);
  s->w = gsl_eigen_symmv_alloc(n);
  s->idx = cpk_alloc_array(n, sizeof *s->idx);
  if (s->B && s->V && s->ev && s->work && s->w && s->idx) return CPK_OK;
  ws_free(s);
  return CPK_ENOMEM;
}

/* Column c of V (k entries) scaled to be positive; 1 if every entry is then > POS_TOL. */
static int positive_column(const gsl_matrix *V, size_t k, size_t c, double *x)
{
  double sign = gsl_matrix_get(V, 0, c) < 0 ? -1.0 : 1.0;
  for (size_t a = 0; a < k; a++) {
    x[a] = sign * gsl_matrix_get(V, a, c);
    if (!(x[a] > POS_TOL)) return 0;
  }
  return 1;
}

/* Eigen-decompose the principal submatrix of A on mask into ws (views k x k); returns k. */
static size_t sub_eigen(const gsl_matrix *A, unsigned long mask, sub_ws *s)
{
  size_t k = chk_principal(A, mask, s->B, s->idx);
  gsl_matrix_view B = gsl_matrix_submatrix(s->B, 0, 0, k, k);
  gsl_matrix_view V = gsl_matrix_submatrix(s->V, 0, 0, k, k);
  gsl_vector_view ev = gsl_vector_subvector(s->ev, 0, k);
  gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(k);
  if (!w) return 0;
  gsl_eigen_symmv(&B.matrix, &ev.vector, &V.matrix, w);
  gsl_eigen_symmv_free(w);
  return k;
}

/* Kaplan: S copositive iff no principal submatrix has an eigenvector > 0 with eigenvalue < 0 (strict: <= 0). */
static int kaplan(const chk_data *d, sub_ws *s, double *x, unsigned long *wc, unsigned long *ws_)
{
  *wc = *ws_ = 0;
  unsigned long nsets = 1UL << d->n;
  for (unsigned long mask = 1; mask < nsets; mask++) {
    size_t k = sub_eigen(d->S, mask, s);
    if (k == 0) return CPK_ENOMEM;
    for (size_t c = 0; c < k; c++) {
      double lam = gsl_vector_get(s->ev, c);
      if (lam > d->tol || !positive_column(s->V, k, c, x)) continue;
      if (!*ws_) *ws_ = mask;
      if (lam < -d->tol) {
        *wc = mask;
        return CPK_OK;
      }
    }
  }
  return CPK_OK;
}

static int cheap_copositivity(const chk_data *d, chk_known *k)
{
  int nonneg = 1, posdiag = 1;
  k->copositive = k->strictly_copositive = -1;
  for (size_t i = 0; i < d->n; i++) {
    double sii = gsl_matrix_get(d->S, i, i);
    if (sii < -d->tol) k->copositive = 0;
    if (!(sii > d->tol)) posdiag = 0;
    for (size_t j = 0; j < d->n; j++) {
      double sij = gsl_matrix_get(d->S, i, j), sjj = gsl_matrix_get(d->S, j, j);
      if (sij < -d->tol) nonneg = 0;
      if (sii >= 0 && sjj >= 0 && sij < -sqrt(sii * sjj) - d->tol) k->copositive = 0;
    }
  }
  if (k->copositive == 0) k->strictly_copositive = 0;
  if (k->sym_psd == 1 || nonneg) k->copositive = 1;
  if (k->sym_pd == 1 || (nonneg && posdiag)) k->strictly_copositive = 1;
  if (!posdiag) k->strictly_copositive = 0;
  return k->copositive != -1 && k->strictly_copositive != -1;
}

static int report_copositivity(const chk_data *d, const chk_known *k, const char *how,
                               cpk_check_report *r)
{
  int rc = 0;
  if (k->copositive == -1)
    rc |= cpk_check_report_add(r, "copositive", CPK_VERDICT_NOT_DECIDED,
                               "copositive: not decided (n too large: %zu > max_n %zu)", d->n,
                               d->max_n);
  else
    rc |= cpk_check_report_add(r, "copositive", k->copositive ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
                               "copositive: z'Mz >= 0 for every z >= 0 (%s)", how);
  if (k->strictly_copositive == -1)
    rc |= cpk_check_report_add(r, "strictly_copositive", CPK_VERDICT_NOT_DECIDED,
                               "strictly copositive: not decided (n too large: %zu > max_n %zu)",
                               d->n, d->max_n);
  else
    rc |= cpk_check_report_add(
        r, "strictly_copositive", k->strictly_copositive ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
        "strictly copositive: z'Mz > 0 for every z >= 0, z != 0 (%s)", how);
  return rc ? CPK_ENOMEM : CPK_OK;
}

int chk_copositivity(const chk_data *d, chk_known *k, cpk_check_report *r)
{
  char how[320], set[128];
  if (cheap_copositivity(d, k))
    return report_copositivity(d, k, "from the signs, 2x2 minors or definiteness of (M+M')/2", r);
  if (d->n > d->max_n) return report_copositivity(d, k, "", r);
  sub_ws s;
  double *x = cpk_alloc_array(d->n, sizeof *x);
  if (!x || ws_alloc(&s, d->n)) {
    free(x);
    return CPK_ENOMEM;
  }
  unsigned long wc, wsc;
  int rc = kaplan(d, &s, x, &wc, &wsc);
  ws_free(&s);
  free(x);
  if (rc) return rc;
  if (k->copositive == -1) k->copositive = wc == 0;
  if (k->strictly_copositive == -1) k->strictly_copositive = wsc == 0;
  chk_format_set(set, sizeof set, wc ? wc : wsc, d->n);
  snprintf(how, sizeof how, "Kaplan's test on all principal submatrices of (M+M')/2%s%s",
           wc || wsc ? "; a positive eigenvector with eigenvalue <= 0 on rows " : "",
           wc || wsc ? set : "");
  return report_copositivity(d, k, how, r);
}

/* Zeros of z'Sz on the orthant have S_aa z_a = 0 on their support a; copositive-plus needs S z = 0 there too. */
static int cplus_subset(const chk_data *d, sub_ws *s, unsigned long mask, double *x, int *undecided)
{
  size_t k = sub_eigen(d->S, mask, s), nnull = 0, c0 = 0;
  for (size_t c = 0; c < k; c++)
    if (fabs(gsl_vector_get(s->ev, c)) <= d->tol) nnull++, c0 = c;
  if (nnull == 0) return 0;
  if (nnull == 1 && !positive_column(s->V, k, c0, x)) return 0;
  for (size_t c = 0; c < k; c++) {
    if (fabs(gsl_vector_get(s->ev, c)) > d->tol) continue;
    for (size_t i = 0; i < d->n; i++) {
      double sum = 0.0;
      for (size_t a = 0; a < k; a++) sum += gsl_matrix_get(d->S, i, s->idx[a]) * gsl_matrix_get(s->V, a, c);
      if (fabs(sum) > 10 * d->tol) {
        if (nnull > 1) *undecided = 1;
        return nnull == 1;
      }
    }
  }
  return 0;
}

int chk_copositive_plus(const chk_data *d, const chk_known *k, cpk_check_report *r)
{
  const char *nm = "copositive_plus";
  if (k->copositive == 0)
    return cpk_check_report_add(r, nm, CPK_VERDICT_FAILS, "copositive-plus: M is not copositive");
  if (k->sym_psd == 1 || k->strictly_copositive == 1)
    return cpk_check_report_add(r, nm, CPK_VERDICT_HOLDS,
                                "copositive-plus: copositive, and z >= 0, z'Mz = 0 give "
                                "(M+M')z = 0 (implied by %s)",
                                k->sym_psd == 1 ? "the semidefinite symmetric part" : "strict copositivity");
  if (k->copositive == -1 || d->n > d->max_n)
    return cpk_check_report_add(r, nm, CPK_VERDICT_NOT_DECIDED,
                                "copositive-plus: not decided (n too large: %zu > max_n %zu)", d->n,
                                d->max_n);
  sub_ws s;
  double *x = cpk_alloc_array(d->n, sizeof *x);
  if (!x || ws_alloc(&s, d->n)) {
    free(x);
    return CPK_ENOMEM;
  }
  int undecided = 0;
  unsigned long mask, nsets = 1UL << d->n;
  for (mask = 1; mask < nsets; mask++)
    if (cplus_subset(d, &s, mask, x, &undecided)) break;
  ws_free(&s);
  char set[128], vec[160];
  chk_format_set(set, sizeof set, mask, d->n);
  chk_format_vec(vec, sizeof vec, x, (size_t)__builtin_popcountl(mask < nsets ? mask : 0));
  free(x);
  if (mask < nsets)
    return cpk_check_report_add(r, nm, CPK_VERDICT_FAILS,
                                "copositive-plus: z = %s on rows %s has z >= 0, z'Mz = 0 but "
                                "(M+M')z != 0", vec, set);
  if (undecided)
    return cpk_check_report_add(r, nm, CPK_VERDICT_NOT_DECIDED,
                                "copositive-plus: not decided (a zero set of dimension > 1)");
  return cpk_check_report_add(r, nm, CPK_VERDICT_HOLDS,
                              "copositive-plus: every zero z >= 0 of z'Mz has (M+M')z = 0 "
                              "(checked on all principal submatrices)");
}
