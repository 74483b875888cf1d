/* lemke.c: Lemke's complementary pivoting method (Scheme I) for LCPs and affine box MCPs. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "lemke_basis.h"
#include "lemke_crash.h"
#include "lemke_murty.h"
#include "lemke_repair.h"
#include "lemke_resolve.h"

/*
 * Bounded variables are handled directly, as in PATH's pivotal method: every
 * pair (z_i, s_i = F_i) has one basic member. z_i nonbasic sits at l_i or u_i
 * and then s_i is basic with s_i >= 0 (z at l) or s_i <= 0 (z at u); z_i basic
 * keeps l_i <= z_i <= u_i and s_i = 0. The artificial t covers the start:
 * as t grows every basic variable moves at rate c_k towards feasibility.
 * Degeneracy is resolved lexicographically, so it never cycles: q is
 * perturbed symbolically to q + e r + e^2 e_1 + ... + e^{n+1} e_n (r a fixed
 * generic vector), whose basic values are x_B + e B^{-1} r + e^2 (B^{-1})_1 + ...
 * B^{-1} r is carried along like x_B (O(n) a pivot, no solve), and it alone
 * breaks ties except with probability zero; only then are rows of B^{-1} solved for.
 */

enum { STEP_BLOCK, STEP_FLIP, STEP_RAY, STEP_SOLVED };
#define LEMKE_SEEN 64
enum { RUN_DONE = 0, RUN_RETRY_COLD = -1 };

typedef struct lemke_state {
  size_t n;
  lemke_basis basis;
  double *a_t;      /* artificial column */
  double *c;        /* rates of the basic variables as t grows at the start */
  double *xb;       /* basic values, by position */
  double *alpha;    /* B^{-1} times the entering column */
  double *col;      /* entering column */
  double *key, *best_key, *work;
  double *pert;     /* B^{-1} r: the first-order part of the perturbed basic values */
  int pert_valid;   /* pert is B^{-1} r for the current basis (made at the first tie after a factorization) */
  double *rvec;     /* r */
  size_t *cand;     /* tied positions in a ratio test */
  double *cdiv;     /* their lexicographic divisors */
  int *zstate;      /* cpk_var_state of each z_i */
  double *repair_work; /* n * n, for a singular warm basis (lemke_repair.c); NULL above LEMKE_REPAIR_MAX_N */
  size_t *repair_idx;
  long repairs;     /* warm bases repaired in this solve */
  long pivots, flips, ties, full_lex, ray_rechecks, restarts;
  long murty_moves; /* moves of Murty's fallback in this solve (work the iterations count) */
  cpk_linsys_stats ls0;     /* the backend's counts when this solve began (stats are per solve) */
  const cpk_linsys *ls0_of; /* the backend they belong to (a fallback starts a new one) */
  size_t ray_entering; /* the variable that entered when the last run ended on a ray */
  int free_singular;   /* the last cold start failed: the free variables' block is singular */
  double mnorm;     /* ||M||_inf, the ray checks' scale (NAN until measured: lemke_solve, ray_mnorm) */
  int monitor_stop; /* the last run was stopped by a limit or the callback */
  uint64_t seen[LEMKE_SEEN];   /* hashes of the most recent bases, to detect cycling */
  size_t nseen;
  lemke_resolve resolve; /* last basis and ||M|| kept for re-solves (lemke_resolve.c) */
} lemke_state;

typedef struct lemke_step {
  int kind;
  size_t k;        /* blocking position */
  double theta;    /* step length */
  int hits_upper;  /* the blocking variable leaves at its upper bound */
} lemke_step;

/*
 * Pivots are cheap and some paths are long (Murty's n = 12: 4096 pivots in a
 * few milliseconds), so the default only guards against runaways: 2^20 + 50 n.
 * A time limit (--time-limit) is what should bound a solve.
 */
static long lemke_default_max_iter(const cpk_problem *p)
{
  long n = p->n > (size_t)(LONG_MAX / 100) ? LONG_MAX / 100 : (long)p->n;
  return (1L << 20) + 50 * n;
}

static void lemke_free(void *vs)
{
  lemke_state *S = vs;
  if (!S) return;
  lemke_basis_free(&S->basis);
  free(S->a_t);
  free(S->c);
  free(S->xb);
  free(S->alpha);
  free(S->col);
  free(S->key);
  free(S->best_key);
  free(S->work);
  free(S->pert);
  free(S->rvec);
  free(S->zstate);
  free(S->cand);
  free(S->cdiv);
  free(S->repair_work);
  free(S->repair_idx);
  lemke_resolve_free(&S->resolve);
  free(S);
}

static const cpk_linsys_type *choose_linsys(const cpk_problem *p, const cpk_settings *s)
{
  if (s->linsys) return s->linsys;
  return (p->M->format == CPK_MATRIX_DENSE || p->n <= 100) ? cpk_linsys_lapack : cpk_linsys_umfpack;
}

static int lemke_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  size_t n = p->n;
  lemke_state *S = calloc(1, sizeof *S);
  *out = NULL;
  if (!S) return CPK_ENOMEM;
  S->n = n;
  double **vecs[] = {&S->a_t, &S->c,        &S->xb,   &S->alpha,
                     &S->col, &S->key,      &S->best_key, &S->work, &S->cdiv,
                     &S->pert, &S->rvec};
  int rc = CPK_OK;
  for (size_t v = 0; v < sizeof vecs / sizeof vecs[0]; v++)
    if (!(*vecs[v] = cpk_calloc_array(n, sizeof(double)))) rc = CPK_ENOMEM;
  if (!(S->zstate = cpk_calloc_array(n, sizeof *S->zstate))) rc = CPK_ENOMEM;
  if (!(S->cand = cpk_calloc_array(n, sizeof *S->cand))) rc = CPK_ENOMEM;
  if (!rc) rc = lemke_resolve_alloc(&S->resolve, n);
  if (!rc && n > 0 && n <= LEMKE_REPAIR_MAX_N) {
    S->repair_work = cpk_alloc_array(n * n, sizeof *S->repair_work);
    S->repair_idx = cpk_alloc_array(n, sizeof *S->repair_idx);
    if (!S->repair_work || !S->repair_idx) rc = CPK_ENOMEM;
  }
  if (!rc) {
    const cpk_linsys_type *T = choose_linsys(p, s);
    long interval = s->lemke.refactor_interval;
    if (T == cpk_linsys_dense && interval < (long)n) interval = (long)n; /* keeps O(n^2) per pivot */
    /* Dense LU: a refactor costs ~20-120 solves, an eta ~3/n of one: n/4 balances them. */
    if (T == cpk_linsys_lapack && interval == CPK_DEFAULT_LEMKE_REFACTOR)
      interval = n / 4 > 32 ? (long)(n / 4) : 32;
    rc = lemke_basis_alloc(&S->basis, p, T, S->a_t, interval);
  }
  if (rc) {
    lemke_free(S);
    return cpk_error_set(err, rc, "lemke: cannot allocate the workspace for n = %zu", n);
  }
  *out = S;
  return CPK_OK;
}

