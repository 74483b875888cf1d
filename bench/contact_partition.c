/* contact_partition.c: off-rank nonzeros of a problem's matrix when its contacts are split over K ranks, in contiguous blocks (the petsc backend's split) and by a graph partitioner (PETSc MatPartitioning, PT-Scotch). */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <cpkit/cpkit.h>
#ifdef HAVE_PETSC
#include <petscmat.h>

/*
 * Usage: contact_partition FILE [K...] (default K = 2 4 8). Contacts are the
 * cone_dim-row blocks of a friction-cone problem (rows of an LCP); two contacts
 * are adjacent when their block of M is not zero. For each K: the entries of M
 * whose row and column contacts fall on different ranks ("off-rank": what MPIAIJ
 * stores in its off-diagonal part and communicates), and the largest part
 * against nc/K, for the contiguous split and for PT-Scotch's partition.
 */

/* The contact graph of A (nc contacts of dim rows) as CSR without self loops, in PETSc memory. */
static PetscErrorCode contact_graph(const cpk_csc *A, size_t dim, PetscInt nc, PetscInt **ia, PetscInt **ja)
{
  PetscInt *deg, *mark, nnz = 0;
  PetscCall(PetscCalloc2(nc + 1, &deg, nc, &mark));
  for (PetscInt c = 0; c < nc; c++) mark[c] = -1;
  /* M's pattern is symmetric for the Delassus problems: the column contacts of each column block are its neighbours */
  for (int pass = 0; pass < 2; pass++) {
    for (PetscInt c = 0; c < nc; c++) {
      PetscInt k0 = pass ? (*ia)[c] : 0, k = k0;
      for (size_t j = (size_t)c * dim; j < (size_t)(c + 1) * dim; j++)
        for (cpk_int t = A->p[j]; t < A->p[j + 1]; t++) {
          PetscInt r = (PetscInt)((size_t)A->i[t] / dim);
          if (r == c || mark[r] == c + pass * nc) continue;
          mark[r] = c + pass * nc;
          if (pass) (*ja)[k] = r;
          k++;
        }
      if (!pass) deg[c] = k - k0;
    }
    if (!pass) {
      PetscCall(PetscMalloc1(nc + 1, ia));
      (*ia)[0] = 0;
      for (PetscInt c = 0; c < nc; c++) (*ia)[c + 1] = (*ia)[c] + deg[c];
      nnz = (*ia)[nc];
      PetscCall(PetscMalloc1(nnz > 0 ? nnz : 1, ja));
      for (PetscInt c = 0; c < nc; c++) mark[c] = -1;
    }
  }
  PetscCall(PetscFree2(deg, mark));
  return 0;
}

/* Entries of A whose row and column contacts have different owners; the largest part. */
static void report(const char *how, const cpk_csc *A, size_t dim, PetscInt nc, const PetscInt *owner, int K)
{
  size_t off = 0, *size = calloc((size_t)K, sizeof *size), big = 0;
  for (size_t j = 0; j < (size_t)A->n; j++)
    for (cpk_int t = A->p[j]; t < A->p[j + 1]; t++)
      off += owner[(size_t)A->i[t] / dim] != owner[j / dim];
  for (PetscInt c = 0; size && c < nc; c++) size[owner[c]]++;
  for (int k = 0; size && k < K; k++) big = size[k] > big ? size[k] : big;
  printf("  K %d %-10s off-rank nnz %9zu (%5.2f %%), largest part %.3f of nc/K\n", K, how, off,
         100.0 * (double)off / (double)A->p[A->n], (double)big * K / (double)nc);
  free(size);
}

static PetscErrorCode partition(const cpk_csc *A, size_t dim, PetscInt nc, int K)
{
  PetscInt *ia, *ja, *owner;
  Mat adj;
  MatPartitioning part;
  IS is;
  const PetscInt *where;
  PetscCall(PetscMalloc1(nc, &owner));
  for (PetscInt c = 0; c < nc; c++) owner[c] = (PetscInt)((double)c * K / (double)nc);
  report("contiguous", A, dim, nc, owner, K);
  PetscCall(contact_graph(A, dim, nc, &ia, &ja));
  PetscCall(MatCreateMPIAdj(PETSC_COMM_SELF, nc, nc, ia, ja, NULL, &adj)); /* takes ia, ja */
  PetscCall(MatPartitioningCreate(PETSC_COMM_SELF, &part));
  PetscCall(MatPartitioningSetAdjacency(part, adj));
  PetscCall(MatPartitioningSetType(part, MATPARTITIONINGPTSCOTCH));
  PetscCall(MatPartitioningSetNParts(part, K));
  PetscCall(MatPartitioningApply(part, &is));
  PetscCall(ISGetIndices(is, &where));
  report("pt-scotch", A, dim, nc, where, K);
  PetscCall(ISRestoreIndices(is, &where));
  PetscCall(ISDestroy(&is));
  PetscCall(MatPartitioningDestroy(&part));
  PetscCall(MatDestroy(&adj));
  PetscCall(PetscFree(owner));
  return 0;
}

int main(int argc, char **argv)
{
  cpk_problem *p = NULL;
  cpk_csc *A = NULL;
  cpk_error err;
  if (argc < 2) {
    fputs("usage: contact_partition FILE [K...]\n", stderr);
    return 2;
  }
  if (cpk_problem_read_file(argv[1], &p, &err) || cpk_matrix_to_csc(p->M, &A)) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    cpk_problem_free(p);
    return 1;
  }
  size_t dim = p->kind == CPK_KIND_FRICTION_CONE ? p->cone_dim : 1;
  PetscInt nc = (PetscInt)(p->n / dim);
  int rc = PetscInitializeNoArguments() != 0;
  printf("%s: %ld contacts, nnz %ld\n", argv[1], (long)nc, (long)A->p[A->n]);
  static const char *const defaults[] = {"2", "4", "8"};
  int nk = argc > 2 ? argc - 2 : 3;
  for (int k = 0; !rc && k < nk; k++) {
    int K = atoi(argc > 2 ? argv[2 + k] : defaults[k]);
    if (K >= 1 && K <= nc) rc = partition(A, dim, nc, K) != 0;
  }
  if (!rc) rc = PetscFinalize() != 0;
  cpk_csc_free(A);
  cpk_problem_free(p);
  return rc;
}
#else
int main(void)
{
  fputs("contact_partition: cpkit was built without PETSc\n", stderr);
  return 2;
}
#endif
