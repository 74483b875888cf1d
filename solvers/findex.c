/* findex.c: friction-index rows solved exactly: their encoding as an affine MCP for any solver, refreshed in place for re-solves, and the map of the answer back. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "findex.h"
#include "lemke_box.h"
#include "monitor.h"

/*
 * A friction-index row i (-c z_j <= z_i <= c z_j, j = findex[i], c = fcoef[i]) is written
 * z_i = a - b with a, b >= 0 and a multiplier l >= 0 (Stewart-Trinkle's polyhedral friction
 * with the two directions +1 and -1):
 *   a >= 0  perp  w_i + l >= 0,    b >= 0  perp  -w_i + l >= 0,    l >= 0  perp  c z_j - a - b >= 0,
 * where w_i = (Mz + q)_i with z_i = a - b. Every solution of one gives a solution of the
 * other (l = |w_i| at a solution): it is the same problem, not a relaxation, and plain
 * rows keep their own bounds. Encoded unknowns: p's n in place (a at index i of a friction
 * row), then b_k at n + k and l_k at n + nf + k for the k-th friction row, so the encoding
 * has N = n + 2 nf unknowns and the same storage (dense or CSC) as M.
 *
 * Why here and not in formulations/: the solve driver (solvers/solver.c) uses it, and
 * solvers/ may not depend on formulations/ (DESIGN.md, module order).
 */

#define NONE SIZE_MAX

typedef struct findex_state {
  const cpk_solver_type *inner;
  void *inner_state;
  cpk_problem *enc;
  cpk_result *r;   /* the inner solver's result (N unknowns) */
  size_t n, nf, N;
  size_t *row;     /* nf: p's index of the k-th friction row */
  size_t *slot;    /* n: k for a friction row, NONE for a plain one */
  int *findex;     /* n: p->findex when encoded (the layout above depends on it) */
  double *fcoef;   /* nf: the coefficients in the encoded matrix (rev.bounds also counts l, u) */
  size_t *pos;     /* CSC encoding: value slot of each emitted entry, in emission order */
  size_t nemit;
  cpk_settings set; /* the inner solver's settings, arrays mapped to the encoding */
  double *z0, *cover, *wbuf;
  int *basis0;
  int *mapped;       /* n: the basis the last solve returned in p's terms (when it had one) */
  int have_mapped;
  signed char *sign; /* n: side of z_i at the last solve (+1 / -1): which of a, b a warm basis uses */
  unsigned long seen_q, seen_bounds, seen_values;
  lemke_box box;    /* lemke on a small dense problem: principal pivoting in p's unknowns first */
  int use_box;
  int enc_basis;    /* r->basis is the encoded basis of the last solve (the box did not answer it) */
  double reg;       /* the encoding holds M + reg I (lemke's path before the box polishes, findex_solve) */
} findex_state;

int cpk_findex_native(const cpk_solver_type *T) { return T == cpk_solver_pgs; }

/* ---- the encoded matrix: one walk over M, three uses (count, pattern, values) ---- */

enum { EMIT_COUNT, EMIT_PATTERN, EMIT_CSC, EMIT_DENSE };

typedef struct sink {
  int mode;
  size_t k;
  cpk_int *ti, *tj;  /* EMIT_PATTERN */
  double *x;         /* EMIT_CSC: values, at pos[k] */
  const size_t *pos;
  gsl_matrix *dense; /* EMIT_DENSE */
} sink;

static void emit(sink *s, size_t r, size_t c, double v)
{
  if (s->mode == EMIT_PATTERN) {
    s->ti[s->k] = (cpk_int)r;
    s->tj[s->k] = (cpk_int)c;
  } else if (s->mode == EMIT_CSC) {
    s->x[s->pos[s->k]] += v;
  } else if (s->mode == EMIT_DENSE) {
    s->dense->data[r * s->dense->tda + c] += v;
  }
  s->k++;
}

/* Entry (r, c) = v of M: z_c = a_c - b_c for a friction column, rows w_r and -w_r for a friction row. */
static void emit_entry(const findex_state *F, sink *s, size_t r, size_t c, double v)
{
  size_t kr = F->slot[r], kc = F->slot[c];
  emit(s, r, c, v);
  if (kc != NONE) emit(s, r, F->n + kc, -v);
  if (kr == NONE) return;
  emit(s, F->n + kr, c, -v);
  if (kc != NONE) emit(s, F->n + kr, F->n + kc, v);
}

