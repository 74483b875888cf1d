/** matrix.h: compressed-sparse-column and dense (GSL) matrices behind one cpk_matrix type. @file */
#ifndef CPKIT_MATRIX_H
#define CPKIT_MATRIX_H
#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_matrix.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>

CPK_BEGIN_DECLS

/** Index type of sparse matrices: 64-bit, the width of UMFPACK's `dl` (SuiteSparse_long) interface. */
typedef int64_t cpk_int;

/**
 * Compressed sparse column matrix, 0-based. Column j holds entries
 * `p[j] .. p[j+1]-1`; `i` are row indices, `x` values; `nnz = p[n]`.
 * Invariant (checked by cpk_csc_check, required by UMFPACK): row indices
 * strictly increasing inside each column (sorted, no duplicates).
 */
typedef struct cpk_csc {
  cpk_int m;     /**< rows */
  cpk_int n;     /**< columns */
  cpk_int *p;    /**< column pointers, n+1 entries */
  cpk_int *i;    /**< row indices, p[n] entries */
  double *x;     /**< values, p[n] entries */
} cpk_csc;

/** Allocate an m-by-n CSC matrix with room for nnz entries; p is zeroed. */
CPK_API int cpk_csc_alloc(cpk_int m, cpk_int n, cpk_int nnz, cpk_csc **out);
/** Free a CSC matrix (NULL is a no-op). */
CPK_API void cpk_csc_free(cpk_csc *A);
/** CPK_OK if A satisfies the invariant (pointers monotone, indices in range, sorted, unique), else CPK_EBADMAT. */
CPK_API int cpk_csc_check(const cpk_csc *A);
/** Deep copy. */
CPK_API int cpk_csc_copy(const cpk_csc *A, cpk_csc **out);
/**
 * Build a CSC matrix from nnz 0-based triplets (ti[k], tj[k], tx[k]).
 * Duplicates are summed and rows sorted; explicit zeros are kept (they fix a pattern).
 * Fails with CPK_EINVAL for an index out of range.
 */
CPK_API int cpk_csc_from_triplets(cpk_int m, cpk_int n, cpk_int nnz, const cpk_int *ti,
                                  const cpk_int *tj, const double *tx, cpk_csc **out);
/**
 * The sparsity pattern of nnz 0-based triplets (ti[k], tj[k]): a sorted CSC
 * matrix with zero values, and pos[k] (nnz entries, allocated here) the index
 * in (*out)->x where triplet k goes; repeated positions share one entry. This
 * is how a Jacobian with a fixed pattern is filled: x[pos[k]] += value_k.
 * CPK_EINVAL for an index out of range, CPK_ENOMEM.
 */
CPK_API int cpk_csc_pattern(cpk_int m, cpk_int n, size_t nnz, const cpk_int *ti,
                            const cpk_int *tj, cpk_csc **out, size_t **pos);

/** y = A x (trans = 0, y of length m) or y = A^T x (trans != 0, length n). x and y must not overlap. */
CPK_API void cpk_csc_mv(const cpk_csc *A, const double *x, double *y, int trans);

/** How a cpk_matrix stores its values. */
typedef enum cpk_matrix_format {
  CPK_MATRIX_DENSE = 0, /**< values in a gsl_matrix (row-major) */
  CPK_MATRIX_CSC = 1    /**< values in a cpk_csc */
} cpk_matrix_format;

/** A matrix stored either dense (GSL) or sparse (CSC). Read the fields; build with the functions below. */
typedef struct cpk_matrix {
  cpk_matrix_format format; /**< which of dense and csc holds the values */
  size_t m, /**< rows */ n; /**< columns */
  gsl_matrix *dense; /**< set when format == CPK_MATRIX_DENSE */
  cpk_csc *csc;      /**< set when format == CPK_MATRIX_CSC */
} cpk_matrix;

/** Allocate a zeroed dense m-by-n matrix. */
CPK_API int cpk_matrix_alloc_dense(size_t m, size_t n, cpk_matrix **out);
/** Copy a GSL matrix into a new dense cpk_matrix. */
CPK_API int cpk_matrix_from_gsl(const gsl_matrix *A, cpk_matrix **out);
/**
 * New dense m-by-n matrix from a caller array (no GSL type needed): entry (i, j) is a[i*ld + j]
 * (row-major, ld >= n) or a[i + j*ld] (col_major != 0, ld >= m). CPK_EINVAL on a bad ld.
 */
CPK_API int cpk_matrix_from_dense_array(size_t m, size_t n, const double *a, size_t ld,
                                        int col_major, cpk_matrix **out);
/** Overwrite the values of a dense matrix from a caller array laid out as above. */
CPK_API int cpk_matrix_set_dense_array(cpk_matrix *A, const double *a, size_t ld, int col_major);
/**
 * New sparse m-by-n matrix from caller CSC arrays (colptr of n+1 entries, rowind and x of
 * colptr[n] entries), copied and checked with cpk_csc_check (sorted, unique indices).
 */
CPK_API int cpk_matrix_from_csc_arrays(size_t m, size_t n, const cpk_int *colptr,
                                       const cpk_int *rowind, const double *x, cpk_matrix **out);
/** Copy a CSC matrix (checked with cpk_csc_check) into a new sparse cpk_matrix. */
CPK_API int cpk_matrix_from_csc(const cpk_csc *A, cpk_matrix **out);
/** New sparse cpk_matrix from 0-based triplets (duplicates summed, see cpk_csc_from_triplets). */
CPK_API int cpk_matrix_from_triplets(size_t m, size_t n, size_t nnz, const cpk_int *ti,
                                     const cpk_int *tj, const double *tx, cpk_matrix **out);
/** Deep copy, same format. */
CPK_API int cpk_matrix_copy(const cpk_matrix *A, cpk_matrix **out);
/** Free (NULL is a no-op). */
CPK_API void cpk_matrix_free(cpk_matrix *A);

/** Number of stored entries (m*n for dense). */
CPK_API size_t cpk_matrix_nnz(const cpk_matrix *A);
/** Entry (i, j); 0 for an entry not stored. O(log nnz(col)) for CSC. */
CPK_API double cpk_matrix_get(const cpk_matrix *A, size_t i, size_t j);
/** y = A x (trans = 0) or y = A^T x (trans != 0). x and y must not overlap. */
CPK_API void cpk_matrix_mv(const cpk_matrix *A, const double *x, double *y, int trans);
/** Copy column j into the dense vector col (length m). */
CPK_API void cpk_matrix_column(const cpk_matrix *A, size_t j, double *col);
/**
 * Largest absolute row sum (NaN when an entry is NaN). A CSC matrix needs a
 * workspace of m doubles: when it cannot be allocated this returns NaN, so a
 * caller that uses the norm as a scale or a tolerance must call
 * cpk_matrix_norm_inf_checked() instead.
 */
CPK_API double cpk_matrix_norm_inf(const cpk_matrix *A);
/**
 * Largest absolute row sum into *norm. Returns CPK_OK, or CPK_ENOMEM (and
 * *norm = NaN) when the workspace of a CSC matrix cannot be allocated. A dense
 * matrix needs no workspace.
 */
CPK_API int cpk_matrix_norm_inf_checked(const cpk_matrix *A, double *norm);
/** 1 if every stored entry is finite, else 0. */
CPK_API int cpk_matrix_is_finite(const cpk_matrix *A);
/** CSC copy of any matrix (dense entries equal to 0 are dropped). */
CPK_API int cpk_matrix_to_csc(const cpk_matrix *A, cpk_csc **out);

CPK_END_DECLS
#endif
