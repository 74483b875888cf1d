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
  /* Rows strictly increasing from above -1 in each column, the last below m: one
   * comparison an entry (the linsys backends check every matrix they factor). */
  for (cpk_int j = 0; j < A->n; j++) {
    cpk_int end = A->p[j + 1], prev = -1;
    if (end < A->p[j]) return CPK_EBADMAT;
    for (cpk_int k = A->p[j]; k < end; k++) {
      if (A->i[k] <= prev) return CPK_EBADMAT;
      prev = A->i[k];
    }
    if (prev >= A->m) return CPK_EBADMAT;
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

/* order[0..nnz) = the triplets sorted by (column, row, k): two stable counting
 * sorts, by row and then by column, O(nnz + m + n). */
static int sort_triplets(cpk_int m, cpk_int n, size_t nnz, const cpk_int *ti, const cpk_int *tj,
                         size_t *order)
{
  size_t nb = (size_t)(m > n ? m : n) + 1;
  size_t *cnt = cpk_calloc_array(nb, sizeof *cnt), *byrow = cpk_alloc_array(nnz + 1, sizeof *byrow);
  if (!cnt || !byrow) {
    free(cnt);
    free(byrow);
    return CPK_ENOMEM;
  }
  for (size_t k = 0; k < nnz; k++) cnt[ti[k] + 1]++;
  for (size_t r = 1; r < nb; r++) cnt[r] += cnt[r - 1];
  for (size_t k = 0; k < nnz; k++) byrow[cnt[ti[k]]++] = k;
  memset(cnt, 0, nb * sizeof *cnt);
  for (size_t k = 0; k < nnz; k++) cnt[tj[k] + 1]++;
  for (size_t c = 1; c < nb; c++) cnt[c] += cnt[c - 1];
  for (size_t q = 0; q < nnz; q++) order[cnt[tj[byrow[q]]]++] = byrow[q];
  free(cnt);
  free(byrow);
  return CPK_OK;
}

int cpk_csc_pattern(cpk_int m, cpk_int n, size_t nnz, const cpk_int *ti, const cpk_int *tj,
                    cpk_csc **out, size_t **pos)
{
  size_t count = 0;
  *out = NULL;
  *pos = NULL;
  for (size_t k = 0; k < nnz; k++)
    if (ti[k] < 0 || ti[k] >= m || tj[k] < 0 || tj[k] >= n) return CPK_EINVAL;
  size_t *o = cpk_alloc_array(nnz + 1, sizeof *o), *p = cpk_alloc_array(nnz + 1, sizeof *p);
  int rc = o && p ? sort_triplets(m, n, nnz, ti, tj, o) : CPK_ENOMEM;
#define SAME_AS_PREVIOUS(q) ((q) > 0 && ti[o[q]] == ti[o[(q)-1]] && tj[o[q]] == tj[o[(q)-1]])
  for (size_t q = 0; !rc && q < nnz; q++) count += !SAME_AS_PREVIOUS(q);
  if (!rc) rc = count > (size_t)INT64_MAX ? CPK_EOVERFLOW : cpk_csc_alloc(m, n, (cpk_int)count, out);
  for (size_t q = 0, e = 0; !rc && q < nnz; q++) {
    if (!SAME_AS_PREVIOUS(q)) {
      (*out)->i[e] = ti[o[q]];
      (*out)->x[e] = 0.0;
      (*out)->p[tj[o[q]] + 1]++;
      e++;
    }
    p[o[q]] = e - 1;
  }
#undef SAME_AS_PREVIOUS
  for (cpk_int j = 0; !rc && j < n; j++) (*out)->p[j + 1] += (*out)->p[j];
  free(o);
  if (rc) free(p);
  else *pos = p;
  return rc;
}

/* A's arrays and x[j] in locals: a store to y could alias them, and the compiler reloaded
 * them at every entry (the stepper's solvers multiply by a 9 x 9 W ten times a step). The
 * sums are the same, in the same order. */
void cpk_csc_mv(const cpk_csc *A, const double *x, double *y, int trans)
{
  const cpk_int *Ap = A->p, *Ai = A->i, n = A->n;
  const double *Ax = A->x;
  cpk_int ny = trans ? n : A->m;
  for (cpk_int k = 0; k < ny; k++) y[k] = 0.0;
  for (cpk_int j = 0; j < n; j++) {
    cpk_int end = Ap[j + 1];
    if (trans) {
      double s = 0.0;
      for (cpk_int k = Ap[j]; k < end; k++) s += Ax[k] * x[Ai[k]];
      y[j] = s;
    } else if (x[j] != 0.0) {
      double xj = x[j];
      for (cpk_int k = Ap[j]; k < end; k++) y[Ai[k]] += Ax[k] * xj;
    }
  }
}
