/* linsys_petsc.h: what the petsc backend's files share (initialisation, row partition, local rows); included only with HAVE_PETSC. */
#ifndef CPK_LINSYS_PETSC_H
#define CPK_LINSYS_PETSC_H
#include <stddef.h>
#include <stdint.h>
#include <petscsys.h>
#include <cpkit/matrix.h>

/* MPI and PETSc up (initialised by cpkit if nobody did, finalised at exit): CPK_OK or CPK_ELINSYS. */
int petsc_ready(void);

/* Rows per contact for an instance allocated now, as the driver last set it (cpk_mpi_set_row_group). */
size_t petsc_row_group(void);

/*
 * One of the ranks' return codes on every rank: CPK_OK only if it is every rank's (the
 * largest: error codes are positive). For failures inside a backend call, where every
 * rank is in the same call; cpk_mpi_agree is the check at a call's entry.
 */
int petsc_agree_rc(MPI_Comm comm, int rc);

/*
 * The rows this rank owns in the distributed copy of an n-by-n CSC matrix:
 * [r0, r1), their CSR pattern (rp, cj with global columns, ascending), and src,
 * the CSC entry each CSR entry takes its value from (PetscInt: the backend
 * refuses nnz >= PETSC_MAX_INT). The values go to PETSc one row at a time
 * through v, so no CSR copy of the values is kept beside PETSc's own.
 */
typedef struct petsc_rows {
  size_t n, r0, r1;
  PetscInt *rp, *cj;
  PetscInt *dnz, *onz; /* per local row: columns inside / outside [r0, r1), for preallocation */
  PetscInt *src;
  PetscScalar *v;      /* one row's values (the longest local row's room) */
  size_t nnz, cap;     /* local entries, room in cj and src */
  size_t vcap;         /* room in v */
  cpk_int *Ap;         /* the CSC column pointers the pattern came from (n + 1) */
  PetscInt *next;      /* work: fill position of each local row */
  uint64_t *fp;        /* work: a fingerprint of each row's column pattern (n) */
} petsc_rows;

/* Arrays sized by n (CPK_ENOMEM on failure); petsc_rows_free releases them. */
int petsc_rows_alloc(petsc_rows *R, size_t n);
void petsc_rows_free(petsc_rows *R);

/*
 * Rank `rank` of `size`'s block of A's rows: contiguous; with group > 1 whole
 * groups (cpk_mpi_block), with group 1 never inside a run of rows with one
 * column pattern.
 */
void petsc_rows_split(petsc_rows *R, const cpk_csc *A, size_t group, int rank, int size,
                      size_t *r0, size_t *r1);

/* The local CSR pattern of rows [r0, r1) of A. */
int petsc_rows_pattern(petsc_rows *R, const cpk_csc *A, size_t r0, size_t r1);

/* R->v <- the values of local row r (0-based within [r0, r1)) of A; returns R->v. */
const PetscScalar *petsc_rows_values(petsc_rows *R, const cpk_csc *A, size_t r);

/* 1 if A has the pattern R was built from, on this rank's rows and column pointers. */
int petsc_rows_same(petsc_rows *R, const cpk_csc *A);
#endif
