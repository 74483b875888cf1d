/* lemke_reduced.c: a Lemke basis that is mostly unit columns, solved through the small block of its other columns. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "lemke_reduced.h"

/* Below this n, UMFPACK's or LAPACK's factorization of all of B is cheap and keeps the
   backend's own statistics and singularity test; the tripod's LCP has n = 102. */
#define LEMKE_REDUCED_MIN_N 64
/* A K this small is padded only to this order: the LU's cost goes as the cube of it (a contact
   scene has a few basic z per contact: 9 to 12 for the tripod, 3 contacts). */
#define LEMKE_REDUCED_SMALL 12
/* The largest K factored through this path: every pivot refactors K densely (O(k^3)), so a
   basis with more non-unit columns goes to the backend's sparse LU with eta updates, which
   costs far less per pivot on a large sparse problem (n = 4000 with 400 basic z: 14.8 s on K
   of order n/4 against 0.13 s through UMFPACK). */
#define LEMKE_REDUCED_MAX 32

int lemke_reduced_alloc(lemke_reduced *R, size_t n)
{
  memset(R, 0, sizeof *R);
  R->n = n;
  R->kmax = n >= LEMKE_REDUCED_MIN_N ? n / 4 : 0;
  if (R->kmax > LEMKE_REDUCED_MAX) R->kmax = LEMKE_REDUCED_MAX;
  if (R->kmax == 0) return CPK_OK;
  size_t kk = R->kmax * R->kmax;
  R->rmap = cpk_alloc_array(n, sizeof *R->rmap);
  R->spos = cpk_alloc_array(n, sizeof *R->spos);
  R->rows = cpk_alloc_array(n, sizeof *R->rows);
  R->cols = cpk_alloc_array(n, sizeof *R->cols);
  R->w = cpk_alloc_array(n, sizeof *R->w);
  R->kx = cpk_alloc_array(R->kmax, sizeof *R->kx);
  if (!R->rmap || !R->spos || !R->rows || !R->cols || !R->w || !R->kx) return CPK_ENOMEM;
  int rc = cpk_csc_alloc((cpk_int)R->kmax, (cpk_int)R->kmax, (cpk_int)kk, &R->K);
  if (!rc) rc = cpk_linsys_alloc(cpk_linsys_lapack, R->kmax, &R->ls);
  if (!rc && R->kmax > LEMKE_REDUCED_SMALL)
    rc = cpk_linsys_alloc(cpk_linsys_lapack, LEMKE_REDUCED_SMALL, &R->small);
  return rc;
}

void lemke_reduced_free(lemke_reduced *R)
{
  free(R->rmap);
  free(R->spos);
  free(R->rows);
  free(R->cols);
  free(R->w);
  free(R->kx);
  cpk_csc_free(R->K);
  cpk_linsys_free(R->ls);
  cpk_linsys_free(R->small);
  memset(R, 0, sizeof *R);
}

/* From head alone (the positions of the factored B): each basic slack's position, J (the
   other positions) and R' (the rows no basic slack covers); 0 when k > kmax. */
static int split(lemke_reduced *R, const size_t *head)
{
  size_t n = R->n, nr = 0, nj = 0;
  for (size_t r = 0; r < n; r++) R->spos[r] = -1;
  for (size_t j = 0; j < n; j++) {
    if (head[j] >= n && head[j] < 2 * n) R->spos[head[j] - n] = (long)j;
    else if (nj++ < R->kmax) R->cols[nj - 1] = j;
  }
  for (size_t r = 0; r < n; r++) {
    R->rmap[r] = R->spos[r] < 0 ? (long)nr : -1;
    if (R->spos[r] < 0 && nr++ < R->kmax) R->rows[nr - 1] = r;
  }
  R->k = nj;
  return nr == nj && nj <= R->kmax;
}

/* K = B(R', J) in R->K, then the identity on the padding up to R->size. */
static void assemble_k(lemke_reduced *R)
{
  const cpk_csc *B = R->B;
  cpk_csc *K = R->K;
  cpk_int e = 0;
  K->p[0] = 0;
  K->m = K->n = (cpk_int)R->size;
  for (size_t c = 0; c < R->size; c++) {
    if (c < R->k) {
      size_t j = R->cols[c];
      for (cpk_int t = B->p[j]; t < B->p[j + 1]; t++)
        if (R->rmap[B->i[t]] >= 0) { /* rmap is increasing on R': rows stay sorted */
          K->i[e] = (cpk_int)R->rmap[B->i[t]];
          K->x[e++] = B->x[t];
        }
    } else {
      K->i[e] = (cpk_int)c;
      K->x[e++] = 1.0;
    }
    K->p[c + 1] = e;
  }
}

/* The LU of K's padded order. */
static cpk_linsys *lu(const lemke_reduced *R)
{
  return R->size == R->kmax ? R->ls : R->small;
}

int lemke_reduced_factor(lemke_reduced *R, const cpk_csc *B, const size_t *head)
{
  R->factored = 0;
  if (R->kmax == 0 || !split(R, head)) return CPK_EUNSUP;
  R->B = B;
  R->size = R->small && R->k <= LEMKE_REDUCED_SMALL ? LEMKE_REDUCED_SMALL : R->kmax;
  assemble_k(R);
  int rc = cpk_linsys_factor(lu(R), R->K);
  R->factored = rc == CPK_OK;
  return rc;
}

/* B x = b: K x_J = b_R', then x at a slack's position r: b_r - B(r, J) x_J. */
static int solve_plain(lemke_reduced *R, double *x)
{
  const cpk_csc *B = R->B;
  size_t n = R->n;
  memcpy(R->w, x, n * sizeof *x);
  for (size_t a = 0; a < R->size; a++) R->kx[a] = a < R->k ? R->w[R->rows[a]] : 0.0;
  int rc = cpk_linsys_solve(lu(R), R->kx, 0);
  if (rc) return rc;
  for (size_t r = 0; r < n; r++)
    if (R->rmap[r] < 0) x[R->spos[r]] = R->w[r];
  for (size_t c = 0; c < R->k; c++) {
    size_t j = R->cols[c];
    x[j] = R->kx[c];
    for (cpk_int t = B->p[j]; t < B->p[j + 1]; t++)
      if (R->rmap[B->i[t]] < 0) x[R->spos[B->i[t]]] -= B->x[t] * R->kx[c];
  }
  return CPK_OK;
}

/* B' y = c: y_r = c at the slack's position, then K' y_R' = c_J - B(R, J)' y_R. */
static int solve_transposed(lemke_reduced *R, double *x)
{
  const cpk_csc *B = R->B;
  size_t n = R->n;
  memcpy(R->w, x, n * sizeof *x);
  for (size_t c = 0; c < R->size; c++) {
    double s = 0.0;
    if (c < R->k) {
      size_t j = R->cols[c];
      s = R->w[j];
      for (cpk_int t = B->p[j]; t < B->p[j + 1]; t++)
        if (R->rmap[B->i[t]] < 0) s -= B->x[t] * R->w[R->spos[B->i[t]]];
    }
    R->kx[c] = s;
  }
  int rc = cpk_linsys_solve(lu(R), R->kx, 1);
  if (rc) return rc;
  for (size_t r = 0; r < n; r++)
    x[r] = R->rmap[r] < 0 ? R->w[R->spos[r]] : R->kx[R->rmap[r]];
  return CPK_OK;
}

int lemke_reduced_solve(lemke_reduced *R, double *x, int transpose)
{
  if (!R->factored) return CPK_EINVAL;
  return transpose ? solve_transposed(R, x) : solve_plain(R, x);
}