/* ---- variables ---------------------------------------------------------- */

static void var_bounds(const lemke_state *S, const cpk_problem *p, size_t v, double *lo, double *up)
{
  size_t n = S->n;
  if (v < n) {
    *lo = p->lower[v];
    *up = p->upper[v];
  } else if (v < 2 * n) {
    size_t i = v - n;
    int fixed = p->lower[i] == p->upper[i];
    *lo = (S->zstate[i] == CPK_VAR_AT_LOWER || fixed) ? (fixed ? -INFINITY : 0.0) : -INFINITY;
    *up = (S->zstate[i] == CPK_VAR_AT_UPPER || fixed) ? (fixed ? INFINITY : 0.0) : INFINITY;
  } else {
    *lo = 0.0;
    *up = INFINITY;
  }
}

static double nonbasic_z(const lemke_state *S, const cpk_problem *p, size_t i)
{
  if (S->zstate[i] == CPK_VAR_AT_LOWER) return p->lower[i];
  if (S->zstate[i] == CPK_VAR_AT_UPPER) return p->upper[i];
  return 0.0;
}

/* x_B = B^{-1} (q + M z_N), from scratch; B^{-1} r is made afresh at the next tie. */
static int compute_xb(lemke_state *S, const cpk_problem *p)
{
  for (size_t i = 0; i < S->n; i++) S->work[i] = nonbasic_z(S, p, i);
  cpk_matrix_mv(p->M, S->work, S->xb, 0);
  for (size_t i = 0; i < S->n; i++) S->xb[i] += p->q[i];
  S->pert_valid = 0;
  return lemke_basis_solve(&S->basis, S->xb, 0);
}

/*
 * B^{-1} r, solved when a tie first needs it after a factorization and then
 * carried along by the pivots, so problems without ties pay nothing for it.
 */
static int ensure_pert(lemke_state *S)
{
  if (S->pert_valid) return CPK_OK;
  memcpy(S->pert, S->rvec, S->n * sizeof *S->pert);
  int rc = lemke_basis_solve(&S->basis, S->pert, 0);
  S->pert_valid = rc == CPK_OK;
  return rc;
}

static void extract_z(const lemke_state *S, const cpk_problem *p, double *z)
{
  for (size_t i = 0; i < S->n; i++) {
    long k = S->basis.pos[LEMKE_VAR_Z(&S->basis, i)];
    if (k < 0) {
      z[i] = nonbasic_z(S, p, i);
      continue;
    }
    double v = S->xb[k];
    z[i] = v < p->lower[i] ? p->lower[i] : (v > p->upper[i] ? p->upper[i] : v);
  }
}

/* ---- the starting basis ------------------------------------------------- */

static int coerce_state(const cpk_problem *p, size_t i, int want)
{
  int has_l = isfinite(p->lower[i]), has_u = isfinite(p->upper[i]);
  if (want == CPK_VAR_AT_LOWER && has_l) return want;
  if (want == CPK_VAR_AT_UPPER && has_u) return want;
  if (want == CPK_VAR_BASIC || (!has_l && !has_u)) return CPK_VAR_BASIC;
  return has_l ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
}

static int state_from_point(const cpk_problem *p, size_t i, double z)
{
  double scale = 1e-12 * (1.0 + fabs(z));
  if (isfinite(p->lower[i]) && z <= p->lower[i] + scale) return CPK_VAR_AT_LOWER;
  if (isfinite(p->upper[i]) && z >= p->upper[i] - scale) return CPK_VAR_AT_UPPER;
  return CPK_VAR_BASIC;
}

/* Position i holds z_i when it is basic, else its slack s_i. */
static void place_basis(lemke_state *S)
{
  lemke_basis *b = &S->basis;
  for (size_t v = 0; v < 2 * S->n + 1; v++) b->pos[v] = -1;
  for (size_t i = 0; i < S->n; i++) {
    b->head[i] = S->n + 1; /* nothing yet */
    lemke_basis_set(b, i, S->zstate[i] == CPK_VAR_BASIC ? LEMKE_VAR_Z(b, i) : LEMKE_VAR_S(b, i));
  }
}

/* Cold start: every bounded z at a bound, free z basic. Warm: the given basis or point. */
static void set_initial_basis(lemke_state *S, const cpk_problem *p, const cpk_settings *s, int warm)
{
  for (size_t i = 0; i < S->n; i++) {
    int want = CPK_VAR_AT_LOWER;
    if (warm && s->basis0) want = s->basis0[i];
    else if (warm && s->z0) want = state_from_point(p, i, s->z0[i]);
    S->zstate[i] = coerce_state(p, i, want);
  }
  place_basis(S);
}

/*
 * A warm basis that has become singular (a physics engine's last basis after
 * its contacts moved: redundant contacts make M_BB rank-deficient) is
 * repaired instead of dropped: its dependent basic variables go to a bound
 * (lemke_repair.c), and the warm path starts from the rest.
 */
static int repair_warm_basis(lemke_state *S, const cpk_problem *p)
{
  size_t dropped;
  if (!S->repair_work) return CPK_ESINGULAR;
  int rc = lemke_repair_basis(p, S->zstate, S->repair_work, S->repair_idx, &dropped);
  if (rc || dropped == 0) return CPK_ESINGULAR;
  S->repairs++;
  place_basis(S);
  return lemke_basis_factor(&S->basis);
}

/* ---- covering vector and the artificial column -------------------------- */

/*
 * Rate c_k of basic position k as t grows: towards feasibility on one-sided
 * rows (as d > 0 in the textbook LCP case), zero on free rows and on
 * two-sided rows that are already strictly inside. a_t = -B c, so that
 * B^{-1} a_t = -c exactly.
 */
static void set_covering(lemke_state *S, const cpk_problem *p, const cpk_settings *s)
{
  size_t n = S->n;
  lemke_basis *b = &S->basis;
  for (size_t k = 0; k < n; k++) {
    size_t v = b->head[k];
    double lo, up, d = s->lemke.covering ? s->lemke.covering[v % n] : 1.0;
    var_bounds(S, p, v, &lo, &up);
    double margin = 1e-9 * (1.0 + fabs(S->xb[k]));
    if (isinf(lo) && isinf(up)) S->c[k] = 0.0;
    else if (isinf(up)) S->c[k] = d;
    else if (isinf(lo)) S->c[k] = -d;
    else S->c[k] = S->xb[k] < lo + margin ? d : (S->xb[k] > up - margin ? -d : 0.0);
  }
  memset(S->a_t, 0, n * sizeof *S->a_t);
  for (size_t k = 0; k < n; k++) {
    if (S->c[k] == 0.0) continue;
    lemke_basis_column(b, b->head[k], S->col);
    for (size_t i = 0; i < n; i++) S->a_t[i] -= S->c[k] * S->col[i];
  }
}

