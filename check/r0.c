/* r0.c: the R0 property (LCP(0, M) has only z = 0) by the supports of possible non-zero solutions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/check.h>
#include <cpkit/util.h>
#include "check_internal.h"

#define POS_TOL 1e-9

typedef struct r0_ws {
  gsl_matrix *B, *V;
  gsl_vector *sv;
  size_t *idx;
  double *x;
} r0_ws;

static void r0_free(r0_ws *w)
{
  gsl_matrix_free(w->B);
  gsl_matrix_free(w->V);
  gsl_vector_free(w->sv);
  free(w->idx);
  free(w->x);
}

static int r0_alloc(r0_ws *w, size_t n)
{
  w->B = gsl_matrix_alloc(n, n);
  w->V = gsl_matrix_alloc(n, n);
  w->sv = gsl_vector_alloc(n);
  w->idx = cpk_alloc_array(n, sizeof *w->idx);
  w->x = cpk_alloc_array(n, sizeof *w->x);
  if (w->B && w->V && w->sv && w->idx && w->x) return CPK_OK;
  r0_free(w);
  return CPK_ENOMEM;
}

/* Null vector c of M_aa, made positive: 1 if it is > 0 and M z >= 0 off the support (a solution). */
static int is_solution(const chk_data *d, r0_ws *w, size_t k, size_t c, unsigned long mask)
{
  double sign = gsl_matrix_get(w->V, 0, c) < 0 ? -1.0 : 1.0;
  for (size_t a = 0; a < k; a++) {
    w->x[a] = sign * gsl_matrix_get(w->V, a, c);
    if (!(w->x[a] > POS_TOL)) return 0;
  }
  for (size_t i = 0; i < d->n; i++) {
    if (mask >> i & 1UL) continue;
    double sum = 0.0;
    for (size_t a = 0; a < k; a++) sum += gsl_matrix_get(d->M, i, w->idx[a]) * w->x[a];
    if (sum < -10 * d->tol) return 0;
  }
  return 1;
}

/* 1: a non-zero solution with support mask; 0: none; 2: a null space of dimension > 1 without a basis solution. */
static int r0_subset(const chk_data *d, r0_ws *w, unsigned long mask)
{
  size_t k = chk_principal(d->M, mask, w->B, w->idx), nnull = 0;
  gsl_matrix_view B = gsl_matrix_submatrix(w->B, 0, 0, k, k);
  gsl_matrix_view V = gsl_matrix_submatrix(w->V, 0, 0, k, k);
  gsl_vector_view sv = gsl_vector_subvector(w->sv, 0, k);
  /* Jacobi, not Golub-Reinsch: GSL's bidiagonalization allocates inside and
     does not survive that allocation failing; this one works in place. */
  gsl_linalg_SV_decomp_jacobi(&B.matrix, &V.matrix, &sv.vector);
  for (size_t c = 0; c < k; c++) {
    if (gsl_vector_get(&sv.vector, c) > d->tol) continue;
    nnull++;
    if (is_solution(d, w, k, c, mask)) return 1;
  }
  return nnull > 1 ? 2 : 0;
}

int chk_r0(const chk_data *d, const chk_known *k, cpk_check_report *r)
{
  if (k->p == 1 || k->strictly_copositive == 1)
    return cpk_check_report_add(r, "r0", CPK_VERDICT_HOLDS,
                                "R0: LCP(0, M) has only z = 0 (implied by %s)",
                                k->p == 1 ? "P" : "strict copositivity");
  if (d->n > d->max_n)
    return cpk_check_report_add(r, "r0", CPK_VERDICT_NOT_DECIDED,
                                "R0: not decided (n too large: %zu > max_n %zu)", d->n, d->max_n);
  r0_ws w;
  if (r0_alloc(&w, d->n)) return CPK_ENOMEM;
  int undecided = 0, found = 0;
  unsigned long mask, nsets = 1UL << d->n;
  for (mask = 1; mask < nsets && !found; mask++) {
    int res = r0_subset(d, &w, mask);
    if (res == 2) undecided = 1;
    found = res == 1;
  }
  char set[128], vec[160];
  if (found) {
    chk_format_set(set, sizeof set, mask - 1, d->n);
    chk_format_vec(vec, sizeof vec, w.x, (size_t)__builtin_popcountl(mask - 1));
  }
  r0_free(&w);
  if (found)
    return cpk_check_report_add(r, "r0", CPK_VERDICT_FAILS,
                                "R0: LCP(0, M) has the non-zero solution z = %s on rows %s "
                                "(solutions unbounded along it)", vec, set);
  if (undecided)
    return cpk_check_report_add(r, "r0", CPK_VERDICT_NOT_DECIDED,
                                "R0: not decided (a null space of dimension > 1 on some support)");
  return cpk_check_report_add(r, "r0", CPK_VERDICT_HOLDS,
                              "R0: LCP(0, M) has only z = 0 (no support carries a non-zero "
                              "solution)");
}
