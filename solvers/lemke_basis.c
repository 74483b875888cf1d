/* lemke_basis.c: Lemke's basis: positions, assembly of the basis matrix, factorization and updates. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "lemke_basis.h"

int lemke_basis_alloc(lemke_basis *b, const cpk_problem *p, const cpk_linsys_type *T,
                      const double *a_t, long refactor_interval)
{
  size_t n = p->n, nvar = 2 * n + 1, nnz;
  memset(b, 0, sizeof *b);
  b->n = n;
  b->p = p;
  b->a_t = a_t;
  b->refactor_interval = refactor_interval;
  /* Every column of M appears at most once, plus n unit columns and the artificial column. */
  if (cpk_size_mul(2, n, &nnz) || (nnz += cpk_matrix_nnz(p->M)) < 2 * n) return CPK_EOVERFLOW;
  b->head = cpk_alloc_array(n, sizeof *b->head);
  b->pos = cpk_alloc_array(nvar, sizeof *b->pos);
  b->zwork = cpk_alloc_array(n, sizeof *b->zwork);
  if (!b->head || !b->pos || !b->zwork) return CPK_ENOMEM;
  for (size_t v = 0; v < nvar; v++) b->pos[v] = -1;
  int rc = cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)nnz, &b->B);
  if (!rc) rc = cpk_linsys_alloc(T, n, &b->ls);
  b->primary = b->ls;
  /* the built-in backends only: another one (PETSc, GSL) was chosen for all of B */
  if (!rc && (T == cpk_linsys_umfpack || T == cpk_linsys_lapack)) rc = lemke_reduced_alloc(&b->red, n);
  return rc;
}

void lemke_basis_free(lemke_basis *b)
{
  free(b->head);
  free(b->pos);
  free(b->zwork);
  cpk_csc_free(b->B);
  if (b->sparse != b->primary) cpk_linsys_free(b->sparse);
  cpk_linsys_free(b->primary);
  lemke_reduced_free(&b->red);
  memset(b, 0, sizeof *b);
}

void lemke_basis_set(lemke_basis *b, size_t k, size_t v)
{
  size_t old = b->head[k];
  if (old < 2 * b->n + 1 && b->pos[old] == (long)k) b->pos[old] = -1;
  b->head[k] = v;
  b->pos[v] = (long)k;
}

void lemke_basis_column(const lemke_basis *b, size_t v, double *col)
{
  size_t n = b->n;
  if (v < n) {
    cpk_matrix_column(b->p->M, v, col);
    for (size_t i = 0; i < n; i++) col[i] = -col[i];
  } else if (v < 2 * n) {
    memset(col, 0, n * sizeof *col);
    col[v - n] = 1.0;
  } else {
    memcpy(col, b->a_t, n * sizeof *col);
  }
}

/* Append the non-zeros of variable v's column to B (rows come out sorted). */
static void append_column(lemke_basis *b, size_t v, cpk_int *k)
{
  const cpk_matrix *M = b->p->M;
  cpk_csc *B = b->B;
  size_t n = b->n;
  if (v < n && M->format == CPK_MATRIX_CSC) {
    for (cpk_int e = M->csc->p[v]; e < M->csc->p[v + 1]; e++) {
      B->i[*k] = M->csc->i[e];
      B->x[(*k)++] = -M->csc->x[e];
    }
  } else if (v < n) {
    const double *mv = M->dense->data + v; /* column v: stride tda (no per-entry range check) */
    for (size_t i = 0; i < n; i++) {
      double a = mv[i * M->dense->tda];
      if (a != 0.0) {
        B->i[*k] = (cpk_int)i;
        B->x[(*k)++] = -a;
      }
    }
  } else if (v < 2 * n) {
    B->i[*k] = (cpk_int)(v - n);
    B->x[(*k)++] = 1.0;
  } else {
    for (size_t i = 0; i < n; i++)
      if (b->a_t[i] != 0.0) {
        B->i[*k] = (cpk_int)i;
        B->x[(*k)++] = b->a_t[i];
      }
  }
}

