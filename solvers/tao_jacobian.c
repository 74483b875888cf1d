/* tao_jacobian.c: the TAO solvers' Jacobian as a PETSc AIJ matrix: the problem's CSC pattern plus the diagonal, in CSR. */
#include <config.h>
#ifdef HAVE_PETSC
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "tao.h"

/* has[j] = 1 when column j of J holds its diagonal entry. */
static void diagonal_present(const cpk_csc *J, unsigned char *has)
{
  for (cpk_int j = 0; j < J->n; j++)
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++)
      if (J->i[k] == j) has[j] = 1;
}

/* Row pointers of J plus its missing diagonal entries; CPK_EOVERFLOW past PetscInt. */
static int count_rows(tao_state *S, const unsigned char *has)
{
  const cpk_csc *J = S->J0;
  size_t n = S->n, nnz = (size_t)J->p[n];
  memset(S->rp, 0, (n + 1) * sizeof *S->rp);
  for (size_t k = 0; k < nnz; k++) S->rp[J->i[k] + 1]++;
  size_t total = 0;
  for (size_t r = 0; r < n; r++) {
    total += (size_t)S->rp[r + 1] + !has[r];
    if (total >= (size_t)PETSC_MAX_INT) return CPK_EOVERFLOW;
    S->rp[r + 1] = (PetscInt)total;
  }
  S->nnz = total;
  return CPK_OK;
}

/* Columns in ascending order: each row's entries come out sorted, as AIJ wants. */
static void fill_columns(tao_state *S, const unsigned char *has, PetscInt *next)
{
  const cpk_csc *J = S->J0;
  memcpy(next, S->rp, S->n * sizeof *next);
  for (cpk_int j = 0; j < J->n; j++) {
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) {
      PetscInt at = next[J->i[k]]++;
      S->cj[at] = (PetscInt)j;
      S->perm[k] = (size_t)at;
    }
    if (!has[j]) S->cj[next[j]++] = (PetscInt)j;
  }
}

int tao_jacobian_pattern(tao_state *S)
{
  size_t n = S->n, nnz0 = (size_t)S->J0->p[n];
  unsigned char *has = cpk_calloc_array(n + 1, 1);
  PetscInt *next = cpk_alloc_array(n + 1, sizeof *next);
  S->rp = cpk_alloc_array(n + 1, sizeof *S->rp);
  S->perm = cpk_alloc_array(nnz0 ? nnz0 : 1, sizeof *S->perm);
  int rc = (!has || !next || !S->rp || !S->perm) ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    diagonal_present(S->J0, has);
    rc = count_rows(S, has);
  }
  if (!rc) {
    S->cj = cpk_alloc_array(S->nnz ? S->nnz : 1, sizeof *S->cj);
    S->v = cpk_calloc_array(S->nnz ? S->nnz : 1, sizeof *S->v);
    rc = (!S->cj || !S->v) ? CPK_ENOMEM : CPK_OK;
  }
  if (!rc) {
    fill_columns(S, has, next);
    if (MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, (PetscInt)n, (PetscInt)n, S->rp, S->cj, S->v,
                                  &S->J))
      rc = CPK_ENOMEM;
  }
  free(has);
  free(next);
  return rc;
}

int tao_jacobian_values(tao_state *S)
{
  PetscScalar *v; /* S->v itself; the restore tells PETSc the values changed */
  if (MatSeqAIJGetArray(S->J, &v)) return CPK_ELINSYS;
  memset(v, 0, S->nnz * sizeof *v);
  for (cpk_int k = 0; k < S->J0->p[S->n]; k++) v[S->perm[k]] = S->J0->x[k];
  return MatSeqAIJRestoreArray(S->J, &v) ? CPK_ELINSYS : CPK_OK;
}

void tao_jacobian_free(tao_state *S)
{
  if (S->J) (void)MatDestroy(&S->J);
  free(S->rp);
  free(S->cj);
  free(S->v);
  free(S->perm);
}
#endif