static double violation(const lemke_state *S, const cpk_problem *p, size_t k)
{
  double lo, up;
  var_bounds(S, p, S->basis.head[k], &lo, &up);
  double x = S->xb[k];
  return x < lo ? lo - x : (x > up ? x - up : 0.0);
}

static int basis_feasible(const lemke_state *S, const cpk_problem *p, double tol)
{
  for (size_t k = 0; k < S->n; k++)
    if (violation(S, p, k) > tol) return 0;
  return 1;
}

/* ---- lexicographic tie-breaking ------------------------------------------ */

/* key <- (row k of B^{-1}) / divisor: the perturbation part of a ratio. */
static int lex_key(lemke_state *S, size_t k, double divisor, double *key)
{
  memset(key, 0, S->n * sizeof *key);
  key[k] = 1.0;
  int rc = lemke_basis_solve(&S->basis, key, 1);
  for (size_t j = 0; j < S->n; j++) key[j] /= divisor;
  return rc;
}

static double norm_inf(const double *x, size_t n)
{
  double m = 0.0;
  for (size_t j = 0; j < n; j++) m = fmax(m, fabs(x[j]));
  return m;
}

/*
 * Lexicographic a < b. Entries that are zero in exact arithmetic come out of
 * the solves as rounding noise, so "equal" is judged relative to the keys'
 * size, not to the entries themselves.
 */
static int lex_less(const double *a, const double *b, size_t n)
{
  double noise = 1e-9 * fmax(norm_inf(a, n), norm_inf(b, n));
  for (size_t j = 0; j < n; j++) {
    if (a[j] < b[j] - noise) return 1;
    if (a[j] > b[j] + noise) return 0;
  }
  return 0;
}

/* First-order key of tied position c: its share of e B^{-1} r in the ratio. */
static double pert_key(const lemke_state *S, size_t c) { return S->pert[S->cand[c]] / S->cdiv[c]; }

/*
 * Keep in cand[0..m) only the candidates with the smallest first-order key
 * (equal up to rounding noise); returns how many remain. O(m), no solve.
 */
static size_t pert_filter(lemke_state *S, size_t m)
{
  double best = INFINITY, scale = 0.0;
  for (size_t c = 0; c < m; c++) {
    best = fmin(best, pert_key(S, c));
    scale = fmax(scale, fabs(pert_key(S, c)));
  }
  size_t kept = 0;
  for (size_t c = 0; c < m; c++)
    if (pert_key(S, c) <= best + 1e-9 * scale) {
      S->cand[kept] = S->cand[c];
      S->cdiv[kept++] = S->cdiv[c];
    }
  return kept;
}

/*
 * Among the m tied positions cand[] pick the one whose perturbed ratio is
 * lexicographically smallest: first by B^{-1} r / div, then (rarely reached)
 * by key = (row of B^{-1}) / div, which then is left in best_key (else best_key is stale).
 */
static int lex_choose(lemke_state *S, size_t m, size_t *chosen, double *div)
{
  *chosen = S->cand[0];
  *div = S->cdiv[0];
  if (m == 1) return CPK_OK;
  S->ties++;
  int rc = ensure_pert(S);
  if (rc) return rc;
  if ((m = pert_filter(S, m)) == 1) {
    *chosen = S->cand[0];
    *div = S->cdiv[0];
    return CPK_OK;
  }
  S->full_lex++;
  *chosen = S->cand[0];
  *div = S->cdiv[0];
  rc = lex_key(S, S->cand[0], S->cdiv[0], S->best_key);
  for (size_t c = 1; !rc && c < m; c++) {
    rc = lex_key(S, S->cand[c], S->cdiv[c], S->key);
    if (!rc && lex_less(S->key, S->best_key, S->n)) {
      double *t = S->key;
      S->key = S->best_key;
      S->best_key = t;
      *chosen = S->cand[c];
      *div = S->cdiv[c];
    }
  }
  return rc;
}

/* 1 if the first significant entry of key is negative (key lexicographically below zero). */
static int lex_negative(const double *key, size_t n)
{
  double noise = 1e-9 * norm_inf(key, n);
  for (size_t j = 0; j < n; j++)
    if (fabs(key[j]) > noise) return key[j] < 0.0;
  return 0;
}

/* *neg = the perturbation part of blocking position k's ratio (divisor div) is below zero. */
static int block_key_negative(lemke_state *S, size_t k, double div, int *neg)
{
  int rc = ensure_pert(S);
  if (rc) return rc;
  double key0 = S->pert[k] / div, noise = 1e-9 * norm_inf(S->pert, S->n) / fabs(div);
  if (fabs(key0) > noise) {
    *neg = key0 < 0.0;
    return CPK_OK;
  }
  rc = lex_key(S, k, div, S->best_key);
  *neg = !rc && lex_negative(S->best_key, S->n);
  return rc;
}

/* ---- ratio tests ---------------------------------------------------------- */

/*
 * Ratios closer than this count as tied and go to the lexicographic rule:
 * relative to the ratio itself, plus the rounding noise of a basic value
 * (of the size of the largest one) divided by the rate at which it moves.
 */
static double tie_width(double theta, double xscale, double rate)
{
  return 1e-10 * fabs(theta) + 1e-12 * xscale / fabs(rate);
}

/* Step at which position k reaches a bound when it moves at rate r (INFINITY if never). */
static double row_theta(const lemke_state *S, const cpk_problem *p, size_t k, double r, double ptol,
                        int *hits_upper)
{
  double lo, up, x = S->xb[k];
  var_bounds(S, p, S->basis.head[k], &lo, &up);
  *hits_upper = 0;
  if (r < -ptol && isfinite(lo)) return x > lo ? (x - lo) / -r : 0.0;
  *hits_upper = 1;
  if (r > ptol && isfinite(up)) return x < up ? (up - x) / r : 0.0;
  return INFINITY;
}

/* Value of t at which position k (moving at rate c_k) becomes feasible. */
static double start_requirement(const lemke_state *S, const cpk_problem *p, size_t k)
{
  double lo, up;
  var_bounds(S, p, S->basis.head[k], &lo, &up);
  return ((S->c[k] > 0 ? lo : up) - S->xb[k]) / S->c[k];
}

