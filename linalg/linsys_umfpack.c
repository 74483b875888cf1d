/* linsys_umfpack.c: the "umfpack" linsys backend: UMFPACK LU with a product-form (eta) update. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>
#include "linsys_eta.h"

/* UMFPACK flags only exact zero pivots; an rcond estimate at or below this is singular too. */
#define UMF_SINGULAR_RCOND (1e3 * DBL_EPSILON)

/* The factored matrix is A_k = A_0 E_1 ... E_k: A_0 = LU by UMFPACK, the E_m in `eta`. */
typedef struct umf_state {
  linsys_eta_backend base;   /* first: n, factored, the eta file, stats */
  void *symbolic, *numeric;   /* NULL until set */
  SuiteSparse_long *Ap, *Ai;  /* pattern of the last symbolic analysis (A_0's) */
  double *Ax;                 /* A_0's values, for UMFPACK's iterative refinement */
  size_t cap;                 /* room in Ai and Ax */
  int have_pattern;
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  SuiteSparse_long *Wi;       /* umfpack_dl_wsolve workspace: solves never allocate */
  double *W, *rhs;
} umf_state;

static void umf_free(void *state)
{
  umf_state *s = state;
  if (!s) return;
  if (s->numeric) umfpack_dl_free_numeric(&s->numeric);
  if (s->symbolic) umfpack_dl_free_symbolic(&s->symbolic);
  free(s->Ap);
  free(s->Ai);
  free(s->Ax);
  free(s->Wi);
  free(s->W);
  free(s->rhs);
  linsys_eta_backend_release(&s->base);
  free(s);
}

static int umf_alloc_arrays(umf_state *s)
{
  size_t n = s->base.n, n5, np1 = n + 1;
  if (np1 == 0 || cpk_size_mul(n, 5, &n5)) return CPK_EOVERFLOW;
  s->Ap = cpk_alloc_array(np1, sizeof *s->Ap);
  s->Wi = cpk_alloc_array(n, sizeof *s->Wi);
  s->W = cpk_alloc_array(n5, sizeof *s->W);
  s->rhs = cpk_alloc_array(n, sizeof *s->rhs);
  s->base.alpha = cpk_alloc_array(n, sizeof *s->base.alpha);
  if (!s->Ap || !s->Wi || !s->W || !s->rhs || !s->base.alpha) return CPK_ENOMEM;
  return linsys_eta_alloc(&s->base.eta, n);
}

static int umf_solve_a0(void *state, double *x, int transpose);

