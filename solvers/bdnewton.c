/* bdnewton.c: Pang's B-differentiable Newton method on the mid reformulation of the box MCP, with a Levenberg-Marquardt fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "newton.h"

/*
 * H(z) = z - mid(l, u, z - F(z)). Index i is on the piece H_i = F_i(z)
 * ("free": l < z - F < u) or H_i = z_i - l_i / z_i - u_i ("active"); the
 * B-derivative equation H(z) + H'(z; d) = 0 on that split is the linear
 * system with J's rows on the free set and identity rows elsewhere. At a tie
 * (z - F = l, both pieces equal) H'_i(z; d) = min(d_i, (J d)_i) (max at u),
 * so the equation asks d_i and (J d)_i to be both >= -H_i (<=) with one equal:
 * a small complementarity problem on the ties, solved by switching the row of
 * a tie whose other piece violates its inequality and solving again (Pang's
 * method). Near-ties (the two pieces within TIE_EPS relative) are treated as
 * ties: otherwise iterates pile up on the kink, each piece's Newton step
 * being useless for the other.
 */
enum { PIECE_FREE, PIECE_LOWER, PIECE_UPPER, PIECE_TIE_LOWER, PIECE_TIE_UPPER, PIECE_FIXED };
#define TIE_EPS 1e-2

/* Levenberg-Marquardt parameters tried in turn, relative to the largest squared column norm of V. */
static const double lm_mu[] = {1e-6, 1e-3, 1.0, 1e3};

typedef struct bd_state {
  newton_ws ws;         /* first member: the method callbacks receive &ws */
  unsigned char *piece; /* PIECE_* per index at the current point */
  unsigned char *use_j; /* ties: 1 = the row of J (H_i = F_i), 0 = the identity row */
  const cpk_linsys_type *lm_type;
  cpk_csc *K;           /* [I V; V^T -mu I], built on the first fallback */
  cpk_int *kv, *kvt, *kmu;
  cpk_linsys *lm;
  double *rhs2;
  int lm_failed;        /* the augmented system could not be set up: no fallback */
} bd_state;

static double mid(double l, double u, double y) { return y < l ? l : (y > u ? u : y); }

static double bd_residual(newton_ws *ws, const cpk_problem *p, const double *z, const double *w,
                          double *phi)
{
  double s = 0.0;
  for (size_t i = 0; i < ws->n; i++) {
    phi[i] = ws->rw[i] * (z[i] - mid(p->lower[i], p->upper[i], z[i] - w[i]));
    s += phi[i] * phi[i];
  }
  return isfinite(s) ? 0.5 * s : INFINITY;
}

static int near(double y, double bound, double gap, double f)
{
  return isfinite(bound) && fabs(y - bound) <= TIE_EPS * (fabs(gap) + fabs(f));
}

static int piece_of(double l, double u, double z, double f)
{
  double y = z - f;
  if (l == u) return PIECE_FIXED;
  int tl = near(y, l, z - l, f), tu = near(y, u, z - u, f);
  if (tl && tu) return fabs(y - l) <= fabs(y - u) ? PIECE_TIE_LOWER : PIECE_TIE_UPPER;
  if (tl) return PIECE_TIE_LOWER;
  if (tu) return PIECE_TIE_UPPER;
  if (y < l) return PIECE_LOWER;
  return y > u ? PIECE_UPPER : PIECE_FREE;
}

static void set_row(newton_ws *ws, size_t i, int j_row)
{
  ws->alpha[i] = j_row ? 0.0 : ws->rw[i];
  ws->beta[i] = j_row ? ws->rw[i] : 0.0;
}

static void bd_linearize(newton_ws *ws, const cpk_problem *p)
{
  bd_state *S = (bd_state *)ws;
  for (size_t i = 0; i < ws->n; i++) {
    double l = p->lower[i], u = p->upper[i], y = ws->z[i] - ws->w[i];
    int pc = piece_of(l, u, ws->z[i], ws->w[i]);
    S->piece[i] = (unsigned char)pc;
    /* a tie starts on the side the point is on */
    S->use_j[i] = pc == PIECE_FREE || (pc == PIECE_TIE_LOWER && y > l) ||
                  (pc == PIECE_TIE_UPPER && y < u);
    set_row(ws, i, S->use_j[i]);
  }
}

