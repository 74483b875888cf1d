/* linsys_petsc.c: the "petsc" (sparse LU, MUMPS when PETSc has it) and "petsc-cg" (CG + GAMG, SPD systems) linsys backends. */
#include <config.h>
#include <cpkit/linsys.h>

#ifndef HAVE_PETSC
/* Built without PETSc: the backends do not exist and cpk_linsys_find skips them. */
const cpk_linsys_type *cpk_linsys_petsc = NULL;
const cpk_linsys_type *cpk_linsys_petsc_cg = NULL;
#else
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <petscksp.h>
#include <cpkit/util.h>
#include "linsys_eta.h"

/*
 * Each process holds the whole n-by-n system and solves it on PETSC_COMM_SELF:
 * under mpirun every rank solves redundantly, nothing is distributed yet.
 * The matrix (AIJ, i.e. CSR) wraps this state's own arrays; the caller's CSC is
 * transposed into them through `perm`, computed once per sparsity pattern.
 */
typedef struct petsc_state {
  size_t n;
  int spd;                 /* CG + GAMG instead of LU; 0 after a fall-back to LU */
  Mat A;                   /* NULL until the first pattern */
  KSP ksp;
  Vec b, x;
  PetscInt *rp, *cj;       /* CSR pattern */
  PetscScalar *v;          /* CSR values */
  size_t *perm;            /* CSC entry k is CSR entry perm[k] */
  cpk_int *Ap, *Ai;        /* the CSC pattern the CSR one came from */
  size_t cap;              /* room in cj, v, perm, Ai */
  int have_pattern, factored;
  double *alpha;
  linsys_eta eta;
  cpk_linsys_stats st;
} petsc_state;

static int began_mpi; /* petsc_ready called MPI_Init, so petsc_finalize calls MPI_Finalize */

/*
 * Finalise only what petsc_ready initialised, at exit (MPI last: petsc_ready
 * initialises it itself, so PetscFinalize leaves it alone). A program owning
 * MPI may have finalised it already: PETSc cannot be finalised after that.
 */
static void petsc_finalize(void)
{
  PetscBool done = PETSC_TRUE;
  int mpi_done = 1;
  if (MPI_Finalized(&mpi_done) != MPI_SUCCESS || mpi_done) return;
  if (PetscFinalized(&done) == 0 && !done) (void)PetscFinalize();
  if (began_mpi) (void)MPI_Finalize();
}

/*
 * PETSc is initialised on first use unless the caller (or its MPI program) did it:
 * then the caller's options, error handler and finalisation stay theirs. Not thread-safe.
 */
static int petsc_ready(void)
{
  PetscBool up = PETSC_FALSE;
  int mpi_up = 0;
  if (PetscInitialized(&up)) return CPK_ELINSYS;
  if (up) return CPK_OK;
  if (MPI_Initialized(&mpi_up) != MPI_SUCCESS) return CPK_ELINSYS;
  if (!mpi_up) {
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return CPK_ELINSYS;
    began_mpi = 1;
  }
  /* cpkit reports errors through return codes: no PETSc signal handler or tracebacks. */
  if (PetscOptionsSetValue(NULL, "-no_signal_handler", NULL)) return CPK_ELINSYS;
  if (PetscInitializeNoArguments()) return CPK_ELINSYS;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return CPK_ELINSYS;
  if (atexit(petsc_finalize)) return CPK_ELINSYS;
  return CPK_OK;
}

static void petsc_free(void *state)
{
  petsc_state *s = state;
  if (!s) return;
  if (s->ksp) (void)KSPDestroy(&s->ksp);
  if (s->A) (void)MatDestroy(&s->A);
  if (s->b) (void)VecDestroy(&s->b);
  if (s->x) (void)VecDestroy(&s->x);
  free(s->rp);
  free(s->cj);
  free(s->v);
  free(s->perm);
  free(s->Ap);
  free(s->Ai);
  free(s->alpha);
  linsys_eta_free(&s->eta);
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
 * CG gets CG_MAX_IT iterations (the wall-of-boxes ipm systems took 12-24 while
 * they were well conditioned): past that the instance falls back to LU.
 */
#define CG_MAX_IT 500

/* The PETSC_OPTIONS prefix "cpk_" overrides the choice. */
static PetscErrorCode petsc_setup_ksp(petsc_state *s)
{
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &s->ksp));
  PetscCall(KSPGetPC(s->ksp, &pc));
  if (s->spd) {
    PetscCall(KSPSetType(s->ksp, KSPCG));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetNormType(s->ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(s->ksp, 1e-12, 1e-300, PETSC_DEFAULT, CG_MAX_IT));
  } else {
    PetscCall(petsc_use_lu(s->ksp));
  }
  PetscCall(KSPSetOptionsPrefix(s->ksp, "cpk_"));
  PetscCall(KSPSetFromOptions(s->ksp));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, (PetscInt)s->n, &s->b));
  PetscCall(VecDuplicate(s->b, &s->x));
  return 0;
}