static void emit_all(const findex_state *F, const cpk_problem *p, sink *s)
{
  const cpk_matrix *M = p->M;
  if (M->format == CPK_MATRIX_DENSE) {
    for (size_t r = 0; r < F->n; r++)
      for (size_t c = 0; c < F->n; c++)
        emit_entry(F, s, r, c, M->dense->data[r * M->dense->tda + c]);
  } else {
    const cpk_csc *C = M->csc;
    for (size_t c = 0; c < F->n; c++)
      for (cpk_int k = C->p[c]; k < C->p[c + 1]; k++) emit_entry(F, s, (size_t)C->i[k], c, C->x[k]);
  }
  for (size_t k = 0; k < F->nf; k++) { /* the multiplier's column and row */
    size_t i = F->row[k], l = F->n + F->nf + k;
    emit(s, i, l, 1.0);
    emit(s, F->n + k, l, 1.0);
    emit(s, l, (size_t)p->findex[i], p->fcoef[i]);
    emit(s, l, i, -1.0);
    emit(s, l, F->n + k, -1.0);
  }
}

/* Values of the encoded M from p's M and fcoef, written in place (no allocation). */
static void fill_matrix(findex_state *F, const cpk_problem *p)
{
  cpk_matrix *E = F->enc->M;
  sink s = {0};
  if (E->format == CPK_MATRIX_DENSE) {
    gsl_matrix_set_zero(E->dense);
    s.mode = EMIT_DENSE;
    s.dense = E->dense;
  } else {
    memset(E->csc->x, 0, cpk_matrix_nnz(E) * sizeof *E->csc->x);
    s.mode = EMIT_CSC;
    s.x = E->csc->x;
    s.pos = F->pos;
  }
  emit_all(F, p, &s);
  if (F->reg > 0.0 && E->format == CPK_MATRIX_DENSE) { /* M + reg I, through the same encoding */
    s.k = 0;
    for (size_t i = 0; i < F->n; i++) emit_entry(F, &s, i, i, F->reg);
  }
}

/* The encoding's values become those of M + reg I (reg = 0: M's), when they are not already. */
static void set_reg(findex_state *F, const cpk_problem *p, double reg)
{
  if (F->reg == reg) return;
  F->reg = reg;
  fill_matrix(F, p);
  F->enc->rev.values++;
}

static void fill_q(findex_state *F, const cpk_problem *p)
{
  double *q = F->enc->q;
  memcpy(q, p->q, F->n * sizeof *q);
  for (size_t k = 0; k < F->nf; k++) {
    q[F->n + k] = -p->q[F->row[k]];
    q[F->n + F->nf + k] = 0.0;
  }
}

static void fill_bounds(findex_state *F, const cpk_problem *p)
{
  for (size_t v = 0; v < F->N; v++) {
    int plain = v < F->n && F->slot[v] == NONE;
    F->enc->lower[v] = plain ? p->lower[v] : 0.0;
    F->enc->upper[v] = plain ? p->upper[v] : INFINITY;
  }
}

/*
 * Bring the encoding in step with p's change counters. The encoding is this file's own
 * object, written in place; its counters are bumped as cpk_problem_update_* would, so a
 * solver that keeps state across solves refreshes what changed.
 */
/* 1 if p's coefficients differ from those in the encoded matrix (and remember p's). */
static int fcoef_changed(findex_state *F, const cpk_problem *p)
{
  int changed = 0;
  for (size_t k = 0; k < F->nf; k++)
    if (F->fcoef[k] != p->fcoef[F->row[k]]) {
      F->fcoef[k] = p->fcoef[F->row[k]];
      changed = 1;
    }
  return changed;
}

