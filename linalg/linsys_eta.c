/* linsys_eta.c: the product-form (eta file) column update shared by the LU-based linsys backends. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/errors.h>
#include <cpkit/util.h>
#include "linsys_eta.h"

/* An eta pivot |alpha_p| at or below this times max|alpha| makes the replacement singular. */
#define ETA_PIVOT_TOL 1e-12

int linsys_eta_alloc(linsys_eta *e, size_t n)
{
  *e = (linsys_eta){0};
  e->n = n;
  e->eta_cap = 64;
  e->ent_cap = n > (SIZE_MAX - 64) / 2 ? SIZE_MAX : 2 * n + 64;
  if (e->ent_cap > SIZE_MAX / sizeof(size_t)) return CPK_EOVERFLOW;
  e->start = cpk_alloc_array(e->eta_cap + 1, sizeof *e->start);
  e->piv = cpk_alloc_array(e->eta_cap, sizeof *e->piv);
  e->pval = cpk_alloc_array(e->eta_cap, sizeof *e->pval);
  e->ent_idx = cpk_alloc_array(e->ent_cap, sizeof *e->ent_idx);
  e->ent_val = cpk_alloc_array(e->ent_cap, sizeof *e->ent_val);
  if (!e->start || !e->piv || !e->pval || !e->ent_idx || !e->ent_val) return CPK_ENOMEM;
  e->start[0] = 0;
  return CPK_OK;
}

void linsys_eta_free(linsys_eta *e)
{
  free(e->start);
  free(e->piv);
  free(e->pval);
  free(e->ent_idx);
  free(e->ent_val);
  *e = (linsys_eta){0};
}

void linsys_eta_reset(linsys_eta *e) { e->neta = e->nent = 0; }

void linsys_eta_apply(const linsys_eta *e, double *y)
{
  for (size_t m = 0; m < e->neta; m++) {
    double yp = y[e->piv[m]] / e->pval[m];
    y[e->piv[m]] = yp;
    if (yp == 0.0) continue;
    for (size_t k = e->start[m]; k < e->start[m + 1]; k++) y[e->ent_idx[k]] -= e->ent_val[k] * yp;
  }
}

/* Only the pivot entry of each E^T x = b changes. */
void linsys_eta_apply_transposed(const linsys_eta *e, double *y)
{
  for (size_t m = e->neta; m-- > 0;) {
    double v = y[e->piv[m]];
    for (size_t k = e->start[m]; k < e->start[m + 1]; k++) v -= e->ent_val[k] * y[e->ent_idx[k]];
    y[e->piv[m]] = v / e->pval[m];
  }
}

/* Make room for one more eta with `extra` off-pivot entries (doubling; may reallocate). */
int linsys_eta_reserve(linsys_eta *e, size_t extra)
{
  if (e->neta == e->eta_cap) {
    size_t cap = e->eta_cap * 2;
    if (cap < e->eta_cap || cap + 1 == 0 || cap > SIZE_MAX / sizeof(size_t)) return CPK_EOVERFLOW;
    size_t *st = realloc(e->start, (cap + 1) * sizeof *st);
    if (st) e->start = st;
    size_t *pv = realloc(e->piv, cap * sizeof *pv);
    if (pv) e->piv = pv;
    double *pl = realloc(e->pval, cap * sizeof *pl);
    if (pl) e->pval = pl;
    if (!st || !pv || !pl) return CPK_ENOMEM; /* grown arrays stay valid, cap unchanged */
    e->eta_cap = cap;
  }
  if (extra > e->ent_cap - e->nent) {
    size_t need = e->nent + extra, cap = e->ent_cap;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    if (cap > SIZE_MAX / sizeof(size_t)) return CPK_EOVERFLOW;
    size_t *ix = realloc(e->ent_idx, cap * sizeof *ix);
    if (ix) e->ent_idx = ix;
    double *vl = realloc(e->ent_val, cap * sizeof *vl);
    if (vl) e->ent_val = vl;
    if (!ix || !vl) return CPK_ENOMEM;
    e->ent_cap = cap;
  }
  return CPK_OK;
}

/*
 * The eta file grows here (linsys_eta_reserve may reallocate): the only allocation
 * outside alloc, amortised by doubling and reset by the next factorization.
 */