/* The first step: t enters; the position needing the largest t leaves (lexicographic max). */
static int first_step(lemke_state *S, const cpk_problem *p, lemke_step *st)
{
  double tmax = -INFINITY;
  size_t m = 0;
  for (size_t k = 0; k < S->n; k++)
    if (S->c[k] != 0.0) tmax = fmax(tmax, start_requirement(S, p, k));
  double xscale = norm_inf(S->xb, S->n);
  for (size_t k = 0; k < S->n; k++)
    if (S->c[k] != 0.0 && start_requirement(S, p, k) >= tmax - tie_width(tmax, xscale, S->c[k])) {
      S->cand[m] = k;
      S->cdiv[m++] = S->c[k]; /* lexicographic max of -B^{-1}_k / c_k = min of B^{-1}_k / c_k */
    }
  st->kind = STEP_BLOCK;
  st->theta = tmax;
  double div;
  int rc = lex_choose(S, m, &st->k, &div);
  st->hits_upper = S->c[st->k] < 0;
  return rc;
}

static double flip_theta(const cpk_problem *p, size_t n, size_t e)
{
  return e < n ? p->upper[e] - p->lower[e] : INFINITY; /* inf - finite stays inf */
}

/* Minimum ratio test for entering variable e moving in direction sigma (alpha = B^{-1} a_e). */
static int ratio_test(lemke_state *S, const cpk_problem *p, double pivot_tol, size_t e, int sigma,
                      lemke_step *st)
{
  size_t n = S->n, m = 0, t_var = LEMKE_VAR_T(&S->basis);
  double best = flip_theta(p, n, e);
  int up;
  double ptol = pivot_tol * norm_inf(S->alpha, n);
  for (size_t k = 0; k < n; k++) best = fmin(best, row_theta(S, p, k, -sigma * S->alpha[k], ptol, &up));
  st->theta = best;
  if (isinf(best)) {
    st->kind = STEP_RAY;
    return CPK_OK;
  }
  double xscale = norm_inf(S->xb, n);
  for (size_t k = 0; k < n; k++) {
    double r = -sigma * S->alpha[k];
    if (fabs(r) <= ptol || row_theta(S, p, k, r, ptol, &up) > best + tie_width(best, xscale, r))
      continue;
    if (S->basis.head[k] == t_var) { /* finish as soon as t can leave */
      m = 0;
      S->cand[m] = k;
      S->cdiv[m++] = -r;
      break;
    }
    S->cand[m] = k;
    S->cdiv[m++] = -r;
  }
  int flip_tied = flip_theta(p, n, e) <= best + 1e-10 * best;
  if (m == 0) {
    st->kind = STEP_FLIP;
    return CPK_OK;
  }
  st->kind = STEP_BLOCK;
  double div;
  int rc = lex_choose(S, m, &st->k, &div);
  if (!rc && flip_tied && S->basis.head[st->k] != t_var) {
    int neg;
    if ((rc = block_key_negative(S, st->k, div, &neg)) == CPK_OK && !neg) st->kind = STEP_FLIP;
  }
  row_theta(S, p, st->k, -sigma * S->alpha[st->k], ptol, &st->hits_upper);
  return rc;
}

/* ---- pivots --------------------------------------------------------------- */

/* Value of entering variable e after a step theta in direction sigma from its nonbasic value. */
static double entering_value(const lemke_state *S, const cpk_problem *p, size_t e, int sigma,
                             double theta)
{
  return (e < S->n ? nonbasic_z(S, p, e) : 0.0) + sigma * theta;
}

/*
 * The leaving variable v (at its lower or upper bound) determines who enters
 * next: its complement, moving to the side its sign condition allows.
 * Returns 0 when t left (a solution), 1 otherwise.
 */
static int complement_of(lemke_state *S, size_t v, int hits_upper, size_t *e, int *sigma)
{
  size_t n = S->n;
  if (v == 2 * n) return 0;
  if (v < n) { /* z_v left at a bound: s_v enters with the sign that bound allows */
    S->zstate[v] = hits_upper ? CPK_VAR_AT_UPPER : CPK_VAR_AT_LOWER;
    *e = n + v;
    *sigma = hits_upper ? -1 : 1;
  } else { /* s_i reached 0: z_i leaves its bound */
    *e = v - n;
    *sigma = S->zstate[v - n] == CPK_VAR_AT_LOWER ? 1 : -1;
  }
  return 1;
}

/* Apply a blocking pivot: e enters at position st->k. Returns 0 on success. */
static int apply_pivot(lemke_state *S, const cpk_problem *p, size_t e, int sigma,
                       const lemke_step *st)
{
  double value = entering_value(S, p, e, sigma, st->theta);
  int refactored;
  for (size_t k = 0; k < S->n; k++) S->xb[k] -= sigma * st->theta * S->alpha[k];
  if (e < S->n) S->zstate[e] = CPK_VAR_BASIC;
  S->xb[st->k] = value;
  if (S->pert_valid) { /* the entering variable's share of B^{-1} r */
    double pe = S->pert[st->k] / S->alpha[st->k];
    for (size_t k = 0; k < S->n; k++) S->pert[k] -= pe * S->alpha[k];
    S->pert[st->k] = pe;
  }
  int rc = lemke_basis_replace(&S->basis, st->k, e, S->col, S->alpha, &refactored);
  S->pivots++;
  if (!rc && refactored) rc = compute_xb(S, p); /* fresh factors: drop accumulated drift */
  return rc;
}

/* Entering z_e ran from one bound to the other before anything blocked. */
static void apply_flip(lemke_state *S, size_t e, int sigma, double theta, size_t *next, int *nsigma)
{
  for (size_t k = 0; k < S->n; k++) S->xb[k] -= sigma * theta * S->alpha[k];
  S->zstate[e] = S->zstate[e] == CPK_VAR_AT_LOWER ? CPK_VAR_AT_UPPER : CPK_VAR_AT_LOWER;
  *next = S->n + e;
  *nsigma = S->zstate[e] == CPK_VAR_AT_UPPER ? -1 : 1;
  S->flips++;
}

/* ---- endings -------------------------------------------------------------- */

/*
 * y >= 0, M^T y <= 0 and q^T y < 0 prove that Mz + q >= 0, z >= 0 has no
 * solution (y^T(Mz + q) would be both >= 0 and < 0). On a copositive-plus
 * matrix Lemke's secondary ray yields such a y; we check it rather than trust it.
 */
static int lcp_infeasibility_certificate(const cpk_problem *p, const double *ray, double *y,
                                         double *g, double mnorm)
{
  size_t n = p->n;
  double ymax = 0.0, qnorm = 0.0, qy = 0.0;
  for (size_t i = 0; i < n; i++) ymax = fmax(ymax, fabs(ray[i]));
  if (!(ymax > 0.0)) return 0;
  for (size_t i = 0; i < n; i++) {
    y[i] = ray[i] / ymax;
    if (y[i] < -1e-10) return 0;
    if (y[i] < 0.0) y[i] = 0.0;
    qnorm = fmax(qnorm, fabs(p->q[i]));
    qy += p->q[i] * y[i];
  }
  cpk_matrix_mv(p->M, y, g, 1); /* y is scaled to ||y||_inf = 1 */
  for (size_t i = 0; i < n; i++)
    if (g[i] > 1e-10 * mnorm) return 0;
  return qy < -1e-10 * qnorm;
}