static void refresh(findex_state *F, const cpk_problem *p, int all)
{
  cpk_problem *E = F->enc;
  int bounds = all || p->rev.bounds != F->seen_bounds;
  /* fcoef lives in the matrix: a new bound alone (an engine sets them every step) keeps it */
  int coef = bounds && fcoef_changed(F, p);
  if (all || coef || p->rev.values != F->seen_values) {
    fill_matrix(F, p);
    E->rev.values++;
  }
  if (all || p->rev.q != F->seen_q) {
    fill_q(F, p);
    E->rev.q++;
  }
  if (bounds) {
    fill_bounds(F, p);
    E->rev.bounds++;
  }
  F->seen_q = p->rev.q;
  F->seen_bounds = p->rev.bounds;
  F->seen_values = p->rev.values;
}

/* ---- building the encoding ------------------------------------------------ */

static int build_index(findex_state *F, const cpk_problem *p)
{
  F->n = p->n;
  for (size_t i = 0; i < p->n; i++) F->nf += p->findex[i] >= 0;
  size_t twice;
  if (cpk_size_mul(F->nf, 2, &twice) || F->n > SIZE_MAX - twice) return CPK_EOVERFLOW;
  F->N = F->n + twice;
  F->slot = cpk_alloc_array(F->n, sizeof *F->slot);
  F->row = cpk_alloc_array(F->nf ? F->nf : 1, sizeof *F->row);
  F->sign = cpk_alloc_array(F->n, sizeof *F->sign);
  F->findex = cpk_alloc_array(F->n, sizeof *F->findex);
  F->fcoef = cpk_alloc_array(F->nf ? F->nf : 1, sizeof *F->fcoef);
  if (!F->slot || !F->row || !F->sign || !F->findex || !F->fcoef) return CPK_ENOMEM;
  memcpy(F->findex, p->findex, F->n * sizeof *F->findex);
  for (size_t i = 0, k = 0; i < p->n; i++) {
    F->slot[i] = p->findex[i] >= 0 ? k : NONE;
    F->sign[i] = 1;
    if (p->findex[i] >= 0) F->row[k++] = i;
  }
  return CPK_OK;
}

/* The encoded matrix with its final pattern (CSC: the emitted entries; dense: N x N) and zero values. */
static int build_matrix(findex_state *F, const cpk_problem *p, cpk_matrix **out)
{
  if (p->M->format == CPK_MATRIX_DENSE) return cpk_matrix_alloc_dense(F->N, F->N, out);
  sink s = {EMIT_COUNT, 0, NULL, NULL, NULL, NULL, NULL};
  emit_all(F, p, &s);
  F->nemit = s.k;
  s.ti = cpk_alloc_array(F->nemit, sizeof *s.ti);
  s.tj = cpk_alloc_array(F->nemit, sizeof *s.tj);
  cpk_csc *pattern = NULL;
  int rc = (!s.ti || !s.tj) ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    s.mode = EMIT_PATTERN;
    s.k = 0;
    emit_all(F, p, &s);
    rc = cpk_csc_pattern((cpk_int)F->N, (cpk_int)F->N, F->nemit, s.ti, s.tj, &pattern, &F->pos);
  }
  if (!rc) rc = cpk_matrix_from_csc(pattern, out); /* cpk_csc_copy keeps the order pos refers to */
  cpk_csc_free(pattern);
  free(s.ti);
  free(s.tj);
  return rc;
}

static int build_encoding(findex_state *F, const cpk_problem *p)
{
  cpk_matrix *M = NULL;
  double *q = NULL;
  int rc = build_index(F, p);
  if (!rc) rc = build_matrix(F, p, &M);
  if (!rc && !(q = cpk_calloc_array(F->N, sizeof *q))) rc = CPK_ENOMEM;
  if (!rc) rc = cpk_problem_alloc_affine_mcp(M, q, NULL, NULL, &F->enc);
  cpk_matrix_free(M);
  free(q);
  if (!rc) rc = cpk_result_alloc(F->N, &F->r);
  F->z0 = cpk_alloc_array(F->N, sizeof *F->z0);
  F->cover = cpk_alloc_array(F->N, sizeof *F->cover);
  F->basis0 = cpk_alloc_array(F->N, sizeof *F->basis0);
  F->mapped = cpk_alloc_array(F->n, sizeof *F->mapped);
  F->wbuf = cpk_alloc_array(F->n, sizeof *F->wbuf);
  if (!rc && (!F->z0 || !F->cover || !F->basis0 || !F->mapped || !F->wbuf)) rc = CPK_ENOMEM;
  if (!rc) refresh(F, p, 1);
  return rc;
}

