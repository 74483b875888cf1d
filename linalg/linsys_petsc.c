/* linsys_petsc.c: the "petsc" (sparse LU, MUMPS when PETSc has it), "petsc-cg" (CG + GAMG, SPD systems) and "petsc-gmres" (GMRES + block-Jacobi ILU(0)) linsys backends, rows distributed over PETSC_COMM_WORLD. */
#include <config.h>
#include <cpkit/linsys.h>

#include "linsys_rows.h"
#ifndef HAVE_PETSC
/* Built without PETSc: the backends do not exist and cpk_linsys_find skips them. */
int petsc_factor_rows(void *state, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col,
                      const double *val)
{
  (void)state, (void)row0, (void)row1, (void)rowptr, (void)col, (void)val;
  return CPK_EUNSUP;
}
const cpk_linsys_type *cpk_linsys_petsc = NULL;
const cpk_linsys_type *cpk_linsys_petsc_cg = NULL;
const cpk_linsys_type *cpk_linsys_petsc_gmres = NULL;
#else
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <petscksp.h>
#include <cpkit/parallel.h>
#include <cpkit/util.h>
#include "linsys_eta.h"
#include "linsys_petsc.h"

/*
 * The caller (a solver replicated on every rank) passes the whole n-by-n CSC
 * matrix and the whole right-hand side on every rank; each rank keeps only its
 * block of rows (R) in a distributed AIJ matrix, so the factorization (MUMPS)
 * or the CG/GAMG work is split. The solution is gathered back on every rank
 * (`gather`) because every rank's solver continues with all of it. Every call
 * is collective: all ranks factor and solve in the same order, as replicated
 * solvers do. Each call starts with cpk_mpi_agree: a rank whose solver failed
 * between two calls agrees on its error in the driver instead of entering the
 * call, and the other ranks return that error rather than wait for it.
 */
typedef struct petsc_state {
  linsys_eta_backend base; /* first: n, factored, the eta file, stats */
  int spd;                 /* CG + GAMG instead of LU; 0 after a fall-back to LU */
  int gmres;               /* GMRES + block-Jacobi ILU(0): no LU anywhere, O(nnz) memory */
  MPI_Comm comm;
  int rank, size;
  size_t group;            /* rows per contact: the larger of -cpk_row_block and the driver's at alloc */
  Mat A;                   /* NULL until the first pattern */
  KSP ksp;
  Vec b, x, xall;          /* b, x distributed like A's rows; xall all of x on every rank */
  VecScatter gather;
  petsc_rows R;
  int have_pattern;
  /*
   * The last factorization failed. PETSc's MUMPS interface then refuses every
   * numeric factorization on the same analysis (it sees the failed INFOG(1)
   * and marks the factor failed without calling MUMPS): measured, one singular
   * Newton matrix made every later one "singular" (nsn fell back to gradient
   * steps: 157 iterations instead of 19 on a 10 289-contact pile). The next
   * factorization starts from a new Mat, hence a new analysis.
   */
  int failed;
  /* the pattern came from cpk_linsys_factor_rows (R.rp, R.cj the caller's rows, R.Ap unset);
   * rows_val: the caller's values during that call */
  int rows_mode;
  const double *rows_val;
} petsc_state;

static void petsc_drop_pattern(petsc_state *s)
{
  if (s->gather) (void)VecScatterDestroy(&s->gather);
  if (s->xall) (void)VecDestroy(&s->xall);
  if (s->b) (void)VecDestroy(&s->b);
  if (s->x) (void)VecDestroy(&s->x);
  if (s->A) (void)MatDestroy(&s->A);
  s->have_pattern = 0;
}

static void petsc_free(void *state)
{
  petsc_state *s = state;
  if (!s) return;
  petsc_drop_pattern(s);
  if (s->ksp) (void)KSPDestroy(&s->ksp);
  petsc_rows_free(&s->R);
  linsys_eta_backend_release(&s->base);
  free(s);
}

