/** linsys.h: the linear-solver plug-in (factor, solve, column replacement) and its backends. @file */
#ifndef CPKIT_LINSYS_H
#define CPKIT_LINSYS_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/matrix.h>

CPK_BEGIN_DECLS

/**
 * Factorizations of systems with fewer rows than this are counted but not timed (they add
 * nothing to cpk_linsys_stats.factor_time_s): the clock's two reads cost about 1 % of a
 * 9 x 9 factorization (nsn's, a tripod step), and a time limit's estimate of the next
 * factorization is then 0, which leaves the decision to the clock (as before any was timed).
 */
#define CPK_LINSYS_TIMED_MIN_N 32

/** Counters kept by every backend. */
typedef struct cpk_linsys_stats {
  long factorizations;       /**< numeric factorizations */
  long symbolic;             /**< symbolic analyses (pattern changes) */
  long updates;              /**< column replacements since alloc */
  long updates_since_factor; /**< column replacements since the last factorization */
  long solves;               /**< solves (plain and transposed) */
  double factor_time_s;      /**< time in factorizations (0 for systems of fewer than CPK_LINSYS_TIMED_MIN_N rows: not timed) */
  double nnz_factors;        /**< entries in the factors (LU, or Q and R) */
  double nnz_updates;        /**< entries stored for updates since the last factorization */
  int sparse;                /**< 1: the backend factors by the sparsity pattern (UMFPACK, PETSc), 0: the whole dense matrix; set from alloc on */
} cpk_linsys_stats;

/**
 * A square linear-solver backend. All allocation happens in `alloc`
 * (dimension n), except what a new sparsity pattern needs in `factor`.
 * `replace_column` may be NULL when updates are not supported.
 */
typedef struct cpk_linsys_type {
  const char *name;   /**< e.g. "umfpack" */
  int (*alloc)(void **state, size_t n); /**< workspace for n-by-n systems */
  /** Factor A (n-by-n CSC, sorted). Symbolic analysis is reused when the pattern is unchanged. CPK_ESINGULAR if singular. */
  int (*factor)(void *state, const cpk_csc *A);
  /** In place: x <- A^{-1} x (transpose = 0) or A^{-T} x (transpose != 0), A the current (updated) matrix. */
  int (*solve)(void *state, double *x, int transpose);
  /**
   * Replace column j of the factored matrix by `col` (dense, length n).
   * `Ainv_col` = A^{-1} col for the current A, if the caller has it, else NULL.
   * CPK_ESINGULAR if the new matrix is (numerically) singular; the old factors stay valid then.
   */
  int (*replace_column)(void *state, size_t j, const double *col, const double *Ainv_col);
  void (*stats)(const void *state, cpk_linsys_stats *st); /**< counts so far */
  void (*free)(void *state); /**< release the workspace (NULL is a no-op) */
  /**
   * Optional (NULL: `factor` stands in): `factor` without validating A's structure
   * (cpk_csc_check: column pointers, sorted row indices in range), only its size; for a
   * caller that checked A's pattern once and changes only its values between calls.
   */
  int (*factor_unchecked)(void *state, const cpk_csc *A);
} cpk_linsys_type;

/** Dense QR (GSL) with rank-one (Givens) column updates: O(n^2) per update and solve. */
CPK_API extern const cpk_linsys_type *cpk_linsys_dense;
/** UMFPACK sparse LU with product-form (eta file) column updates. */
CPK_API extern const cpk_linsys_type *cpk_linsys_umfpack;
/**
 * Dense blocked LU (LAPACK dgetrf, equilibrated, singularity by dgecon's rcond) with
 * product-form (eta file) column updates: O(n^2) per solve plus O(n) per update since
 * the last factorization. The default for dense problems.
 */
CPK_API extern const cpk_linsys_type *cpk_linsys_lapack;
/**
 * PETSc sparse LU (MUMPS when the PETSc build has it, else PETSc's own) with
 * product-form column updates; NULL when cpkit was built without PETSc. PETSc
 * (and MPI) is initialised on first use unless the caller did it, and then
 * finalised at exit. Under MPI the rows are split over PETSC_COMM_WORLD in
 * contiguous blocks (a contact's rows kept together): every rank passes the
 * whole matrix and right-hand side, keeps and factors its block, and gets the
 * whole solution back; every call is collective (see cpkit/parallel.h).
 * PETSC_OPTIONS with the prefix `-cpk_` tunes the KSP/PC (`-cpk_row_block B`:
 * cuts at multiples of B rows).
 */
CPK_API extern const cpk_linsys_type *cpk_linsys_petsc;
/**
 * PETSc conjugate gradients preconditioned by GAMG (relative residual 1e-12),
 * for symmetric positive definite systems (e.g. ipm on a symmetric M); when CG
 * fails (500 iterations, breakdown, an indefinite matrix) the instance falls
 * back to cpk_linsys_petsc's LU for good. NULL without PETSc. Same
 * initialisation and column updates as cpk_linsys_petsc.
 */