/* ---- settings: the caller's warm start and covering vector, in encoded unknowns ---- */

static void map_z0(findex_state *F, const cpk_problem *p, const double *z0)
{
  int have_w = cpk_problem_eval(p, z0, F->wbuf) == CPK_OK;
  memcpy(F->z0, z0, F->n * sizeof *z0);
  for (size_t k = 0; k < F->nf; k++) {
    size_t i = F->row[k];
    F->z0[i] = fmax(z0[i], 0.0);
    F->z0[F->n + k] = fmax(-z0[i], 0.0);
    F->z0[F->n + F->nf + k] = have_w ? fabs(F->wbuf[i]) : 0.0; /* l = |w_i| at a solution */
  }
}

static void map_basis0(findex_state *F, const int *basis0, const double *z0)
{
  memcpy(F->basis0, basis0, F->n * sizeof *basis0);
  for (size_t k = 0; k < F->nf; k++) {
    size_t i = F->row[k];
    int st = basis0[i], up = z0 ? z0[i] >= 0.0 : F->sign[i] > 0;
    if (st == CPK_VAR_AT_UPPER) up = 1;
    if (st == CPK_VAR_AT_LOWER) up = 0;
    F->basis0[i] = up ? CPK_VAR_BASIC : CPK_VAR_AT_LOWER;
    F->basis0[F->n + k] = up ? CPK_VAR_AT_LOWER : CPK_VAR_BASIC;
    F->basis0[F->n + F->nf + k] = st == CPK_VAR_BASIC ? CPK_VAR_AT_LOWER : CPK_VAR_BASIC;
  }
}

/*
 * The caller hands back the basis the last solve returned (a physics engine's warm
 * start): the encoded basis it came from is used as it was. Mapping it back cannot
 * always restore it: with a, b and l all basic (sliding at the edge of the box, w_i = 0)
 * the row's state in p's terms is one of three, the encoded one is a fourth.
 */
static int last_basis_given(const findex_state *F, const int *basis0)
{
  return F->have_mapped && F->enc_basis && F->r->has_basis && memcmp(basis0, F->mapped, F->n * sizeof *basis0) == 0;
}

static void map_settings(findex_state *F, const cpk_problem *p, const cpk_settings *given)
{
  F->set = *given;
  if (!given->max_iter && F->inner->default_max_iter)
    F->set.max_iter = F->inner->default_max_iter(F->enc);
  if (given->z0) map_z0(F, p, given->z0);
  if (given->basis0 && !given->z0 && last_basis_given(F, given->basis0))
    memcpy(F->basis0, F->r->basis, F->N * sizeof *F->basis0);
  else if (given->basis0)
    map_basis0(F, given->basis0, given->z0);
  if (given->lemke.covering) {
    memcpy(F->cover, given->lemke.covering, F->n * sizeof *F->cover);
    for (size_t k = 0; k < F->nf; k++) {
      double d = given->lemke.covering[F->row[k]];
      F->cover[F->n + k] = F->cover[F->n + F->nf + k] = d;
    }
  }
  F->set.z0 = given->z0 ? F->z0 : NULL;
  F->set.basis0 = given->basis0 ? F->basis0 : NULL;
  F->set.lemke.covering = given->lemke.covering ? F->cover : NULL;
}

/* ---- the answer in p's unknowns ------------------------------------------- */

static void map_point(const findex_state *F, const double *ze, double *z)
{
  memcpy(z, ze, F->n * sizeof *z);
  for (size_t k = 0; k < F->nf; k++) z[F->row[k]] = ze[F->row[k]] - ze[F->n + k];
}

/* At a bound exactly when the multiplier is basic; which bound: the basic one of a, b. */
static void map_basis(const findex_state *F, const int *be, const double *z, int *b)
{
  memcpy(b, be, F->n * sizeof *b);
  for (size_t k = 0; k < F->nf; k++) {
    size_t i = F->row[k];
    int upper = be[i] == CPK_VAR_BASIC ? 1 : be[F->n + k] == CPK_VAR_BASIC ? 0 : z[i] >= 0.0;
    if (be[F->n + F->nf + k] != CPK_VAR_BASIC) b[i] = CPK_VAR_BASIC;
    else b[i] = upper ? CPK_VAR_AT_UPPER : CPK_VAR_AT_LOWER;
  }
}

