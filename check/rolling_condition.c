/* rolling_condition.c: seed 000 Theorem 1 (B): the all-rolling condition, decided by an LP over the polyhedral cone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/check.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "check_internal.h"

/* The part (B) LP is solved densely by Lemke: beyond this size it is left not decided. */
#define CHK_LP_MAX_N 1000

/* ---- part (B) with dependent columns: an LP over the polyhedral cone, solved as an LCP ---------- */

/*
 * x = (c_n, beta) >= 0 parametrizes the polyhedral F (friction sum_j beta_j d_j, sum_j beta_j <=
 * mu c_n). min g'x s.t. Jx = 0, mu c_n - sum beta >= 0, 1'x <= 1 is 0 exactly when b'c >= 0 on
 * F and null(J). Its KKT system is the LCP with the monotone M = [0 -G'; G 0], q = (g, -a), on
 * which Lemke's method finds the optimum (x = 0 is feasible and the normalization bounds it).
 */
typedef struct lp_data {
  size_t nx, nrow, n;
  cpk_matrix *M;
  double *q;
} lp_data;

static void lp_set(lp_data *L, size_t row, size_t col, double v)
{
  gsl_matrix_set(L->M->dense, L->nx + row, col, v);  /* G */
  gsl_matrix_set(L->M->dense, col, L->nx + row, -v); /* -G' */
}

/* Column x_k of the constraints: its wrench w (the J rows) and its friction-budget weight. */
static void lp_column(lp_data *L, const cpk_contact_system *s, size_t c, size_t k, const double *d,
                      double mu)
{
  size_t nv = s->nv;
  for (size_t e = s->wptr[c]; e < s->wptr[c + 1]; e++) {
    const double *w = s->wval + 4 * e;
    double v = d ? d[0] * w[1] + d[1] * w[2] + d[2] * w[3] : w[0];
    lp_set(L, (size_t)s->wrow[e], k, v);
    lp_set(L, nv + (size_t)s->wrow[e], k, -v);
  }
  lp_set(L, 2 * nv + c, k, d ? -1.0 : mu);
  lp_set(L, 2 * nv + s->nc, k, -1.0);
}

static int lp_build(const cpk_contact_system *s, const cpk_varmap *map, const double *b, lp_data *L)
{
  L->nx = 0;
  for (size_t c = 0; c < s->nc; c++) L->nx += 1 + cpk_varmap_ndirections(map, c);
  L->nrow = 2 * s->nv + s->nc + 1;
  L->n = L->nx + L->nrow;
  if (L->n > CHK_LP_MAX_N) return CPK_OK; /* left not decided by the caller */
  L->q = cpk_alloc_array(L->n, sizeof *L->q);
  if (!L->q || cpk_matrix_alloc_dense(L->n, L->n, &L->M)) return CPK_ENOMEM;
  gsl_matrix_set_zero(L->M->dense);
  memset(L->q, 0, L->n * sizeof *L->q);
  L->q[L->n - 1] = 1.0; /* -a for the row -1'x >= -1 */
  for (size_t c = 0, k = 0; c < s->nc; c++) {
    L->q[k] = b[4 * c];
    lp_column(L, s, c, k++, NULL, s->contacts[c].mu);
    for (size_t j = 0; j < cpk_varmap_ndirections(map, c); j++, k++) {
      double d[3];
      cpk_varmap_direction(map, c, j, d);
      L->q[k] = d[0] * b[4 * c + 1] + d[1] * b[4 * c + 2] + d[2] * b[4 * c + 3];
      lp_column(L, s, c, k, d, 0.0);
    }
  }
  return CPK_OK;
}

/* Solve; 1 holds, 0 fails (value in *val), -1 not decided. */
static int lp_decide(const lp_data *L, double *val, int *rc)
{
  cpk_problem *p = NULL;
  cpk_result *res = NULL;
  int out = -1;
  *rc = cpk_problem_alloc_lcp(L->M, L->q, &p);
  if (!*rc) *rc = cpk_result_alloc(L->n, &res);
  if (!*rc && cpk_solve(p, "lemke", NULL, res, NULL) == CPK_OK &&
      res->status == CPK_STATUS_SOLVED) {
    double gmax = 1.0;
    *val = 0.0;
    for (size_t k = 0; k < L->nx; k++) {
      *val += L->q[k] * res->z[k];
      gmax = fmax(gmax, fabs(L->q[k]));
    }
    out = *val >= -1e-9 * gmax;
  }
  cpk_result_free(res);
  cpk_problem_free(p);
  return out;
}

static int part_b_lp(const cpk_contact_system *sys, const double *b, cpk_check_report *r)
{
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  lp_data L = {0, 0, 0, NULL, NULL};
  double val = 0;
  int rc = cpk_compile(sys, "polyhedral", NULL, &p, &map, NULL), res = -1;
  if (!rc) rc = lp_build(sys, map, b, &L);
  if (!rc && L.n <= CHK_LP_MAX_N) res = lp_decide(&L, &val, &rc);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  cpk_matrix_free(L.M);
  free(L.q);
  if (rc == CPK_ENOMEM) return rc;
  if (res == 1)
    return cpk_check_report_add(r, "theorem1_b", CPK_VERDICT_HOLDS,
                                "Theorem 1 (B): every contact rolls and b'c >= 0 on F and null(J) "
                                "(polyhedral F; min b'c over it is %.3g, LP solved by Lemke)", val);
  if (res == 0)
    return cpk_check_report_add(r, "theorem1_b", CPK_VERDICT_FAILS,
                                "Theorem 1 (B): b'c = %.6g < 0 for a c in F and null(J) "
                                "(polyhedral F, normalized; LP solved by Lemke)", val);
  return cpk_check_report_add(r, "theorem1_b", CPK_VERDICT_NOT_DECIDED,
                              "Theorem 1 (B): b'c >= 0 on F and null(J) not decided (the LP over "
                              "the polyhedral cone, %zu unknowns with its multipliers, could not be "
                              "set up or solved; limit %d)", L.n, CHK_LP_MAX_N);
}

/* Part (B): trivial when J has full column rank (F and null(J) meet in 0), else the LP above. */
int chk_theorem1_b(const cpk_contact_system *sys, const double *b, size_t nsliding, int pd,
                  cpk_check_report *r)
{
  if (nsliding)
    return cpk_check_report_add(r, "theorem1_b", CPK_VERDICT_NOT_DECIDED,
                                "Theorem 1 (B) concerns the all-rolling case and %zu contact(s) "
                                "slide", nsliding);
  if (pd)
    return cpk_check_report_add(r, "theorem1_b", CPK_VERDICT_HOLDS,
                                "Theorem 1 (B): every contact rolls and J has full column rank, so "
                                "F and null(J) meet only in 0 and b'c >= 0 there: a solution "
                                "exists for any mu > 0");
  return part_b_lp(sys, b, r);
}
