/* pgs.c: projected Gauss-Seidel / SOR for LCPs and affine box MCPs, the game-engine baseline. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>

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
} pgs_state;

static long pgs_default_max_iter(const cpk_problem *p) { return 10000; }

static void pgs_free(void *vs)
{
  pgs_state *S = vs;
  if (!S) return;
  cpk_csc_free(S->rows);
  free(S->diag);
  free(S->w);
  free(S);
}

/* CSC of A^T: the rows of A, each sorted by column. */
static int transpose(const cpk_csc *A, cpk_csc **out)
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
      cpk_int slot = next[A->i[k]]++;
      T->i[slot] = j;
      T->x[slot] = A->x[k];
    }
  free(next);
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
  int rc = (!S->diag || !S->w) ? CPK_ENOMEM : CPK_OK;
  if (!rc && p->M->format == CPK_MATRIX_CSC) rc = transpose(p->M->csc, &S->rows);
  if (rc) {
    pgs_free(S);
    return cpk_error_set(err, rc, "pgs: cannot allocate the workspace for n = %zu", n);
  }
  for (size_t i = 0; i < n; i++) {
    S->diag[i] = cpk_matrix_get(p->M, i, i);
    /* a subnormal pivot turns the first division into infinity: as good as zero */
    if (!(S->diag[i] >= DBL_MIN)) {
      pgs_free(S);
      return cpk_error_set(err, CPK_EINVAL,
                           "pgs: M[%zu,%zu] = %g: projected Gauss-Seidel needs a positive diagonal "
                           "(a normal number, at least %g)",
                           i + 1, i + 1, cpk_matrix_get(p->M, i, i), DBL_MIN);
    }
  }
  *out = S;
  return CPK_OK;
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

static int pgs_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  pgs_state *S = vs;
  double *z = r->z, tol = cpk_problem_tolerance(p, s->tol);
  /* start: the warm point (or 0) projected on the bounds (scaling rows first: no chains) */
  for (size_t i = 0; i < S->n; i++) z[i] = s->z0 ? s->z0[i] : 0.0;
  for (size_t i = 0; i < S->n; i++)
    if (!p->findex || p->findex[i] < 0) z[i] = clamp(p, i, z, z[i]);
  for (size_t i = 0; p->findex && i < S->n; i++)
    if (p->findex[i] >= 0) z[i] = clamp(p, i, z, z[i]);
  double res = residual(S, p, z), first = res;
  long sweeps = 0;
  r->status = CPK_STATUS_SOLVED;
  while (res > tol) {
    int stop = cpk_monitor_iteration(mon, sweeps, res);
    if (stop) {
      r->status = (cpk_status)stop;
      break;
    }
    sweep(S, p, s->pgs.omega, z);
    sweeps++;
    if (sweeps % PGS_CHECK_EVERY && sweeps < cpk_monitor_max_iter(mon)) continue;
    res = residual(S, p, z);
    if (!isfinite(res) || res > 1e6 * (1.0 + first)) {
      r->status = CPK_STATUS_STALLED;
      snprintf(r->message, sizeof r->message, "diverged: natural residual %.3g after %ld sweeps", res,
               sweeps);
      break;
    }
  }
  r->iterations = sweeps;
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