static int same_point(const double *a, const double *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > 1e-12 * (1.0 + fabs(a[i]))) return 0;
  return 1;
}

/* Enumeration: each encoded solution maps to one of p; several can map to the same one. */
static int map_solutions(findex_state *F, cpk_result *r)
{
  const cpk_result *R = F->r;
  for (size_t s = 0; s < R->nsolutions; s++) {
    map_point(F, R->solutions + s * F->N, F->wbuf);
    int seen = 0;
    for (size_t t = 0; t < r->nsolutions && !seen; t++)
      seen = same_point(r->solutions + t * F->n, F->wbuf, F->n);
    if (!seen) {
      int rc = cpk_result_add_solution(r, F->wbuf);
      if (rc) return rc;
    }
  }
  return CPK_OK;
}

static int map_result(findex_state *F, cpk_result *r)
{
  const cpk_result *R = F->r;
  r->status = R->status;
  r->iterations = R->iterations;
  r->nstats = R->nstats;
  memcpy(r->stats, R->stats, sizeof r->stats);
  memcpy(r->message, R->message, sizeof r->message);
  map_point(F, R->z, r->z);
  for (size_t k = 0; k < F->nf; k++) F->sign[F->row[k]] = r->z[F->row[k]] >= 0.0 ? 1 : -1;
  if ((r->has_basis = R->has_basis)) map_basis(F, R->basis, r->z, r->basis);
  if ((F->have_mapped = r->has_basis)) memcpy(F->mapped, r->basis, F->n * sizeof *F->mapped);
  if ((r->has_ray = R->has_ray)) map_point(F, R->ray, r->ray);
  cpk_result_set_stat(r, "findex_rows", (double)F->nf);
  return map_solutions(F, r);
}

/* ---- the wrapper type ------------------------------------------------------ */

static void findex_free(void *vs)
{
  findex_state *F = vs;
  if (!F) return;
  if (F->inner_state) F->inner->free(F->inner_state);
  cpk_problem_free(F->enc);
  cpk_result_free(F->r);
  free(F->row);
  free(F->slot);
  free(F->findex);
  free(F->fcoef);
  free(F->pos);
  free(F->sign);
  free(F->z0);
  free(F->cover);
  free(F->basis0);
  free(F->mapped);
  free(F->wbuf);
  lemke_box_free(&F->box);
  free(F);
}

/* The box method's answer as the result, and as the state the encoding's warm start maps from. */
static void box_result(findex_state *F, const cpk_problem *p, cpk_result *r)
{
  const lemke_box *B = &F->box;
  r->status = CPK_STATUS_SOLVED; /* the driver checks the residual again */
  r->iterations = B->pivots;
  memcpy(r->z, B->z, F->n * sizeof *r->z);
  lemke_box_basis(B, p, r->basis);
  r->has_basis = 1;
  r->has_ray = 0;
  snprintf(r->message, sizeof r->message, "solved by principal pivoting in p's unknowns in %ld moves",
           B->pivots);
  cpk_result_set_stat(r, "box_pivots", (double)B->pivots);
  cpk_result_set_stat(r, "box_factorizations", (double)B->factorizations);
  cpk_result_set_stat(r, "box_drops", (double)B->drops);
  cpk_result_set_stat(r, "findex_rows", (double)F->nf);
  for (size_t k = 0; k < F->nf; k++) F->sign[F->row[k]] = r->z[F->row[k]] >= 0.0 ? 1 : -1;
  memcpy(F->mapped, r->basis, F->n * sizeof *F->mapped);
  F->have_mapped = 1;
  F->enc_basis = 0;
}

/*
 * Moves the box method may make before Lemke's path takes over: enough for an engine's
 * step-to-step changes (Bullet's stack: 299 of 300 calls answered, in at most 12 moves),
 * few enough that a failed try (each move one LU of the free block, n <= 200) costs less
 * than the path.
 */
