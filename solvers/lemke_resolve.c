/* lemke_resolve.c: Lemke's re-solves: start from the last basis (and its factors when B is unchanged), keep ||M|| while M's values are. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "lemke_resolve.h"

int lemke_resolve_alloc(lemke_resolve *R, size_t n)
{
  memset(R, 0, sizeof *R);
  R->n = n;
  R->basis = cpk_calloc_array(n ? n : 1, sizeof *R->basis);
  R->rowsum = cpk_alloc_array(n ? n : 1, sizeof *R->rowsum);
  return R->basis && R->rowsum ? CPK_OK : CPK_ENOMEM;
}

void lemke_resolve_free(lemke_resolve *R)
{
  free(R->basis);
  free(R->rowsum);
  memset(R, 0, sizeof *R);
}

/*
 * A physics engine's next problem usually has the same active set: started
 * from the last basis, Lemke factors it (at most) once, finds x_B feasible and stops
 * (lemke.c's start). A basis that no longer starts a valid path is rejected
 * there and the run restarts cold, so a bad guess costs time, not answers.
 */
const cpk_settings *lemke_resolve_settings(const lemke_resolve *R, const cpk_settings *s,
                                           cpk_settings *buf)
{
  if (!R->have_basis || !s->resolve.warm || s->basis0 || s->z0) return s;
  *buf = *s;
  buf->basis0 = R->basis;
  return buf;
}

/* A sparse M's ||M||_inf in R's workspace (nothing to fail); CPK_EINVAL when M is dense
   or has more rows than the workspace. */
static int csc_norm_inf(lemke_resolve *R, const cpk_matrix *M, double *norm)
{
  if (M->format != CPK_MATRIX_CSC || M->m > R->n) return CPK_EINVAL;
  const cpk_csc *A = M->csc;
  double best = 0.0;
  memset(R->rowsum, 0, M->m * sizeof *R->rowsum);
  for (cpk_int k = 0; k < A->p[A->n]; k++) R->rowsum[A->i[k]] += fabs(A->x[k]);
  for (size_t i = 0; i < M->m; i++)
    if (R->rowsum[i] > best || isnan(R->rowsum[i])) best = R->rowsum[i];
  *norm = best;
  return CPK_OK;
}

int lemke_resolve_mnorm(lemke_resolve *R, const cpk_problem *p, double *mnorm)
{
  if (R->have_mnorm && !(resolve_changed(&R->seen, p) & RESOLVE_VALUES)) {
    *mnorm = R->mnorm;
    return CPK_OK;
  }
  int rc = csc_norm_inf(R, p->M, mnorm);
  if (rc == CPK_EINVAL) rc = cpk_matrix_norm_inf_checked(p->M, mnorm);
  if (rc) return rc;
  R->mnorm = *mnorm;
  R->have_mnorm = 1;
  resolve_seen_set(&R->seen, p);
  return CPK_OK;
}

/*
 * A solve that made no pivot (and no refinement, whose refactorization may
 * have failed) ends with the factors of its starting basis. When the next start is that basis
 * again and only q or the bounds changed, B is unchanged: x_B needs one solve
 * with the factors already there, not a new factorization.
 */
int lemke_resolve_factors_kept(lemke_resolve *R, const cpk_problem *p, const int *zstate)
{
  int kept = R->factors_kept && R->factored_values == p->rev.values &&
             memcmp(zstate, R->basis, R->n * sizeof *zstate) == 0;
  R->factors_kept = 0; /* the run may pivot from here on */
  return kept;
}

void lemke_resolve_record(lemke_resolve *R, const cpk_problem *p, const int *zstate,
                          const cpk_result *r, long pivots)
{
  R->have_basis = r->status == CPK_STATUS_SOLVED;
  if (R->have_basis) memcpy(R->basis, zstate, R->n * sizeof *R->basis);
  double refined = 0.0;
  cpk_result_get_stat(r, "refined", &refined);
  R->factors_kept = R->have_basis && pivots == 0 && refined == 0.0;
  R->factored_values = p->rev.values;
}
