/* pgs.c: projected Gauss-Seidel / SOR for LCPs and affine box MCPs, the game-engine baseline. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "resolve.h"

/*
 * One sweep updates z_i <- mid(l_i, u_i, z_i - omega (Mz + q)_i / M_ii) in
 * order, using the newest z. It converges for symmetric positive definite M
 * (and H-matrices with positive diagonal) and may fail elsewhere: the
 * baseline every benchmark shows, with honest statuses when it does not.
 */

#define PGS_CHECK_EVERY 5 /* sweeps between residual checks (a check costs one sweep) */

typedef struct pgs_state {
  size_t n;
  cpk_csc *rows;  /* M by rows (the CSC of M^T) for sparse M; NULL for dense M */
  double *diag;
  double *w;      /* F(z) for residual checks */
  cpk_int *slot;  /* sparse M: entry k of M's CSC is rows->x[slot[k]] (values refresh in place) */
  double *zlast;  /* the last solved point: a re-solve's start (settings.resolve.warm) */
  int have_last;
  resolve_seen seen; /* the problem's counters behind diag and rows */
  double *last;   /* the last checked iterate with a finite residual: returned if the sweeps overflow */
} pgs_state;

static long pgs_default_max_iter(const cpk_problem *p) { return 10000; }

static void pgs_free(void *vs)
{
  pgs_state *S = vs;
  if (!S) return;
  cpk_csc_free(S->rows);
  free(S->diag);
  free(S->w);
  free(S->slot);
  free(S->zlast);
  free(S->last);
  free(S);
}

/* CSC of A^T: the rows of A, each sorted by column; slot[k] = where A's entry k went. */
static int transpose(const cpk_csc *A, cpk_csc **out, cpk_int *slot)
{
  cpk_int nnz = A->p[A->n];
  int rc = cpk_csc_alloc(A->n, A->m, nnz, out);
  cpk_int *next = rc ? NULL : cpk_calloc_array((size_t)A->m + 1, sizeof *next);
  if (!next) {
    cpk_csc_free(*out);
    *out = NULL;
    return rc ? rc : CPK_ENOMEM;
  }
  cpk_csc *T = *out;
  for (cpk_int k = 0; k < nnz; k++) T->p[A->i[k] + 1]++;
  for (cpk_int r = 0; r < A->m; r++) T->p[r + 1] += T->p[r];
  memcpy(next, T->p, (size_t)A->m * sizeof *next);
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      cpk_int at = next[A->i[k]]++;
      T->i[at] = j;
      T->x[at] = A->x[k];
      slot[k] = at;
    }
  free(next);
  return CPK_OK;
}

static int set_diagonal(pgs_state *S, const cpk_problem *p, cpk_error *err)
{
  for (size_t i = 0; i < S->n; i++) {
    S->diag[i] = cpk_matrix_get(p->M, i, i);
    /* a subnormal pivot turns the first division into infinity: as good as zero */
    if (!(S->diag[i] >= DBL_MIN))
      return cpk_error_set(err, CPK_EINVAL,
                           "pgs: M[%zu,%zu] = %g (1-based indices): projected Gauss-Seidel needs a positive diagonal "
                           "(a normal number, at least %g)",
                           i + 1, i + 1, S->diag[i], DBL_MIN);
  }
  return CPK_OK;
}

static int pgs_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  size_t n = p->n;
  pgs_state *S = calloc(1, sizeof *S);
  *out = NULL;
  if (!S) return CPK_ENOMEM;
  S->n = n;
  S->diag = cpk_alloc_array(n, sizeof *S->diag);
  S->w = cpk_alloc_array(n, sizeof *S->w);
  S->zlast = cpk_alloc_array(n, sizeof *S->zlast);
  S->last = cpk_alloc_array(n, sizeof *S->last);
  int rc = (!S->diag || !S->w || !S->zlast || !S->last) ? CPK_ENOMEM : CPK_OK;
  if (!rc && p->M->format == CPK_MATRIX_CSC) {
    size_t nnz = (size_t)p->M->csc->p[n];
    S->slot = cpk_alloc_array(nnz ? nnz : 1, sizeof *S->slot);
    rc = S->slot ? transpose(p->M->csc, &S->rows, S->slot) : CPK_ENOMEM;
  }
  if (rc) {
    pgs_free(S);
    return cpk_error_set(err, rc, "pgs: cannot allocate the workspace for n = %zu", n);
  }
  rc = set_diagonal(S, p, err);
  if (rc) {
    pgs_free(S);
    return rc;
  }
  resolve_seen_set(&S->seen, p);
  *out = S;
  return CPK_OK;
}

/* After an update of M's values: the rows and the diagonal again, in place. */
static int refresh_values(pgs_state *S, const cpk_problem *p, cpk_error *err)
{
  if (S->rows)
    for (cpk_int k = 0; k < p->M->csc->p[S->n]; k++) S->rows->x[S->slot[k]] = p->M->csc->x[k];
  return set_diagonal(S, p, err);
}

