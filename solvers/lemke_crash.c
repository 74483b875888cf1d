/* lemke_crash.c: a starting basis for Lemke when the free variables' block of M is singular. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/result.h>
#include <cpkit/util.h>
#include "lemke_crash.h"

/* Relative size of R's diagonal below which the pivoted QR calls a column dependent. */
#define CRASH_RANK_TOL 1e-10

typedef struct crash_ws {
  size_t *set, m;       /* the indices of S, |S| */
  gsl_matrix *A;        /* max_set x max_set */
  gsl_vector *tau, *norm;
  gsl_permutation *perm;
} crash_ws;

/* Numerical rank of M_SS. */
static size_t principal_rank(const cpk_problem *p, crash_ws *w)
{
  size_t m = w->m;
  gsl_matrix_view A = gsl_matrix_submatrix(w->A, 0, 0, m, m);
  gsl_vector_view tau = gsl_vector_subvector(w->tau, 0, m), nrm = gsl_vector_subvector(w->norm, 0, m);
  gsl_permutation perm = {m, w->perm->data};
  int signum;
  for (size_t a = 0; a < m; a++)
    for (size_t b = 0; b < m; b++) gsl_matrix_set(&A.matrix, a, b, cpk_matrix_get(p->M, w->set[a], w->set[b]));
  gsl_linalg_QRPT_decomp(&A.matrix, &tau.vector, &perm, &signum, &nrm.vector);
  double r11 = fabs(gsl_matrix_get(&A.matrix, 0, 0));
  size_t rank = 0;
  while (rank < m && r11 > 0.0 && fabs(gsl_matrix_get(&A.matrix, rank, rank)) > CRASH_RANK_TOL * r11)
    rank++;
  return rank;
}

/* Coupling of bounded index j to the free rows and columns: the order candidates are tried in. */
static double coupling(const cpk_problem *p, const crash_ws *w, size_t nfree, size_t j)
{
  double c = 0.0;
  for (size_t a = 0; a < nfree; a++)
    c += fabs(cpk_matrix_get(p->M, w->set[a], j)) + fabs(cpk_matrix_get(p->M, j, w->set[a]));
  return c;
}

static int is_free(const cpk_problem *p, size_t i) { return isinf(p->lower[i]) && isinf(p->upper[i]); }

/* Grow S from the free set, adding a bounded index whenever it lowers |S| - rank. */
static void grow(const cpk_problem *p, crash_ws *w, size_t max_set, double *score, int *found)
{
  size_t n = p->n, nfree = w->m, deficit = w->m - principal_rank(p, w);
  for (size_t j = 0; j < n; j++) score[j] = is_free(p, j) ? 0.0 : coupling(p, w, nfree, j);
  while (deficit > 0 && w->m < max_set) {
    size_t best = n;
    for (size_t j = 0; j < n; j++)
      if (score[j] > 0.0 && (best == n || score[j] > score[best])) best = j;
    if (best == n) break;
    score[best] = 0.0;
    w->set[w->m++] = best;
    size_t d = w->m - principal_rank(p, w);
    if (d < deficit) deficit = d;
    else w->m--; /* no help: drop it again */
  }
  *found = deficit == 0;
}

int lemke_crash_free_block(const cpk_problem *p, size_t max_set, int *basis, int *found)
{
  size_t n = p->n, cap = max_set < n ? max_set : n;
  crash_ws w = {cpk_alloc_array(n, sizeof(size_t)), 0, NULL, NULL, NULL, NULL};
  double *score = cpk_alloc_array(n, sizeof *score);
  *found = 0;
  for (size_t i = 0; i < n; i++)
    if (is_free(p, i) && w.set) w.set[w.m++] = i;
  int rc = w.set && score ? CPK_OK : CPK_ENOMEM;
  if (!rc && w.m > 0 && w.m <= cap) {
    w.A = gsl_matrix_alloc(cap, cap);
    w.tau = gsl_vector_alloc(cap);
    w.norm = gsl_vector_alloc(cap);
    w.perm = gsl_permutation_alloc(cap);
    if (!w.A || !w.tau || !w.norm || !w.perm) rc = CPK_ENOMEM;
    else grow(p, &w, cap, score, found);
  }
  for (size_t i = 0; !rc && i < n; i++) basis[i] = CPK_VAR_AT_LOWER;
  for (size_t a = 0; !rc && *found && a < w.m; a++) basis[w.set[a]] = CPK_VAR_BASIC;
  if (w.A) gsl_matrix_free(w.A);
  if (w.tau) gsl_vector_free(w.tau);
  if (w.norm) gsl_vector_free(w.norm);
  if (w.perm) gsl_permutation_free(w.perm);
  free(w.set);
  free(score);
  return rc;
}