/*
 * A true ray satisfies the equations: -M dz + ds + a_t dt = 0. On an
 * ill-conditioned basis the computed direction may not; then nothing about
 * the problem is learnt and the honest status is `stalled`.
 */
static double ray_inconsistency(lemke_state *S, const cpk_problem *p, size_t e, int sigma,
                                const double *dz)
{
  size_t n = S->n;
  double *ds = S->work, *res = S->key, dt = 0.0;
  memset(ds, 0, n * sizeof *ds);
  if (e >= n && e < 2 * n) ds[e - n] = sigma;
  for (size_t k = 0; k < n; k++) {
    size_t v = S->basis.head[k];
    if (v >= n && v < 2 * n) ds[v - n] = -sigma * S->alpha[k];
    else if (v == 2 * n) dt = -sigma * S->alpha[k];
  }
  cpk_matrix_mv(p->M, dz, res, 0);
  double scale = S->mnorm * norm_inf(dz, n) + norm_inf(ds, n) +
                 norm_inf(S->a_t, n) * fabs(dt), worst = 0.0;
  for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(-res[i] + ds[i] + S->a_t[i] * dt));
  if (scale == 0.0) return worst == 0.0 ? 0.0 : INFINITY;
  return worst / scale;
}

/* ||M||_inf for the ray checks, measured only when a ray needs it (a sparse M's in the resolve
   workspace: nothing to fail for an M of n rows; INFINITY, no certificate, if it still fails). */
static void ray_mnorm(lemke_state *S, const cpk_problem *p)
{
  if (isnan(S->mnorm) && lemke_resolve_mnorm(&S->resolve, p, &S->mnorm)) S->mnorm = INFINITY;
}

static void finish_ray(lemke_state *S, const cpk_problem *p, size_t e, int sigma, cpk_result *r)
{
  size_t n = S->n;
  ray_mnorm(S, p);
  memset(r->ray, 0, n * sizeof *r->ray);
  if (e < n) r->ray[e] = sigma;
  for (size_t k = 0; k < n; k++)
    if (S->basis.head[k] < n) r->ray[S->basis.head[k]] = -sigma * S->alpha[k];
  r->has_ray = 1;
  extract_z(S, p, r->z);
  double bad = ray_inconsistency(S, p, e, sigma, r->ray);
  if (!(bad <= 1e-6)) {
    r->status = CPK_STATUS_STALLED;
    snprintf(r->message, sizeof r->message,
             "numerical failure: the computed ray violates the equations (relative error %.1e); "
             "the basis is too ill-conditioned", bad);
  } else if (cpk_problem_has_lcp_bounds(p) &&
             lcp_infeasibility_certificate(p, r->ray, S->work, S->key, S->mnorm)) {
    r->status = CPK_STATUS_NO_SOLUTION;
    snprintf(r->message, sizeof r->message,
             "secondary ray: y = ray satisfies y >= 0, M'y <= 0, q'y < 0, so no solution exists");
  } else {
    r->status = CPK_STATUS_RAY_TERMINATION;
    snprintf(r->message, sizeof r->message,
             "ended on a secondary ray (entering %s%zu); nothing is proved for this matrix class",
             e < n ? "z" : "s", (e % n) + 1);
  }
}

/* One step of iterative refinement of x_B on a fresh factorization, when the residual asks for it. */
static int refine(lemke_state *S, const cpk_problem *p)
{
  int rc = lemke_basis_factor(&S->basis);
  if (!rc) rc = compute_xb(S, p);
  if (rc) return rc;
  for (size_t i = 0; i < S->n; i++) S->col[i] = nonbasic_z(S, p, i);
  cpk_matrix_mv(p->M, S->col, S->alpha, 0); /* rhs = q + M z_N */
  lemke_basis_multiply(&S->basis, S->xb, S->work);
  for (size_t i = 0; i < S->n; i++) S->work[i] = p->q[i] + S->alpha[i] - S->work[i];
  rc = lemke_basis_solve(&S->basis, S->work, 0);
  for (size_t k = 0; !rc && k < S->n; k++) S->xb[k] += S->work[k];
  return rc;
}

static int finish_solution(lemke_state *S, const cpk_problem *p, const cpk_settings *s,
                           cpk_result *r)
{
  double res, tol = cpk_problem_tolerance(p, s->tol);
  extract_z(S, p, r->z);
  cpk_problem_residual(p, r->z, S->work, &res);
  if (res > tol) {
    int rc = refine(S, p);
    if (rc && rc != CPK_ESINGULAR) return rc;
    extract_z(S, p, r->z);
    cpk_result_set_stat(r, "refined", 1.0);
    cpk_problem_residual(p, r->z, S->work, &res);
  }
  if (!(res <= tol)) { /* t left, but the basic solution is not accurate enough to call solved */
    r->status = CPK_STATUS_STALLED;
    snprintf(r->message, sizeof r->message,
             "the artificial variable left, but the final basis is ill-conditioned: residual %.3g "
             "after refactorization and one refinement step",
             res);
    return CPK_OK;
  }
  r->status = CPK_STATUS_SOLVED; /* the driver checks the residual again */
  return CPK_OK;
}

static void fill_stats(const lemke_state *S, cpk_result *r)
{
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(S->basis.ls, &ls);
  if (S->basis.ls == S->ls0_of) { /* a re-solve reports its own work, not the solver's lifetime */
    ls.factorizations -= S->ls0.factorizations;
    ls.updates -= S->ls0.updates;
    ls.solves -= S->ls0.solves;
    ls.factor_time_s -= S->ls0.factor_time_s;
  }
  ls.factorizations += S->basis.reduced_factors; /* B factored through its small block */
  r->iterations = S->pivots + S->flips + S->murty_moves;
  cpk_result_set_stat(r, "pivots", (double)S->pivots);
  cpk_result_set_stat(r, "bound_flips", (double)S->flips);
  cpk_result_set_stat(r, "lex_ties", (double)S->ties);
  cpk_result_set_stat(r, "lex_full", (double)S->full_lex);
  cpk_result_set_stat(r, "ray_rechecks", (double)S->ray_rechecks);
  cpk_result_set_stat(r, "sparse_fallbacks", (double)S->basis.fallbacks);
  cpk_result_set_stat(r, "ray_restarts", (double)S->restarts);
  if (S->repairs) cpk_result_set_stat(r, "warm_repairs", (double)S->repairs);
  cpk_result_set_stat(r, "factorizations", (double)ls.factorizations);
  cpk_result_set_stat(r, "reduced_factorizations", (double)S->basis.reduced_factors);
  cpk_result_set_stat(r, "updates", (double)ls.updates);
  cpk_result_set_stat(r, "linsys_solves", (double)ls.solves);
  cpk_result_set_stat(r, "factor_time_s", ls.factor_time_s);
  cpk_result_set_stat(r, "nnz_factors", ls.nnz_factors);
  cpk_result_set_stat(r, "sparse_linsys", S->basis.ls && ls.sparse); /* the backend says, whatever its name */
  r->has_basis = 1;
  for (size_t i = 0; i < S->n; i++) r->basis[i] = S->zstate[i];
}

