/* t_matrix.c: CSC assembly and invariants, and the dense/CSC operations of cpk_matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

static void test_triplets(void)
{
  /* 3x3 with an unsorted column and a duplicate: A = [[1,0,4],[0,2,0],[3,0,5+1]] */
  cpk_int ti[] = {2, 0, 1, 0, 2, 2}, tj[] = {0, 0, 1, 2, 2, 2};
  double tx[] = {3, 1, 2, 4, 5, 1};
  cpk_csc *A = NULL;
  t_ok(cpk_csc_from_triplets(3, 3, 6, ti, tj, tx, &A) == CPK_OK, "triplets assembled");
  t_ok(A && cpk_csc_check(A) == CPK_OK, "result satisfies the CSC invariant (sorted, unique)");
  t_ok(A && A->p[3] == 5, "duplicate merged: 5 entries");
  t_ok(A && A->i[0] == 0 && A->i[1] == 2, "rows sorted in column 0");
  cpk_matrix *M = NULL;
  t_ok(A && cpk_matrix_from_csc(A, &M) == CPK_OK, "matrix from CSC");
  t_near(M ? cpk_matrix_get(M, 2, 2) : NAN, 6.0, 0, "A(3,3) = 5 + 1");
  t_near(M ? cpk_matrix_get(M, 1, 0) : NAN, 0.0, 0, "absent entry reads 0");
  double x[] = {1, 2, 3}, y[3], yt[3];
  cpk_matrix_mv(M, x, y, 0);
  cpk_matrix_mv(M, x, yt, 1);
  t_ok(y[0] == 13 && y[1] == 4 && y[2] == 21, "A x = (13, 4, 21)");
  t_ok(yt[0] == 10 && yt[1] == 4 && yt[2] == 22, "A' x = (10, 4, 22)");
  t_near(cpk_matrix_norm_inf(M), 9.0, 0, "infinity norm = max row sum 9");
  cpk_int bad_i[] = {3};
  cpk_int bad_j[] = {0};
  cpk_csc *B = NULL;
  t_ok(cpk_csc_from_triplets(3, 3, 1, bad_i, bad_j, tx, &B) == CPK_EINVAL && !B, "row index out of range rejected");
  A->i[4] = 3; /* the last row of the last column out of range */
  t_ok(cpk_csc_check(A) == CPK_EBADMAT, "row index m detected");
  A->i[4] = 2;
  A->i[0] = -1;
  t_ok(cpk_csc_check(A) == CPK_EBADMAT, "negative row index detected");
  A->i[0] = 0;
  A->i[2] = 3; /* out of range in a middle column */
  t_ok(cpk_csc_check(A) == CPK_EBADMAT, "row index m in column 1 detected");
  A->i[2] = 1;
  t_ok(cpk_csc_check(A) == CPK_OK, "restored: valid again");
  A->i[3] = 2; /* a duplicate of column 2's other row */
  t_ok(cpk_csc_check(A) == CPK_EBADMAT, "duplicate row detected");
  A->i[3] = 0;
  A->i[0] = 2; /* break sortedness */
  t_ok(cpk_csc_check(A) == CPK_EBADMAT, "unsorted column detected");
  cpk_csc_free(A);
  cpk_matrix_free(M);
  cpk_csc_free(NULL);
  cpk_matrix_free(NULL);
}

static void test_dense(void)
{
  cpk_matrix *D = NULL, *C = NULL;
  t_ok(cpk_matrix_alloc_dense(2, 3, &D) == CPK_OK, "dense 2x3");
  gsl_matrix_set(D->dense, 0, 1, -2.0);
  gsl_matrix_set(D->dense, 1, 2, 7.0);
  double x[] = {1, 1, 1}, y[2], col[2];
  cpk_matrix_mv(D, x, y, 0);
  t_ok(y[0] == -2 && y[1] == 7, "dense mv");
  cpk_matrix_column(D, 2, col);
  t_ok(col[0] == 0 && col[1] == 7, "dense column");
  cpk_csc *S = NULL;
  t_ok(cpk_matrix_to_csc(D, &S) == CPK_OK && S->p[3] == 2 && cpk_csc_check(S) == CPK_OK,
       "dense to CSC keeps the 2 non-zeros");
  t_ok(cpk_matrix_copy(D, &C) == CPK_OK && gsl_matrix_get(C->dense, 1, 2) == 7.0, "copy");
  t_ok(cpk_matrix_nnz(D) == 6, "dense nnz counts every cell");
  gsl_matrix_set(D->dense, 0, 0, NAN);
  t_ok(!cpk_matrix_is_finite(D), "NaN detected");
  size_t huge = (size_t)1 << 40;
  cpk_matrix *H = NULL;
  t_ok(cpk_matrix_alloc_dense(huge, huge, &H) == CPK_EOVERFLOW && !H, "overflowing size refused");
  cpk_csc_free(S);
  cpk_matrix_free(C);
  cpk_matrix_free(D);
}

/* Pattern of triplets with a repeated position: one entry, shared by both. */
static void test_pattern(void)
{
  const cpk_int ti[] = {2, 0, 2, 1}, tj[] = {1, 0, 1, 2};
  cpk_csc *A = NULL;
  size_t *pos = NULL;
  int rc = cpk_csc_pattern(3, 3, 4, ti, tj, &A, &pos);
  t_ok(rc == CPK_OK && A->p[3] == 3, "pattern: 4 triplets, 3 positions");
  t_ok(rc == CPK_OK && pos[0] == pos[2] && pos[0] != pos[1] && pos[3] != pos[0],
       "pattern: the repeated position is shared");
  t_ok(rc == CPK_OK && cpk_csc_check(A) == CPK_OK && A->i[pos[0]] == 2 && A->i[pos[3]] == 1 &&
           pos[1] == 0 && pos[3] == 2,
       "pattern: sorted CSC, pos points at the (row, col) of each triplet");
  cpk_csc_free(A);
  free(pos);
  const cpk_int bad[] = {3};
  t_ok(cpk_csc_pattern(3, 3, 1, bad, tj, &A, &pos) == CPK_EINVAL && A == NULL && pos == NULL,
       "pattern: row out of range refused");
}

int main(void)
{
  test_triplets();
  test_pattern();
  test_dense();
  return t_done();
}
