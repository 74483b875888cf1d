/* lemke_murty.c: Murty's least-index principal pivoting, Lemke's fallback when its path breaks down. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/result.h>
#include <cpkit/util.h>
#include "lemke_murty.h"

/* Violations below this, relative to the row's or the variable's scale, count as none. */
#define MURTY_TOL 1e-11
/* Steps of iterative refinement per basis solve. */
#define MURTY_REFINE 2

static double bound_of(const cpk_problem *p, size_t i, int st)
{
  return st == CPK_VAR_AT_UPPER ? p->upper[i] : p->lower[i];
}

/* Factor the complementary basis of `state` and solve: z, and w = F(z) in w. */
static int solve_basis(lemke_basis *b, const cpk_problem *p, const int *state, double *z, double *w,
                       double *rhs, double *r)
{
  size_t n = p->n;
  for (size_t v = 0; v < 2 * n + 1; v++) b->pos[v] = -1;
  for (size_t i = 0; i < n; i++) {
    b->head[i] = n + 1; /* nothing yet */
    lemke_basis_set(b, i, state[i] == CPK_VAR_BASIC ? LEMKE_VAR_Z(b, i) : LEMKE_VAR_S(b, i));
    z[i] = state[i] == CPK_VAR_BASIC ? 0.0 : bound_of(p, i, state[i]);
  }
  int rc = lemke_basis_factor(b);
  if (rc) return rc;
  cpk_matrix_mv(p->M, z, w, 0); /* B x = q + M z_N */
  for (size_t i = 0; i < n; i++) w[i] += p->q[i];
  memcpy(rhs, w, n * sizeof *w);
  if ((rc = lemke_basis_solve(b, w, 0))) return rc;
  for (int step = 0; step < MURTY_REFINE; step++) { /* the bases can be very ill-conditioned */
    lemke_basis_multiply(b, w, r);
    for (size_t i = 0; i < n; i++) r[i] = rhs[i] - r[i];
    if ((rc = lemke_basis_solve(b, r, 0))) return rc;
    for (size_t i = 0; i < n; i++) w[i] += r[i];
  }
  for (size_t i = 0; i < n; i++)
    if (state[i] == CPK_VAR_BASIC) z[i] = w[i], w[i] = 0.0; /* position i holds z_i, else s_i */
  return CPK_OK;
}

/* The new state of the first violating variable, or -1 (in *idx) when none violates. */
static int first_violation(const cpk_problem *p, const int *state, const double *z, const double *w,
                           double scale, long *idx)
{
  for (size_t i = 0; i < p->n; i++) {
    double tol = MURTY_TOL * (scale + fabs(z[i]));
    *idx = (long)i;
    if (state[i] == CPK_VAR_BASIC) {
      if (z[i] < p->lower[i] - tol) return CPK_VAR_AT_LOWER;
      if (z[i] > p->upper[i] + tol) return CPK_VAR_AT_UPPER;
    } else if (p->lower[i] != p->upper[i]) {
      if (state[i] == CPK_VAR_AT_LOWER && w[i] < -tol) return CPK_VAR_BASIC;
      if (state[i] == CPK_VAR_AT_UPPER && w[i] > tol) return CPK_VAR_BASIC;
    }
  }
  *idx = -1;
  return 0;
}

int lemke_murty(lemke_basis *b, const cpk_problem *p, cpk_monitor *mon, long max_moves, int *state,
                double *z, lemke_murty_run *run)
{
  size_t n = p->n;
  double *w = cpk_alloc_array(n, 3 * sizeof *w), scale = 1.0;
  if (!w) return CPK_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    scale = fmax(scale, fabs(p->q[i]));
    int has_l = isfinite(p->lower[i]), has_u = isfinite(p->upper[i]);
    state[i] = has_l ? CPK_VAR_AT_LOWER : (has_u ? CPK_VAR_AT_UPPER : CPK_VAR_BASIC);
  }
  int rc = CPK_OK;
  run->solved = run->stop = 0;
  for (run->moves = 0; run->moves < max_moves; run->moves++) {
    long i;
    /* each move factors afresh: up to 4n + 100 of them, which the limits must be able to cut */
    run->stop = cpk_monitor_log(mon, run->first + run->moves, NAN, NAN, NAN, NAN, NULL);
    if (!run->stop) run->stop = cpk_monitor_before_factor(mon, b->ls);
    if (run->stop) break;
    if ((rc = solve_basis(b, p, state, z, w, w + n, w + 2 * n))) break;
    int next = first_violation(p, state, z, w, scale, &i);
    if (i < 0) {
      run->solved = 1;
      break;
    }
    state[i] = next;
  }
  free(w);
  return rc;
}