/* ---- cycle detection ------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* r of the symbolic perturbation: fixed, generic (hashed) entries in [1, 2). */
static void fill_perturbation(lemke_state *S)
{
  for (size_t i = 0; i < S->n; i++) S->rvec[i] = 1.0 + (double)(mix64(i) >> 11) * 0x1p-53;
}

/*
 * The lexicographic rule never revisits a basis, so a repeat among the recent
 * ones means numerical trouble, or a warm basis that does not start a valid
 * Lemke path. The basis (basic set and bound states) is hashed order-free.
 */
static int basis_repeats(lemke_state *S)
{
  uint64_t h = 0;
  for (size_t k = 0; k < S->n; k++) h ^= mix64(S->basis.head[k]);
  for (size_t i = 0; i < S->n; i++) h ^= mix64(((uint64_t)i << 2 | (uint64_t)S->zstate[i]) + (1ULL << 62));
  size_t stored = S->nseen < LEMKE_SEEN ? S->nseen : LEMKE_SEEN;
  for (size_t k = 0; k < stored; k++)
    if (S->seen[k] == h) return 1;
  S->seen[S->nseen++ % LEMKE_SEEN] = h;
  return 0;
}

/* ---- the method ---------------------------------------------------------- */

static void set_stalled(cpk_result *r, const char *why)
{
  r->status = CPK_STATUS_STALLED;
  snprintf(r->message, sizeof r->message, "%s", why);
}

/* Factor the starting basis and take t into it. Returns RUN_DONE when the run already ended. */
static int start(lemke_state *S, const cpk_problem *p, const cpk_settings *s, int warm,
                 cpk_result *r, size_t *e, int *sigma)
{
  set_initial_basis(S, p, s, warm);
  fill_perturbation(S);
  int rc = lemke_resolve_factors_kept(&S->resolve, p, S->zstate) ? CPK_OK : lemke_basis_factor(&S->basis);
  if (rc == CPK_ESINGULAR && warm) rc = repair_warm_basis(S, p);
  if (!rc) rc = compute_xb(S, p);
  if (rc == CPK_ESINGULAR) {
    if (warm) return RUN_RETRY_COLD;
    set_stalled(r, "the block of M for the free variables is singular; Lemke's method cannot start");
    S->free_singular = 1;
    return RUN_DONE;
  }
  if (rc) return rc;
  if (basis_feasible(S, p, 0.1 * cpk_problem_tolerance(p, s->tol))) {
    rc = finish_solution(S, p, s, r);
    return rc ? rc : RUN_DONE;
  }
  set_covering(S, p, s);
  lemke_step st;
  if ((rc = first_step(S, p, &st))) return rc;
  /* The leaving variable's new state must be known before a refactorization recomputes x_B. */
  complement_of(S, S->basis.head[st.k], st.hits_upper, e, sigma);
  for (size_t k = 0; k < S->n; k++) S->alpha[k] = -S->c[k]; /* B^{-1} a_t = -c */
  memcpy(S->col, S->a_t, S->n * sizeof *S->col);
  if ((rc = apply_pivot(S, p, LEMKE_VAR_T(&S->basis), 1, &st))) return rc;
  if (warm && !basis_feasible(S, p, 1e-7 * (1.0 + st.theta))) return RUN_RETRY_COLD;
  return 1;
}

enum { STEP_CONTINUE = 1 };

/* alpha <- B^{-1} col on fresh factors, with one step of iterative refinement. */
static int refined_alpha(lemke_state *S)
{
  size_t n = S->n;
  memcpy(S->alpha, S->col, n * sizeof *S->alpha);
  int rc = lemke_basis_solve(&S->basis, S->alpha, 0);
  if (rc) return rc;
  lemke_basis_multiply(&S->basis, S->alpha, S->work);
  for (size_t i = 0; i < n; i++) S->work[i] = S->col[i] - S->work[i];
  rc = lemke_basis_solve(&S->basis, S->work, 0);
  for (size_t k = 0; !rc && k < n; k++) S->alpha[k] += S->work[k];
  return rc;
}

/*
 * A ray is where a P-matrix path cannot go, and on an ill-conditioned basis a
 * spurious one comes from drift (x_B, alpha) or from a pivot on the t row
 * judged negligible beside huge entries of alpha. Before accepting it: if the
 * point already solves the problem (t at rounding level), finish there;
 * else refactor fresh, refine alpha and test the ratios again with a pivot
 * tolerance 1e-3 of the usual one. st->kind stays STEP_RAY if the ray stands.
 */
static int recheck_ray(lemke_state *S, const cpk_problem *p, const cpk_settings *s, size_t e,
                       int sigma, lemke_step *st, cpk_result *r)
{
  double res;
  extract_z(S, p, r->z);
  cpk_problem_residual(p, r->z, S->work, &res);
  if (res <= cpk_problem_tolerance(p, s->tol)) {
    st->kind = STEP_SOLVED;
    return finish_solution(S, p, s, r);
  }
  S->ray_rechecks++;
  int rc = lemke_basis_factor(&S->basis);
  if (!rc) rc = compute_xb(S, p);
  if (!rc) rc = refined_alpha(S);
  if (!rc) rc = ratio_test(S, p, 1e-3 * s->lemke.pivot_tol, e, sigma, st);
  return rc;
}

/* One pivot (or bound flip) with entering *e in direction *sigma; STEP_CONTINUE, RUN_DONE or an error. */
static int pivot_once(lemke_state *S, const cpk_problem *p, const cpk_settings *s, size_t *e,
                      int *sigma, cpk_result *r)
{
  lemke_basis_column(&S->basis, *e, S->col);
  memcpy(S->alpha, S->col, S->n * sizeof *S->alpha);
  int rc = lemke_basis_solve(&S->basis, S->alpha, 0);
  lemke_step st;
  if (!rc) rc = ratio_test(S, p, s->lemke.pivot_tol, *e, *sigma, &st);
  if (!rc && st.kind == STEP_RAY) rc = recheck_ray(S, p, s, *e, *sigma, &st, r);
  if (rc) return rc;
  if (st.kind == STEP_RAY) {
    S->ray_entering = *e;
    finish_ray(S, p, *e, *sigma, r);
    return RUN_DONE;
  }
  if (st.kind == STEP_SOLVED) return RUN_DONE;
  if (st.kind == STEP_FLIP) {
    apply_flip(S, *e, *sigma, st.theta, e, sigma);
    return STEP_CONTINUE;
  }
  size_t next;
  int next_sigma, more = complement_of(S, S->basis.head[st.k], st.hits_upper, &next, &next_sigma);
  rc = apply_pivot(S, p, *e, *sigma, &st);
  if (rc == CPK_ESINGULAR) {
    set_stalled(r, "the basis became numerically singular");
    extract_z(S, p, r->z);
    return RUN_DONE;
  }
  if (rc) return rc;
  if (!more) {
    rc = finish_solution(S, p, s, r);
    return rc ? rc : RUN_DONE;
  }
  *e = next;
  *sigma = next_sigma;
  return STEP_CONTINUE;
}

