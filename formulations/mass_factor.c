/* mass_factor.c: the factorization of a body-form mass matrix M kept by a compiled map: dense LU (LAPACK) per diagonal block when M is block diagonal with small blocks (rigid bodies), else one sparse LU (UMFPACK). */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"
#include "lu_solve1.h"

/*
 * A rigid-body world's M is block diagonal (m I and the world inertia per
 * body): solving with M then touches only the blocks of the right-hand
 * side's rows, which is what keeps J^T M^-1 J linear in the number of
 * contacts (a full solve per contact made it O(contacts x velocities)).
 */

/* LAPACK's LU (Fortran symbol, LP64: the declaration
 * of linalg's lapack backend, which formulations/ may not include; GSL's LU allocates a pivot vector
 * it does not check, so it cannot be used where memory may run out). */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);

/* Largest block also kept as its inverse: a rigid body's blocks (1, 1, 1 and 3) are
 * solved many times a step (four wrench columns per contact), and LAPACK's call
 * costs far more than a 3 x 3 product there. */
#define MASS_INVERSE_MAX 8

/* Contiguous diagonal blocks of M: start[b] .. start[b + 1] - 1. 0 when an entry
 * couples two such ranges, or a block is larger than CVM_MASS_BLOCK_MAX. */
static int find_blocks(const cpk_csc *M, cvm_mass *F)
{
  size_t n = (size_t)M->n, first = 0, hi = 0;
  F->nb = 0;
  for (size_t j = 0; j < n; j++) {
    if (j == first) hi = j;
    for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++) {
      size_t i = (size_t)M->i[k];
      if (i < first) return 0;
      if (i > hi) hi = i;
    }
    if (hi - first + 1 > CVM_MASS_BLOCK_MAX) return 0;
    if (hi == j) {
      F->start[F->nb++] = first;
      first = j + 1;
    }
  }
  F->start[F->nb] = n;
  return 1;
}

/* The inverse of every block of at most MASS_INVERSE_MAX rows from its LU factors
 * (LAPACK solves with the identity's columns): column-major, inv[off + i + j len] = (M_b^-1)_ij. */
static int invert_small_blocks(cvm_mass *F, size_t total)
{
  if (F->inv)
    memset(F->inv, 0, (total + 1) * sizeof *F->inv); /* kept by cvm_mass_factor_reuse */
  else
    F->inv = cpk_calloc_array(total + 1, sizeof *F->inv);
  if (!F->inv) return CPK_ENOMEM;
  for (size_t b = 0; b < F->nb; b++) {
    int len = (int)(F->start[b + 1] - F->start[b]);
    double *X = F->inv + F->off[b];
    if (len > MASS_INVERSE_MAX) continue;
    for (int j = 0; j < len; j++) {
      X[j + j * len] = 1.0;
      cpk_lu_solve1(len, F->L + F->off[b], F->perm + F->start[b], X + j * len, 1);
    }
  }
  return CPK_OK;
}

/* LU factors of each block (LAPACK, partial pivoting: a diagonal block divides exactly,
 * as UMFPACK did); CPK_ESINGULAR for a zero pivot. A block is stored row-major, so
 * LAPACK sees its transpose and solves with 'T'. */
static int factor_blocks(const cpk_csc *M, cvm_mass *F)
{
  size_t total = 0;
  for (size_t b = 0; b < F->nb; b++) {
    size_t len = F->start[b + 1] - F->start[b];
    F->off[b] = total;
    total += len * len;
    for (size_t r = F->start[b]; r < F->start[b + 1]; r++) F->block[r] = b;
  }
  if (F->L) { /* kept by cvm_mass_factor_reuse, which checked total */
    memset(F->L, 0, (total + 1) * sizeof *F->L);
  } else {
    F->L = cpk_calloc_array(total + 1, sizeof *F->L);
    F->perm = cpk_alloc_array(F->n + 1, sizeof *F->perm);
  }
  if (!F->L || !F->perm) return CPK_ENOMEM;
  for (cpk_int j = 0; j < M->n; j++) {
    size_t b = F->block[j], s = F->start[b], len = F->start[b + 1] - s;
    for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++)
      F->L[F->off[b] + ((size_t)M->i[k] - s) * len + ((size_t)j - s)] += M->x[k];
  }
  for (size_t b = 0; b < F->nb; b++) {
    int len = (int)(F->start[b + 1] - F->start[b]), info = 0;
    if (len == 1) { /* a body's mass entry: dgetrf's answer without the call (its cost) */
      F->perm[F->start[b]] = 1;
      if (F->L[F->off[b]] == 0.0) return CPK_ESINGULAR;
      continue;
    }
    dgetrf_(&len, &len, F->L + F->off[b], &len, F->perm + F->start[b], &info);
    if (info != 0) return CPK_ESINGULAR;
  }
  return invert_small_blocks(F, total);
}

static int factor_sparse(const cpk_csc *M, cvm_mass *F)
{
  F->nb = 0;
  int rc = cpk_linsys_alloc(cpk_linsys_umfpack, (size_t)M->n, &F->ls);
  return rc ? rc : cpk_linsys_factor(F->ls, M);
}

