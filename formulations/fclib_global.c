/* fclib_global.c: an FCLIB global problem (M v = H r + f, u = H' v + w) reduced to local form W = H' M^-1 H, q = H' M^-1 f + w with one sparse factorization of M. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifdef HAVE_HDF5
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>
#include "fclib_h5.h"

/* W is m x m and may be dense: refuse a reduction that would not fit in a few GB. */
#define MAX_W_ENTRIES ((size_t)1 << 26)

typedef struct trip {
  size_t n, cap;
  cpk_int *i, *j;
  double *x;
} trip;

static int trip_push(trip *T, cpk_int i, cpk_int j, double x)
{
  if (T->n == T->cap) {
    size_t c = T->cap ? 2 * T->cap : 1024;
    if (c > MAX_W_ENTRIES) return CPK_ETOOBIG;
    cpk_int *ni = realloc(T->i, c * sizeof *ni);
    if (ni) T->i = ni;
    cpk_int *nj = ni ? realloc(T->j, c * sizeof *nj) : NULL;
    if (nj) T->j = nj;
    double *nx = nj ? realloc(T->x, c * sizeof *nx) : NULL;
    if (!nx) return CPK_ENOMEM;
    T->x = nx;
    T->cap = c;
  }
  T->i[T->n] = i;
  T->j[T->n] = j;
  T->x[T->n++] = x;
  return CPK_OK;
}

static void trip_free(trip *T)
{
  free(T->i);
  free(T->j);
  free(T->x);
}

/* Column k of H dotted with x. */
static double col_dot(const cpk_csc *H, cpk_int k, const double *x)
{
  double s = 0.0;
  for (cpk_int e = H->p[k]; e < H->p[k + 1]; e++) s += H->x[e] * x[H->i[e]];
  return s;
}

/* Exactly symmetric M (then W is built symmetric: lower triangle mirrored). */
static int is_symmetric(const cpk_csc *M, int *sym)
{
  cpk_int nnz = M->p[M->n];
  cpk_int *tj = cpk_alloc_array(nnz ? (size_t)nnz : 1, sizeof *tj);
  cpk_csc *T = NULL;
  if (!tj) return CPK_ENOMEM;
  for (cpk_int c = 0; c < M->n; c++)
    for (cpk_int e = M->p[c]; e < M->p[c + 1]; e++) tj[e] = c;
  int rc = cpk_csc_from_triplets(M->n, M->m, nnz, tj, M->i, M->x, &T); /* M' */
  free(tj);
  if (rc) return rc;
  *sym = T->p[T->n] == nnz && memcmp(T->p, M->p, (size_t)(M->n + 1) * sizeof *T->p) == 0 &&
         memcmp(T->i, M->i, (size_t)nnz * sizeof *T->i) == 0 &&
         memcmp(T->x, M->x, (size_t)nnz * sizeof *T->x) == 0;
  cpk_csc_free(T);
  return CPK_OK;
}

/* Entries strictly below and strictly above the diagonal. */
static void count_sides(const cpk_csc *M, size_t *below, size_t *above)
{
  *below = *above = 0;
  for (cpk_int c = 0; c < M->n; c++)
    for (cpk_int e = M->p[c]; e < M->p[c + 1]; e++) {
      if (M->i[e] > c) ++*below;
      if (M->i[e] < c) ++*above;
    }
}

/* FCLIB's M is symmetric, and some files (the LMGC dumps) store one triangle of it only:
   a triangle with off-diagonal entries cannot be the symmetric M, so it is mirrored. */
static int mirror_triangle(cpk_csc **M)
{
  size_t below, above, nnz = (size_t)(*M)->p[(*M)->n];
  count_sides(*M, &below, &above);
  if ((below == 0) == (above == 0)) return CPK_OK; /* both sides, or diagonal */
  size_t total = nnz + below + above;
  cpk_int *ti = cpk_alloc_array(total, sizeof *ti), *tj = cpk_alloc_array(total, sizeof *tj);
  double *tx = cpk_alloc_array(total, sizeof *tx);
  size_t k = 0;
  for (cpk_int c = 0; ti && tj && tx && c < (*M)->n; c++)
    for (cpk_int e = (*M)->p[c]; e < (*M)->p[c + 1]; e++) {
      ti[k] = (*M)->i[e];
      tj[k] = c;
      tx[k++] = (*M)->x[e];
      if ((*M)->i[e] == c) continue;
      ti[k] = c;
      tj[k] = (*M)->i[e];
      tx[k++] = (*M)->x[e];
    }
  cpk_csc *S = NULL;
  int rc = ti && tj && tx ? cpk_csc_from_triplets((*M)->m, (*M)->n, (cpk_int)k, ti, tj, tx, &S)
                          : CPK_ENOMEM;
  free(ti);
  free(tj);
  free(tx);
  if (rc) return rc;
  cpk_csc_free(*M);
  *M = S;
  return CPK_OK;
}

/* Column j of W = H' M^-1 H: x = M^-1 H_j, then W_kj = H_k . x (rows k >= j when mirrored). */
static int w_column(cpk_linsys *S, const cpk_csc *H, cpk_int j, int sym, double *x, trip *T)
{
  memset(x, 0, (size_t)H->m * sizeof *x);
  for (cpk_int e = H->p[j]; e < H->p[j + 1]; e++) x[H->i[e]] += H->x[e];
  int rc = cpk_linsys_solve(S, x, 0);
  for (cpk_int k = sym ? j : 0; !rc && k < H->n; k++) {
    double s = col_dot(H, k, x);
    if (s == 0.0) continue;
    rc = trip_push(T, k, j, s);
    if (!rc && sym && k != j) rc = trip_push(T, j, k, s);
  }
  return rc;
}

