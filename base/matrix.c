/* matrix.c: the cpk_matrix type: dense (gsl_matrix) or CSC storage behind one set of operations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <cpkit/matrix.h>
#include <cpkit/util.h>

static int matrix_new(cpk_matrix_format format, size_t m, size_t n, cpk_matrix **out)
{
  *out = calloc(1, sizeof **out);
  if (!*out) return CPK_ENOMEM;
  (*out)->format = format;
  (*out)->m = m;
  (*out)->n = n;
  return CPK_OK;
}

int cpk_matrix_alloc_dense(size_t m, size_t n, cpk_matrix **out)
{
  size_t cells, bytes;
  *out = NULL;
  if (cpk_size_mul(m, n, &cells) || cpk_size_mul(cells, sizeof(double), &bytes))
    return CPK_EOVERFLOW;
  int rc = matrix_new(CPK_MATRIX_DENSE, m, n, out);
  if (rc) return rc;
  if (m > 0 && n > 0) {
    /* GSL would call its (aborting) error handler on failure; allocate quietly. */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    (*out)->dense = gsl_matrix_calloc(m, n);
    gsl_set_error_handler(old);
    if (!(*out)->dense) {
      cpk_matrix_free(*out);
      *out = NULL;
      return CPK_ENOMEM;
    }
  }
  return CPK_OK;
}

int cpk_matrix_from_gsl(const gsl_matrix *A, cpk_matrix **out)
{
  int rc = cpk_matrix_alloc_dense(A->size1, A->size2, out);
  if (!rc && (*out)->dense) gsl_matrix_memcpy((*out)->dense, A);
  return rc;
}

int cpk_matrix_set_dense_array(cpk_matrix *A, const double *a, size_t ld, int col_major)
{
  if (!A || A->format != CPK_MATRIX_DENSE || (!a && A->m * A->n > 0)) return CPK_EINVAL;
  if (ld < (col_major ? A->m : A->n)) return CPK_EINVAL;
  for (size_t i = 0; i < A->m; i++) {
    double *row = A->dense->data + i * A->dense->tda;
    for (size_t j = 0; j < A->n; j++) row[j] = col_major ? a[i + j * ld] : a[i * ld + j];
  }
  return CPK_OK;
}

int cpk_matrix_from_dense_array(size_t m, size_t n, const double *a, size_t ld, int col_major,
                                cpk_matrix **out)
{
  *out = NULL;
  if (ld < (col_major ? m : n)) return CPK_EINVAL;
  int rc = cpk_matrix_alloc_dense(m, n, out);
  if (!rc) rc = cpk_matrix_set_dense_array(*out, a, ld, col_major);
  if (rc) {
    cpk_matrix_free(*out);
    *out = NULL;
  }
  return rc;
}

int cpk_matrix_from_csc_arrays(size_t m, size_t n, const cpk_int *colptr, const cpk_int *rowind,
                               const double *x, cpk_matrix **out)
{
  *out = NULL;
  if (m > INT64_MAX || n > INT64_MAX || !colptr) return CPK_EINVAL;
  if (colptr[0] != 0 || colptr[n] < 0) return CPK_EBADMAT;
  if (colptr[n] > 0 && (!rowind || !x)) return CPK_EINVAL;
  cpk_int no_index = 0;
  double no_value = 0.0;
  /* a view of the caller's arrays (read only: cpk_matrix_from_csc checks and copies) */
  cpk_csc view = {(cpk_int)m, (cpk_int)n, (cpk_int *)colptr,
                  rowind ? (cpk_int *)rowind : &no_index, x ? (double *)x : &no_value};
  return cpk_matrix_from_csc(&view, out);
}

int cpk_matrix_from_csc(const cpk_csc *A, cpk_matrix **out)
{
  *out = NULL;
  if (cpk_csc_check(A)) return CPK_EBADMAT;
  int rc = matrix_new(CPK_MATRIX_CSC, (size_t)A->m, (size_t)A->n, out);
  if (!rc) rc = cpk_csc_copy(A, &(*out)->csc);
  if (rc) {
    cpk_matrix_free(*out);
    *out = NULL;
  }
  return rc;
}

int cpk_matrix_from_triplets(size_t m, size_t n, size_t nnz, const cpk_int *ti, const cpk_int *tj,
                             const double *tx, cpk_matrix **out)
{
  *out = NULL;
  if (m > INT64_MAX || n > INT64_MAX || nnz > INT64_MAX) return CPK_EOVERFLOW;
  int rc = matrix_new(CPK_MATRIX_CSC, m, n, out);
  if (!rc) rc = cpk_csc_from_triplets((cpk_int)m, (cpk_int)n, (cpk_int)nnz, ti, tj, tx, &(*out)->csc);
  if (rc) {
    cpk_matrix_free(*out);
    *out = NULL;
  }
  return rc;
}

int cpk_matrix_copy(const cpk_matrix *A, cpk_matrix **out)
{
  if (A->format == CPK_MATRIX_CSC) return cpk_matrix_from_csc(A->csc, out);
  int rc = cpk_matrix_alloc_dense(A->m, A->n, out);
  if (!rc && A->dense) gsl_matrix_memcpy((*out)->dense, A->dense);
  return rc;
}