/* F into *out, or freed on failure. */
static int finish(cvm_mass *F, int rc, cvm_mass **out)
{
  if (rc) {
    cvm_mass_free(F);
    return rc;
  }
  *out = F;
  return CPK_OK;
}

static int factor_sparse_out(const cpk_csc *M, cvm_mass *F, cvm_mass **out)
{
  return finish(F, factor_sparse(M, F), out);
}

/* F's blocks (found) factored; a singular block: UMFPACK says so, with its own message path. */
static int factor_blocks_or_sparse(const cpk_csc *M, cvm_mass *F, cvm_mass **out)
{
  int rc = factor_blocks(M, F);
  if (rc == CPK_ESINGULAR) {
    free(F->L);
    free(F->inv);
    F->L = F->inv = NULL;
    rc = factor_sparse(M, F);
  }
  return finish(F, rc, out);
}

int cvm_mass_factor(const cpk_csc *M, cvm_mass **out)
{
  size_t n = (size_t)M->n;
  cvm_mass *F = calloc(1, sizeof *F);
  *out = NULL;
  if (!F) return CPK_ENOMEM;
  F->n = n;
  F->start = cpk_alloc_array(n + 2, sizeof *F->start);
  F->off = cpk_alloc_array(n + 1, sizeof *F->off);
  F->block = cpk_alloc_array(n + 1, sizeof *F->block);
  if (!F->start || !F->off || !F->block) return finish(F, CPK_ENOMEM, out);
  return find_blocks(M, F) ? factor_blocks_or_sparse(M, F, out) : factor_sparse_out(M, F, out);
}

/* Entries of the blocks' LU factors (n^2 summed over blocks) of F's blocks. */
static size_t blocks_total(const cvm_mass *F)
{
  size_t total = 0;
  for (size_t b = 0; b < F->nb; b++) {
    size_t len = F->start[b + 1] - F->start[b];
    total += len * len;
  }
  return total;
}

/*
 * The stepper factors a new M every step (the world inertia turns with the body) with
 * the same blocks: the dense-block form is refactored in *old's arrays, which the
 * same diagonal blocks fit exactly; anything else (UMFPACK, other blocks) is factored
 * anew.
 */
int cvm_mass_factor_reuse(const cpk_csc *M, cvm_mass **old, cvm_mass **out)
{
  cvm_mass *F = *old;
  *old = NULL;
  *out = NULL;
  if (!F || F->ls || !F->L || !F->inv || F->n != (size_t)M->n) {
    cvm_mass_free(F);
    return cvm_mass_factor(M, out);
  }
  size_t total = blocks_total(F);
  if (!find_blocks(M, F) || blocks_total(F) != total) {
    cvm_mass_free(F);
    return cvm_mass_factor(M, out);
  }
  return factor_blocks_or_sparse(M, F, out);
}

void cvm_mass_free(cvm_mass *F)
{
  if (!F) return;
  free(F->start);
  free(F->off);
  free(F->block);
  free(F->L);
  free(F->inv);
  free(F->perm);
  cpk_linsys_free(F->ls);
  free(F);
}

/* x = X x for a 3 x 3 column-major X: the general loop's sums in its order (each row from
 * 0.0, then the columns in turn), so the same roundings; a rigid body's blocks are 1 x 1
 * (a mass row each) and 3 x 3 (its inertia), and the loop's bounds and its memcpy cost
 * twice its arithmetic (about 60 calls a step of the tripod). */
static void inverse_apply3(const double *X, double *x)
{
  double x0 = x[0], x1 = x[1], x2 = x[2], y[3];
  for (int i = 0; i < 3; i++) {
    y[i] = 0.0;
    y[i] += X[i] * x0;
    y[i] += X[i + 3] * x1;
    y[i] += X[i + 6] * x2;
  }
  x[0] = y[0];
  x[1] = y[1];
  x[2] = y[2];
}

void cvm_mass_solve_block(const cvm_mass *F, size_t b, double *x)
{
  int len = (int)(F->start[b + 1] - F->start[b]);
  if (len == 1) { /* 0.0 + X x as the loop sums it (0.0 + -0.0 is +0.0) */
    double *xb = x + F->start[b], y = 0.0;
    y += F->inv[F->off[b]] * xb[0];
    xb[0] = y;
    return;
  }
  if (len == 3) {
    inverse_apply3(F->inv + F->off[b], x + F->start[b]);
    return;
  }
  if (len <= MASS_INVERSE_MAX) {
    const double *X = F->inv + F->off[b];
    double y[MASS_INVERSE_MAX], *xb = x + F->start[b];
    for (int i = 0; i < len; i++) {
      y[i] = 0.0;
      for (int j = 0; j < len; j++) y[i] += X[i + j * len] * xb[j];
    }
    memcpy(xb, y, (size_t)len * sizeof *y);
    return;
  }
  cpk_lu_solve1(len, F->L + F->off[b], F->perm + F->start[b], x + F->start[b], 1);
}

int cvm_mass_apply(const cvm_mass *F, double *x)
{
  if (!F) return CPK_ESINGULAR; /* M could not be factored */
  if (F->ls) return cpk_linsys_solve(F->ls, x, 0);
  for (size_t b = 0; b < F->nb; b++) cvm_mass_solve_block(F, b, x);
  return CPK_OK;
}