static int petsc_alloc_spd(void **state, size_t n, int spd)
{
  *state = NULL;
  if (n >= (size_t)PETSC_MAX_INT) return CPK_EOVERFLOW;
  int rc = petsc_ready();
  if (rc) return rc;
  petsc_state *s = calloc(1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  s->n = n;
  s->spd = spd;
  s->rp = cpk_alloc_array(n + 1, sizeof *s->rp);
  s->Ap = cpk_alloc_array(n + 1, sizeof *s->Ap);
  s->alpha = cpk_alloc_array(n, sizeof *s->alpha);
  rc = (!s->rp || !s->Ap || !s->alpha) ? CPK_ENOMEM : linsys_eta_alloc(&s->eta, n);
  if (!rc && petsc_setup_ksp(s)) rc = CPK_ELINSYS;
  if (rc) {
    petsc_free(s);
    return rc;
  }
  *state = s;
  return CPK_OK;
}

static int petsc_alloc(void **state, size_t n) { return petsc_alloc_spd(state, n, 0); }
static int petsc_alloc_cg(void **state, size_t n) { return petsc_alloc_spd(state, n, 1); }

static int petsc_same_pattern(const petsc_state *s, const cpk_csc *A)
{
  if (!s->have_pattern) return 0;
  for (size_t k = 0; k <= s->n; k++)
    if (s->Ap[k] != A->p[k]) return 0;
  for (cpk_int k = 0; k < A->p[A->n]; k++)
    if (s->Ai[k] != A->i[k]) return 0;
  return 1;
}

static int petsc_reserve(petsc_state *s, size_t nnz)
{
  if (nnz <= s->cap && s->cj) return CPK_OK;
  size_t m = nnz ? nnz : 1;
  PetscInt *cj = cpk_alloc_array(m, sizeof *cj);
  PetscScalar *v = cpk_alloc_array(m, sizeof *v);
  size_t *perm = cpk_alloc_array(m, sizeof *perm);
  cpk_int *ai = cpk_alloc_array(m, sizeof *ai);
  if (!cj || !v || !perm || !ai) {
    free(cj), free(v), free(perm), free(ai);
    return CPK_ENOMEM;
  }
  free(s->cj), free(s->v), free(s->perm), free(s->Ai);
  s->cj = cj, s->v = v, s->perm = perm, s->Ai = ai;
  s->cap = m;
  return CPK_OK;
}

/* Counting-sort transposition: rows come out with their columns ascending, as AIJ wants. */
static void petsc_csr_pattern(petsc_state *s, const cpk_csc *A)
{
  size_t n = s->n, nnz = (size_t)A->p[A->n];
  memset(s->rp, 0, (n + 1) * sizeof *s->rp);
  for (size_t k = 0; k < nnz; k++) s->rp[A->i[k] + 1]++;
  for (size_t r = 0; r < n; r++) s->rp[r + 1] += s->rp[r];
  for (size_t j = 0; j < n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      PetscInt pos = s->rp[A->i[k]]++;
      s->perm[k] = (size_t)pos;
      s->cj[pos] = (PetscInt)j;
    }
  for (size_t r = n; r > 0; r--) s->rp[r] = s->rp[r - 1];
  s->rp[0] = 0;
  for (size_t k = 0; k <= n; k++) s->Ap[k] = A->p[k];
  for (size_t k = 0; k < nnz; k++) s->Ai[k] = A->i[k];
}

/* A new pattern is a new Mat over the same arrays; PCFactor redoes the symbolic phase. */
static int petsc_new_pattern(petsc_state *s, const cpk_csc *A)
{
  size_t nnz = (size_t)A->p[A->n];
  if (nnz >= (size_t)PETSC_MAX_INT) return CPK_EOVERFLOW;
  s->have_pattern = 0;
  if (s->A) (void)MatDestroy(&s->A);
  int rc = petsc_reserve(s, nnz);
  if (rc) return rc;
  petsc_csr_pattern(s, A);
  s->st.symbolic++;
  if (MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, (PetscInt)s->n, (PetscInt)s->n, s->rp, s->cj,
                                s->v, &s->A))
    return CPK_ENOMEM;
  s->have_pattern = 1;
  return CPK_OK;
}

/* Singular pivots come back as a failed PC, not as an error code. */
static int petsc_numeric(petsc_state *s, const cpk_csc *A)
{
  size_t nnz = (size_t)A->p[A->n];
  PetscScalar *v; /* s->v itself; the restore tells PETSc the values changed */
  if (MatSeqAIJGetArray(s->A, &v)) return CPK_ELINSYS;
  for (size_t k = 0; k < nnz; k++) v[s->perm[k]] = A->x[k];
  PC pc;
  PCFailedReason why = PC_NOERROR;
  if (MatSeqAIJRestoreArray(s->A, &v) || KSPSetOperators(s->ksp, s->A, s->A) ||
      KSPGetPC(s->ksp, &pc))
    return CPK_ELINSYS;
  PetscErrorCode err = KSPSetUp(s->ksp);
  if (PCGetFailedReason(pc, &why) == 0 && why != PC_NOERROR)
    return why == PC_SUBPC_ERROR || why == PC_SETUP_ERROR ? CPK_ELINSYS : CPK_ESINGULAR;
  if (err) return err == PETSC_ERR_MEM ? CPK_ENOMEM : CPK_ELINSYS;
  Mat F;
  MatInfo info;
  if (!s->spd && PCFactorGetMatrix(pc, &F) == 0 && MatGetInfo(F, MAT_LOCAL, &info) == 0)
    s->st.nnz_factors = info.nz_used;
  return CPK_OK;
}

