/* lemke_repair.c: a singular warm basis made factorizable by sending dependent basic variables to a bound. */
#include <math.h>
#include <cpkit/result.h>
#include <cpkit/util.h>
#include "lemke_repair.h"

/*
 * Pivots below this, relative to the largest entry of M_BB, count as zero. A
 * physics engine's matrix is float data (relative noise ~1e-7) made singular
 * by redundant contacts: its dependent columns leave pivots of that noise
 * level, which a basis should not lean on either.
 */
#define REPAIR_PIVOT_TOL 1e-6

/* Position (in idx[from..m)) of the largest remaining diagonal pivot. */
static size_t largest_pivot(const double *A, size_t m, size_t from)
{
  size_t best = from;
  for (size_t k = from + 1; k < m; k++)
    if (fabs(A[k * m + k]) > fabs(A[best * m + best])) best = k;
  return best;
}

/* Symmetric swap of positions a and b in A (m x m, row-major) and idx. */
static void swap_positions(double *A, size_t *idx, size_t m, size_t a, size_t b)
{
  if (a == b) return;
  size_t t = idx[a];
  idx[a] = idx[b], idx[b] = t;
  for (size_t j = 0; j < m; j++) {
    double v = A[a * m + j];
    A[a * m + j] = A[b * m + j], A[b * m + j] = v;
  }
  for (size_t i = 0; i < m; i++) {
    double v = A[i * m + a];
    A[i * m + a] = A[i * m + b], A[i * m + b] = v;
  }
}

/* Number of pivots above tol: after it, idx[rank..m) are the dependent variables. */
static size_t eliminate(double *A, size_t *idx, size_t m, double tol)
{
  for (size_t k = 0; k < m; k++) {
    swap_positions(A, idx, m, k, largest_pivot(A, m, k));
    double piv = A[k * m + k];
    if (!(fabs(piv) > tol)) return k;
    for (size_t i = k + 1; i < m; i++) {
      double f = A[i * m + k] / piv;
      if (f == 0.0) continue;
      for (size_t j = k + 1; j < m; j++) A[i * m + j] -= f * A[k * m + j];
    }
  }
  return m;
}

int lemke_repair_basis(const cpk_problem *p, int *state, double *work, size_t *idx, size_t *dropped)
{
  size_t m = 0;
  double amax = 0.0;
  *dropped = 0;
  for (size_t i = 0; i < p->n; i++)
    if (state[i] == CPK_VAR_BASIC) idx[m++] = i;
  for (size_t a = 0; a < m; a++)
    for (size_t b = 0; b < m; b++) {
      work[a * m + b] = cpk_matrix_get(p->M, idx[a], idx[b]);
      amax = fmax(amax, fabs(work[a * m + b]));
    }
  size_t rank = eliminate(work, idx, m, REPAIR_PIVOT_TOL * amax);
  for (size_t a = rank; a < m; a++)
    if (isinf(p->lower[idx[a]]) && isinf(p->upper[idx[a]])) return CPK_ESINGULAR;
  for (size_t a = rank; a < m; a++)
    state[idx[a]] = isfinite(p->lower[idx[a]]) ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
  *dropped = m - rank;
  return CPK_OK;
}
