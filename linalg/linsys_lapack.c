/* linsys_lapack.c: the "lapack" linsys backend: blocked dense LU (dgetrf) with an eta-file column update. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>
#include "lapack_decl.h"
#include "lapack_equilibrate.h"
#include "linsys_eta.h"
#include "lu_solve1.h"

/* A reciprocal condition estimate (1-norm, equilibrated matrix) at or below this is singular. */
#define LAPACK_SINGULAR_RCOND (1e3 * DBL_EPSILON)

/*
 * A_k = A_0 E_1 ... E_k with A_0 = R^{-1} (P L U) C^{-1}: R and C are the
 * power-of-two row and column scalings of dgeequb (lapack_equilibrate.c), so that the rcond test
 * does not depend on how rows and columns are scaled (a Lemke basis mixes
 * unit columns with columns of M), and P L U is dgetrf's factorization of
 * R A_0 C. The E_m are in `eta`, shared with the UMFPACK backend.
 */
typedef struct lapack_state {
  linsys_eta_backend base; /* first: n, factored, the eta file, stats */
  int ni;                /* n as LAPACK's integer */
  double *lu, *r, *c;    /* factors of the scaled A_0, row and column scalings */
  int *ipiv, *iwork;
  double *work;          /* dgecon workspace (4n) */
} lapack_state;

static void lapack_free(void *state)
{
  lapack_state *s = state;
  if (!s) return;
  free(s->lu);
  free(s->r);
  free(s->c);
  free(s->ipiv);
  free(s->iwork);
  free(s->work);
  linsys_eta_backend_release(&s->base);
  free(s);
}

static int lapack_alloc_arrays(lapack_state *s)
{
  size_t n = s->base.n, nn, n4;
  if (cpk_size_mul(n, n, &nn) || cpk_size_mul(n, 4, &n4)) return CPK_EOVERFLOW;
  s->lu = cpk_alloc_array(nn ? nn : 1, sizeof *s->lu);
  s->r = cpk_alloc_array(n ? n : 1, sizeof *s->r);
  s->c = cpk_alloc_array(n ? n : 1, sizeof *s->c);
  s->ipiv = cpk_alloc_array(n ? n : 1, sizeof *s->ipiv);
  s->iwork = cpk_alloc_array(n ? n : 1, sizeof *s->iwork);
  s->work = cpk_alloc_array(n4 ? n4 : 1, sizeof *s->work);
  s->base.alpha = cpk_alloc_array(n ? n : 1, sizeof *s->base.alpha);
  if (!s->lu || !s->r || !s->c || !s->ipiv || !s->iwork || !s->work || !s->base.alpha)
    return CPK_ENOMEM;
  return linsys_eta_alloc(&s->base.eta, n);
}

static int lapack_solve_a0(void *state, double *x, int transpose);

static int lapack_alloc(void **state, size_t n)
{
  *state = NULL;
  if (n > (size_t)INT_MAX) return CPK_EOVERFLOW;
  lapack_state *s = calloc(1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  s->base.n = n;
  s->base.solve_a0 = lapack_solve_a0;
  s->ni = (int)n;
  int rc = lapack_alloc_arrays(s);
  if (rc) {
    lapack_free(s);
    return rc;
  }
  *state = s;
  return CPK_OK;
}

/* The dense copy of A becomes R A C in place; returns its 1-norm (for dgecon). */
static double lapack_scale(lapack_state *s)
{
  size_t n = s->base.n;
  double anorm = 0.0;
  const double *r = s->r;
  for (size_t j = 0; j < n; j++) {
    double *col = s->lu + j * n, sum = 0.0, cj = s->c[j]; /* cj in a register: col may alias c */
    for (size_t i = 0; i < n; i++) { /* one pass: the sum in the same order */
      double v = col[i] * (r[i] * cj);
      col[i] = v;
      sum += fabs(v);
    }
    if (sum > anorm) anorm = sum; /* fmax without its libm call: anorm is never NaN */
  }
  return anorm;
}

static void lapack_fill(lapack_state *s, const cpk_csc *A)
{
  size_t n = s->base.n;
  memset(s->lu, 0, n * n * sizeof *s->lu);
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++)
      s->lu[(size_t)A->i[k] + (size_t)j * n] = A->x[k];
}

/*
 * An upper bound on ||(P L U)^{-1}||_1 from the factors alone, O(n^2): with M(T) the comparison
 * matrix of a triangular T (|t_ii| on the diagonal, -|t_ij| off it), |T^{-1}| <= M(T)^{-1}
 * entrywise, so the column sums of |U^{-1} L^{-1}| are at most M(L)^{-T} M(U)^{-T} e. dgecon's
 * estimate of the same norm is a lower bound on it: when this bound already puts rcond well
 * above the threshold, dgecon would say the same (it cost 16-25% of a small cone or interior
 * point step). A U with large growth in its inverse gives a loose bound, and dgecon decides.
 */