static long box_moves(const findex_state *F)
{
  long m = (long)F->n / 2 + 8;
  return m < 32 ? m : 32;
}

/* What is left of the solve's iteration budget (mon's limit) after `used` iterations. */
static long budget_left(const cpk_monitor *mon, long used)
{
  return used < mon->max_iter ? mon->max_iter - used : 0;
}

/* The box method was stopped (status `stop`) after `before` other iterations. */
static void box_stopped(const findex_state *F, cpk_result *r, long before, int stop)
{
  r->status = (cpk_status)stop;
  r->iterations = before + F->box.pivots;
  snprintf(r->message, sizeof r->message,
           "stopped after %ld moves of the principal pivoting in p's unknowns", F->box.pivots);
}

/*
 * lemke on a small dense problem tries principal pivoting in p's own n unknowns
 * first (lemke_box.c; no doubling of the friction rows), from the caller's basis, else the
 * last answer's on a re-solve; its answer counts only when its residual holds (checked
 * there); otherwise Lemke's path runs on the encoding. A covering vector asks for the path.
 * *moves gets the moves made (work the result counts even when they did not answer); when
 * they used the whole budget the solve ends here.
 */
static int box_first(findex_state *F, const cpk_problem *p, const cpk_settings *s,
                     cpk_monitor *mon, cpk_result *r, int *done, long *moves)
{
  *done = 0;
  *moves = 0;
  if (!F->use_box || s->lemke.covering) return CPK_OK;
  const int *state0 = s->basis0;
  if (!state0 && !s->z0 && s->resolve.warm && F->box.have_seen) state0 = F->box.seen;
  long limit = box_moves(F);
  if (mon->max_iter < limit) limit = mon->max_iter;
  int rc = lemke_box_solve(&F->box, p, state0, cpk_problem_tolerance(p, s->tol), 0, limit, mon, done);
  *moves = F->box.pivots;
  if (!rc && *done) box_result(F, p, r);
  int stop = F->box.stop;
  if (!rc && !*done && !stop && !budget_left(mon, *moves)) stop = CPK_STATUS_MAX_ITERATIONS;
  if (!rc && stop) { /* say where it stood */
    box_stopped(F, r, 0, stop);
    memcpy(r->z, F->box.z, F->n * sizeof *r->z);
    r->has_basis = 0;
    *done = 1;
  }
  return rc;
}

/*
 * The encoding solved by the inner solver after `used` iterations of earlier stages, which
 * its limit and its iteration numbers go on from; the answer mapped back into r, whose
 * iterations are the inner solver's only.
 */
static int encoded_solve(findex_state *F, const cpk_problem *p, const cpk_settings *s,
                         cpk_monitor *mon, cpk_result *r, long used)
{
  refresh(F, p, 0);
  map_settings(F, p, s);
  cpk_monitor inner = *mon; /* same clock and callback; the limit of the encoded size */
  inner.settings = &F->set;
  if (!s->max_iter) inner.max_iter = F->set.max_iter;
  inner.max_iter = budget_left(&inner, used);
  inner.offset += used;
  cpk_result_reset(F->r);
  F->r->solver = F->inner->name;
  int rc = F->inner->solve(F->inner_state, F->enc, &F->set, &inner, F->r);
  if (rc) return rc;
  F->enc_basis = 1;
  return map_result(F, r);
}

/*
 * lemke's path when the box method did not answer from its start (after `used` moves).
 * Float data with redundant contacts make M singular up to rounding: the path then runs
 * through bases that only noise keeps nonsingular, and its lexicographic choices, made on
 * noise, repeat a basis ("cycling detected"; Bullet's 6-box stack: 43 of 300 cold runs;
 * the same 10 problems on M + 1e-6 max M_ii I: solved in 49-59 pivots, none cycling). So
 * the path runs on M + reg I, and the box method finishes against M from its final active
 * set (usually 0 moves); only when that fails does the path run on M itself. The stages
 * share one iteration budget, and the result's iterations are those of every stage that ran.
 */
