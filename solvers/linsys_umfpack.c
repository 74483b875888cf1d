/* linsys_umfpack.c: the "umfpack" linsys backend: UMFPACK LU with a product-form (eta) update. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>

/* UMFPACK flags only exact zero pivots; an rcond estimate at or below this is singular too. */
#define UMF_SINGULAR_RCOND (1e3 * DBL_EPSILON)
/* An eta pivot |alpha_p| at or below this times max|alpha| makes the replacement singular. */
#define ETA_PIVOT_TOL 1e-12

/*
 * The factored matrix is A_k = A_0 E_1 ... E_k: A_0 = LU by UMFPACK, E_m the
 * identity with column piv[m] replaced by alpha_m. Each eta stores alpha_m's
 * pivot entry in pval[m] and its other non-zeros in ent_idx/ent_val
 * [start[m], start[m+1]).
 */
typedef struct umf_state {
  size_t n;
  void *symbolic, *numeric;   /* NULL until set */
  SuiteSparse_long *Ap, *Ai;  /* pattern of the last symbolic analysis (A_0's) */
  double *Ax;                 /* A_0's values, for UMFPACK's iterative refinement */
  size_t cap;                 /* room in Ai and Ax */
  int have_pattern, factored;
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  SuiteSparse_long *Wi;       /* umfpack_dl_wsolve workspace: solves never allocate */
  double *W, *rhs, *alpha;
  size_t neta, eta_cap, nent, ent_cap;
  size_t *start, *piv, *ent_idx;
  double *pval, *ent_val;
  cpk_linsys_stats st;
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
  free(s->alpha);
  free(s->start);
  free(s->piv);
  free(s->pval);
  free(s->ent_idx);
  free(s->ent_val);
  free(s);
}

static int umf_alloc_arrays(umf_state *s)
{
  size_t n = s->n, n5, np1 = n + 1;
  if (np1 == 0 || cpk_size_mul(n, 5, &n5)) return CPK_EOVERFLOW;
  s->eta_cap = 64;
  s->ent_cap = n > (SIZE_MAX - 64) / 2 ? SIZE_MAX : 2 * n + 64;
  s->Ap = cpk_alloc_array(np1, sizeof *s->Ap);
  s->Wi = cpk_alloc_array(n, sizeof *s->Wi);
  s->W = cpk_alloc_array(n5, sizeof *s->W);
  s->rhs = cpk_alloc_array(n, sizeof *s->rhs);
  s->alpha = cpk_alloc_array(n, sizeof *s->alpha);
  s->start = cpk_alloc_array(s->eta_cap + 1, sizeof *s->start);
  s->piv = cpk_alloc_array(s->eta_cap, sizeof *s->piv);
  s->pval = cpk_alloc_array(s->eta_cap, sizeof *s->pval);
  s->ent_idx = cpk_alloc_array(s->ent_cap, sizeof *s->ent_idx);
  s->ent_val = cpk_alloc_array(s->ent_cap, sizeof *s->ent_val);
  if (!s->Ap || !s->Wi || !s->W || !s->rhs || !s->alpha || !s->start || !s->piv || !s->pval ||
      !s->ent_idx || !s->ent_val)
    return CPK_ENOMEM;
  s->start[0] = 0;
  return CPK_OK;
}

static int umf_alloc(void **state, size_t n)
{
  *state = NULL;
  if ((unsigned long long)n > (unsigned long long)INT64_MAX) return CPK_EOVERFLOW;
  umf_state *s = calloc(1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  s->n = n;
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
  for (size_t k = 0; k <= s->n; k++)
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
  for (size_t k = 0; k <= s->n; k++) s->Ap[k] = A->p[k];
  for (size_t k = 0; k < nnz; k++) s->Ai[k] = A->i[k];
  SuiteSparse_long n = (SuiteSparse_long)s->n;
  SuiteSparse_long status =
      umfpack_dl_symbolic(n, n, s->Ap, s->Ai, A->x, &s->symbolic, s->control, s->info);
  s->st.symbolic++;
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
      s->st.nnz_factors = (double)lnz + (double)unz;
  }
  return rc;
}

/* A failed factorization leaves no valid factors: solves get CPK_EINVAL until the next success. */
static int umf_factor(void *state, const cpk_csc *A)
{
  umf_state *s = state;
  if (!A || A->m != A->n || (size_t)A->n != s->n) return CPK_EINVAL;
  if (cpk_csc_check(A)) return CPK_EBADMAT;
  double t0 = cpk_wtime();
  s->factored = 0;
  s->neta = s->nent = 0;
  s->st.updates_since_factor = 0;
  s->st.nnz_updates = 0.0;
  s->st.factorizations++;
  int rc = CPK_OK;
  if (s->n > 0) { /* UMFPACK rejects n = 0; the empty matrix needs no factors */
    if (!umf_same_pattern(s, A)) rc = umf_new_pattern(s, A);
    if (rc == CPK_OK) rc = umf_numeric(s, A);
  } else {
    s->st.nnz_factors = 0.0;
  }
  s->factored = (rc == CPK_OK);
  s->st.factor_time_s += cpk_wtime() - t0;
  return rc;
}

