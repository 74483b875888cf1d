/* t_petsc_factor_rows.c: cpk_linsys_factor_rows, the petsc backends factoring a matrix of which each rank gives only its rows, with 1 rank or under mpirun with 2 (t_petsc_factor_rows_2ranks.sh): solutions checked against the whole matrix, the pattern reused, bad rows refused on every rank. */
#include "mpi_testlib.h"

/* This rank's rows [r0, r1) of A (CSC) in CSR; 0 on failure. */
static int local_rows(const cpk_csc *A, size_t r0, size_t r1, cpk_int **rp, cpk_int **cj, double **v)
{
  size_t m = r1 - r0, k = 0;
  *rp = calloc(m + 1, sizeof **rp);
  *cj = calloc((size_t)A->p[A->n] + 1, sizeof **cj);
  *v = calloc((size_t)A->p[A->n] + 1, sizeof **v);
  if (!*rp || !*cj || !*v) return 0;
  for (size_t i = r0; i < r1; i++) { /* columns ascend: scan them in order */
    for (cpk_int j = 0; j < A->n; j++)
      for (cpk_int q = A->p[j]; q < A->p[j + 1]; q++)
        if ((size_t)A->i[q] == i) {
          (*cj)[k] = j;
          (*v)[k++] = A->x[q];
        }
    (*rp)[i - r0 + 1] = (cpk_int)k;
  }
  return 1;
}

/* Factor by rows, solve A x = b (b_i = sin(i)), check against the whole A. */
static int solve_rows(cpk_linsys *L, const cpk_csc *A, size_t r0, size_t r1)
{
  cpk_int *rp = NULL, *cj = NULL;
  double *v = NULL, x[T_LCP48_N], b[T_LCP48_N];
  int ok = local_rows(A, r0, r1, &rp, &cj, &v);
  for (int i = 0; i < T_LCP48_N; i++) b[i] = x[i] = sin((double)i);
  for (size_t i = 0; i < T_LCP48_N; i++)
    if (i < r0 || i >= r1) x[i] = 1e300; /* rows of other ranks are not read */
  int rc = cpk_mpi_agree(ok ? CPK_OK : CPK_ENOMEM);
  if (!rc) rc = cpk_linsys_factor_rows(L, r0, r1, rp, cj, v);
  if (!rc) rc = cpk_linsys_solve(L, x, 0);
  free(rp);
  free(cj);
  free(v);
  return cpk_mpi_all(rc == CPK_OK && t_solves48(A, x, b));
}

int main(void)
{
  int rank = 0, size = 1;
  int up = t_mpi_start(&rank, &size);
  const char *names[] = {"petsc", "petsc-gmres"};
  size_t r0, r1;
  cpk_mpi_block(T_LCP48_N, 1, rank, size, &r0, &r1);
  cpk_csc *A = t_csc48(1.0), *A2 = t_csc48(2.0);
  t_ok(up == CPK_OK && A && A2, "MPI and PETSc up, %d rank(s)", size);
  for (int t = 0; t < 2; t++) {
    cpk_linsys *L = NULL;
    int rc = cpk_linsys_alloc(cpk_linsys_find(names[t]), T_LCP48_N, &L);
    t_ok(cpk_mpi_all(rc == CPK_OK), "%s: allocated", names[t]);
    if (rc) continue;
    t_ok(solve_rows(L, A, r0, r1), "%s: rows %zu..%zu given, A x = b solved (rows across the cut)", names[t], r0, r1);
    t_ok(solve_rows(L, A2, r0, r1), "%s: new values on the same rows: solved again", names[t]);
    cpk_linsys_stats st;
    cpk_linsys_get_stats(L, &st);
    t_ok(cpk_mpi_all(st.symbolic == 1 && st.factorizations == 2), "%s: one analysis for two factorizations (%ld, %ld)",
         names[t], (long)st.symbolic, (long)st.factorizations);
    cpk_int rp[2] = {0, 0};
    /* rank 0 alone gives rows beyond n: every rank gets CPK_EINVAL, nobody waits */
    rc = cpk_linsys_factor_rows(L, rank == 0 ? T_LCP48_N : r0, rank == 0 ? T_LCP48_N + 1 : r1,
                                rank == 0 ? rp : NULL, NULL, NULL);
    t_ok(cpk_mpi_all(rc == CPK_EINVAL), "%s: rows out of range on rank 0: CPK_EINVAL on every rank", names[t]);
    cpk_linsys_free(L);
  }
  cpk_linsys *U = NULL;
  int rc = cpk_linsys_alloc(cpk_linsys_lapack, 2, &U);
  t_ok(!rc && cpk_linsys_factor_rows(U, 0, 0, NULL, NULL, NULL) == CPK_EUNSUP, "lapack: CPK_EUNSUP");
  cpk_linsys_free(U);
  cpk_csc_free(A);
  cpk_csc_free(A2);
  return t_mpi_done(rank);
}