/* LU through MUMPS when this PETSc has it. */
static PetscErrorCode petsc_use_lu(KSP ksp)
{
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(PCSetType(pc, PCLU));
#ifdef PETSC_HAVE_MUMPS
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
#endif
  return 0;
}

/*
 * The petsc backend stays an exact LU whatever -cpk_ksp_type / -cpk_pc_type say (they
 * are petsc-gmres's and petsc-cg's choices): its solves have no convergence test, and
 * the eta file of its column updates assumes exact solves. Other -cpk_ options (a
 * factor package, -cpk_ksp_view) are kept.
 */
static PetscErrorCode petsc_keep_lu(KSP ksp)
{
  PC pc;
  KSPType kt;
  PCType pt;
  PetscBool preonly, lu;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(PCGetType(pc, &pt));
  PetscCall(PetscStrcmp(kt, KSPPREONLY, &preonly));
  PetscCall(PetscStrcmp(pt, PCLU, &lu));
  if (!preonly || !lu) PetscCall(petsc_use_lu(ksp));
  return 0;
}

/*
 * CG gets CG_MAX_IT iterations (the wall-of-boxes ipm systems took 12-24 while
 * they were well conditioned): past that the instance falls back to LU.
 */
#define CG_MAX_IT 500

/*
 * GMRES on a general matrix, right-preconditioned by block Jacobi (one block
 * per rank) with ILU(0) in each block, so its memory stays O(nnz) where LU's
 * factors fill in: measured on nsn's Newton matrices of the generated piles,
 * MUMPS's factors grow as n^(4/3) and their time as n^1.8, while these
 * systems converge to 1e-12 in tens of iterations (doc/petsc.md). A system
 * that does not converge in GMRES_MAX_IT iterations is reported as singular
 * (CPK_ESINGULAR; no fall-back to LU: at the sizes this backend is for, LU
 * would not fit), and the solvers treat it so (nsn and the Newton solvers
 * regularize, ipm and fcipm too or stop stalled). Memory: W's nonzeros, the
 * ILU(0) factors (as many) and the Krylov basis, GMRES_RESTART + 1 vectors of
 * the rank's rows (about 0.4 GB a rank for the 10^6-unknown pile on 2 ranks).
 */
#define GMRES_MAX_IT 1000
#define GMRES_RESTART 100

static PetscErrorCode petsc_use_gmres(KSP ksp)
{
  PC pc;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, GMRES_RESTART));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT)); /* the residual tested is the true one */
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-12, 1e-300, PETSC_DEFAULT, GMRES_MAX_IT));
  PetscCall(PCSetType(pc, PCBJACOBI)); /* its blocks' default PC is ILU(0) */
  return 0;
}

/* The PETSC_OPTIONS prefix "cpk_" overrides the choice. */
static PetscErrorCode petsc_setup_ksp(petsc_state *s)
{
  PC pc;
  PetscInt group = 1;
  PetscBool set = PETSC_FALSE;
  PetscCall(KSPCreate(s->comm, &s->ksp));
  PetscCall(KSPGetPC(s->ksp, &pc));
  if (s->spd) {
    PetscCall(KSPSetType(s->ksp, KSPCG));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetNormType(s->ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(s->ksp, 1e-12, 1e-300, PETSC_DEFAULT, CG_MAX_IT));
  } else if (s->gmres) {
    PetscCall(petsc_use_gmres(s->ksp));
  } else {
    PetscCall(petsc_use_lu(s->ksp));
  }
  PetscCall(KSPSetOptionsPrefix(s->ksp, "cpk_"));
  PetscCall(KSPSetFromOptions(s->ksp));
  if (!s->spd && !s->gmres) PetscCall(petsc_keep_lu(s->ksp));
  PetscCall(PetscOptionsGetInt(NULL, "cpk_", "-row_block", &group, &set));
  s->group = set && group > (PetscInt)petsc_row_group() ? (size_t)group : petsc_row_group();
  return 0;
}