/* y <- E_k^{-1} ... E_1^{-1} y */
static void eta_apply(const umf_state *s, double *y)
{
  for (size_t m = 0; m < s->neta; m++) {
    double yp = y[s->piv[m]] / s->pval[m];
    y[s->piv[m]] = yp;
    if (yp == 0.0) continue;
    for (size_t k = s->start[m]; k < s->start[m + 1]; k++) y[s->ent_idx[k]] -= s->ent_val[k] * yp;
  }
}

/* y <- E_1^{-T} ... E_k^{-T} y: only the pivot entry of each E^T x = b changes. */
static void eta_apply_transposed(const umf_state *s, double *y)
{
  for (size_t m = s->neta; m-- > 0;) {
    double v = y[s->piv[m]];
    for (size_t k = s->start[m]; k < s->start[m + 1]; k++) v -= s->ent_val[k] * y[s->ent_idx[k]];
    y[s->piv[m]] = v / s->pval[m];
  }
}

static int umf_solve_inplace(umf_state *s, double *x, int transpose)
{
  if (s->n == 0) return CPK_OK;
  if (transpose) eta_apply_transposed(s, x);
  memcpy(s->rhs, x, s->n * sizeof *x);
  SuiteSparse_long status =
      umfpack_dl_wsolve(transpose ? UMFPACK_At : UMFPACK_A, s->Ap, s->Ai, s->Ax, x, s->rhs,
                        s->numeric, s->control, s->info, s->Wi, s->W);
  if (status != UMFPACK_OK) return umf_status(status);
  if (!transpose) eta_apply(s, x);
  return CPK_OK;
}

static int umf_solve(void *state, double *x, int transpose)
{
  umf_state *s = state;
  if (!s->factored || (s->n > 0 && !x)) return CPK_EINVAL;
  s->st.solves++;
  return umf_solve_inplace(s, x, transpose);
}

/* Make room for one more eta with `extra` off-pivot entries (doubling; may reallocate). */
static int eta_reserve(umf_state *s, size_t extra)
{
  if (s->neta == s->eta_cap) {
    size_t cap = s->eta_cap * 2;
    if (cap < s->eta_cap || cap + 1 == 0 || cap > SIZE_MAX / sizeof(size_t)) return CPK_EOVERFLOW;
    size_t *st = realloc(s->start, (cap + 1) * sizeof *st);
    if (st) s->start = st;
    size_t *pv = realloc(s->piv, cap * sizeof *pv);
    if (pv) s->piv = pv;
    double *pl = realloc(s->pval, cap * sizeof *pl);
    if (pl) s->pval = pl;
    if (!st || !pv || !pl) return CPK_ENOMEM; /* grown arrays stay valid, cap unchanged */
    s->eta_cap = cap;
  }
  if (extra > s->ent_cap - s->nent) {
    size_t need = s->nent + extra, cap = s->ent_cap;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    if (cap > SIZE_MAX / sizeof(size_t)) return CPK_EOVERFLOW;
    size_t *ix = realloc(s->ent_idx, cap * sizeof *ix);
    if (ix) s->ent_idx = ix;
    double *vl = realloc(s->ent_val, cap * sizeof *vl);
    if (vl) s->ent_val = vl;
    if (!ix || !vl) return CPK_ENOMEM;
    s->ent_cap = cap;
  }
  return CPK_OK;
}

/*
 * The eta file grows here (eta_reserve may reallocate): the only allocation
 * outside alloc and pattern changes, amortised by doubling and reset by factor.
 */
static int umf_replace_column(void *state, size_t j, const double *col, const double *Ainv_col)
{
  umf_state *s = state;
  if (!s->factored || j >= s->n || !col) return CPK_EINVAL;
  double *a = s->alpha;
  memcpy(a, Ainv_col ? Ainv_col : col, s->n * sizeof *a);
  int rc = Ainv_col ? CPK_OK : umf_solve_inplace(s, a, 0);
  if (rc) return rc;
  double amax = 0.0;
  size_t nz = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (!isfinite(a[i])) return CPK_ESINGULAR;
    if (fabs(a[i]) > amax) amax = fabs(a[i]);
    if (i != j && a[i] != 0.0) nz++;
  }
  if (!(fabs(a[j]) > ETA_PIVOT_TOL * amax)) return CPK_ESINGULAR;
  if ((rc = eta_reserve(s, nz))) return rc;
  size_t k = s->nent;
  for (size_t i = 0; i < s->n; i++)
    if (i != j && a[i] != 0.0) {
      s->ent_idx[k] = i;
      s->ent_val[k++] = a[i];
    }
  s->piv[s->neta] = j;
  s->pval[s->neta] = a[j];
  s->nent = k;
  s->start[++s->neta] = k;
  s->st.updates++;
  s->st.updates_since_factor++;
  s->st.nnz_updates = (double)(s->nent + s->neta);
  return CPK_OK;
}

static void umf_stats(const void *state, cpk_linsys_stats *st)
{
  const umf_state *s = state;
  *st = s->st;
}

static const cpk_linsys_type umf_type = {"umfpack", umf_alloc,          umf_factor, umf_solve,
                                         umf_replace_column, umf_stats, umf_free};
const cpk_linsys_type *cpk_linsys_umfpack = &umf_type;
