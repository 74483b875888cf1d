/* linsys_dense.c: the "dense" linear-solver backend: GSL QR with Givens rank-one column updates. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>

/* A pivot ratio min|R_ii| / max|R_ii| at or below this counts as singular. */
#define DENSE_SINGULAR_RATIO (1e3 * DBL_EPSILON)

/*
 * All GSL objects are views on one block we allocate ourselves: GSL's own
 * allocators call the GSL error handler (abort by default) on failure, and
 * reject zero sizes, so n = 0 never reaches GSL at all.
 */
typedef struct dense_state {
  size_t n;
  double *mem;
  gsl_matrix_view work_v, q_v[2], r_v[2];
  gsl_vector_view tau_v, w_v, u_v, e_v;
  gsl_matrix *Q, *R;          /* the current factors A = Q R */
  gsl_matrix *Qtry, *Rtry;    /* scratch for an update, swapped in when it succeeds */
  int factored;
  cpk_linsys_stats st;
} dense_state;

static void dense_free(void *state)
{
  dense_state *s = state;
  if (!s) return;
  free(s->mem);
  free(s);
}

/* Five n-by-n matrices (QR work, Q, R and their trial copies) and four n-vectors. */
static int dense_sizes(size_t n, size_t *total)
{
  size_t nn, mats, vecs;
  if (cpk_size_mul(n, n, &nn) || cpk_size_mul(nn, 5, &mats) || cpk_size_mul(n, 4, &vecs) ||
      mats > SIZE_MAX - vecs)
    return CPK_EOVERFLOW;
  *total = mats + vecs;
  return CPK_OK;
}

static void dense_views(dense_state *s)
{
  size_t n = s->n, nn = n * n;
  double *m = s->mem;
  s->work_v = gsl_matrix_view_array(m, n, n);
  for (int k = 0; k < 2; k++) {
    s->q_v[k] = gsl_matrix_view_array(m + (1 + 2 * (size_t)k) * nn, n, n);
    s->r_v[k] = gsl_matrix_view_array(m + (2 + 2 * (size_t)k) * nn, n, n);
  }
  m += 5 * nn;
  s->tau_v = gsl_vector_view_array(m, n);
  s->w_v = gsl_vector_view_array(m + n, n);
  s->u_v = gsl_vector_view_array(m + 2 * n, n);
  s->e_v = gsl_vector_view_array(m + 3 * n, n);
  s->Q = &s->q_v[0].matrix;
  s->R = &s->r_v[0].matrix;
  s->Qtry = &s->q_v[1].matrix;
  s->Rtry = &s->r_v[1].matrix;
}

static int dense_alloc(void **state, size_t n)
{
  size_t total;
  *state = NULL;
  int rc = dense_sizes(n, &total);
  if (rc) return rc;
  dense_state *s = calloc(1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  s->n = n;
  s->mem = cpk_calloc_array(total, sizeof(double));
  if (!s->mem) {
    dense_free(s);
    return CPK_ENOMEM;
  }
  if (n > 0) dense_views(s);
  s->st.nnz_factors = 2.0 * (double)n * (double)n;
  *state = s;
  return CPK_OK;
}

static double column_norm(const gsl_matrix *R, size_t k)
{
  double sq = 0.0;
  for (size_t i = 0; i <= k; i++) sq += gsl_matrix_get(R, i, k) * gsl_matrix_get(R, i, k);
  return sqrt(sq);
}

/*
 * Singular when some |R_kk| is negligible against the norm of column k of R
 * (which equals the norm of column k of the matrix, Q being orthogonal). Being
 * relative per column, the test does not depend on how the columns are scaled
 * (a basis mixing unit columns with columns of size 1e12 is not singular). A
 * column whose norm is at rounding level against the largest column is zero.
 */
static int dense_is_singular(const gsl_matrix *R)
{
  double largest = 0.0;
  for (size_t k = 0; k < R->size1; k++) largest = fmax(largest, column_norm(R, k));
  for (size_t k = 0; k < R->size1; k++) {
    double d = fabs(gsl_matrix_get(R, k, k)), norm = column_norm(R, k);
    if (isnan(d) || norm <= 1e-14 * largest || !(d > DENSE_SINGULAR_RATIO * norm)) return 1;
  }
  return 0;
}

static void dense_fill(dense_state *s, const cpk_csc *A)
{
  gsl_matrix *W = &s->work_v.matrix;
  gsl_matrix_set_zero(W);
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++)
      gsl_matrix_set(W, (size_t)A->i[k], (size_t)j, A->x[k]);
}