/* (Mz + q)_i from row i of M with the current z. */
static double row_value(const pgs_state *S, const cpk_problem *p, size_t i, const double *z)
{
  double v = p->q[i];
  if (S->rows) {
    for (cpk_int k = S->rows->p[i]; k < S->rows->p[i + 1]; k++) v += S->rows->x[k] * z[S->rows->i[k]];
  } else {
    const double *row = p->M->dense->data + i * p->M->dense->tda;
    for (size_t j = 0; j < S->n; j++) v += row[j] * z[j];
  }
  return v;
}

/* z_i clamped to its bounds; a friction-index row's are +-c z_j at the newest z_j (read natively,
   as engines' PGS does: at convergence they are the bounds at the solution). */
static double clamp(const cpk_problem *p, size_t i, const double *z, double t)
{
  double lo = p->lower[i], hi = p->upper[i];
  if (p->findex && p->findex[i] >= 0) {
    hi = p->fcoef[i] * fmax(z[p->findex[i]], 0.0);
    lo = -hi;
  }
  return t < lo ? lo : (t > hi ? hi : t);
}

static void sweep(const pgs_state *S, const cpk_problem *p, double omega, double *z)
{
  for (size_t i = 0; i < S->n; i++)
    z[i] = clamp(p, i, z, z[i] - omega * row_value(S, p, i, z) / S->diag[i]);
}

static double residual(pgs_state *S, const cpk_problem *p, const double *z)
{
  if (cpk_problem_eval(p, z, S->w)) return INFINITY;
  return cpk_natural_residual(p, z, S->w);
}

/* The warm point (or 0) projected on the bounds (scaling rows first: no chains). */
static void start(const cpk_problem *p, const double *z0, double *z)
{
  for (size_t i = 0; i < p->n; i++) z[i] = z0 ? z0[i] : 0.0;
  for (size_t i = 0; i < p->n; i++)
    if (!p->findex || p->findex[i] < 0) z[i] = clamp(p, i, z, z[i]);
  for (size_t i = 0; p->findex && i < p->n; i++)
    if (p->findex[i] >= 0) z[i] = clamp(p, i, z, z[i]);
}

static int pgs_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  pgs_state *S = vs;
  double *z = r->z, tol = cpk_problem_tolerance(p, s->tol);
  if (resolve_changed(&S->seen, p) & RESOLVE_VALUES) {
    cpk_error e;
    if (refresh_values(S, p, &e)) {
      r->status = CPK_STATUS_INVALID_INPUT;
      snprintf(r->message, sizeof r->message, "%.*s", (int)sizeof r->message - 1, e.message);
      return CPK_OK;
    }
  }
  resolve_seen_set(&S->seen, p);
  const double *z0 = s->z0 ? s->z0 : (S->have_last && s->resolve.warm ? S->zlast : NULL);
  start(p, z0, z); /* the warm point (or 0) projected on the bounds */
  double res = residual(S, p, z);
  if (z0 && !isfinite(res)) {
    /* A warm start so far out that Mz + q overflows: the sweeps would make inf - inf = NaN. */
    start(p, NULL, z);
    res = residual(S, p, z);
    cpk_result_set_stat(r, "warm_start_rejected", 1.0);
  }
  double first = res;
  long sweeps = 0, kept = 0;
  memcpy(S->last, z, S->n * sizeof *z);
  r->status = CPK_STATUS_SOLVED;
  while (res > tol) {
    int stop = cpk_monitor_log(mon, sweeps, res, NAN, NAN, NAN, z);
    if (stop) {
      r->status = (cpk_status)stop;
      break;
    }
    sweep(S, p, s->pgs.omega, z);
    sweeps++;
    if (sweeps % PGS_CHECK_EVERY && sweeps < cpk_monitor_max_iter(mon)) continue;
    res = residual(S, p, z);
    if (!isfinite(res)) { /* never a z of NaN: the last finite iterate, and say so */
      memcpy(z, S->last, S->n * sizeof *z);
      r->status = CPK_STATUS_STALLED;
      snprintf(r->message, sizeof r->message,
               "diverged: the natural residual overflowed after %ld sweeps; z is the iterate of "
               "sweep %ld", sweeps, kept);
      break;
    }
    memcpy(S->last, z, S->n * sizeof *z);
    kept = sweeps;
    if (res > 1e6 * (1.0 + first)) {
      r->status = CPK_STATUS_STALLED;
      snprintf(r->message, sizeof r->message, "diverged: natural residual %.3g after %ld sweeps", res,
               sweeps);
      break;
    }
  }
  r->iterations = sweeps;
  S->have_last = r->status == CPK_STATUS_SOLVED;
  if (S->have_last) memcpy(S->zlast, z, S->n * sizeof *z);
  cpk_result_set_stat(r, "sweeps", (double)sweeps);
  cpk_result_set_stat(r, "omega", s->pgs.omega);
  return CPK_OK;
}

static const cpk_solver_type pgs_type = {
    "pgs",
    "projected Gauss-Seidel / SOR (settings.pgs.omega): the game-engine baseline, positive diagonal",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP,
    pgs_default_max_iter,
    pgs_alloc,
    pgs_solve,
    pgs_free};

const cpk_solver_type *cpk_solver_pgs = &pgs_type;
