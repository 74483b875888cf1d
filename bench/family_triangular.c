/* family_triangular.c: lower-triangular integer P-matrix LCPs with a planted solution (ill-conditioned bases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include <cpkit/util.h>
#include "families.h"

/*
 * M unit lower triangular with integer entries in [-3, 3] below the diagonal:
 * every principal submatrix is unit lower triangular, so M is a P-matrix and
 * the LCP has one solution; forward substitution finds it exactly
 * (z_i = max(0, -(q_i + sum_{j<i} M_ij z_j))). Lemke's bases are products of
 * such blocks and unit columns: their condition grows like 4^n.
 */
int cpk_family_int_triangular(size_t n, unsigned long seed, cpk_problem **out, double *zstar)
{
  cpk_matrix *M = NULL;
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  int rc = r ? cpk_matrix_alloc_dense(n, n, &M) : CPK_ENOMEM;
  double *q = rc ? NULL : cpk_alloc_array(n, 2 * sizeof *q), *z = q ? q + n : NULL;
  if (!rc && !q) rc = CPK_ENOMEM;
  if (!rc) {
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < n; i++) {
      gsl_matrix_set(M->dense, i, i, 1.0);
      for (size_t j = 0; j < i; j++)
        gsl_matrix_set(M->dense, i, j, (double)gsl_rng_uniform_int(r, 7) - 3.0);
    }
    for (size_t i = 0; i < n; i++) { /* planted z*, w* in {0, 1, 2}, complementary */
      int positive_z = gsl_rng_uniform(r) < 0.5;
      double v = 1.0 + (double)gsl_rng_uniform_int(r, 2);
      double acc = 0.0;
      z[i] = positive_z ? v : 0.0;
      q[i] = positive_z ? 0.0 : v; /* w*_i; then q = w* - M z* below */
      if (positive_z) q[i] -= v;
      for (size_t j = 0; j < i; j++) acc += gsl_matrix_get(M->dense, i, j) * z[j];
      q[i] -= acc;
    }
  }
  if (!rc && zstar) memcpy(zstar, z, n * sizeof *z);
  if (!rc) rc = cpk_problem_alloc_lcp(M, q, out);
  cpk_matrix_free(M);
  free(q);
  gsl_rng_free(r);
  if (!rc) {
    char name[64];
    snprintf(name, sizeof name, "int-triangular-%zu-%lu", n, seed);
    rc = cpk_problem_set_name(*out, name);
  }
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}