static int path_then_polish(findex_state *F, const cpk_problem *p, const cpk_settings *s,
                            cpk_monitor *mon, cpk_result *r, long used)
{
  set_reg(F, p, lemke_box_reg(p));
  int rc = encoded_solve(F, p, s, mon, r, used), done = 0, stop = 0;
  if (rc) return rc;
  used += r->iterations;
  r->iterations = used;
  if (r->status == CPK_STATUS_TIME_LIMIT || r->status == CPK_STATUS_MAX_ITERATIONS)
    return rc; /* the caller's limits stop here */
  long left = budget_left(mon, used), polish = 0;
  if (r->has_basis && left > 0) {
    rc = lemke_box_solve(&F->box, p, r->basis, cpk_problem_tolerance(p, s->tol), used,
                         box_moves(F) < left ? box_moves(F) : left, mon, &done);
    polish = F->box.pivots;
    stop = F->box.stop;
  }
  if (rc) return rc;
  if (stop) {
    box_stopped(F, r, used, stop); /* the path's answer stands, with the limit's status */
  } else if (done) {
    box_result(F, p, r);
    r->iterations += used;
    cpk_result_set_stat(r, "box_polish", 1.0);
  } else if (!budget_left(mon, used + polish)) { /* nothing left for the path on M */
    box_stopped(F, r, used, CPK_STATUS_MAX_ITERATIONS);
  } else {
    set_reg(F, p, 0.0);
    rc = encoded_solve(F, p, s, mon, r, used + polish);
    r->iterations += used + polish;
  }
  if (!rc && r->has_basis && r->status == CPK_STATUS_SOLVED) {
    memcpy(F->box.seen, r->basis, F->n * sizeof *F->box.seen); /* the box's next warm start */
    F->box.have_seen = 1;
  }
  cpk_result_set_stat(r, "box_fallback", 1.0);
  return rc;
}

static int findex_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                        cpk_result *r)
{
  findex_state *F = vs;
  if (!p->findex || memcmp(p->findex, F->findex, F->n * sizeof *F->findex)) {
    r->status = CPK_STATUS_INVALID_INPUT; /* the encoding's layout is that of the old rows */
    snprintf(r->message, sizeof r->message,
             "the friction-index rows changed after the solver was allocated: allocate a new one");
    return CPK_OK;
  }
  long tried;
  int done, rc = box_first(F, p, s, mon, r, &done, &tried);
  if (rc || done) return rc;
  return F->use_box && !s->lemke.covering ? path_then_polish(F, p, s, mon, r, tried)
                                           : encoded_solve(F, p, s, mon, r, 0);
}

static const cpk_solver_type findex_type = {
    "findex", "friction-index rows through their exact encoding", CPK_KIND_AFFINE_MCP, NULL, NULL,
    findex_solve, findex_free};

int cpk_findex_bind(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *s,
                    const cpk_solver_type **impl, void **state, cpk_error *err)
{
  *impl = T;
  *state = NULL;
  size_t nf = 0;
  for (size_t i = 0; p->findex && i < p->n; i++) nf += p->findex[i] >= 0;
  if (!nf || cpk_findex_native(T)) return T->alloc(state, p, s, err);
  findex_state *F = calloc(1, sizeof *F);
  if (!F) return CPK_ENOMEM;
  F->inner = T;
  int rc = build_encoding(F, p);
  if (rc) {
    findex_free(F);
    return cpk_error_set(err, rc, "%s: cannot encode the friction-index rows: %s", T->name,
                         cpk_strerror(rc));
  }
  if (!rc && T == cpk_solver_lemke && lemke_box_applies(p)) {
    rc = lemke_box_alloc(&F->box, p->n);
    F->use_box = 1;
  }
  if (rc) {
    findex_free(F);
    return cpk_error_set(err, rc, "%s: cannot allocate the box workspace", T->name);
  }
  map_settings(F, p, s);
  rc = T->alloc(&F->inner_state, F->enc, &F->set, err);
  if (rc) {
    if (err && err->message[0]) { /* its sizes are the encoding's: say so */
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      cpk_error_set(err, rc, "%.300s (on the encoding of %zu friction-index rows: %zu unknowns)",
                    why, F->nf, F->N);
    }
    findex_free(F);
    return rc;
  }
  *impl = &findex_type;
  *state = F;
  return CPK_OK;
}