static int umf_alloc(void **state, size_t n)
{
  *state = NULL;
  if ((unsigned long long)n > (unsigned long long)INT64_MAX) return CPK_EOVERFLOW;
  umf_state *s = calloc(1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  s->base.n = n;
  s->base.solve_a0 = umf_solve_a0;
  s->base.st.sparse = 1;
  umfpack_dl_defaults(s->control);
  int rc = umf_alloc_arrays(s);
  if (rc) {
    umf_free(s);
    return rc;
  }
  *state = s;
  return CPK_OK;
}

static int umf_status(SuiteSparse_long status)
{
  switch (status) {
  case UMFPACK_OK: return CPK_OK;
  case UMFPACK_WARNING_singular_matrix: return CPK_ESINGULAR;
  case UMFPACK_ERROR_out_of_memory: return CPK_ENOMEM;
  case UMFPACK_ERROR_invalid_matrix: return CPK_EBADMAT;
  default: return CPK_ELINSYS;
  }
}

static int umf_same_pattern(const umf_state *s, const cpk_csc *A)
{
  if (!s->have_pattern) return 0;
  for (size_t k = 0; k <= s->base.n; k++)
    if (s->Ap[k] != A->p[k]) return 0;
  for (cpk_int k = 0; k < A->p[A->n]; k++)
    if (s->Ai[k] != A->i[k]) return 0;
  return 1;
}

/* Copy and analyse a new pattern; the numeric object belongs to the old one, so it goes too. */
static int umf_new_pattern(umf_state *s, const cpk_csc *A)
{
  size_t nnz = (size_t)A->p[A->n];
  s->have_pattern = 0;
  if (s->numeric) umfpack_dl_free_numeric(&s->numeric);
  if (s->symbolic) umfpack_dl_free_symbolic(&s->symbolic);
  if (nnz > s->cap || !s->Ai) {
    SuiteSparse_long *ai = cpk_alloc_array(nnz, sizeof *ai);
    double *ax = cpk_alloc_array(nnz, sizeof *ax);
    if (!ai || !ax) {
      free(ai);
      free(ax);
      return CPK_ENOMEM;
    }
    free(s->Ai);
    free(s->Ax);
    s->Ai = ai;
    s->Ax = ax;
    s->cap = nnz;
  }
  for (size_t k = 0; k <= s->base.n; k++) s->Ap[k] = A->p[k];
  for (size_t k = 0; k < nnz; k++) s->Ai[k] = A->i[k];
  SuiteSparse_long n = (SuiteSparse_long)s->base.n;
  SuiteSparse_long status =
      umfpack_dl_symbolic(n, n, s->Ap, s->Ai, A->x, &s->symbolic, s->control, s->info);
  s->base.st.symbolic++;
  if (status != UMFPACK_OK) return umf_status(status);
  s->have_pattern = 1;
  return CPK_OK;
}

static int umf_numeric(umf_state *s, const cpk_csc *A)
{
  size_t nnz = (size_t)A->p[A->n];
  if (nnz > 0) memcpy(s->Ax, A->x, nnz * sizeof *s->Ax);
  if (s->numeric) umfpack_dl_free_numeric(&s->numeric);
  SuiteSparse_long status =
      umfpack_dl_numeric(s->Ap, s->Ai, s->Ax, s->symbolic, &s->numeric, s->control, s->info);
  int rc = umf_status(status);
  double rcond = s->info[UMFPACK_RCOND];
  if (rc == CPK_OK && !(rcond > UMF_SINGULAR_RCOND)) rc = CPK_ESINGULAR;
  if (rc == CPK_OK) {
    SuiteSparse_long lnz, unz, nr, nc, nzud;
    if (umfpack_dl_get_lunz(&lnz, &unz, &nr, &nc, &nzud, s->numeric) == UMFPACK_OK)
      s->base.st.nnz_factors = (double)lnz + (double)unz;
  }
  return rc;
}

/* A failed factorization leaves no valid factors: solves get CPK_EINVAL until the next success. */
static int umf_factor_begun(umf_state *s, const cpk_csc *A, int rc)
{
  if (rc) return rc;
  if (s->base.n > 0) { /* UMFPACK rejects n = 0; the empty matrix needs no factors */
    if (!umf_same_pattern(s, A)) rc = umf_new_pattern(s, A);
    if (rc == CPK_OK) rc = umf_numeric(s, A);
  } else {
    s->base.st.nnz_factors = 0.0;
  }
  return linsys_eta_backend_end_factor(&s->base, rc);
}

static int umf_factor(void *state, const cpk_csc *A)
{
  umf_state *s = state;
  return umf_factor_begun(s, A, linsys_eta_backend_begin_factor(&s->base, A));
}

static int umf_factor_unchecked(void *state, const cpk_csc *A)
{
  umf_state *s = state;
  return umf_factor_begun(s, A, linsys_eta_backend_begin_factor_unchecked(&s->base, A));
}

/* x <- A_0^{-1} x or A_0^{-T} x by UMFPACK (with its iterative refinement against A_0). */
static int umf_solve_a0(void *state, double *x, int transpose)
{
  umf_state *s = state;
  memcpy(s->rhs, x, s->base.n * sizeof *x);
  SuiteSparse_long status =
      umfpack_dl_wsolve(transpose ? UMFPACK_At : UMFPACK_A, s->Ap, s->Ai, s->Ax, x, s->rhs,
                        s->numeric, s->control, s->info, s->Wi, s->W);
  return status == UMFPACK_OK ? CPK_OK : umf_status(status);
}

static const cpk_linsys_type umf_type = {"umfpack",
                                         umf_alloc,
                                         umf_factor,
                                         linsys_eta_backend_solve,
                                         linsys_eta_backend_replace_column,
                                         linsys_eta_backend_stats,
                                         umf_free,
                                         umf_factor_unchecked};
const cpk_linsys_type *cpk_linsys_umfpack = &umf_type;
