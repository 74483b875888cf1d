/* t_petsc_rows.c: the petsc backend's row partition (blocks tile the rows, cuts between contacts, balance) and its local CSR rows (equal to the CSC's). */
#include <config.h>
#include <stdlib.h>
#include <cpkit/matrix.h>
#include "testlib.h"
#include "linsys_petsc.h"

#define NC 16 /* contacts of 3 rows */
#define N (3 * NC)

/*
 * A Delassus-like matrix: dense 3x3 diagonal blocks; contact c coupled to c+1
 * and c+5, by its normal row only (normal_only: the rows of one contact then
 * differ) or by dense 3x3 blocks (the rows of one contact share a pattern).
 */
static cpk_csc *contacts_matrix(int normal_only)
{
  cpk_int ti[N * N], tj[N * N], k = 0;
  double tx[N * N];
  for (int c = 0; c < NC; c++)
    for (int d = 0; d < NC; d++) {
      int near = c == d || abs(c - d) == 1 || abs(c - d) == 5;
      for (int a = 0; a < 3 && near; a++)
        for (int b = 0; b < 3; b++) {
          if (c != d && normal_only && (a || b)) continue;
          ti[k] = 3 * c + a, tj[k] = 3 * d + b;
          tx[k++] = c == d && a == b ? 10.0 : 0.1 * (a + 1) + 0.01 * (b + d);
        }
    }
  cpk_csc *A = NULL;
  return cpk_csc_from_triplets(N, N, k, ti, tj, tx, &A) ? NULL : A;
}

/* Every rank's block over `size` ranks: tiling, cuts at multiples of 3, near-equal sizes. */
static void check_split(petsc_rows *R, const cpk_csc *A, size_t group, int size, const char *what)
{
  size_t prev = 0, r0, r1;
  int tiles = 1, whole = 1, balanced = 1;
  for (int rank = 0; rank < size; rank++) {
    petsc_rows_split(R, A, group, rank, size, &r0, &r1);
    tiles &= r0 == prev && r1 >= r0;
    whole &= r0 % 3 == 0 && r1 % 3 == 0;
    double ideal = (double)N / size, m = (double)(r1 - r0);
    balanced &= m >= ideal - 3.0 && m <= ideal + 3.0;
    prev = r1;
  }
  tiles &= prev == N;
  t_ok(tiles, "%s, %d ranks: the blocks tile the %d rows", what, size, N);
  t_ok(whole, "%s, %d ranks: every cut between two contacts", what, size);
  t_ok(balanced, "%s, %d ranks: blocks within one contact of n / K", what, size);
}

/* The local rows of every rank hold exactly the CSC's entries, columns ascending, values by src. */
static void check_local_rows(petsc_rows *R, const cpk_csc *A, int size)
{
  size_t total = 0, r0, r1;
  int same = 1;
  for (int rank = 0; rank < size; rank++) {
    petsc_rows_split(R, A, 3, rank, size, &r0, &r1);
    if (petsc_rows_pattern(R, A, r0, r1)) {
      same = 0;
      break;
    }
    total += R->nnz;
    for (size_t r = 0; r < r1 - r0; r++) {
      const PetscScalar *v = petsc_rows_values(R, A, r);
      same &= (size_t)(R->rp[r + 1] - R->rp[r]) <= R->vcap;
      for (PetscInt k = R->rp[r]; k < R->rp[r + 1]; k++) {
        size_t src = (size_t)R->src[k], j = (size_t)R->cj[k];
        same &= (size_t)A->i[src] == r0 + r && src >= (size_t)A->p[j] &&
                src < (size_t)A->p[j + 1] && v[k - R->rp[r]] == A->x[src];
        same &= k == R->rp[r] || R->cj[k - 1] < R->cj[k];
        same &= (R->dnz[r] + R->onz[r]) == R->rp[r + 1] - R->rp[r];
      }
    }
    same &= petsc_rows_same(R, A);
  }
  t_ok(same && total == (size_t)A->p[N], "%d ranks: local rows = the CSC's %zu entries", size, total);
}

int main(void)
{
  cpk_csc *A = contacts_matrix(1), *B = contacts_matrix(0);
  petsc_rows R;
  if (!t_ok(A && B && petsc_rows_alloc(&R, N) == CPK_OK, "matrices and row arrays")) return t_done();
  for (int size = 1; size <= 5; size++) check_split(&R, A, 3, size, "group 3");
  /* without the driver's group, contacts are told by their rows' common pattern */
  for (int size = 1; size <= 5; size++) check_split(&R, B, 1, size, "group 1, dense couplings");
  check_local_rows(&R, A, 1);
  check_local_rows(&R, A, 3);
  /* a pattern change seen on a rank's rows */
  size_t r0, r1;
  petsc_rows_split(&R, A, 3, 0, 2, &r0, &r1);
  int ok = petsc_rows_pattern(&R, A, r0, r1) == CPK_OK;
  t_ok(ok && !petsc_rows_same(&R, B), "another pattern is not the same");
  /* more ranks than contacts: empty blocks, still a tiling */
  size_t prev = 0;
  int tiles = 1;
  for (int rank = 0; rank < 40; rank++) {
    petsc_rows_split(&R, A, 3, rank, 40, &r0, &r1);
    tiles &= r0 == prev && r1 >= r0 && r1 % 3 == 0;
    prev = r1;
  }
  t_ok(tiles && prev == N, "40 ranks for 16 contacts: a tiling by whole contacts");
  petsc_rows_free(&R);
  cpk_csc_free(A);
  cpk_csc_free(B);
  return t_done();
}
