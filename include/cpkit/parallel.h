/** parallel.h: MPI ranks of the petsc backends, rank-0 output, return codes and stop decisions agreed over the ranks, and the residual reduced over them. @file */
#ifndef CPKIT_PARALLEL_H
#define CPKIT_PARALLEL_H
#include <stddef.h>
#include <cpkit/export.h>
#include <cpkit/problem.h>

CPK_BEGIN_DECLS

/**
 * This process's rank in MPI_COMM_WORLD when MPI is initialised (the petsc
 * backends initialise it on first use), else the launcher's rank variable
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK), else 0. Output meant to be
 * written once (the CLI's stdout and files) is written by rank 0 only.
 */
CPK_API int cpk_mpi_rank(void);

/** The number of ranks, found the same way as cpk_mpi_rank (1 without MPI). */
CPK_API int cpk_mpi_size(void);

/**
 * 1 on every rank when `flag` is nonzero on every rank, else 0 on every rank
 * (MPI_Allreduce with MPI_LAND; `flag != 0` itself when MPI is not initialised
 * or cpkit was built without PETSc). Collective.
 */
CPK_API int cpk_mpi_all(int flag);

/**
 * The same return code on every rank: CPK_OK when `rc` is CPK_OK on every rank,
 * else one rank's error code (the largest). Collective when MPI is initialised
 * with more than one rank (a process of a multi-rank launch that has not
 * initialised MPI yet joins it first); otherwise `rc` itself. Called where a rank
 * may fail before a collective operation: the solve driver after a solve with a
 * petsc backend, and every petsc backend call at its start.
 *
 * During a driver run (cpk_solver_alloc or cpk_solver_solve with a petsc backend,
 * from cpk_mpi_agree_reset to cpk_mpi_agree_end), once an agreement ended in an
 * error that some ranks had and some not, the rank that failed makes no more
 * agreements before the driver's (it still frees its objects, which every rank
 * must do in the same order: MUMPS's clean-up is collective), so every later
 * cpk_mpi_agree returns that error at once, without communicating, until the run
 * ends. Outside a run (a program calling cpk_linsys_* with petsc itself) nothing
 * is kept: every rank got the error back from the same call, and each call
 * agrees afresh.
 */
CPK_API int cpk_mpi_agree(int rc);

/**
 * A stop decision agreed over the ranks, by the same collective as cpk_mpi_agree:
 * `*stop` (0: go on, else the status a solver stops with) becomes the largest of
 * the ranks' values, so that a stop one rank decides alone (its clock, its
 * callback) is every rank's, with the same status. Returns CPK_OK, or the error
 * of a rank that failed meanwhile (as cpk_mpi_agree would return it): the caller
 * stops then too. The solve monitor calls it at each of its decisions when the
 * solve's backend is petsc. Without MPI, or with one rank, `*stop` is left as it
 * is and CPK_OK returned.
 */
CPK_API int cpk_mpi_agree_stop(int *stop);

/**
 * A driver run of agreements begins (the driver calls it at the start of each
 * outermost cpk_solver_alloc and cpk_solver_solve with a petsc backend): an
 * earlier agreed error is forgotten. Local.
 */
CPK_API void cpk_mpi_agree_reset(void);

/** The driver run ends (the driver calls it when it returns): no error is kept until the next run. Local. */
CPK_API void cpk_mpi_agree_end(void);

/**
 * Rows per contact of the petsc backend instances allocated from now on (the
 * driver sets the problem's cone_dim for a friction-cone problem, else 1,
 * before a solver allocates its workspace): an instance keeps the value it was
 * allocated with, and a cut between two ranks' rows of its matrices falls at a
 * multiple of it, so a contact's rows stay on one rank. 0 counts as 1.
 */
CPK_API void cpk_mpi_set_row_group(size_t rows);

/**
 * Rows [*lo, *hi) of this rank's block when n rows in groups of `group` rows
 * (a contact's, kept whole) are split in contiguous blocks over `size` ranks.
 */
CPK_API void cpk_mpi_block(size_t n, size_t group, int rank, int size, size_t *lo, size_t *hi);

/**
 * cpk_problem_residual computed across the ranks: w = F(z) on every rank (the
 * problem is replicated), the natural map over this rank's block of contacts
 * (rows for an MCP) only, the largest value reduced with MPI_Allreduce, so
 * every rank gets the same *r. Collective when MPI is initialised with more than
 * one rank; otherwise exactly cpk_problem_residual.
 */
CPK_API int cpk_mpi_residual(const cpk_problem *p, const double *z, double *w, double *r);

/** The reductions of cpk_mpi_reduce. */
typedef enum cpk_mpi_op {
  CPK_MPI_SUM = 0, /**< the sum over the ranks */
  CPK_MPI_MAX = 1  /**< the largest value over the ranks */
} cpk_mpi_op;

/**
 * x[0..k) replaced on every rank by its sum or largest value over the ranks
 * (MPI_Allreduce in place). Collective when MPI is initialised with more than one
 * rank (a process of a multi-rank launch that has not initialised MPI yet joins it
 * first); otherwise, and without PETSc, x is left as it is. Returns CPK_OK, or
 * CPK_ELINSYS when MPI failed (x is then left as it is).
 */
CPK_API int cpk_mpi_reduce(double *x, size_t k, cpk_mpi_op op);

CPK_END_DECLS
#endif