/* q = H' M^-1 f + w. */
static int free_velocity(cpk_linsys *S, const cpk_csc *H, const double *fv, const double *w,
                         double *x, double *q)
{
  memcpy(x, fv, (size_t)H->m * sizeof *x);
  int rc = cpk_linsys_solve(S, x, 0);
  for (cpk_int k = 0; !rc && k < H->n; k++) q[k] = col_dot(H, k, x) + w[k];
  return rc;
}

/* A nearly singular M can give W or q beyond the doubles. */
static int all_finite(const double *v, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (!isfinite(v[k])) return 0;
  return 1;
}

static int reduce(const fch5 *f, cpk_csc **Mp, const cpk_csc *H, const double *fv,
                  const double *w, fch5_local *L)
{
  cpk_linsys *S = NULL;
  trip T = {0, 0, NULL, NULL, NULL};
  int sym = 0, rc = mirror_triangle(Mp);
  const cpk_csc *M = *Mp;
  double *x = cpk_alloc_array((size_t)M->n, sizeof *x);
  L->q = cpk_alloc_array((size_t)H->n, sizeof *L->q);
  if (!rc) rc = x && L->q ? is_symmetric(M, &sym) : CPK_ENOMEM;
  if (!rc) rc = cpk_linsys_alloc(cpk_linsys_umfpack, (size_t)M->n, &S);
  if (!rc) rc = cpk_linsys_factor(S, M);
  if (!rc) rc = free_velocity(S, H, fv, w, x, L->q);
  for (cpk_int j = 0; !rc && j < H->n; j++) rc = w_column(S, H, j, sym, x, &T);
  if (!rc) rc = cpk_csc_from_triplets(H->n, H->n, (cpk_int)T.n, T.i, T.j, T.x, &L->W);
  if (!rc && !(all_finite(L->q, (size_t)H->n) && all_finite(L->W->x, (size_t)L->W->p[L->W->n])))
    rc = CPK_ESINGULAR; /* a pivot too small for the doubles */
  cpk_linsys_free(S);
  trip_free(&T);
  free(x);
  if (rc == CPK_ESINGULAR)
    return fch5_bad(f, "/fclib_global/M is singular (or so close that H' M^-1 H overflows): "
                       "cannot reduce to local form");
  if (rc == CPK_ETOOBIG)
    return cpk_error_set(f->err, rc, "%s: W = H' M^-1 H would hold more than %zu entries",
                         f->path, MAX_W_ENTRIES);
  if (rc) return cpk_error_set(f->err, rc, "%s: reducing to local form: %s", f->path,
                               cpk_strerror(rc));
  return CPK_OK;
}

/* Sizes from the vectors (backed by storage), then M, H and the vectors themselves. */
static int read_parts(const fch5 *f, fch5_local *L, cpk_csc **M, cpk_csc **H, double **fv,
                      double **w)
{
  const char *wn = "/fclib_global/vectors/w", *mun = "/fclib_global/vectors/mu",
             *fn = "/fclib_global/vectors/f";
  size_t m = 0, n = 0;
  int rc = fch5_read_spacedim(f, "/fclib_global", &L->dim);
  if (!rc) rc = fch5_contacts(f, wn, mun, L->dim, &m, &L->nc);
  if (!rc) rc = fch5_extent(f, fn, &n);
  if (!rc && n == 0) rc = fch5_bad(f, "%s is empty: no velocities", fn);
  if (!rc)
    rc = fch5_read_sparse(f, "/fclib_global/M", (cpk_int)n, (cpk_int)n,
                          "the length of /fclib_global/vectors/f", M);
  if (!rc)
    rc = fch5_read_sparse(f, "/fclib_global/H", (cpk_int)n, (cpk_int)m,
                          "the lengths of /fclib_global/vectors/f and w", H);
  if (!rc) rc = fch5_read_doubles(f, fn, n, fv);
  if (!rc) rc = fch5_read_doubles(f, wn, m, w);
  if (!rc) rc = fch5_read_doubles(f, mun, L->nc, &L->mu);
  if (!rc) rc = fch5_check_mu(f, mun, L->mu, L->nc);
  return rc;
}

int fch5_read_global(const fch5 *f, fch5_local *L)
{
  cpk_csc *M = NULL, *H = NULL;
  double *fv = NULL, *w = NULL;
  memset(L, 0, sizeof *L);
  if (fch5_exists(f, "/fclib_global/G") || fch5_exists(f, "/fclib_global/vectors/b"))
    return fch5_bad(f, "/fclib_global has G and b (equality constraints G' v + b = 0): "
                       "not supported");
  int rc = read_parts(f, L, &M, &H, &fv, &w);
  if (!rc) rc = reduce(f, &M, H, fv, w, L);
  if (!rc) L->title = fch5_read_title(f, "/fclib_global");
  cpk_csc_free(M);
  cpk_csc_free(H);
  free(fv);
  free(w);
  if (rc) fch5_local_free(L);
  return rc;
}
#endif