/*
 * The dense backend judges singularity by LAPACK's condition estimate, which
 * can refuse a basis whose LU pivots are all sound (a triangular basis with a
 * 2^n inverse, a float-rounded physics matrix) and that UMFPACK's threshold
 * partial pivoting solves accurately: on CPK_ESINGULAR from another backend
 * the basis moves to UMFPACK for the rest of the solve (b->fallbacks counts it).
 * The UMFPACK backend is kept for the next fallback (re-solves allocate nothing),
 * and lemke_basis_restore goes back to the dense one: the next basis is
 * usually well conditioned, and UMFPACK's solves on a dense basis of n ~ 100
 * cost several times LAPACK's (measured on Bullet's box stack).
 */
static int factor_sparse_instead(lemke_basis *b)
{
  int rc = b->sparse ? CPK_OK : cpk_linsys_alloc(cpk_linsys_umfpack, b->n, &b->sparse);
  if (!rc) rc = cpk_linsys_factor(b->sparse, b->B);
  if (rc) return rc == CPK_ENOMEM ? rc : CPK_ESINGULAR;
  b->ls = b->sparse;
  b->fallbacks++;
  return CPK_OK;
}

int lemke_basis_restore(lemke_basis *b)
{
  if (b->ls == b->primary) return 0;
  b->ls = b->primary;
  return 1;
}

int lemke_basis_factor(lemke_basis *b)
{
  cpk_int k = 0;
  b->B->p[0] = 0;
  for (size_t j = 0; j < b->n; j++) {
    append_column(b, b->head[j], &k);
    b->B->p[j + 1] = k;
  }
  /* a singular K is retried on all of B: the backend's own test and fallback decide */
  b->reduced = lemke_reduced_factor(&b->red, b->B, b->head) == CPK_OK;
  b->reduced_factors += b->reduced;
  if (b->reduced) return CPK_OK;
  int rc = cpk_linsys_factor(b->ls, b->B);
  if (rc == CPK_ESINGULAR && strcmp(cpk_linsys_name(b->ls), "umfpack") != 0)
    rc = factor_sparse_instead(b);
  return rc;
}

int lemke_basis_solve(lemke_basis *b, double *x, int transpose)
{
  if (b->reduced) return lemke_reduced_solve(&b->red, x, transpose);
  return cpk_linsys_solve(b->ls, x, transpose);
}

int lemke_basis_replace(lemke_basis *b, size_t k, size_t v, const double *col, const double *alpha,
                        int *refactored)
{
  cpk_linsys_stats st;
  cpk_linsys_get_stats(b->ls, &st);
  lemke_basis_set(b, k, v);
  *refactored = 0;
  if (!b->reduced && st.updates_since_factor < b->refactor_interval) {
    int rc = cpk_linsys_replace_column(b->ls, k, col, alpha);
    if (rc == CPK_OK) return CPK_OK;
    if (rc != CPK_ESINGULAR && rc != CPK_EUNSUP) return rc;
  }
  *refactored = 1;
  return lemke_basis_factor(b);
}

void lemke_basis_multiply(const lemke_basis *b, const double *x, double *y)
{
  size_t n = b->n;
  memset(b->zwork, 0, n * sizeof *b->zwork);
  for (size_t k = 0; k < n; k++)
    if (b->head[k] < n) b->zwork[b->head[k]] = x[k];
  cpk_matrix_mv(b->p->M, b->zwork, y, 0);
  for (size_t i = 0; i < n; i++) y[i] = -y[i];
  for (size_t k = 0; k < n; k++) {
    size_t v = b->head[k];
    if (v >= n && v < 2 * n) y[v - n] += x[k];
    else if (v == 2 * n)
      for (size_t i = 0; i < n; i++) y[i] += b->a_t[i] * x[k];
  }
}