/* One pass of the tie switching: 1 if some tie changed rows (solve again). */
static int bd_adjust(newton_ws *ws, const cpk_problem *p, const double *d)
{
  bd_state *S = (bd_state *)ws;
  int changed = 0;
  (void)p;
  newton_jmul(ws, d, ws->tmp);
  for (size_t i = 0; i < ws->n; i++) {
    int pc = S->piece[i];
    if (pc != PIECE_TIE_LOWER && pc != PIECE_TIE_UPPER) continue;
    double target = -ws->phi[i] / ws->rw[i], tol = 1e-10 * (1.0 + fabs(target));
    double other = S->use_j[i] ? d[i] : ws->tmp[i]; /* the piece not held equal */
    int bad = pc == PIECE_TIE_LOWER ? other < target - tol : other > target + tol;
    if (bad) {
      S->use_j[i] = !S->use_j[i];
      set_row(ws, i, S->use_j[i]);
      changed = 1;
    }
  }
  return changed;
}

/* theta'(z; d) for theta = 0.5 ||H||^2, with the B-derivative of H at ties. */
static double bd_slope(newton_ws *ws, const cpk_problem *p, const double *d)
{
  bd_state *S = (bd_state *)ws;
  (void)p;
  newton_jmul(ws, d, ws->tmp);
  double s = 0.0;
  for (size_t i = 0; i < ws->n; i++) {
    double dh;
    switch (S->piece[i]) {
    case PIECE_FREE: dh = ws->tmp[i]; break;
    case PIECE_TIE_LOWER: dh = fmin(d[i], ws->tmp[i]); break;
    case PIECE_TIE_UPPER: dh = fmax(d[i], ws->tmp[i]); break;
    default: dh = d[i];
    }
    s += ws->phi[i] * ws->rw[i] * dh;
  }
  return s;
}

/* ---- Levenberg-Marquardt fallback ------------------------------------------------ */

/*
 * d minimises ||H + V d||^2 + mu ||d||^2, i.e. (V^T V + mu I) d = -V^T H,
 * computed from the quasi-definite augmented system
 *   [ I    V   ] [r]   [-H]
 *   [ V^T -mu I] [d] = [ 0]
 * whose pattern is fixed, so its symbolic analysis is done once too, and
 * which avoids forming V^T V (and squaring V's condition number).
 */
static int lm_build_pattern(bd_state *S)
{
  const cpk_csc *A = S->ws.A;
  size_t n = S->ws.n, nnz = (size_t)A->p[n], n2, nnz2, nnzk;
  if (cpk_size_mul(n, 2, &n2) || cpk_size_mul(nnz, 2, &nnz2) || nnz2 > SIZE_MAX - n2 ||
      nnz2 + n2 > (size_t)INT64_MAX)
    return CPK_EOVERFLOW;
  nnzk = nnz2 + n2;
  cpk_int *next = cpk_calloc_array(n, sizeof *next);
  int rc = cpk_csc_alloc((cpk_int)n2, (cpk_int)n2, (cpk_int)nnzk, &S->K);
  S->kv = cpk_alloc_array(nnz, sizeof *S->kv);
  S->kvt = cpk_alloc_array(nnz, sizeof *S->kvt);
  S->kmu = cpk_alloc_array(n, sizeof *S->kmu);
  S->rhs2 = cpk_alloc_array(n2, sizeof *S->rhs2);
  if (rc || !next || !S->kv || !S->kvt || !S->kmu || !S->rhs2) {
    free(next);
    return rc ? rc : CPK_ENOMEM;
  }
  cpk_csc *K = S->K;
  for (size_t a = 0; a < nnz; a++) next[A->i[a]]++; /* row counts of V */
  K->p[0] = 0;
  for (size_t j = 0; j < n; j++) K->p[j + 1] = K->p[j] + 1 + next[j];
  for (size_t j = 0; j < n; j++) K->p[n + j + 1] = K->p[n + j] + (A->p[j + 1] - A->p[j]) + 1;
  for (size_t j = 0; j < n; j++) { /* identity block first: row j leads column j */
    K->i[K->p[j]] = (cpk_int)j;
    K->x[K->p[j]] = 1.0;
    next[j] = K->p[j] + 1;
  }
  for (size_t k = 0; k < n; k++) {
    for (cpk_int a = A->p[k]; a < A->p[k + 1]; a++) {
      cpk_int i = A->i[a], slot = next[i]++;
      K->i[slot] = (cpk_int)(n + k); /* V^T: row n+k of column i */
      S->kvt[a] = slot;
      S->kv[a] = K->p[n + k] + (a - A->p[k]);
      K->i[S->kv[a]] = i;
    }
    S->kmu[k] = K->p[n + k + 1] - 1;
    K->i[S->kmu[k]] = (cpk_int)(n + k);
  }
  free(next);
  rc = cpk_csc_check(K);
  return rc ? rc : cpk_linsys_alloc(S->lm_type, n2, &S->lm);
}

