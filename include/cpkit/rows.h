/** rows.h: one MPI rank's rows of a friction-cone problem (its block of whole contacts), made from a replicated problem or read from a file keeping only those rows, and the cone residual and FCLIB merit reduced over the ranks. @file */
#ifndef CPKIT_ROWS_H
#define CPKIT_ROWS_H
#include <stddef.h>
#include <cpkit/errors.h>
#include <cpkit/export.h>
#include <cpkit/matrix.h>
#include <cpkit/parallel.h>
#include <cpkit/problem.h>
#include <cpkit/result.h>
#include <cpkit/settings.h>

CPK_BEGIN_DECLS

/**
 * Rank `rank` of `size`'s share of a friction-cone problem u = W r + q,
 * r in K_mu (CPK_KIND_FRICTION_CONE): the contiguous block of whole contacts
 * [c0, c1), that is rows [row0, row1) = [c0 d, c1 d) with d = cone_dim, and
 * their rows of W (CSR: local rows by all n columns, columns ascending and
 * duplicates summed within a row), q and mu. Nothing else of the problem is
 * kept: O(local rows + their nonzeros) memory. The blocks are balanced by the
 * nonzeros of W (rank k's block starts at the first contact whose rows begin at
 * or after k/size of W's nonzeros); a rank may get no contact.
 */
typedef struct cpk_fc_rows {
  size_t n;        /**< unknowns of the whole problem (cone_dim * nc) */
  size_t nc;       /**< contacts of the whole problem */
  size_t cone_dim; /**< unknowns per contact (2, 3 or 4) */
  size_t nnz;      /**< nonzeros of the whole W (as stored: a coordinate file's duplicates count once each) */
  size_t c0;       /**< this rank's first contact */
  size_t c1;       /**< one past this rank's last contact */
  size_t row0;     /**< this rank's first row (c0 * cone_dim) */
  size_t row1;     /**< one past this rank's last row (c1 * cone_dim) */
  cpk_int *rowptr; /**< row1 - row0 + 1 offsets into col and val */
  cpk_int *col;    /**< global column of each local entry */
  double *val;     /**< W's value of each local entry */
  double *q;       /**< q of the local rows (row1 - row0 values) */
  double *mu;      /**< mu of the local contacts (c1 - c0 values) */
  double q_norm2;  /**< |q|_2^2 of the whole problem (FCLIB's merit divides by 1 + sqrt(|q|_2)) */
  int rank;        /**< the rank this share was made for */
  int size;        /**< the number of ranks it was made for */
} cpk_fc_rows;

/**
 * Rank `rank` of `size`'s rows of p (kind CPK_KIND_FRICTION_CONE, W dense or
 * CSC), copied. Local: no communication. CPK_EINVAL for another kind or a rank
 * outside 0..size-1, CPK_ENOMEM.
 */
CPK_API int cpk_fc_rows_from_problem(const cpk_problem *p, int rank, int size, cpk_fc_rows **out);

/**
 * Rank `rank` of `size`'s rows of the friction-cone problem in the file at path,
 * keeping only them while reading. A problem text file (format v1,
 * cpk_problem_scan_file) is read twice: a first pass counts each row's entries
 * (n counters, freed before the second), the second keeps the local rows' entries;
 * W is never held whole. An FCLIB HDF5 file (cpk_file_is_hdf5) is read whole with
 * cpk_problem_read_fclib and cut (its memory is the replicated problem's while
 * reading). Local: each rank reads the file itself. CPK_EINVAL when the file's
 * problem is not a friction-cone problem; the readers' errors otherwise. Duplicate
 * entries of a coordinate file that sum to a value that is not finite are found only by
 * the rank that holds their row: ranks that go on together agree the return code first
 * (cpk_mpi_agree), as bench/fc_rows_read does.
 */
CPK_API int cpk_fc_rows_read(const char *path, int rank, int size, cpk_fc_rows **out,
                             cpk_error *err);

/** Free (NULL allowed). */
CPK_API void cpk_fc_rows_free(cpk_fc_rows *R);

/**
 * u's local rows = W's local rows times r + q's local rows (r: the whole n-vector,
 * replicated; u: row1 - row0 values). Local.
 */
CPK_API void cpk_fc_rows_velocity(const cpk_fc_rows *R, const double *r, double *u);

/**
 * cpk_fc_residual and cpk_fc_merit of the whole problem at the replicated r
 * (n values), computed on this rank's rows and reduced over the ranks
 * (MPI_Allreduce: the largest residual, the sum of the squared natural maps):
 * every rank gets the same values. u_local (row1 - row0 values, or NULL) receives
 * the local velocities. Collective when MPI is initialised with more than one rank
 * (every rank of R's `size` must call it); with one rank exactly the replicated
 * cpk_fc_residual_merit. Returns CPK_OK or CPK_ENOMEM / CPK_ELINSYS (*res and
 * *merit are then INFINITY); merit may be NULL.
 */
CPK_API int cpk_fc_rows_residual_merit(const cpk_fc_rows *R, const double *r, double *u_local,
                                       double *res, double *merit);

/**
 * The nsn-rows solver (cpk_solver_nsn_rows) on rows this rank already holds (e.g.
 * from cpk_fc_rows_read), so that no rank ever holds the whole problem: each rank's
 * rows of the Newton matrix go to a petsc backend (settings->linsys when it is one,
 * else petsc) through cpk_linsys_factor_rows. settings NULL: the defaults; its tol
 * is scaled as cpk_problem_tolerance does (by max(1, max |q|) over the ranks), z0
 * (n values) is the start. res (allocated for n) gets z (replicated, every rank the
 * same), status, iterations, residual (the cone residual reduced over the ranks) and
 * the stats; w is not filled (each rank has only its rows of u). Collective: every
 * rank of R's split calls it. CPK_EUNSUP without PETSc.
 */
CPK_API int cpk_fc_rows_solve_nsn(const cpk_fc_rows *R, const cpk_settings *settings, cpk_result *res,
                                  cpk_error *err);

CPK_END_DECLS
#endif
