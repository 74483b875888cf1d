/* mpi_testlib.h: what the tests run under mpirun share (t_petsc_fail.c, t_petsc_stop.c): the 48-row LCP cut across the ranks, MPI's start without leak tracking, rank 0 reporting every rank's results. */
#ifndef CPK_MPI_TESTLIB_H
#define CPK_MPI_TESTLIB_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <cpkit/cpkit.h>
#include "testlib.h"
#ifdef __SANITIZE_ADDRESS__ /* Open MPI's own allocations at start and exit: not tracked (see t_linsys_petsc.c) */
#include <sanitizer/lsan_interface.h>
#define t_leak_tracking(on) ((on) ? __lsan_enable() : __lsan_disable())
#else
#define t_leak_tracking(on) ((void)(on))
#endif

enum { T_LCP48_N = 48, T_LCP48_NNZ = 5 * 48 };

/*
 * The entries of a 48-by-48 matrix times `scale`: SPD and diagonally dominant,
 * couplings 1 and 7 rows away (across the cut between 2 ranks). Returns their count.
 */
static inline int t_lcp48_triplets(cpk_int *ti, cpk_int *tj, double *tv, double scale)
{
  int k = 0;
  for (int i = 0; i < T_LCP48_N; i++)
    for (int o = -7; o <= 7; o++) {
      int j = i + o, d = o < 0 ? -o : o;
      if (j < 0 || j >= T_LCP48_N || (d != 0 && d != 1 && d != 7)) continue;
      ti[k] = i;
      tj[k] = j;
      tv[k++] = scale * (d == 0 ? 4.0 : d == 1 ? -1.0 : 0.5);
    }
  return k;
}

/* That matrix times `scale` as a CSC (free it), NULL on failure. */
static inline cpk_csc *t_csc48(double scale)
{
  cpk_int ti[T_LCP48_NNZ], tj[T_LCP48_NNZ];
  double tv[T_LCP48_NNZ];
  int k = t_lcp48_triplets(ti, tj, tv, scale);
  cpk_csc *A = NULL;
  return cpk_csc_from_triplets(T_LCP48_N, T_LCP48_N, (size_t)k, ti, tj, tv, &A) == CPK_OK ? A : NULL;
}

/* 1 when max |A x - b| <= 1e-9 (A's entries and b are O(1), A diagonally dominant). */
static inline int t_solves48(const cpk_csc *A, const double *x, const double *b)
{
  double Ax[T_LCP48_N], worst = 0.0;
  cpk_csc_mv(A, x, Ax, 0);
  for (int i = 0; i < T_LCP48_N; i++) worst = fmax(worst, fabs(Ax[i] - b[i]));
  return worst <= 1e-9;
}

/* The LCP of that matrix (scale 1) with q_i = sin(1.7 i); NULL on failure. */
static inline cpk_problem *t_lcp48(void)
{
  cpk_int ti[T_LCP48_NNZ], tj[T_LCP48_NNZ];
  double tv[T_LCP48_NNZ], q[T_LCP48_N];
  int k = t_lcp48_triplets(ti, tj, tv, 1.0);
  for (int i = 0; i < T_LCP48_N; i++) q[i] = sin(1.7 * i);
  cpk_matrix *A = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_triplets(T_LCP48_N, T_LCP48_N, (size_t)k, ti, tj, tv, &A) == CPK_OK)
    cpk_problem_alloc_lcp(A, q, &p);
  cpk_matrix_free(A);
  return p;
}

/*
 * MPI and PETSc started (by a petsc backend's first instance, leak tracking off:
 * Open MPI's own allocations), this rank and the number of ranks; every rank's
 * stdout but rank 0's silenced (rank 0 reports for all). The instance's return code.
 */
static inline int t_mpi_start(int *rank, int *size)
{
  cpk_linsys *L = NULL;
  t_leak_tracking(0);
  int up = cpk_linsys_alloc(cpk_linsys_petsc, 1, &L);
  t_leak_tracking(1);
  cpk_linsys_free(L);
  *rank = cpk_mpi_rank();
  *size = cpk_mpi_size();
  if (*rank != 0 && !freopen("/dev/null", "w", stdout)) return CPK_EIO;
  return up;
}

/* Every rank's `count` ints in rank order on rank 0 (free it), NULL on failure; collective. */
static inline int *t_mpi_gather(const int *mine, int count, int size)
{
  int *all = calloc((size_t)size * (size_t)count, sizeof *all);
  if (all && MPI_Gather(mine, count, MPI_INT, all, count, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    free(all);
    return NULL;
  }
  return all;
}

/*
 * Every rank's `count` results gathered on rank 0, which checks that they all
 * arrived (MPI and PETSc up: `up`) and reports them with `report`; collective.
 */
static inline void t_mpi_report(int up, const int *mine, int count, int rank, int size,
                                void (*report)(const int *all, int size))
{
  int *all = t_mpi_gather(mine, count, size);
  t_ok(up == CPK_OK && all, "%d rank(s): every case ended on every rank", size);
  if (all && rank == 0) report(all, size);
  free(all);
}

/* The exit status: rank 0's t_done (its report holds the other ranks'); MPI_Finalize at exit is not tracked. */
static inline int t_mpi_done(int rank)
{
  int rc = rank == 0 ? t_done() : 0;
  t_leak_tracking(0);
  return rc;
}
#endif