void cpk_matrix_free(cpk_matrix *A)
{
  if (!A) return;
  if (A->dense) gsl_matrix_free(A->dense);
  cpk_csc_free(A->csc);
  free(A);
}

size_t cpk_matrix_nnz(const cpk_matrix *A)
{
  if (A->format == CPK_MATRIX_CSC) return (size_t)A->csc->p[A->csc->n];
  return A->m * A->n;
}

double cpk_matrix_get(const cpk_matrix *A, size_t i, size_t j)
{
  if (i >= A->m || j >= A->n) return 0.0;
  if (A->format == CPK_MATRIX_DENSE) return gsl_matrix_get(A->dense, i, j);
  const cpk_csc *C = A->csc;
  cpk_int lo = C->p[j], hi = C->p[j + 1];
  while (lo < hi) { /* binary search: rows are sorted */
    cpk_int mid = lo + (hi - lo) / 2;
    if (C->i[mid] < (cpk_int)i) lo = mid + 1;
    else hi = mid;
  }
  return (lo < C->p[j + 1] && C->i[lo] == (cpk_int)i) ? C->x[lo] : 0.0;
}

static void dense_mv(const gsl_matrix *D, const double *x, double *y, int trans, size_t m, size_t n)
{
  size_t ny = trans ? n : m;
  for (size_t k = 0; k < ny; k++) y[k] = 0.0;
  if (!D) return;
  for (size_t i = 0; i < m; i++) {
    const double *row = D->data + i * D->tda;
    if (trans) {
      double xi = x[i];
      if (xi != 0.0)
        for (size_t j = 0; j < n; j++) y[j] += row[j] * xi;
    } else {
      double s = 0.0;
      for (size_t j = 0; j < n; j++) s += row[j] * x[j];
      y[i] = s;
    }
  }
}

void cpk_matrix_mv(const cpk_matrix *A, const double *x, double *y, int trans)
{
  if (A->format == CPK_MATRIX_DENSE) {
    dense_mv(A->dense, x, y, trans, A->m, A->n);
    return;
  }
  cpk_csc_mv(A->csc, x, y, trans);
}

void cpk_matrix_column(const cpk_matrix *A, size_t j, double *col)
{
  for (size_t i = 0; i < A->m; i++) col[i] = 0.0;
  if (A->format == CPK_MATRIX_DENSE) {
    for (size_t i = 0; i < A->m; i++) col[i] = gsl_matrix_get(A->dense, i, j);
    return;
  }
  for (cpk_int k = A->csc->p[j]; k < A->csc->p[j + 1]; k++) col[A->csc->i[k]] = A->csc->x[k];
}

int cpk_matrix_norm_inf_checked(const cpk_matrix *A, double *norm)
{
  double best = 0.0;
  *norm = NAN;
  if (A->format == CPK_MATRIX_DENSE) { /* row by row: no workspace, nothing to fail */
    for (size_t i = 0; i < A->m; i++) {
      double s = 0.0;
      for (size_t j = 0; j < A->n; j++) s += fabs(gsl_matrix_get(A->dense, i, j));
      if (s > best || isnan(s)) best = s;
    }
    *norm = best;
    return CPK_OK;
  }
  double *rowsum = cpk_calloc_array(A->m, sizeof *rowsum);
  if (!rowsum) return CPK_ENOMEM;
  cpk_int nnz = A->csc->p[A->csc->n];
  for (cpk_int k = 0; k < nnz; k++) rowsum[A->csc->i[k]] += fabs(A->csc->x[k]);
  for (size_t i = 0; i < A->m; i++)
    if (rowsum[i] > best || isnan(rowsum[i])) best = rowsum[i];
  free(rowsum);
  *norm = best;
  return CPK_OK;
}

double cpk_matrix_norm_inf(const cpk_matrix *A)
{
  double norm;
  cpk_matrix_norm_inf_checked(A, &norm);
  return norm;
}

int cpk_matrix_is_finite(const cpk_matrix *A)
{
  if (A->format == CPK_MATRIX_CSC) {
    cpk_int nnz = A->csc->p[A->csc->n];
    for (cpk_int k = 0; k < nnz; k++)
      if (!isfinite(A->csc->x[k])) return 0;
    return 1;
  }
  for (size_t i = 0; i < A->m; i++)
    for (size_t j = 0; j < A->n; j++)
      if (!isfinite(gsl_matrix_get(A->dense, i, j))) return 0;
  return 1;
}

int cpk_matrix_to_csc(const cpk_matrix *A, cpk_csc **out)
{
  if (A->format == CPK_MATRIX_CSC) return cpk_csc_copy(A->csc, out);
  size_t nnz = 0;
  for (size_t i = 0; i < A->m; i++)
    for (size_t j = 0; j < A->n; j++) nnz += gsl_matrix_get(A->dense, i, j) != 0.0;
  int rc = cpk_csc_alloc((cpk_int)A->m, (cpk_int)A->n, (cpk_int)nnz, out);
  if (rc) return rc;
  cpk_csc *C = *out;
  cpk_int k = 0;
  for (size_t j = 0; j < A->n; j++) {
    for (size_t i = 0; i < A->m; i++) {
      double v = gsl_matrix_get(A->dense, i, j);
      if (v != 0.0) {
        C->i[k] = (cpk_int)i;
        C->x[k++] = v;
      }
    }
    C->p[j + 1] = k;
  }
  return CPK_OK;
}
