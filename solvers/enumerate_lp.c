/* enumerate_lp.c: enum's feasibility LP for an index set with a singular basic block, solved by Lemke. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include <cpkit/util.h>
#include "enumerate_lp.h"

/*
 * The basic z_i are written z = z0 + T x with x >= 0: z_i = l_i + x (finite
 * lower bound), u_i - x (only an upper bound), x+ - x- (free); a finite
 * two-sided box adds the row -x >= l_i - u_i. With F = M z + q affine in x,
 * the index set's conditions are rows g'x >= h: F_i = 0 (two rows) at a basic
 * i, F_i >= 0 at lower, -F_i >= 0 at upper. Feasibility of G x >= h, x >= 0 is
 * the LCP of the LP min 0: (x, y) >= 0 with [0 -G'; G 0] (x, y) + (0, -h).
 */
typedef struct lp_build {
  size_t n, nx, nrow;
  double *z0;  /* z at x = 0 */
  double *T;   /* n x nx, column-major: dz/dx */
  double *G, *h;  /* nrow x nx rows, row-major */
} lp_build;

static size_t columns_of(const cpk_problem *p, const int *state, size_t i)
{
  if (state[i] != CPK_VAR_BASIC) return 0;
  return isfinite(p->lower[i]) || isfinite(p->upper[i]) ? 1 : 2;
}

static size_t rows_of(const cpk_problem *p, const int *state, size_t i)
{
  if (state[i] == CPK_VAR_BASIC) return 2 + (isfinite(p->lower[i]) && isfinite(p->upper[i]));
  return p->lower[i] == p->upper[i] ? 0 : 1;
}

/* z0 and T: each basic variable's columns. */
static void fill_shift(lp_build *b, const cpk_problem *p, const int *state)
{
  size_t c = 0;
  for (size_t i = 0; i < b->n; i++) {
    double l = p->lower[i], u = p->upper[i];
    if (state[i] != CPK_VAR_BASIC) {
      b->z0[i] = state[i] == CPK_VAR_AT_UPPER ? u : l;
      continue;
    }
    b->z0[i] = isfinite(l) ? l : (isfinite(u) ? u : 0.0);
    b->T[c++ * b->n + i] = isfinite(l) || !isfinite(u) ? 1.0 : -1.0;
    if (!isfinite(l) && !isfinite(u)) b->T[c++ * b->n + i] = -1.0;
  }
}

/* Append row sign * (F_i(z0) + (M T)_i x) >= 0, i.e. sign (M T)_i x >= -sign F_i(z0). */
static void add_f_row(lp_build *b, const double *MT, const double *f0, size_t i, double sign,
                      size_t *r)
{
  for (size_t c = 0; c < b->nx; c++) b->G[*r * b->nx + c] = sign * MT[c * b->n + i];
  b->h[(*r)++] = -sign * f0[i];
}

static int fill_rows(lp_build *b, const cpk_problem *p, const int *state)
{
  size_t n = b->n, r = 0, c = 0;
  double *MT = cpk_calloc_array(b->nx ? b->nx * n : 1, sizeof *MT), *f0 = cpk_alloc_array(n, sizeof *f0);
  if (!MT || !f0) {
    free(MT), free(f0);
    return CPK_ENOMEM;
  }
  for (size_t k = 0; k < b->nx; k++) cpk_matrix_mv(p->M, &b->T[k * n], &MT[k * n], 0);
  cpk_matrix_mv(p->M, b->z0, f0, 0);
  for (size_t i = 0; i < n; i++) f0[i] += p->q[i];
  for (size_t i = 0; i < n; i++) {
    if (state[i] == CPK_VAR_BASIC) {
      add_f_row(b, MT, f0, i, 1.0, &r);
      add_f_row(b, MT, f0, i, -1.0, &r);
      if (isfinite(p->lower[i]) && isfinite(p->upper[i])) { /* -x >= l - u */
        b->G[r * b->nx + c] = -1.0;
        b->h[r++] = p->lower[i] - p->upper[i];
      }
    } else if (p->lower[i] != p->upper[i]) {
      add_f_row(b, MT, f0, i, state[i] == CPK_VAR_AT_UPPER ? -1.0 : 1.0, &r);
    }
    c += columns_of(p, state, i);
  }
  free(MT), free(f0);
  return CPK_OK;
}