static double max_col_norm2(const cpk_csc *A)
{
  double m = 0.0;
  for (cpk_int j = 0; j < A->n; j++) {
    double s = 0.0;
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) s += A->x[k] * A->x[k];
    m = fmax(m, s);
  }
  return m > 0.0 ? m : 1.0;
}

static int bd_fallback(newton_ws *ws, const cpk_problem *p, int attempt, double *d)
{
  bd_state *S = (bd_state *)ws;
  size_t n = ws->n;
  (void)p;
  if (attempt >= (int)(sizeof lm_mu / sizeof lm_mu[0])) return NEWTON_NO_FALLBACK;
  if (!S->lm) {
    int rc = S->lm_failed ? CPK_EINVAL : lm_build_pattern(S);
    S->lm_failed = rc != CPK_OK;
    if (rc) return rc == CPK_ENOMEM ? rc : NEWTON_NO_FALLBACK;
  }
  const cpk_csc *A = ws->A;
  double mu = lm_mu[attempt] * max_col_norm2(A);
  for (cpk_int a = 0; a < A->p[n]; a++) S->K->x[S->kv[a]] = S->K->x[S->kvt[a]] = A->x[a];
  for (size_t k = 0; k < n; k++) S->K->x[S->kmu[k]] = -mu;
  double t0 = cpk_wtime();
  int rc = cpk_linsys_factor(S->lm, S->K);
  ws->extra_factorizations++;
  ws->extra_factor_time += cpk_wtime() - t0;
  if (rc) return rc == CPK_ENOMEM ? rc : CPK_ESINGULAR;
  for (size_t i = 0; i < n; i++) {
    S->rhs2[i] = -ws->phi[i];
    S->rhs2[n + i] = 0.0;
  }
  if ((rc = cpk_linsys_solve(S->lm, S->rhs2, 0))) return rc;
  memcpy(d, S->rhs2 + n, n * sizeof *d);
  return CPK_OK;
}

/* ---- the solver type ----------------------------------------------------------------- */

static const newton_method bd_method = {"bdnewton", bd_residual, bd_linearize, bd_adjust,
                                        bd_slope, bd_fallback, 0};

static void bd_free(void *state)
{
  bd_state *S = state;
  if (!S) return;
  newton_ws_release(&S->ws);
  free(S->piece);
  free(S->use_j);
  cpk_csc_free(S->K);
  free(S->kv);
  free(S->kvt);
  free(S->kmu);
  free(S->rhs2);
  cpk_linsys_free(S->lm);
  free(S);
}

static int bd_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *state = NULL;
  bd_state *S = calloc(1, sizeof *S);
  if (!S) return cpk_error_set(err, CPK_ENOMEM, "bdnewton: out of memory");
  int rc = newton_ws_init(&S->ws, &bd_method, p, s, err);
  if (!rc && (!(S->piece = cpk_calloc_array(p->n, 1)) || !(S->use_j = cpk_calloc_array(p->n, 1))))
    rc = cpk_error_set(err, CPK_ENOMEM, "bdnewton: out of memory");
  if (rc) {
    bd_free(S);
    return rc;
  }
  S->lm_type = newton_choose_linsys(p, s);
  *state = S;
  return CPK_OK;
}

static int bd_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                    cpk_result *r)
{
  return newton_run(&((bd_state *)state)->ws, p, s, mon, r);
}

static const cpk_solver_type bd_type = {
    "bdnewton",
    "B-differentiable Newton (Pang 1990) on z - mid(l, u, z - F), Armijo, LM fallback, dense/UMFPACK",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP | CPK_KIND_NONLINEAR_MCP,
    newton_default_max_iter,
    bd_alloc,
    bd_solve,
    bd_free};

const cpk_solver_type *cpk_solver_bdnewton = &bd_type;
