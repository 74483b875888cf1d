/* linsys_petsc_rows.c: the petsc backend's row partition (contiguous blocks that keep a contact's rows together) and the local CSR rows of a CSC matrix. */
#include <config.h>
#ifdef HAVE_PETSC
#include <stdlib.h>
#include <string.h>
#include <cpkit/parallel.h>
#include <cpkit/util.h>
#include "linsys_petsc.h"

int petsc_rows_alloc(petsc_rows *R, size_t n)
{
  memset(R, 0, sizeof *R);
  R->n = n;
  R->rp = cpk_alloc_array(n + 1, sizeof *R->rp);
  R->dnz = cpk_alloc_array(n + 1, sizeof *R->dnz);
  R->onz = cpk_alloc_array(n + 1, sizeof *R->onz);
  R->next = cpk_alloc_array(n + 1, sizeof *R->next);
  R->Ap = cpk_alloc_array(n + 1, sizeof *R->Ap);
  R->fp = cpk_alloc_array(n + 1, sizeof *R->fp);
  return R->rp && R->dnz && R->onz && R->next && R->Ap && R->fp ? CPK_OK : CPK_ENOMEM;
}

void petsc_rows_free(petsc_rows *R)
{
  free(R->rp), free(R->cj), free(R->dnz), free(R->onz), free(R->src), free(R->v);
  free(R->Ap), free(R->next), free(R->fp);
  memset(R, 0, sizeof *R);
}

/* splitmix64's finaliser: column indices spread over 64 bits, so that sums rarely collide. */
static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* fp[i]: the sum of mix(j) over row i's columns j. Equal rows of one contact's block have equal sums. */
static void row_fingerprints(const cpk_csc *A, uint64_t *fp)
{
  memset(fp, 0, (size_t)A->n * sizeof *fp);
  for (cpk_int j = 0; j < A->n; j++) {
    uint64_t h = mix((uint64_t)j);
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) fp[A->i[k]] += h;
  }
}

/*
 * Without contacts of known size (group 1), a contact's rows are recognised by
 * their one column pattern (its Delassus block row): a cut at t moves forward
 * while rows t-1 and t look alike, by at most CUT_SLIDE rows (beyond that they
 * are not one contact's).
 */
#define CUT_SLIDE 8

static size_t cut_at(const uint64_t *fp, size_t n, size_t t)
{
  for (size_t u = t; u < t + CUT_SLIDE && u > 0 && u < n; u++)
    if (fp[u] != fp[u - 1]) return u;
  return t;
}

void petsc_rows_split(petsc_rows *R, const cpk_csc *A, size_t group, int rank, int size,
                      size_t *r0, size_t *r1)
{
  size_t n = (size_t)A->n, prev = 0;
  if (group > 1) { /* whole contacts by index: the blocks the residual is split by too */
    cpk_mpi_block(n, group, rank, size, r0, r1);
    return;
  }
  row_fingerprints(A, R->fp);
  *r0 = *r1 = 0;
  /* every rank computes every cut, so that the blocks tile [0, n) without talking */
  for (int r = 1; r <= size; r++) {
    size_t t = r == size ? n : cut_at(R->fp, n, (size_t)((double)n * r / size));
    if (t < prev) t = prev;
    if (r == rank + 1) *r0 = prev, *r1 = t;
    prev = t;
  }
}

/* Room for nnz local entries, and for the longest local row's values. */
static int rows_reserve(petsc_rows *R, size_t nnz, size_t longest)
{
  if (!(longest <= R->vcap && R->v)) {
    PetscScalar *v = cpk_alloc_array(longest ? longest : 1, sizeof *v);
    if (!v) return CPK_ENOMEM;
    free(R->v);
    R->v = v, R->vcap = longest ? longest : 1;
  }
  if (nnz <= R->cap && R->cj) return CPK_OK;
  size_t m = nnz ? nnz : 1;
  PetscInt *cj = cpk_alloc_array(m, sizeof *cj);
  PetscInt *src = cpk_alloc_array(m, sizeof *src);
  if (!cj || !src) {
    free(cj), free(src);
    return CPK_ENOMEM;
  }
  free(R->cj), free(R->src);
  R->cj = cj, R->src = src, R->cap = m;
  return CPK_OK;
}

/* Counts of local rows' entries, inside and outside the diagonal block, into rp[1..m], dnz, onz. */
static void rows_count(petsc_rows *R, const cpk_csc *A)
{
  size_t m = R->r1 - R->r0;
  memset(R->rp, 0, (m + 1) * sizeof *R->rp);
  memset(R->dnz, 0, (m + 1) * sizeof *R->dnz);
  memset(R->onz, 0, (m + 1) * sizeof *R->onz);
  for (size_t j = 0; j < R->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      size_t i = (size_t)A->i[k];
      if (i < R->r0 || i >= R->r1) continue;
      R->rp[i - R->r0 + 1]++;
      if (j >= R->r0 && j < R->r1) R->dnz[i - R->r0]++;
      else R->onz[i - R->r0]++;
    }
  for (size_t r = 0; r < m; r++) R->rp[r + 1] += R->rp[r];
}

int petsc_rows_pattern(petsc_rows *R, const cpk_csc *A, size_t r0, size_t r1)
{
  R->r0 = r0, R->r1 = r1;
  rows_count(R, A);
  size_t m = r1 - r0, longest = 0;
  for (size_t r = 0; r < m; r++)
    if ((size_t)(R->rp[r + 1] - R->rp[r]) > longest) longest = (size_t)(R->rp[r + 1] - R->rp[r]);
  int rc = rows_reserve(R, (size_t)R->rp[m], longest);
  if (rc) return rc;
  R->nnz = (size_t)R->rp[m];
  memcpy(R->next, R->rp, m * sizeof *R->next);
  /* columns in ascending order come out ascending within each row, as AIJ wants */
  for (size_t j = 0; j < R->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      size_t i = (size_t)A->i[k];
      if (i < r0 || i >= r1) continue;
      PetscInt pos = R->next[i - r0]++;
      R->cj[pos] = (PetscInt)j;
      R->src[pos] = (PetscInt)k;
    }
  memcpy(R->Ap, A->p, (R->n + 1) * sizeof *R->Ap);
  return CPK_OK;
}

const PetscScalar *petsc_rows_values(petsc_rows *R, const cpk_csc *A, size_t r)
{
  PetscInt k0 = R->rp[r];
  for (PetscInt k = k0; k < R->rp[r + 1]; k++) R->v[k - k0] = A->x[R->src[k]];
  return R->v;
}

int petsc_rows_same(petsc_rows *R, const cpk_csc *A)
{
  size_t m = R->r1 - R->r0;
  if (memcmp(R->Ap, A->p, (R->n + 1) * sizeof *R->Ap) != 0) return 0;
  memcpy(R->next, R->rp, m * sizeof *R->next);
  for (size_t j = 0; j < R->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      size_t i = (size_t)A->i[k];
      if (i < R->r0 || i >= R->r1) continue;
      PetscInt pos = R->next[i - R->r0]++;
      if (pos >= R->rp[i - R->r0 + 1] || R->cj[pos] != (PetscInt)j || R->src[pos] != (PetscInt)k)
        return 0;
    }
  return 1;
}
#else
/* Built without PETSc: nothing here (ISO C wants a declaration). */
typedef int petsc_rows_unused;
#endif