/* Pivot until t leaves, a ray, or a limit. Returns RUN_DONE, RUN_RETRY_COLD or an error code. */
static int run(lemke_state *S, const cpk_problem *p, const cpk_settings *s, int warm,
               cpk_monitor *mon, cpk_result *r)
{
  size_t e;
  if (cpk_monitor_before_factor(mon, S->basis.ls)) { /* the start factors the first basis */
    r->status = CPK_STATUS_TIME_LIMIT;
    S->monitor_stop = 1;
    return RUN_DONE;
  }
  int sigma, rc = start(S, p, s, warm, r, &e, &sigma);
  S->nseen = 0;
  while (rc == STEP_CONTINUE) {
    if (basis_repeats(S)) {
      if (warm) return RUN_RETRY_COLD;
      set_stalled(r, "cycling detected: a basis repeated (numerical degeneracy)");
      extract_z(S, p, r->z);
      return RUN_DONE;
    }
    size_t t_pos = (size_t)S->basis.pos[LEMKE_VAR_T(&S->basis)];
    int stop = cpk_monitor_log(mon, S->pivots + S->flips, NAN, S->xb[t_pos], NAN, NAN, NULL);
    cpk_linsys_stats ls; /* a pivot that must refactor asks whether the clock allows it */
    cpk_linsys_get_stats(S->basis.ls, &ls);
    if (!stop && ls.updates_since_factor >= S->basis.refactor_interval)
      stop = cpk_monitor_before_factor(mon, S->basis.ls);
    if (stop) {
      r->status = (cpk_status)stop;
      S->monitor_stop = 1;
      extract_z(S, p, r->z);
      return RUN_DONE;
    }
    rc = pivot_once(S, p, s, &e, &sigma, r);
  }
  return rc;
}

/* Did a warm run end in a way a cold start might improve on? */
static int warm_run_failed(const lemke_state *S, const cpk_result *r)
{
  if (S->monitor_stop) return 0; /* the user's limits: respect them */
  return r->status == CPK_STATUS_RAY_TERMINATION || r->status == CPK_STATUS_STALLED;
}

/* ---- restarts after a ray that proves nothing ----------------------------- */

enum { RESTART_PAIRS = 4 };

/* Up to max rows i != e in decreasing |M_ie|, nonzero only. */
static size_t partner_rows(lemke_state *S, const cpk_problem *p, size_t e, size_t *rows, size_t max)
{
  size_t m = 0;
  cpk_matrix_column(p->M, e, S->col);
  S->col[e] = 0.0;
  while (m < max) {
    size_t best = S->n;
    for (size_t i = 0; i < S->n; i++)
      if (S->col[i] != 0.0 && (best == S->n || fabs(S->col[i]) > fabs(S->col[best]))) best = i;
    if (best == S->n) break;
    rows[m++] = best;
    S->col[best] = 0.0;
  }
  return m;
}

static int run_settled(const cpk_result *r)
{
  return r->status == CPK_STATUS_SOLVED || r->status == CPK_STATUS_NO_SOLUTION;
}

/*
 * A ray from z = 0 that is no certificate can be a dead end of the start,
 * not of the problem: on a bimatrix game (M = [0 A; B' 0]) every covering
 * vector d > 0 ends on a ray at the first pivot, since the entering z_e
 * (M_ee = 0) moves no row that could block. Restart from another start, the
 * pair {z_e, z_i} basic with i a row z_e moves most (the block [M_ee M_ei;
 * M_ie M_ii] is then nonsingular when M_ee = M_ii = 0), with the covering
 * vector that start's infeasible rows call for. If no restart settles the
 * problem, the cold run is repeated so the result is its ray.
 */
static int restart_on_ray(lemke_state *S, const cpk_problem *p, const cpk_settings *s,
                          cpk_monitor *mon, cpk_result *r, int rc)
{
  if (rc != RUN_DONE || r->status != CPK_STATUS_RAY_TERMINATION || S->monitor_stop) return rc;
  size_t e = S->ray_entering % S->n, rows[RESTART_PAIRS];
  size_t m = partner_rows(S, p, e, rows, RESTART_PAIRS);
  int *basis = m ? cpk_alloc_array(S->n, sizeof *basis) : NULL;
  if (m && !basis) return CPK_ENOMEM;
  cpk_settings ws = *s;
  ws.basis0 = basis;
  ws.z0 = NULL;
  for (size_t k = 0; k < m; k++) {
    for (size_t i = 0; i < S->n; i++) basis[i] = CPK_VAR_AT_LOWER;
    basis[e] = basis[rows[k]] = CPK_VAR_BASIC;
    S->restarts++;
    r->has_ray = 0;
    r->message[0] = '\0';
    rc = run(S, p, &ws, 1, mon, r);
    if ((rc == RUN_DONE && (run_settled(r) || S->monitor_stop)) ||
        (rc != RUN_DONE && rc != RUN_RETRY_COLD)) {
      free(basis);
      return rc;
    }
  }
  free(basis);
  if (m == 0) return RUN_DONE;
  r->has_ray = 0;
  r->message[0] = '\0';
  return run(S, p, s, 0, mon, r);
}

/* Free blocks larger than this are not crashed (dense O(|S|^3) rank tests). */
#define LEMKE_CRASH_MAX 400

/*
 * The free variables' block is singular (a circuit's node equations): start
 * instead from a basis where the free variables and a few bounded ones,
 * chosen by a rank-revealing factorization, are basic (lemke_crash.c), with
 * the covering vector that basis calls for.
 */
static int crash_restart(lemke_state *S, const cpk_problem *p, const cpk_settings *s,
                         cpk_monitor *mon, cpk_result *r, int rc)
{
  if (rc != RUN_DONE || !S->free_singular || S->monitor_stop) return rc;
  int found, *basis = cpk_alloc_array(S->n, sizeof *basis);
  if (!basis) return CPK_ENOMEM;
  rc = lemke_crash_free_block(p, LEMKE_CRASH_MAX, basis, &found);
  if (!rc && found) {
    cpk_settings ws = *s;
    ws.basis0 = basis;
    ws.z0 = NULL;
    cpk_result_set_stat(r, "crash_start", 1.0);
    r->message[0] = '\0';
    rc = run(S, p, &ws, 1, mon, r);
    if (rc == RUN_RETRY_COLD) {
      set_stalled(r, "the block of M for the free variables is singular, and Lemke's method "
                     "found no valid path from a crash basis either");
      rc = RUN_DONE;
    }
  } else if (!rc) {
    rc = RUN_DONE;
  }
  free(basis);
  return rc;
}