/* The LCP [0 -G'; G 0] (x, y) + (0, -h). */
static int aux_lcp(const lp_build *b, cpk_problem **out)
{
  size_t m = b->nx + b->nrow;
  cpk_matrix *A = NULL;
  double *q = cpk_calloc_array(m, sizeof *q);
  int rc = q ? cpk_matrix_alloc_dense(m, m, &A) : CPK_ENOMEM;
  for (size_t r = 0; !rc && r < b->nrow; r++) {
    for (size_t c = 0; c < b->nx; c++) {
      gsl_matrix_set(A->dense, b->nx + r, c, b->G[r * b->nx + c]);
      gsl_matrix_set(A->dense, c, b->nx + r, -b->G[r * b->nx + c]);
    }
    q[b->nx + r] = -b->h[r];
  }
  if (!rc) rc = cpk_problem_alloc_lcp(A, q, out);
  cpk_matrix_free(A);
  free(q);
  return rc;
}

static int lp_alloc(lp_build *b, const cpk_problem *p, const int *state)
{
  memset(b, 0, sizeof *b);
  b->n = p->n;
  for (size_t i = 0; i < p->n; i++) {
    b->nx += columns_of(p, state, i);
    b->nrow += rows_of(p, state, i);
  }
  b->z0 = cpk_alloc_array(b->n, sizeof *b->z0);
  b->T = cpk_calloc_array(b->nx ? b->nx * b->n : 1, sizeof *b->T);
  b->G = cpk_calloc_array(b->nx && b->nrow ? b->nx * b->nrow : 1, sizeof *b->G);
  b->h = cpk_calloc_array(b->nrow ? b->nrow : 1, sizeof *b->h);
  return b->z0 && b->T && b->G && b->h ? CPK_OK : CPK_ENOMEM;
}

static void lp_free(lp_build *b)
{
  free(b->z0), free(b->T), free(b->G), free(b->h);
}

/* Solve the auxiliary LCP; map a solution back to z. */
static int run_lemke(const lp_build *b, const cpk_problem *aux, double *z, int *verdict)
{
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  int rc = cpk_result_alloc(aux->n, &r);
  if (!rc) rc = cpk_solve(aux, "lemke", &s, r, NULL);
  *verdict = ENUM_LP_UNDECIDED;
  if (!rc && r->status == CPK_STATUS_NO_SOLUTION) *verdict = ENUM_LP_INFEASIBLE;
  if (!rc && r->status == CPK_STATUS_SOLVED) {
    *verdict = ENUM_LP_FEASIBLE;
    memcpy(z, b->z0, b->n * sizeof *z);
    for (size_t c = 0; c < b->nx; c++)
      for (size_t i = 0; i < b->n; i++) z[i] += b->T[c * b->n + i] * r->z[c];
  }
  cpk_result_free(r);
  return rc == CPK_ENOMEM ? rc : CPK_OK; /* other failures leave the set undecided */
}

int enum_lp_settle(const cpk_problem *p, const int *state, double *z, int *verdict)
{
  lp_build b;
  cpk_problem *aux = NULL;
  *verdict = ENUM_LP_UNDECIDED;
  int rc = lp_alloc(&b, p, state);
  if (!rc) {
    fill_shift(&b, p, state);
    rc = fill_rows(&b, p, state);
  }
  if (!rc) rc = aux_lcp(&b, &aux);
  if (!rc) rc = run_lemke(&b, aux, z, verdict);
  cpk_problem_free(aux);
  lp_free(&b);
  return rc;
}