static int petsc_ksp_solve(void *state, double *x, int transpose);

static int petsc_alloc_kind(void **state, size_t n, int spd, int gmres)
{
  *state = NULL;
  int rc = cpk_mpi_agree(n >= (size_t)PETSC_MAX_INT ? CPK_EOVERFLOW : petsc_ready());
  if (rc) return rc;
  petsc_state *s = calloc(1, sizeof *s);
  if (!s) return petsc_agree_rc(PETSC_COMM_WORLD, CPK_ENOMEM); /* the other ranks wait for it */
  s->base.n = n;
  s->base.solve_a0 = petsc_ksp_solve;
  s->base.st.sparse = 1;
  s->spd = spd;
  s->gmres = gmres;
  s->comm = PETSC_COMM_WORLD;
  if (MPI_Comm_rank(s->comm, &s->rank) != MPI_SUCCESS ||
      MPI_Comm_size(s->comm, &s->size) != MPI_SUCCESS)
    rc = CPK_ELINSYS;
  if (!rc) rc = petsc_rows_alloc(&s->R, n);
  s->base.alpha = cpk_alloc_array(n, sizeof *s->base.alpha);
  if (!rc) rc = !s->base.alpha ? CPK_ENOMEM : linsys_eta_alloc(&s->base.eta, n);
  rc = petsc_agree_rc(s->comm, rc); /* before the KSP's creation, which is collective */
  if (!rc) rc = petsc_agree_rc(s->comm, petsc_setup_ksp(s) ? CPK_ELINSYS : CPK_OK);
  if (rc) {
    petsc_free(s);
    return rc;
  }
  *state = s;
  return CPK_OK;
}

static int petsc_alloc(void **state, size_t n) { return petsc_alloc_kind(state, n, 0, 0); }
static int petsc_alloc_cg(void **state, size_t n) { return petsc_alloc_kind(state, n, 1, 0); }
static int petsc_alloc_gmres(void **state, size_t n) { return petsc_alloc_kind(state, n, 0, 1); }

/* Every rank compares its own rows: the pattern is the same only if it is on every rank. */
static int petsc_same_pattern(petsc_state *s, const cpk_csc *A)
{
  int same = s->have_pattern && !s->rows_mode && petsc_rows_same(&s->R, A), all = same;
  if (MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, s->comm) != MPI_SUCCESS) return 0;
  return all;
}