int linsys_eta_append(linsys_eta *e, size_t j, const double *a)
{
  double amax = 0.0;
  size_t nz = 0;
  for (size_t i = 0; i < e->n; i++) {
    if (!isfinite(a[i])) return CPK_ESINGULAR;
    if (fabs(a[i]) > amax) amax = fabs(a[i]);
    if (i != j && a[i] != 0.0) nz++;
  }
  if (!(fabs(a[j]) > ETA_PIVOT_TOL * amax)) return CPK_ESINGULAR;
  int rc = linsys_eta_reserve(e, nz);
  if (rc) return rc;
  size_t k = e->nent;
  for (size_t i = 0; i < e->n; i++)
    if (i != j && a[i] != 0.0) {
      e->ent_idx[k] = i;
      e->ent_val[k++] = a[i];
    }
  e->piv[e->neta] = j;
  e->pval[e->neta] = a[j];
  e->nent = k;
  e->start[++e->neta] = k;
  return CPK_OK;
}

int linsys_eta_replace(linsys_eta *e, size_t j, const double *col, const double *Ainv_col,
                       double *alpha, int (*solve)(void *state, double *x), void *state,
                       cpk_linsys_stats *st)
{
  memcpy(alpha, Ainv_col ? Ainv_col : col, e->n * sizeof *alpha);
  int rc = Ainv_col ? CPK_OK : solve(state, alpha);
  if (rc || (rc = linsys_eta_append(e, j, alpha))) return rc;
  st->updates++;
  st->updates_since_factor++;
  st->nnz_updates = linsys_eta_entries(e);
  return CPK_OK;
}

double linsys_eta_entries(const linsys_eta *e) { return (double)(e->nent + e->neta); }

static int eta_backend_solve_current(linsys_eta_backend *b, double *x, int transpose)
{
  if (b->n == 0) return CPK_OK;
  if (transpose) linsys_eta_apply_transposed(&b->eta, x);
  int rc = b->solve_a0(b, x, transpose);
  if (!rc && !transpose) linsys_eta_apply(&b->eta, x);
  return rc;
}

int linsys_eta_backend_solve(void *state, double *x, int transpose)
{
  linsys_eta_backend *b = state;
  if (!b->factored || (b->n > 0 && !x)) return CPK_EINVAL;
  b->st.solves++;
  return eta_backend_solve_current(b, x, transpose);
}

/* A plain solve with the current matrix, for linsys_eta_replace (not counted as a solve). */
static int eta_backend_solve_plain(void *state, double *x)
{
  return eta_backend_solve_current(state, x, 0);
}

int linsys_eta_backend_replace_column(void *state, size_t j, const double *col,
                                      const double *Ainv_col)
{
  linsys_eta_backend *b = state;
  if (!b->factored || j >= b->n || !col) return CPK_EINVAL;
  return linsys_eta_replace(&b->eta, j, col, Ainv_col, b->alpha, eta_backend_solve_plain, b,
                            &b->st);
}

void linsys_eta_backend_stats(const void *state, cpk_linsys_stats *st)
{
  const linsys_eta_backend *b = state;
  *st = b->st;
}

void linsys_eta_backend_release(linsys_eta_backend *b)
{
  free(b->alpha);
  b->alpha = NULL;
  linsys_eta_free(&b->eta);
}

/* A is square n x n. */
static int size_check(const linsys_eta_backend *b, const cpk_csc *A)
{
  return (!A || A->m != A->n || (size_t)A->n != b->n) ? CPK_EINVAL : CPK_OK;
}

int linsys_eta_backend_check(const linsys_eta_backend *b, const cpk_csc *A)
{
  int rc = size_check(b, A);
  if (rc) return rc;
  return cpk_csc_check(A) ? CPK_EBADMAT : CPK_OK;
}

int linsys_eta_backend_begin_factor(linsys_eta_backend *b, const cpk_csc *A)
{
  int rc = linsys_eta_backend_check(b, A);
  if (rc) return rc;
  linsys_eta_backend_start(b);
  return CPK_OK;
}

int linsys_eta_backend_begin_factor_unchecked(linsys_eta_backend *b, const cpk_csc *A)
{
  int rc = size_check(b, A);
  if (rc) return rc;
  linsys_eta_backend_start(b);
  return CPK_OK;
}

void linsys_eta_backend_start(linsys_eta_backend *b)
{
  b->factor_start = b->n >= CPK_LINSYS_TIMED_MIN_N ? cpk_wtime() : 0.0;
  b->factored = 0;
  linsys_eta_reset(&b->eta);
  b->st.updates_since_factor = 0;
  b->st.nnz_updates = 0.0;
  b->st.factorizations++;
}

int linsys_eta_backend_end_factor(linsys_eta_backend *b, int rc)
{
  b->factored = (rc == CPK_OK);
  if (b->n >= CPK_LINSYS_TIMED_MIN_N) b->st.factor_time_s += cpk_wtime() - b->factor_start;
  return rc;
}