CPK_API extern const cpk_linsys_type *cpk_linsys_petsc_cg;
/**
 * PETSc GMRES (restart 100, right-preconditioned, unpreconditioned relative
 * residual 1e-12 as GMRES's recurrence estimates it, at most 1000 iterations)
 * with a block-Jacobi preconditioner, one block per rank, ILU(0) in each:
 * memory O(nnz + 101 n / ranks) (W, the ILU(0) factors, the Krylov basis), for
 * general sparse systems too large for LU's fill (e.g. nsn's Newton matrices of
 * 3-D piles). A system that does not converge is reported as CPK_ESINGULAR,
 * with no fall-back to LU; the solvers regularize or stop as for a singular
 * matrix (the driver's residual still decides `solved`). NULL without PETSc.
 * Same initialisation and column updates as cpk_linsys_petsc. The
 * preconditioner is chosen through PETSc's options database with the prefix
 * `cpk_` (e.g. PETSC_OPTIONS="-cpk_pc_type asm -cpk_pc_asm_overlap 1" for
 * additive Schwarz with overlap 1, "-cpk_pc_type gamg"; doc/petsc.md compares
 * them), read when the instance is allocated. These two options do not change
 * cpk_linsys_petsc, which stays an exact LU (its factor package may be chosen).
 */
CPK_API extern const cpk_linsys_type *cpk_linsys_petsc_gmres;
/** Backend by name ("dense", "umfpack", "lapack", "petsc", "petsc-cg", "petsc-gmres"), NULL if unknown or not built. */
CPK_API const cpk_linsys_type *cpk_linsys_find(const char *name);
/**
 * 1 when T is one of the PETSc backends (petsc, petsc-cg, petsc-gmres): its calls are
 * collective over the MPI ranks, so every rank must make them in step; 0 otherwise
 * (also for NULL and in a build without PETSc). Such a call whose arguments one rank
 * refuses (no factors, a NULL x or column, a wrong index or matrix) or that runs out
 * of memory on one rank before its collective part returns the same error on every
 * rank, and every instance stays as it was on every rank. The instance itself must
 * exist on every rank (L is not checked).
 */
CPK_API int cpk_linsys_is_distributed(const cpk_linsys_type *T);

/** A backend instance. */
typedef struct cpk_linsys cpk_linsys;
/** An instance of backend T for n-by-n systems. */
CPK_API int cpk_linsys_alloc(const cpk_linsys_type *T, size_t n, cpk_linsys **out);
/** Factor A (see cpk_linsys_type.factor). */
CPK_API int cpk_linsys_factor(cpk_linsys *L, const cpk_csc *A);
/**
 * Factor the n-by-n matrix of which this rank gives only its rows [row0, row1), in
 * CSR: rowptr (row1 - row0 + 1 offsets, rowptr[0] = 0), col (global columns,
 * ascending within a row) and val. For a distributed backend
 * (cpk_linsys_is_distributed) only: the ranks' blocks must be contiguous, in rank
 * order, and cover the n rows; the backend copies the pattern (reused while it is
 * the same on every rank) and never sees the rest of the matrix, so a solver
 * distributed by rows (nsn-rows) never builds it. Collective. After it,
 * cpk_linsys_solve(L, x, 0) takes the right-hand side from x's rows [row0, row1)
 * (x is still an n-vector; its other entries are not read) and returns the whole
 * solution in x on every rank. Column updates stay as for cpk_linsys_factor.
 * CPK_EUNSUP for a backend that is not distributed, CPK_EINVAL (on every rank) for
 * rows out of range or a missing array on any rank.
 */
CPK_API int cpk_linsys_factor_rows(cpk_linsys *L, size_t row0, size_t row1, const cpk_int *rowptr,
                                   const cpk_int *col, const double *val);
/**
 * cpk_linsys_factor for an A whose structure the caller has validated (cpk_csc_check) and
 * not changed since: the check of every entry's row index is skipped (a solver refactoring
 * its own Newton matrix of fixed pattern, e.g. nsn). A malformed A is undefined behaviour
 * here; the size is still checked (CPK_EINVAL). Same result as cpk_linsys_factor otherwise.
 */
CPK_API int cpk_linsys_factor_unchecked(cpk_linsys *L, const cpk_csc *A);
/** x <- A^{-1} x or A^{-T} x (see cpk_linsys_type.solve). */
CPK_API int cpk_linsys_solve(cpk_linsys *L, double *x, int transpose);
/** CPK_EUNSUP if the backend has no updates (refactor instead). */
CPK_API int cpk_linsys_replace_column(cpk_linsys *L, size_t j, const double *col,
                                      const double *Ainv_col);
/** Factorizations, solves and updates so far. */
CPK_API void cpk_linsys_get_stats(const cpk_linsys *L, cpk_linsys_stats *st);
/** The backend's name. */
CPK_API const char *cpk_linsys_name(const cpk_linsys *L);
/** Free (NULL is a no-op). */
CPK_API void cpk_linsys_free(cpk_linsys *L);

CPK_END_DECLS
#endif
