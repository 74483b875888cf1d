/* family_circulant.c: the circulant P-matrix LCP with a planted integer solution (Lemke's tie-heavy case). */
#include <stdio.h>
#include <stdlib.h>
#include <cpkit/util.h>
#include "families.h"

/*
 * M = 4 I - S - S' (S the cyclic shift) is symmetric and strictly diagonally
 * dominant with a positive diagonal, hence positive definite and a P-matrix:
 * the LCP has exactly one solution. The planted one: z*_i = 1 on even i,
 * w*_i = 1 on odd i, so q = w* - M z* holds only the integers -4 and 3 and
 * nearly every ratio test of Lemke's method is a tie.
 */
static int circulant_matrix(size_t n, cpk_matrix **out)
{
  size_t nnz;
  if (cpk_size_mul(3, n, &nnz)) return CPK_EOVERFLOW;
  cpk_int *ti = cpk_alloc_array(nnz, sizeof *ti), *tj = cpk_alloc_array(nnz, sizeof *tj);
  double *tx = cpk_alloc_array(nnz, sizeof *tx);
  int rc = ti && tj && tx ? CPK_OK : CPK_ENOMEM;
  for (size_t i = 0, k = 0; !rc && i < n; i++) {
    size_t nb[3] = {i, (i + 1) % n, (i + n - 1) % n};
    for (int c = 0; c < 3; c++, k++) {
      ti[k] = (cpk_int)i, tj[k] = (cpk_int)nb[c];
      tx[k] = c == 0 ? 4.0 : -1.0;
    }
  }
  if (!rc) rc = cpk_matrix_from_triplets(n, n, nnz, ti, tj, tx, out);
  free(ti), free(tj), free(tx);
  return rc;
}

/* A fixed, well-spread perturbation in [0, 1): the golden-ratio sequence (no RNG needed). */
static double spread(size_t i)
{
  double x = 0.6180339887498949 * (double)(i + 1);
  return x - (double)(long long)x;
}

int cpk_family_circulant(size_t n, double perturb, cpk_problem **out, double *zstar)
{
  cpk_matrix *M = NULL;
  *out = NULL;
  if (n < 4 || n % 2) return CPK_EINVAL;
  int rc = circulant_matrix(n, &M);
  double *q = rc ? NULL : cpk_alloc_array(n, sizeof *q);
  if (!rc && !q) rc = CPK_ENOMEM;
  for (size_t i = 0; q && i < n; i++) {
    q[i] = i % 2 == 0 ? -4.0 : 3.0; /* w* - M z*: even rows -4 z*_i, odd rows 1 + 1 + 1 */
    q[i] += perturb * spread(i);
    if (zstar) zstar[i] = i % 2 == 0 ? 1.0 : 0.0;
  }
  if (!rc) rc = cpk_problem_alloc_lcp(M, q, out);
  cpk_matrix_free(M);
  free(q);
  if (!rc) {
    char name[64];
    snprintf(name, sizeof name, "circulant-%zu%s", n, perturb != 0.0 ? "-perturbed" : "");
    rc = cpk_problem_set_name(*out, name);
  }
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}