static int dense_factor(void *state, const cpk_csc *A)
{
  dense_state *s = state;
  if (!A || A->m != A->n || (size_t)A->n != s->n) return CPK_EINVAL;
  if (cpk_csc_check(A)) return CPK_EBADMAT;
  int timed = s->n >= CPK_LINSYS_TIMED_MIN_N;
  double t0 = timed ? cpk_wtime() : 0.0;
  s->factored = 0;
  s->st.updates_since_factor = 0;
  s->st.factorizations++;
  int rc = CPK_OK;
  if (s->n > 0) {
    dense_fill(s, A);
    gsl_matrix *W = &s->work_v.matrix;
    if (gsl_linalg_QR_decomp(W, &s->tau_v.vector) ||
        gsl_linalg_QR_unpack(W, &s->tau_v.vector, s->Q, s->R))
      rc = CPK_ELINSYS;
    else if (dense_is_singular(s->R))
      rc = CPK_ESINGULAR;
  }
  s->factored = (rc == CPK_OK);
  if (timed) s->st.factor_time_s += cpk_wtime() - t0;
  return rc;
}

static int dense_solve(void *state, double *x, int transpose)
{
  dense_state *s = state;
  if (!s->factored || (s->n > 0 && !x)) return CPK_EINVAL;
  s->st.solves++;
  if (s->n == 0) return CPK_OK;
  gsl_vector_view xv = gsl_vector_view_array(x, s->n);
  gsl_vector *w = &s->w_v.vector;
  if (!transpose) { /* A^{-1} = R^{-1} Q^T */
    gsl_blas_dgemv(CblasTrans, 1.0, s->Q, &xv.vector, 0.0, w);
    gsl_blas_dtrsv(CblasUpper, CblasNoTrans, CblasNonUnit, s->R, w);
    gsl_vector_memcpy(&xv.vector, w);
  } else { /* A^{-T} = Q R^{-T} */
    gsl_vector_memcpy(w, &xv.vector);
    gsl_blas_dtrsv(CblasUpper, CblasTrans, CblasNonUnit, s->R, w);
    gsl_blas_dgemv(CblasNoTrans, 1.0, s->Q, w, 0.0, &xv.vector);
  }
  return CPK_OK;
}

/* w <- Q^T (col - Q R[:,j]): the update A + (col - A e_j) e_j^T written as Q (R + w e_j^T). */
static void dense_update_vector(dense_state *s, size_t j, const double *col)
{
  gsl_vector *u = &s->u_v.vector, *w = &s->w_v.vector;
  gsl_matrix_const_view Qj = gsl_matrix_const_submatrix(s->Q, 0, 0, s->n, j + 1);
  gsl_vector_const_view Rj = gsl_matrix_const_subcolumn(s->R, j, 0, j + 1);
  gsl_vector_const_view cv = gsl_vector_const_view_array(col, s->n);
  gsl_vector_memcpy(u, &cv.vector);
  gsl_blas_dgemv(CblasNoTrans, -1.0, &Qj.matrix, &Rj.vector, 1.0, u);
  gsl_blas_dgemv(CblasTrans, 1.0, s->Q, u, 0.0, w);
}

/* Ainv_col is not needed: the QR update works from the column itself. */
static int dense_replace_column(void *state, size_t j, const double *col, const double *Ainv_col)
{
  dense_state *s = state;
  (void)Ainv_col;
  if (!s->factored || j >= s->n || !col) return CPK_EINVAL;
  dense_update_vector(s, j, col);
  /* Update trial copies so the current factors survive a singular result: O(n^2) either way. */
  gsl_matrix_memcpy(s->Qtry, s->Q);
  gsl_matrix_memcpy(s->Rtry, s->R);
  gsl_vector *e = &s->e_v.vector;
  gsl_vector_set_zero(e);
  gsl_vector_set(e, j, 1.0);
  if (gsl_linalg_QR_update(s->Qtry, s->Rtry, &s->w_v.vector, e)) return CPK_ELINSYS;
  if (dense_is_singular(s->Rtry)) return CPK_ESINGULAR;
  gsl_matrix *t = s->Q;
  s->Q = s->Qtry;
  s->Qtry = t;
  t = s->R;
  s->R = s->Rtry;
  s->Rtry = t;
  s->st.updates++;
  s->st.updates_since_factor++;
  return CPK_OK;
}

static void dense_stats(const void *state, cpk_linsys_stats *st)
{
  const dense_state *s = state;
  *st = s->st;
  st->nnz_updates = 0.0; /* updates rewrite Q and R in place */
}

static const cpk_linsys_type dense_type = {
    "dense", dense_alloc, dense_factor, dense_solve, dense_replace_column, dense_stats, dense_free, NULL};
const cpk_linsys_type *cpk_linsys_dense = &dense_type;