/* Largest n for the fallback: it factors each complementary basis it visits afresh (4n + 100 at most). */
#define LEMKE_MURTY_MAX_N 200

/*
 * Lemke's path can break down on an ill-conditioned problem that needs no
 * path at all: on a lower-triangular integer P-matrix (n = 64) the path's
 * exact values reach 1e10 while the answer is O(1). When a cold run ends
 * `stalled` or on a ray that proves nothing, small problems get Murty's
 * least-index principal pivoting (lemke_murty.c; a forward substitution on a
 * triangular M); its answer replaces the run's only if its residual holds.
 */
/*
 * Murty's method is finite on P-matrices only, and a P-matrix has a positive
 * diagonal: without one (a friction-index encoding's multiplier rows, a game)
 * it can cycle through its whole move budget, each move a fresh factorization
 * (measured on Bullet's 6-box stack: 485 moves, 90-160 ms per failed call).
 */
static int diagonal_positive(const cpk_problem *p)
{
  for (size_t i = 0; i < p->n; i++)
    if (!(cpk_matrix_get(p->M, i, i) > 0.0)) return 0;
  return 1;
}

static int murty_fallback(lemke_state *S, const cpk_problem *p, const cpk_settings *s,
                          cpk_monitor *mon, cpk_result *r, int rc)
{
  if (rc != RUN_DONE || S->monitor_stop || S->n > LEMKE_MURTY_MAX_N ||
      (r->status != CPK_STATUS_STALLED && r->status != CPK_STATUS_RAY_TERMINATION) ||
      !diagonal_positive(p))
    return rc;
  int *state = cpk_alloc_array(S->n, sizeof *state);
  double *z = cpk_alloc_array(S->n, sizeof *z), res = INFINITY;
  lemke_murty_run run = {S->pivots + S->flips, 0, 0, 0};
  rc = state && z ? lemke_murty(&S->basis, p, mon, 4 * (long)S->n + 100, state, z, &run)
                  : CPK_ENOMEM;
  S->murty_moves = run.moves;
  cpk_result_set_stat(r, "murty_moves", (double)run.moves);
  if (!rc && run.stop == CPK_STATUS_MAX_ITERATIONS) { /* out of budget: the path's ending and ray stand */
    size_t len = strlen(r->message);
    snprintf(r->message + len, sizeof r->message - len,
             "%sMurty's principal pivoting stopped at the iteration limit after %ld moves",
             len ? "; " : "", run.moves);
  } else if (!rc && run.stop) { /* the clock or the callback: the path's answer, with their status */
    r->status = (cpk_status)run.stop;
    r->has_ray = 0; /* the ray is reported with ray_termination only */
    S->monitor_stop = 1;
    snprintf(r->message, sizeof r->message,
             "Lemke's path broke down; Murty's principal pivoting stopped after %ld moves", run.moves);
  }
  if (!rc && run.solved) cpk_problem_residual(p, z, S->work, &res);
  if (!rc && res <= cpk_problem_tolerance(p, s->tol)) {
    memcpy(r->z, z, S->n * sizeof *z);
    memcpy(S->zstate, state, S->n * sizeof *state);
    r->status = CPK_STATUS_SOLVED; /* the driver checks the residual again */
    r->has_ray = 0;
    snprintf(r->message, sizeof r->message,
             "Lemke's path broke down; solved by Murty's least-index principal pivoting in %ld moves",
             run.moves);
  }
  free(state);
  free(z);
  return rc == CPK_ENOMEM ? rc : RUN_DONE;
}

static int lemke_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  lemke_state *S = vs;
  cpk_settings from_last;
  s = lemke_resolve_settings(&S->resolve, s, &from_last);
  int warm = s->basis0 != NULL || s->z0 != NULL;
  S->pivots = S->flips = S->ties = S->full_lex = S->ray_rechecks = S->restarts = S->repairs = 0;
  S->murty_moves = 0;
  S->free_singular = 0;
  S->monitor_stop = 0;
  r->has_ray = 0;
  if (lemke_basis_restore(&S->basis)) S->resolve.factors_kept = 0; /* those were UMFPACK's */
  S->ls0_of = S->basis.ls;
  S->basis.reduced_factors = 0;
  if (S->ls0_of) cpk_linsys_get_stats(S->ls0_of, &S->ls0);
  /* ||M|| scales the ray checks only: measured when a ray needs it (ray_mnorm), not on every
     engine re-solve (10% of a warm n = 30 call, 7% of a tripod step). */
  S->mnorm = NAN;
  int rc = run(S, p, s, warm, mon, r);
  if (warm && (rc == RUN_RETRY_COLD || (rc == RUN_DONE && warm_run_failed(S, r)))) {
    cpk_result_set_stat(r, "warm_start_rejected", 1.0);
    r->status = CPK_STATUS_STALLED;
    r->has_ray = 0;
    r->message[0] = '\0';
    rc = run(S, p, s, 0, mon, r);
  }
  rc = crash_restart(S, p, s, mon, r, rc);
  rc = restart_on_ray(S, p, s, mon, r, rc);
  rc = murty_fallback(S, p, s, mon, r, rc);
  if (rc == RUN_RETRY_COLD) rc = CPK_ELINSYS; /* a cold start never asks for a retry */
  if (rc == CPK_ESINGULAR) { /* numerical breakdown is a finding about this run, not an error */
    set_stalled(r, "numerical breakdown: a basis became singular even on fresh factors");
    extract_z(S, p, r->z);
    rc = RUN_DONE;
  }
  if (rc == RUN_DONE) fill_stats(S, r);
  /* the factors held now are the starting basis's only if nothing moved, restarted or refactored */
  long moved = S->pivots + S->flips + S->restarts + S->ray_rechecks;
  double unused;
  if (!cpk_result_get_stat(r, "murty_moves", &unused) || !cpk_result_get_stat(r, "crash_start", &unused))
    moved++;
  lemke_resolve_record(&S->resolve, p, S->zstate, r, moved);
  return rc;
}

static const cpk_solver_type lemke_type = {
    "lemke",
    "Lemke's complementary pivoting (Scheme I), bounded variables, lexicographic, dense/UMFPACK basis",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP,
    lemke_default_max_iter,
    lemke_alloc,
    lemke_solve,
    lemke_free};

const cpk_solver_type *cpk_solver_lemke = &lemke_type;