/* A failed factorization leaves no valid factors: solves get CPK_EINVAL until the next success. */
static int petsc_factor(void *state, const cpk_csc *A)
{
  petsc_state *s = state;
  if (!A || A->m != A->n || (size_t)A->n != s->n) return CPK_EINVAL;
  if (cpk_csc_check(A)) return CPK_EBADMAT;
  double t0 = cpk_wtime();
  s->factored = 0;
  linsys_eta_reset(&s->eta);
  s->st.updates_since_factor = 0;
  s->st.nnz_updates = 0.0;
  s->st.factorizations++;
  int rc = CPK_OK;
  if (s->n > 0) { /* the empty matrix needs no factors */
    if (!petsc_same_pattern(s, A)) rc = petsc_new_pattern(s, A);
    if (rc == CPK_OK) rc = petsc_numeric(s, A);
  }
  s->factored = (rc == CPK_OK);
  s->st.factor_time_s += cpk_wtime() - t0;
  return rc;
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
  if (petsc_use_lu(s->ksp) || KSPGetPC(s->ksp, &pc)) return CPK_ELINSYS;
  PetscErrorCode err = KSPSetUp(s->ksp);
  if (PCGetFailedReason(pc, &failed) == 0 && failed != PC_NOERROR) return CPK_ESINGULAR;
  return err ? CPK_ELINSYS : petsc_ksp_run(s, transpose, why);
}

/* x <- A_0^{-1} x or A_0^{-T} x. */
static int petsc_ksp_solve(petsc_state *s, double *x, int transpose)
{
  PetscScalar *bx;
  if (VecGetArray(s->b, &bx)) return CPK_ELINSYS;
  memcpy(bx, x, s->n * sizeof *x);
  if (VecRestoreArray(s->b, &bx)) return CPK_ELINSYS;
  KSPConvergedReason why = KSP_CONVERGED_ITERATING;
  int rc = petsc_ksp_run(s, transpose, &why);
  if (!rc && why < 0 && s->spd) rc = petsc_fall_back_to_lu(s, transpose, &why);
  if (rc) return rc;
  if (why < 0)
    return why == KSP_DIVERGED_ITS || why == KSP_DIVERGED_NANORINF ? CPK_ELINSYS : CPK_ESINGULAR;
  const PetscScalar *xx;
  if (VecGetArrayRead(s->x, &xx)) return CPK_ELINSYS;
  memcpy(x, xx, s->n * sizeof *x);
  if (VecRestoreArrayRead(s->x, &xx)) return CPK_ELINSYS;
  for (size_t i = 0; i < s->n; i++)
    if (!isfinite(x[i])) return CPK_ESINGULAR;
  return CPK_OK;
}

static int petsc_solve_inplace(petsc_state *s, double *x, int transpose)
{
  if (s->n == 0) return CPK_OK;
  if (transpose) linsys_eta_apply_transposed(&s->eta, x);
  int rc = petsc_ksp_solve(s, x, transpose);
  if (rc) return rc;
  if (!transpose) linsys_eta_apply(&s->eta, x);
  return CPK_OK;
}

static int petsc_solve(void *state, double *x, int transpose)
{
  petsc_state *s = state;
  if (!s->factored || (s->n > 0 && !x)) return CPK_EINVAL;
  s->st.solves++;
  return petsc_solve_inplace(s, x, transpose);
}

/* A plain solve with the current matrix, for linsys_eta_replace. */
static int petsc_solve_plain(void *state, double *x) { return petsc_solve_inplace(state, x, 0); }

/* Product-form update as in the umfpack backend: a singular replacement keeps the old factors. */
static int petsc_replace_column(void *state, size_t j, const double *col, const double *Ainv_col)
{
  petsc_state *s = state;
  if (!s->factored || j >= s->n || !col) return CPK_EINVAL;
  return linsys_eta_replace(&s->eta, j, col, Ainv_col, s->alpha, petsc_solve_plain, s, &s->st);
}

static void petsc_stats(const void *state, cpk_linsys_stats *st)
{
  const petsc_state *s = state;
  *st = s->st;
}

static const cpk_linsys_type petsc_type = {"petsc",     petsc_alloc,          petsc_factor,
                                           petsc_solve, petsc_replace_column, petsc_stats,
                                           petsc_free};
static const cpk_linsys_type petsc_cg_type = {"petsc-cg",  petsc_alloc_cg,       petsc_factor,
                                              petsc_solve, petsc_replace_column, petsc_stats,
                                              petsc_free};
const cpk_linsys_type *cpk_linsys_petsc = &petsc_type;
const cpk_linsys_type *cpk_linsys_petsc_cg = &petsc_cg_type;
#endif
