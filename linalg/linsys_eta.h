/* linsys_eta.h: the product-form (eta file) column update shared by the LU-based linsys backends. */
#ifndef CPK_LINALG_LINSYS_ETA_H
#define CPK_LINALG_LINSYS_ETA_H
#include <stddef.h>
#include <cpkit/linsys.h>

/*
 * The factored matrix is A_k = A_0 E_1 ... E_k: A_0 factored by the backend,
 * E_m the identity with column piv[m] replaced by alpha_m = A_{m-1}^{-1} col_m.
 * Each eta stores alpha_m's pivot entry in pval[m] and its other non-zeros in
 * ent_idx/ent_val [start[m], start[m+1]). A solve with A_k is a solve with
 * A_0 followed by linsys_eta_apply (plain), or preceded by
 * linsys_eta_apply_transposed (transposed).
 */
typedef struct linsys_eta {
  size_t n;
  size_t neta, eta_cap, nent, ent_cap;
  size_t *start, *piv, *ent_idx;
  double *pval, *ent_val;
} linsys_eta;

/** Allocate an empty eta file for dimension n (CPK_ENOMEM / CPK_EOVERFLOW). */
int linsys_eta_alloc(linsys_eta *e, size_t n);
void linsys_eta_free(linsys_eta *e);
/** Forget every eta (after a fresh factorization). */
void linsys_eta_reset(linsys_eta *e);
/** y <- E_k^{-1} ... E_1^{-1} y */
void linsys_eta_apply(const linsys_eta *e, double *y);
/** y <- E_1^{-T} ... E_k^{-T} y */
void linsys_eta_apply_transposed(const linsys_eta *e, double *y);
/**
 * Room for one more eta with up to `extra` off-pivot entries: linsys_eta_append
 * of such an eta then allocates nothing. The etas stored are unchanged even when
 * it fails (CPK_ENOMEM, CPK_EOVERFLOW); only the capacity may have grown.
 */
int linsys_eta_reserve(linsys_eta *e, size_t extra);
/**
 * Append the eta replacing column j, alpha = A_k^{-1} col. CPK_ESINGULAR (file
 * unchanged) when alpha is not finite or its pivot alpha_j is negligible, i.e.
 * the new matrix is numerically singular. May grow the file (CPK_ENOMEM).
 */
int linsys_eta_append(linsys_eta *e, size_t j, const double *alpha);
/**
 * A backend's whole replace_column once its arguments are checked: alpha =
 * Ainv_col if given, else solve(state, col) (a plain solve with the current
 * A_k, into the n-vector `alpha`); then append and count the update in `st`.
 */
int linsys_eta_replace(linsys_eta *e, size_t j, const double *col, const double *Ainv_col,
                       double *alpha, int (*solve)(void *state, double *x), void *state,
                       cpk_linsys_stats *st);
/** Entries stored (pivots included), for cpk_linsys_stats.nnz_updates. */
double linsys_eta_entries(const linsys_eta *e);

/*
 * What the eta-updated backends (lapack, umfpack, petsc) share: their state starts with this
 * struct, so solve, replace_column and stats are the functions below for all of them; each
 * backend gives only solve_a0, a solve with its factored A_0.
 */
typedef struct linsys_eta_backend {
  size_t n;
  int factored;
  linsys_eta eta;
  double *alpha;        /* replace_column's A^{-1} col (n doubles) */
  cpk_linsys_stats st;
  double factor_start;  /* cpk_wtime() when the running factorization began (n >= CPK_LINSYS_TIMED_MIN_N) */
  int (*solve_a0)(void *state, double *x, int transpose);
} linsys_eta_backend;

/** Free alpha and the eta file (the backend frees the rest and the state). */
void linsys_eta_backend_release(linsys_eta_backend *b);
/**
 * The start of every factor: A checked (CPK_EINVAL: not square n x n; CPK_EBADMAT), the old
 * factors and etas forgotten, the factorization counted and timed from here.
 */
int linsys_eta_backend_begin_factor(linsys_eta_backend *b, const cpk_csc *A);
/** begin_factor with A's size checked alone (CPK_EINVAL), not its structure: for factor_unchecked. */
int linsys_eta_backend_begin_factor_unchecked(linsys_eta_backend *b, const cpk_csc *A);
/** begin_factor's check alone: CPK_OK when A can be factored, nothing changed. */
int linsys_eta_backend_check(const linsys_eta_backend *b, const cpk_csc *A);
/** begin_factor once A is checked: the old factors and etas forgotten, the factorization counted. */
void linsys_eta_backend_start(linsys_eta_backend *b);
/** The end of every factor: factored when rc is CPK_OK, its time added; returns rc. */
int linsys_eta_backend_end_factor(linsys_eta_backend *b, int rc);

/** cpk_linsys_type.solve: A_k x = b or A_k' x = b, b in x (state starts with linsys_eta_backend). */
int linsys_eta_backend_solve(void *state, double *x, int transpose);
/** cpk_linsys_type.replace_column: only the eta file changes (a singular one leaves it as it was). */
int linsys_eta_backend_replace_column(void *state, size_t j, const double *col,
                                      const double *Ainv_col);
/** cpk_linsys_type.stats. */
void linsys_eta_backend_stats(const void *state, cpk_linsys_stats *st);

#endif