static double lapack_inverse_norm_bound(const lapack_state *s)
{
  size_t n = s->base.n;
  const double *lu = s->lu;
  double *v = s->work, best = 0.0;
  for (size_t j = 0; j < n; j++) { /* M(U)' v = e, forward */
    double sum = 1.0;
    for (size_t i = 0; i < j; i++) sum += fabs(lu[i + j * n]) * v[i];
    v[j] = sum / fabs(lu[j + j * n]);
    if (!(v[j] < INFINITY)) return INFINITY; /* a NaN or inf in the factors: dgecon decides */
  }
  for (size_t j = n; j-- > 0;) { /* M(L)' w = v, backward, in place */
    double sum = v[j];
    for (size_t i = j + 1; i < n; i++) sum += fabs(lu[i + j * n]) * v[i];
    v[j] = sum;
    if (!(sum < INFINITY)) return INFINITY;
    best = sum > best ? sum : best; /* sum is a number here: fmax's NaN rule is not needed */
  }
  return best;
}

/* Equilibrate, factor, estimate the condition: CPK_ESINGULAR on a zero row or column, a zero
 * pivot or a tiny rcond. */
static int lapack_factor_dense(lapack_state *s, const cpk_csc *A)
{
  int n = s->ni, info = 0;
  double amax, rcond = 0.0;
  lapack_fill(s, A);
  info = lapack_equilibrate(n, s->lu, s->r, s->c, &amax); /* dgeequb's scalings */
  if (info > 0) return CPK_ESINGULAR; /* an exactly zero row or column */
  if (!isfinite(amax)) return CPK_ELINSYS;
  double anorm = lapack_scale(s);
  dgetrf_(&n, &n, s->lu, &n, s->ipiv, &info);
  if (info > 0) return CPK_ESINGULAR;
  if (info < 0) return CPK_ELINSYS;
  double bound = 1.0 / (anorm * lapack_inverse_norm_bound(s)); /* a lower bound on rcond */
  if (bound > 4.0 * LAPACK_SINGULAR_RCOND) return CPK_OK; /* 4: the bound's own rounding */
  dgecon_("1", &n, s->lu, &n, &anorm, &rcond, s->work, s->iwork, &info, 1);
  if (info != 0) return CPK_ELINSYS;
  return rcond > LAPACK_SINGULAR_RCOND ? CPK_OK : CPK_ESINGULAR;
}

/* A failed factorization leaves no valid factors: solves get CPK_EINVAL until the next success. */
static int lapack_factor_begun(lapack_state *s, const cpk_csc *A, int rc)
{
  if (rc) return rc;
  s->base.st.nnz_factors = (double)s->base.n * (double)s->base.n;
  rc = s->base.n > 0 ? lapack_factor_dense(s, A) : CPK_OK;
  return linsys_eta_backend_end_factor(&s->base, rc);
}

static int lapack_factor(void *state, const cpk_csc *A)
{
  lapack_state *s = state;
  return lapack_factor_begun(s, A, linsys_eta_backend_begin_factor(&s->base, A));
}

static int lapack_factor_unchecked(void *state, const cpk_csc *A)
{
  lapack_state *s = state;
  return lapack_factor_begun(s, A, linsys_eta_backend_begin_factor_unchecked(&s->base, A));
}

/* x <- A_0^{-1} x = C (LU)^{-1} R x, or A_0^{-T} x = R (LU)^{-T} C x. */
static int lapack_solve_a0(void *state, double *x, int transpose)
{
  lapack_state *s = state;
  const double *pre = transpose ? s->c : s->r, *post = transpose ? s->r : s->c;
  for (size_t i = 0; i < s->base.n; i++) x[i] *= pre[i];
  cpk_lu_solve1(s->ni, s->lu, s->ipiv, x, transpose);
  for (size_t i = 0; i < s->base.n; i++) x[i] *= post[i];
  return CPK_OK;
}

static const cpk_linsys_type lapack_type = {"lapack",
                                            lapack_alloc,
                                            lapack_factor,
                                            linsys_eta_backend_solve,
                                            linsys_eta_backend_replace_column,
                                            linsys_eta_backend_stats,
                                            lapack_free,
                                            lapack_factor_unchecked};
const cpk_linsys_type *cpk_linsys_lapack = &lapack_type;
