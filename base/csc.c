/* csc.c: compressed sparse column matrices: allocation, invariant check, triplet assembly. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/matrix.h>
#include <cpkit/util.h>

int cpk_csc_alloc(cpk_int m, cpk_int n, cpk_int nnz, cpk_csc **out)
{
  *out = NULL;
  if (m < 0 || n < 0 || nnz < 0) return CPK_EINVAL;
  if ((uint64_t)n >= SIZE_MAX / sizeof(cpk_int) || (uint64_t)nnz >= SIZE_MAX / sizeof(double))
    return CPK_EOVERFLOW;
  cpk_csc *A = calloc(1, sizeof *A);
  if (!A) return CPK_ENOMEM;
  A->m = m;
  A->n = n;
  A->p = cpk_calloc_array((size_t)n + 1, sizeof *A->p);
  A->i = cpk_alloc_array((size_t)nnz, sizeof *A->i);
  A->x = cpk_alloc_array((size_t)nnz, sizeof *A->x);
  if (!A->p || !A->i || !A->x) {
    cpk_csc_free(A);
    return CPK_ENOMEM;
  }
  *out = A;
  return CPK_OK;
}

void cpk_csc_free(cpk_csc *A)
{
  if (!A) return;
  free(A->p);
  free(A->i);
  free(A->x);
  free(A);
}

int cpk_csc_check(const cpk_csc *A)
{
  if (!A || A->m < 0 || A->n < 0 || !A->p || A->p[0] != 0) return CPK_EBADMAT;
  for (cpk_int j = 0; j < A->n; j++) {
    if (A->p[j + 1] < A->p[j]) return CPK_EBADMAT;
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      if (A->i[k] < 0 || A->i[k] >= A->m) return CPK_EBADMAT;
      if (k > A->p[j] && A->i[k] <= A->i[k - 1]) return CPK_EBADMAT;
    }
  }
  return CPK_OK;
}

int cpk_csc_copy(const cpk_csc *A, cpk_csc **out)
{
  cpk_int nnz = A->p[A->n];
  int rc = cpk_csc_alloc(A->m, A->n, nnz, out);
  if (rc) return rc;
  memcpy((*out)->p, A->p, ((size_t)A->n + 1) * sizeof *A->p);
  memcpy((*out)->i, A->i, (size_t)nnz * sizeof *A->i);
  memcpy((*out)->x, A->x, (size_t)nnz * sizeof *A->x);
  return CPK_OK;
}

/* Sum entries with equal row indices, which are adjacent once each column is sorted. */
static void merge_duplicates(cpk_csc *A)
{
  cpk_int w = 0, start = 0;
  for (cpk_int j = 0; j < A->n; j++) {
    cpk_int end = A->p[j + 1], colstart = w;
    for (cpk_int k = start; k < end; k++) {
      if (w > colstart && A->i[w - 1] == A->i[k]) {
        A->x[w - 1] += A->x[k];
      } else {
        A->i[w] = A->i[k];
        A->x[w++] = A->x[k];
      }
    }
    start = end;
    A->p[j + 1] = w;
  }
}

/* Counting sort by column, then by row inside each column (a transpose twice), then merge duplicates. */
int cpk_csc_from_triplets(cpk_int m, cpk_int n, cpk_int nnz, const cpk_int *ti, const cpk_int *tj,
                          const double *tx, cpk_csc **out)
{
  *out = NULL;
  if (m < 0 || n < 0 || nnz < 0) return CPK_EINVAL;
  for (cpk_int k = 0; k < nnz; k++)
    if (ti[k] < 0 || ti[k] >= m || tj[k] < 0 || tj[k] >= n) return CPK_EINVAL;
  cpk_csc *R = NULL, *A = NULL;
  int rc = cpk_csc_alloc(n, m, nnz, &R); /* row-compressed copy: the transpose */
  if (!rc) rc = cpk_csc_alloc(m, n, nnz, &A);
  if (rc) goto fail;
  for (cpk_int k = 0; k < nnz; k++) R->p[ti[k] + 1]++;
  for (cpk_int r = 0; r < m; r++) R->p[r + 1] += R->p[r];
  cpk_int *next = cpk_alloc_array((size_t)(m > n ? m : n) + 1, sizeof *next);
  if (!next) {
    rc = CPK_ENOMEM;
    goto fail;
  }
  memcpy(next, R->p, (size_t)m * sizeof *next);
  for (cpk_int k = 0; k < nnz; k++) {
    cpk_int slot = next[ti[k]]++;
    R->i[slot] = tj[k];
    R->x[slot] = tx[k];
  }
  /* Scatter rows in increasing order into columns: rows come out sorted. */
  for (cpk_int k = 0; k < nnz; k++) A->p[R->i[k] + 1]++;
  for (cpk_int j = 0; j < n; j++) A->p[j + 1] += A->p[j];
  memcpy(next, A->p, (size_t)n * sizeof *next);
  for (cpk_int r = 0; r < m; r++)
    for (cpk_int k = R->p[r]; k < R->p[r + 1]; k++) {
      cpk_int slot = next[R->i[k]]++;
      A->i[slot] = r;
      A->x[slot] = R->x[k];
    }
  free(next);
  cpk_csc_free(R);
  merge_duplicates(A);
  *out = A;
  return CPK_OK;
fail:
  cpk_csc_free(R);
  cpk_csc_free(A);
  return rc;
}

typedef struct csc_trip {
  cpk_int row, col;
  size_t k;
} csc_trip;

static int cmp_trip(const void *a, const void *b)
{
  const csc_trip *x = a, *y = b;
  if (x->col != y->col) return (x->col > y->col) - (x->col < y->col);
  if (x->row != y->row) return (x->row > y->row) - (x->row < y->row);
  return (x->k > y->k) - (x->k < y->k);
}

int cpk_csc_pattern(cpk_int m, cpk_int n, size_t nnz, const cpk_int *ti, const cpk_int *tj,
                    cpk_csc **out, size_t **pos)
{
  size_t count = 0;
  *out = NULL;
  *pos = NULL;
  for (size_t k = 0; k < nnz; k++)
    if (ti[k] < 0 || ti[k] >= m || tj[k] < 0 || tj[k] >= n) return CPK_EINVAL;
  csc_trip *t = cpk_alloc_array(nnz + 1, sizeof *t);
  size_t *p = cpk_alloc_array(nnz + 1, sizeof *p);
  if (!t || !p) {
    free(t);
    free(p);
    return CPK_ENOMEM;
  }
  for (size_t k = 0; k < nnz; k++) t[k] = (csc_trip){ti[k], tj[k], k};
  qsort(t, nnz, sizeof *t, cmp_trip);
  for (size_t k = 0; k < nnz; k++)
    count += k == 0 || t[k].row != t[k - 1].row || t[k].col != t[k - 1].col;
  int rc = count > (size_t)INT64_MAX ? CPK_EOVERFLOW : cpk_csc_alloc(m, n, (cpk_int)count, out);
  for (size_t k = 0, e = 0; !rc && k < nnz; k++) {
    if (k == 0 || t[k].row != t[k - 1].row || t[k].col != t[k - 1].col) {
      (*out)->i[e] = t[k].row;
      (*out)->x[e] = 0.0;
      (*out)->p[t[k].col + 1]++;
      e++;
    }
    p[t[k].k] = e - 1;
  }
  for (cpk_int j = 0; !rc && j < n; j++) (*out)->p[j + 1] += (*out)->p[j];
  free(t);
  if (rc) free(p);
  else *pos = p;
  return rc;
}