/* The distributed matrix of this rank's rows, preallocated exactly, and vectors laid out like it. */
static PetscErrorCode petsc_create_mat(petsc_state *s)
{
  PetscInt m = (PetscInt)(s->R.r1 - s->R.r0), N = (PetscInt)s->base.n;
  PetscCall(MatCreate(s->comm, &s->A));
  PetscCall(MatSetSizes(s->A, m, m, N, N));
  PetscCall(MatSetType(s->A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(s->A, 0, s->R.dnz)); /* one rank: every column is local */
  PetscCall(MatMPIAIJSetPreallocation(s->A, 0, s->R.dnz, 0, s->R.onz));
  PetscCall(MatSetOption(s->A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(s->A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatCreateVecs(s->A, &s->x, &s->b));
  PetscCall(VecScatterCreateToAll(s->x, &s->gather, &s->xall));
  return 0;
}

/* A new pattern: a new row split, Mat and vectors; PCFactor redoes the symbolic phase. */
static int petsc_new_pattern(petsc_state *s, const cpk_csc *A)
{
  size_t r0, r1;
  if ((size_t)A->p[A->n] >= (size_t)PETSC_MAX_INT) return CPK_EOVERFLOW;
  petsc_drop_pattern(s);
  petsc_rows_split(&s->R, A, s->group, s->rank, s->size, &r0, &r1);
  int rc = petsc_rows_pattern(&s->R, A, r0, r1);
  rc = petsc_agree_rc(s->comm, rc);
  if (rc) return rc;
  s->base.st.symbolic++;
  rc = petsc_agree_rc(s->comm, petsc_create_mat(s) ? CPK_ENOMEM : CPK_OK);
  if (rc) return rc;
  s->have_pattern = 1;
  s->rows_mode = 0;
  return CPK_OK;
}

/*
 * This rank's rows into A (inserted where the preallocation put them), then the
 * assembly, which is collective: a rank whose insertion failed still takes part.
 */
static PetscErrorCode petsc_set_values(petsc_state *s, const cpk_csc *A)
{
  petsc_rows *R = &s->R;
  PetscErrorCode err = 0;
  for (size_t r = 0; r < R->r1 - R->r0 && !err; r++) {
    PetscInt row = (PetscInt)(R->r0 + r), k = R->rp[r];
    err = MatSetValues(s->A, 1, &row, R->rp[r + 1] - k, R->cj + k,
                      s->rows_val ? s->rows_val + k : petsc_rows_values(R, A, r), INSERT_VALUES);
  }
  PetscErrorCode begin = MatAssemblyBegin(s->A, MAT_FINAL_ASSEMBLY);
  PetscErrorCode end = MatAssemblyEnd(s->A, MAT_FINAL_ASSEMBLY);
  return err ? err : begin ? begin : end;
}

/* Singular pivots come back as a failed PC, not as an error code. */
static int petsc_numeric(petsc_state *s, const cpk_csc *A)
{
  PC pc;
  PCFailedReason why = PC_NOERROR;
  int rc = petsc_set_values(s, A) || KSPSetOperators(s->ksp, s->A, s->A) || KSPGetPC(s->ksp, &pc);
  if (petsc_agree_rc(s->comm, rc ? CPK_ELINSYS : CPK_OK)) return CPK_ELINSYS; /* before the collective setup */
  PetscErrorCode err = KSPSetUp(s->ksp);
  if (!err && s->gmres) err = KSPSetUpOnBlocks(s->ksp); /* the ILU now: a zero pivot fails the factorization */
  if (PCGetFailedReason(pc, &why) == 0 && why != PC_NOERROR) {
    if (s->gmres && why == PC_SUBPC_ERROR) return CPK_ESINGULAR; /* a block's ILU met a zero pivot */
    return why == PC_SUBPC_ERROR || why == PC_SETUP_ERROR ? CPK_ELINSYS : CPK_ESINGULAR;
  }
  if (err) return err == PETSC_ERR_MEM ? CPK_ENOMEM : CPK_ELINSYS;
  Mat F;
  MatInfo info;
  if (!s->spd && !s->gmres && PCFactorGetMatrix(pc, &F) == 0 && MatGetInfo(F, MAT_LOCAL, &info) == 0)
    s->base.st.nnz_factors = info.nz_used;
  return CPK_OK;
}

/*
 * After a failed ILU or GMRES run a new KSP as well as a new Mat. Measured on
 * a 29 984-contact pile: with the ILU left to the first solve and the KSP
 * kept, one zero pivot made every later solve fail at once (block Jacobi's
 * failed state stayed; nsn took 148 iterations and 1 037 shifted
 * factorizations); with the ILU in petsc_numeric and this renewal, 8 and 9.
 */
static int petsc_renew_ksp(petsc_state *s)
{
  size_t group = s->group; /* the instance's, from its allocation */
  (void)KSPDestroy(&s->ksp);
  int rc = petsc_agree_rc(s->comm, petsc_setup_ksp(s) ? CPK_ELINSYS : CPK_OK);
  s->group = group;
  return rc;
}

/*
 * A failed factorization leaves no valid factors: solves get CPK_EINVAL until the
 * next success. A matrix refused on any rank (or another rank's failure met here)
 * changes nothing on every rank: the previous factors stand everywhere, so the
 * ranks' next solves are the same call (a refusal on one rank used to keep that
 * rank's factors while the others dropped theirs).
 */
static int petsc_factor(void *state, const cpk_csc *A)
{
  petsc_state *s = state;
  int rc = cpk_mpi_agree(linsys_eta_backend_check(&s->base, A));
  if (rc) return rc;
  linsys_eta_backend_start(&s->base);
  if (s->base.n > 0) { /* the empty matrix needs no factors */
    /* same branch on every rank: failed is agreed, petsc_same_pattern reduced */
    if (s->failed && s->gmres) rc = petsc_renew_ksp(s);
    if (rc == CPK_OK && (s->failed || !petsc_same_pattern(s, A))) rc = petsc_new_pattern(s, A);
    if (rc == CPK_OK) rc = petsc_agree_rc(s->comm, petsc_numeric(s, A));
    s->failed = rc != CPK_OK;
  }
  return linsys_eta_backend_end_factor(&s->base, rc);
}

/* ---- a matrix given by this rank's rows (cpk_linsys_factor_rows) ---- */

/* The caller's rows are the pattern in place: same rows, pointers and columns, on every rank. */
static int petsc_same_rows(petsc_state *s, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col)
{
  petsc_rows *R = &s->R;
  size_t m = row1 - row0;
  int same = s->have_pattern && s->rows_mode && R->r0 == row0 && R->r1 == row1 && R->nnz == (size_t)rowptr[m];
  for (size_t i = 0; same && i <= m; i++) same = R->rp[i] == (PetscInt)rowptr[i];
  for (size_t k = 0; same && k < R->nnz; k++) same = R->cj[k] == (PetscInt)col[k];
  int all = same;
  if (MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, s->comm) != MPI_SUCCESS) return 0;
  return all;
}

/* The caller's pattern copied into R (PetscInt), with the diagonal and off-diagonal counts. */
static int petsc_copy_rows(petsc_state *s, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col)
{
  petsc_rows *R = &s->R;
  size_t m = row1 - row0, nnz = (size_t)rowptr[m];
  PetscInt *cj = cpk_alloc_array(nnz ? nnz : 1, sizeof *cj);
  if (!cj) return CPK_ENOMEM;
  free(R->cj); /* cap 0: the CSC path's next pattern allocates cj and src anew (src is not used here) */
  R->cj = cj;
  R->cap = 0;
  R->r0 = row0;
  R->r1 = row1;
  R->nnz = nnz;
  for (size_t i = 0; i <= m; i++) R->rp[i] = (PetscInt)rowptr[i];
  for (size_t i = 0; i < m; i++) {
    R->dnz[i] = R->onz[i] = 0;
    for (cpk_int k = rowptr[i]; k < rowptr[i + 1]; k++) {
      R->cj[k] = (PetscInt)col[k];
      if ((size_t)col[k] >= row0 && (size_t)col[k] < row1) R->dnz[i]++;
      else R->onz[i]++;
    }
  }
  return CPK_OK;
}

static int petsc_new_rows(petsc_state *s, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col)
{
  petsc_drop_pattern(s);
  int rc = petsc_agree_rc(s->comm, petsc_copy_rows(s, row0, row1, rowptr, col));
  if (rc) return rc;
  s->base.st.symbolic++;
  rc = petsc_agree_rc(s->comm, petsc_create_mat(s) ? CPK_ENOMEM : CPK_OK);
  if (rc) return rc;
  s->have_pattern = 1;
  s->rows_mode = 1;
  return CPK_OK;
}

/* The rows checked: in range, pointers from 0 and monotone, columns in range and ascending. */
static int petsc_rows_ok(const petsc_state *s, size_t row0, size_t row1, const cpk_int *rowptr,
                         const cpk_int *col, const double *val)
{
  size_t n = s->base.n, m = row1 - row0;
  if (row0 > row1 || row1 > n || !rowptr || rowptr[0] != 0) return 0;
  if ((size_t)rowptr[m] >= (size_t)PETSC_MAX_INT || (rowptr[m] > 0 && (!col || !val))) return 0;
  for (size_t i = 0; i < m; i++) {
    if (rowptr[i + 1] < rowptr[i]) return 0;
    for (cpk_int k = rowptr[i]; k < rowptr[i + 1]; k++)
      if (col[k] < 0 || (size_t)col[k] >= n || (k > rowptr[i] && col[k] <= col[k - 1])) return 0;
  }
  return 1;
}

int petsc_factor_rows(void *state, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col,
                      const double *val)
{
  petsc_state *s = state;
  int rc = cpk_mpi_agree(petsc_rows_ok(s, row0, row1, rowptr, col, val) ? CPK_OK : CPK_EINVAL);
  if (rc) return rc;
  linsys_eta_backend_start(&s->base);
  if (s->base.n > 0) { /* as petsc_factor: every branch taken alike on every rank */
    if (s->failed && s->gmres) rc = petsc_renew_ksp(s);
    if (rc == CPK_OK && (s->failed || !petsc_same_rows(s, row0, row1, rowptr, col)))
      rc = petsc_new_rows(s, row0, row1, rowptr, col);
    s->rows_val = val;
    if (rc == CPK_OK) rc = petsc_agree_rc(s->comm, petsc_numeric(s, NULL));
    s->rows_val = NULL;
    s->failed = rc != CPK_OK;
  }
  return linsys_eta_backend_end_factor(&s->base, rc);
}

/* s->x <- A_0^{-1} s->b or A_0^{-T} s->b through the KSP (CG's operator is symmetric). */
static int petsc_ksp_run(petsc_state *s, int transpose, KSPConvergedReason *why)
{
  PetscErrorCode err = transpose && !s->spd ? KSPSolveTranspose(s->ksp, s->b, s->x)
                                            : KSPSolve(s->ksp, s->b, s->x);
  return err || KSPGetConvergedReason(s->ksp, why) ? CPK_ELINSYS : CPK_OK;
}

/* CG failed (ipm's late systems are ill-conditioned): LU for this instance from now on. */
static int petsc_fall_back_to_lu(petsc_state *s, int transpose, KSPConvergedReason *why)
{
  PC pc;
  PCFailedReason failed = PC_NOERROR;
  s->spd = 0;
  int rc = petsc_use_lu(s->ksp) || KSPGetPC(s->ksp, &pc) ? CPK_ELINSYS : CPK_OK;
  if ((rc = petsc_agree_rc(s->comm, rc))) return rc; /* before the collective setup */
  PetscErrorCode err = KSPSetUp(s->ksp);
  if (PCGetFailedReason(pc, &failed) == 0 && failed != PC_NOERROR) rc = CPK_ESINGULAR;
  else if (err) rc = CPK_ELINSYS;
  if ((rc = petsc_agree_rc(s->comm, rc))) return rc; /* before the collective solve */
  return petsc_ksp_run(s, transpose, why);
}

/* This rank's rows of x into b. */
static int petsc_scatter_rhs(petsc_state *s, const double *x)
{
  PetscScalar *bx;
  if (VecGetArray(s->b, &bx)) return CPK_ELINSYS;
  memcpy(bx, x + s->R.r0, (s->R.r1 - s->R.r0) * sizeof *x);
  return VecRestoreArray(s->b, &bx) ? CPK_ELINSYS : CPK_OK;
}

/* All of the distributed solution into x, on every rank. */
static int petsc_gather_solution(petsc_state *s, double *x)
{
  const PetscScalar *xx;
  if (VecScatterBegin(s->gather, s->x, s->xall, INSERT_VALUES, SCATTER_FORWARD) ||
      VecScatterEnd(s->gather, s->x, s->xall, INSERT_VALUES, SCATTER_FORWARD) ||
      VecGetArrayRead(s->xall, &xx))
    return CPK_ELINSYS;
  memcpy(x, xx, s->base.n * sizeof *x);
  return VecRestoreArrayRead(s->xall, &xx) ? CPK_ELINSYS : CPK_OK;
}

/*
 * x <- A_0^{-1} x or A_0^{-T} x (the converged reason is global: every rank takes the
 * same branch). Its callers (petsc_solve, petsc_replace_column) agreed at their entry.
 */
static int petsc_ksp_solve(void *state, double *x, int transpose)
{
  petsc_state *s = state;
  int rc = petsc_agree_rc(s->comm, petsc_scatter_rhs(s, x));
  KSPConvergedReason why = KSP_CONVERGED_ITERATING;
  if (!rc) rc = petsc_agree_rc(s->comm, petsc_ksp_run(s, transpose, &why)); /* before a fall-back's collectives */
  if (!rc && why < 0 && s->spd) rc = petsc_fall_back_to_lu(s, transpose, &why);
  rc = petsc_agree_rc(s->comm, rc);
  if (rc) return rc;
  if (why < 0 && s->gmres) s->failed = 1; /* the next factorization starts afresh */
  /* GMRES out of iterations: the matrix is too ill-conditioned for ILU(0), which the
   * solvers meet as they meet a singular one (ipm and fcipm regularize or stop only
   * on CPK_ESINGULAR; another code would end their solve with an error). */
  if (why < 0)
    return why == KSP_DIVERGED_NANORINF || (why == KSP_DIVERGED_ITS && !s->gmres) ? CPK_ELINSYS
                                                                                 : CPK_ESINGULAR;
  rc = petsc_agree_rc(s->comm, petsc_gather_solution(s, x));
  if (rc) return rc;
  for (size_t i = 0; i < s->base.n; i++)
    if (!isfinite(x[i])) return CPK_ESINGULAR;
  return CPK_OK;
}

/*
 * A solve refused on one rank (no factors, no x: the caller's arguments may differ
 * between ranks) is refused on every rank, before the collective solve.
 */
static int petsc_solve(void *state, double *x, int transpose)
{
  petsc_state *s = state;
  int rc = cpk_mpi_agree(s->base.factored && (s->base.n == 0 || x) ? CPK_OK : CPK_EINVAL);
  return rc ? rc : linsys_eta_backend_solve(state, x, transpose);
}

/*
 * A column update refused on one rank (no factors, j out of range, no column) is
 * refused on every rank: the others' solve for A^{-1} col is a collective, and the
 * eta files stay alike. The eta file's room for a dense column is made before that
 * agreement, so an allocation that fails on one rank is every rank's error and the
 * append after the solve allocates nothing (a realloc failing there on one rank
 * left the eta files different and that rank alone with an error).
 */
static int petsc_replace_column(void *state, size_t j, const double *col, const double *Ainv_col)
{
  petsc_state *s = state;
  int rc = s->base.factored && j < s->base.n && col ? linsys_eta_reserve(&s->base.eta, s->base.n)
                                                    : CPK_EINVAL;
  rc = cpk_mpi_agree(rc);
  return rc ? rc : linsys_eta_backend_replace_column(state, j, col, Ainv_col);
}

static const cpk_linsys_type petsc_type = {
    "petsc",     petsc_alloc, petsc_factor, petsc_solve, petsc_replace_column,
    linsys_eta_backend_stats, petsc_free, NULL};
static const cpk_linsys_type petsc_cg_type = {
    "petsc-cg",  petsc_alloc_cg, petsc_factor, petsc_solve,
    petsc_replace_column, linsys_eta_backend_stats, petsc_free, NULL};
static const cpk_linsys_type petsc_gmres_type = {
    "petsc-gmres", petsc_alloc_gmres, petsc_factor, petsc_solve,
    petsc_replace_column, linsys_eta_backend_stats, petsc_free, NULL};
const cpk_linsys_type *cpk_linsys_petsc = &petsc_type;
const cpk_linsys_type *cpk_linsys_petsc_cg = &petsc_cg_type;
const cpk_linsys_type *cpk_linsys_petsc_gmres = &petsc_gmres_type;
#endif
