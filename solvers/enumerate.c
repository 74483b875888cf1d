/* enumerate.c: the `enum` solver: all solutions of a small affine MCP by index-set enumeration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "enumerate_lp.h"
#include "resolve.h"

#define ENUM_MAX_SETS ((size_t)1 << 24)
#define ENUM_CHECK_EVERY 4096
/* |R_kk| <= RANK_TOL |R_11| in the pivoted QR: the subsystem is treated as singular. */
#define RANK_TOL 1e-11
/* A singular subsystem is consistent when its least-squares residual is this small (relative). */
#define CONSISTENT_TOL 1e-9
/* Slack on bounds and on the signs of F at nonbasic variables, relative to the data's scale. */
#define FEAS_TOL 1e-10
/* |F_i| allowed at basic variables, relative to the row's scale (the solve is backward stable). */
#define EQ_TOL 1e-8
/* Solutions closer than this (relative, inf-norm) are one: degenerate problems reach z often. */
#define DUP_TOL 1e-8

typedef struct enum_ws {
  size_t n, nsets;
  double *M;            /* dense row-major copy of M */
  unsigned char *nopt;  /* number of states variable i can take */
  unsigned char *opts;  /* the states, 3 slots per variable */
  unsigned char *digit; /* current choice per variable (mixed-radix counter) */
  int *state;           /* current cpk_var_state per variable */
  int *best_basis;
  size_t *basic, *perm;
  double *A, *rhs, *x, *tau, *norm, *res, *z, *w, *wtmp, *scale;
  resolve_seen seen;    /* the problem's counters behind M, nopt and opts */
} enum_ws;

typedef struct enum_counts {
  size_t sets, singular, consistent;
  size_t lp_infeasible, lp_undecided; /* consistent singular sets settled by the feasibility LP */
  double best; /* smallest natural residual among the solutions */
} enum_counts;

/* States of variable i: a fixed one (l = u) only sits at its bound, a free one is always basic. */
static unsigned char var_options(const cpk_problem *p, size_t i, unsigned char *opt)
{
  unsigned char k = 0;
  if (p->lower[i] == p->upper[i]) {
    opt[k++] = CPK_VAR_AT_LOWER;
    return k;
  }
  if (isfinite(p->lower[i])) opt[k++] = CPK_VAR_AT_LOWER;
  if (isfinite(p->upper[i])) opt[k++] = CPK_VAR_AT_UPPER;
  opt[k++] = CPK_VAR_BASIC;
  return k;
}

/* Number of index sets, or 0 when it exceeds ENUM_MAX_SETS. */
static size_t count_sets(const cpk_problem *p)
{
  unsigned char opt[3];
  size_t total = 1;
  for (size_t i = 0; i < p->n; i++) {
    total *= var_options(p, i, opt);
    if (total > ENUM_MAX_SETS) return 0;
  }
  return total;
}

static long enum_default_max_iter(const cpk_problem *p)
{
  size_t sets = count_sets(p);
  return sets ? (long)sets : (long)ENUM_MAX_SETS;
}

static void enum_free(void *state)
{
  enum_ws *ws = state;
  if (!ws) return;
  free(ws->M), free(ws->nopt), free(ws->opts), free(ws->digit), free(ws->state);
  free(ws->best_basis), free(ws->basic), free(ws->perm), free(ws->A), free(ws->rhs);
  free(ws->x), free(ws->tau), free(ws->norm), free(ws->res), free(ws->z), free(ws->w);
  free(ws->wtmp), free(ws->scale);
  free(ws);
}

static int enum_arrays(enum_ws *ws)
{
  size_t n = ws->n, nn;
  if (cpk_size_mul(n, n, &nn)) return CPK_EOVERFLOW;
  ws->M = cpk_alloc_array(nn, sizeof(double));
  ws->A = cpk_alloc_array(nn, sizeof(double));
  ws->nopt = cpk_alloc_array(n, 1);
  ws->opts = cpk_alloc_array(n, 3);
  ws->digit = cpk_alloc_array(n, 1);
  ws->state = cpk_alloc_array(n, sizeof(int));
  ws->best_basis = cpk_alloc_array(n, sizeof(int));
  ws->basic = cpk_alloc_array(n, sizeof(size_t));
  ws->perm = cpk_alloc_array(n, sizeof(size_t));
  double **vec[] = {&ws->rhs, &ws->x, &ws->tau,  &ws->norm, &ws->res,
                    &ws->z,   &ws->w, &ws->wtmp, &ws->scale};
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++)
    *vec[k] = cpk_alloc_array(n, sizeof(double));
  int ok = ws->M && ws->A && ws->nopt && ws->opts && ws->digit && ws->state && ws->best_basis &&
           ws->basic && ws->perm;
  for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++) ok = ok && *vec[k];
  return ok ? CPK_OK : CPK_ENOMEM;
}

/* M's values and the variables' states, again after an update (a re-solve allocates nothing). */
static void load(enum_ws *ws, const cpk_problem *p)
{
  for (size_t j = 0; j < p->n; j++) {
    cpk_matrix_column(p->M, j, ws->x);
    for (size_t i = 0; i < p->n; i++) ws->M[i * p->n + j] = ws->x[i];
    ws->nopt[j] = var_options(p, j, &ws->opts[3 * j]);
  }
  resolve_seen_set(&ws->seen, p);
}

static int enum_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  /* max_n = 0 (a zeroed sub-struct) means the documented default, not "refuse everything". */
  size_t max_n = s->enumeration.max_n ? s->enumeration.max_n : CPK_DEFAULT_ENUM_MAX_N;
  *state = NULL;
  if (p->n > max_n)
    return cpk_error_set(
        err, CPK_ETOOBIG,
        "enum: n = %zu exceeds the enumeration limit %zu (settings.enumeration.max_n)", p->n,
        max_n);
  size_t nsets = count_sets(p);
  if (!nsets)
    return cpk_error_set(
        err, CPK_ETOOBIG,
        "enum: the bounds of the %zu variables give more than 2^24 = %zu index sets", p->n,
        ENUM_MAX_SETS);
  enum_ws *ws = calloc(1, sizeof *ws);
  if (!ws) return cpk_error_set(err, CPK_ENOMEM, "enum: out of memory");
  ws->n = p->n;
  ws->nsets = nsets;
  int rc = enum_arrays(ws);
  if (rc) {
    enum_free(ws);
    return cpk_error_set(err, rc, "enum: cannot allocate the workspace for n = %zu", p->n);
  }
  load(ws, p);
  *state = ws;
  return CPK_OK;
}

/* Set the states from the counter, put nonbasic variables at their bounds, list the basic ones. */
static size_t current_set(enum_ws *ws, const cpk_problem *p)
{
  size_t k = 0;
  for (size_t i = 0; i < ws->n; i++) {
    ws->state[i] = ws->opts[3 * i + ws->digit[i]];
    if (ws->state[i] == CPK_VAR_BASIC) ws->basic[k++] = i;
    else ws->z[i] = ws->state[i] == CPK_VAR_AT_LOWER ? p->lower[i] : p->upper[i];
  }
  return k;
}

static void next_set(enum_ws *ws)
{
  for (size_t i = 0; i < ws->n; i++) {
    if (++ws->digit[i] < ws->nopt[i]) return;
    ws->digit[i] = 0;
  }
}

static double norm_inf(const double *v, size_t k)
{
  double m = 0.0;
  for (size_t i = 0; i < k; i++)
    if (fabs(v[i]) > m) m = fabs(v[i]);
  return m;
}

/* M_BB into A (k x k) and rhs = -(q_B + M_BN z_N); returns ||M_BB||_inf. */
static double basic_system(enum_ws *ws, const double *q, size_t k)
{
  size_t n = ws->n;
  double anorm = 0.0;
  for (size_t a = 0; a < k; a++) {
    const double *row = &ws->M[ws->basic[a] * n];
    double sum = q[ws->basic[a]], rowsum = 0.0;
    for (size_t j = 0; j < n; j++)
      if (ws->state[j] != CPK_VAR_BASIC) sum += row[j] * ws->z[j];
    for (size_t b = 0; b < k; b++) {
      ws->A[a * k + b] = row[ws->basic[b]];
      rowsum += fabs(row[ws->basic[b]]);
    }
    ws->rhs[a] = -sum;
    if (rowsum > anorm) anorm = rowsum;
  }
  return anorm;
}

/*
 * Solve M_BB x = rhs with GSL's QR with column pivoting, which reveals the
 * rank. Returns 0 (nonsingular, x solves), 1 (singular but consistent: x is
 * the basic solution with the trailing pivoted components 0), 2 (singular and
 * inconsistent: no point has this index set, so nothing is lost by skipping it).
 */
static int solve_basic(enum_ws *ws, const double *q, size_t k)
{
  if (k == 0) return 0;
  double anorm = basic_system(ws, q, k);
  gsl_matrix_view A = gsl_matrix_view_array(ws->A, k, k);
  gsl_vector_view tau = gsl_vector_view_array(ws->tau, k), nrm = gsl_vector_view_array(ws->norm, k);
  gsl_vector_view b = gsl_vector_view_array(ws->rhs, k), x = gsl_vector_view_array(ws->x, k);
  gsl_vector_view res = gsl_vector_view_array(ws->res, k);
  gsl_permutation perm = {k, ws->perm};
  int signum;
  gsl_linalg_QRPT_decomp(&A.matrix, &tau.vector, &perm, &signum, &nrm.vector);
  double r11 = fabs(gsl_matrix_get(&A.matrix, 0, 0));
  size_t rank = 0;
  while (rank < k && fabs(gsl_matrix_get(&A.matrix, rank, rank)) > RANK_TOL * r11) rank++;
  if (rank == k) {
    gsl_linalg_QRPT_solve(&A.matrix, &tau.vector, &perm, &b.vector, &x.vector);
    return 0;
  }
  if (rank == 0) { /* GSL cannot take an empty R11 */
    gsl_vector_set_zero(&x.vector);
    gsl_vector_memcpy(&res.vector, &b.vector);
  } else {
    gsl_linalg_QRPT_lssolve2(&A.matrix, &tau.vector, &perm, &b.vector, rank, &x.vector,
                             &res.vector);
  }
  double bnorm = norm_inf(ws->rhs, k), scale = anorm * norm_inf(ws->x, k);
  scale = fmax(1.0, fmax(bnorm, scale));
  return norm_inf(ws->res, k) <= CONSISTENT_TOL * scale ? 1 : 2;
}

/* w = Mz + q with the row scales |q_i| + sum |M_ij z_j| the sign tests are relative to. */
static void evaluate(enum_ws *ws, const double *q)
{
  size_t n = ws->n;
  for (size_t i = 0; i < n; i++) {
    const double *row = &ws->M[i * n];
    double sum = q[i], mag = fabs(q[i]);
    for (size_t j = 0; j < n; j++) {
      sum += row[j] * ws->z[j];
      mag += fabs(row[j] * ws->z[j]);
    }
    ws->w[i] = sum;
    ws->scale[i] = fmax(1.0, mag);
  }
}

/* Bounds for basic variables, F = 0 at basic ones, F's sign at nonbasic ones. */
static int acceptable(const enum_ws *ws, const cpk_problem *p)
{
  double zscale = fmax(1.0, norm_inf(ws->z, ws->n)), tb = FEAS_TOL * zscale;
  for (size_t i = 0; i < ws->n; i++) {
    double w = ws->w[i], s = ws->scale[i];
    switch (ws->state[i]) {
    case CPK_VAR_BASIC:
      if (!isfinite(ws->z[i]) || ws->z[i] < p->lower[i] - tb || ws->z[i] > p->upper[i] + tb ||
          fabs(w) > EQ_TOL * s)
        return 0;
      break;
    case CPK_VAR_AT_LOWER:
      if (p->lower[i] != p->upper[i] && w < -FEAS_TOL * s) return 0;
      break;
    default:
      if (w > FEAS_TOL * s) return 0;
    }
  }
  return 1;
}

static int is_known(const cpk_result *r, const double *z)
{
  size_t n = r->n;
  double tol = DUP_TOL * fmax(1.0, norm_inf(z, n));
  for (size_t s = 0; s < r->nsolutions; s++) {
    const double *other = &r->solutions[s * n];
    size_t i = 0;
    while (i < n && fabs(other[i] - z[i]) <= tol) i++;
    if (i == n) return 1;
  }
  return 0;
}

/* A new solution: clip it into the box, keep it unless already listed, track the best residual. */
static int record(enum_ws *ws, const cpk_problem *p, cpk_result *r, enum_counts *cnt)
{
  double resid;
  for (size_t i = 0; i < ws->n; i++) ws->z[i] = fmin(fmax(ws->z[i], p->lower[i]), p->upper[i]);
  if (is_known(r, ws->z)) return CPK_OK;
  int rc = cpk_result_add_solution(r, ws->z);
  if (rc) return rc;
  cpk_problem_residual(p, ws->z, ws->wtmp, &resid);
  if (r->nsolutions == 1 || resid < cnt->best) {
    cnt->best = resid;
    memcpy(r->z, ws->z, ws->n * sizeof *r->z);
    memcpy(ws->best_basis, ws->state, ws->n * sizeof *ws->state);
  }
  return CPK_OK;
}

static int visit(enum_ws *ws, const cpk_problem *p, cpk_result *r, enum_counts *cnt)
{
  size_t k = current_set(ws, p);
  int kind = solve_basic(ws, p->q, k);
  if (kind != 0) cnt->singular++;
  if (kind == 1) cnt->consistent++;
  if (kind == 2) return CPK_OK;
  for (size_t a = 0; a < k; a++) ws->z[ws->basic[a]] = ws->x[a];
  evaluate(ws, p->q);
  return acceptable(ws, p) ? record(ws, p, r, cnt) : CPK_OK;
}

/*
 * Second pass, run only when the first found no solution but met singular
 * consistent sets: each of those is settled by the feasibility LP. A feasible
 * one yields a solution point (checked like any other); infeasible ones prove.
 */
static int settle_singular(enum_ws *ws, const cpk_problem *p, cpk_monitor *mon, cpk_result *r,
                           enum_counts *cnt, int *stop)
{
  memset(ws->digit, 0, ws->n);
  for (size_t set = 0; set < ws->nsets; set++, next_set(ws)) {
    if (set > 0 && set % ENUM_CHECK_EVERY == 0 &&
        (*stop = cpk_monitor_iteration(mon, (long)cnt->sets, (double)r->nsolutions)))
      return CPK_OK;
    if (solve_basic(ws, p->q, current_set(ws, p)) != 1) continue;
    int verdict, rc = enum_lp_settle(p, ws->state, ws->z, &verdict);
    if (rc) return rc;
    if (verdict == ENUM_LP_FEASIBLE) {
      evaluate(ws, p->q);
      if (acceptable(ws, p) && (rc = record(ws, p, r, cnt))) return rc;
      if (!acceptable(ws, p)) verdict = ENUM_LP_UNDECIDED;
    }
    cnt->lp_infeasible += verdict == ENUM_LP_INFEASIBLE;
    cnt->lp_undecided += verdict == ENUM_LP_UNDECIDED;
  }
  return CPK_OK;
}

static void report(const enum_ws *ws, const enum_counts *cnt, int stop, cpk_result *r)
{
  r->iterations = (long)cnt->sets;
  cpk_result_set_stat(r, "index_sets", (double)cnt->sets);
  cpk_result_set_stat(r, "singular_sets", (double)cnt->singular);
  cpk_result_set_stat(r, "singular_consistent", (double)cnt->consistent);
  cpk_result_set_stat(r, "solutions", (double)r->nsolutions);
  if (cnt->lp_infeasible + cnt->lp_undecided > 0) {
    cpk_result_set_stat(r, "lp_infeasible_sets", (double)cnt->lp_infeasible);
    cpk_result_set_stat(r, "lp_undecided_sets", (double)cnt->lp_undecided);
  }
  if (r->nsolutions > 0) {
    memcpy(r->basis, ws->best_basis, ws->n * sizeof *r->basis);
    r->has_basis = 1;
  }
  if (stop) {
    r->status = (cpk_status)stop;
    snprintf(
        r->message, sizeof r->message,
        "enumeration stopped after %zu of %zu index sets with %zu solutions found; the list is "
        "incomplete",
        cnt->sets, ws->nsets, r->nsolutions);
  } else if (r->nsolutions > 0) {
    r->status = CPK_STATUS_SOLVED;
    snprintf(r->message, sizeof r->message, "%zu solution%s in %zu index sets%s", r->nsolutions,
             r->nsolutions == 1 ? "" : "s", cnt->sets,
             cnt->consistent ? "; singular consistent subsystems met: the solution set may also "
                               "contain continua, listed by one point each at most"
                             : "");
  } else if (cnt->consistent == 0) {
    r->status = CPK_STATUS_NO_SOLUTION;
    snprintf(r->message, sizeof r->message,
             "no solution: none of the %zu complementary index sets gives one", cnt->sets);
  } else if (cnt->lp_undecided == 0 && cnt->lp_infeasible == cnt->consistent) {
    r->status = CPK_STATUS_NO_SOLUTION;
    snprintf(r->message, sizeof r->message,
             "no solution: none of the %zu complementary index sets gives one (%zu singular "
             "consistent ones proved empty by a feasibility LP with a Farkas certificate)",
             cnt->sets, cnt->consistent);
  } else {
    r->status = CPK_STATUS_STALLED;
    snprintf(
        r->message, sizeof r->message,
        "no solution found, but %zu index sets had a singular consistent subsystem: a solution "
        "set there (e.g. a continuum) can be neither found nor excluded by enumeration",
        cnt->consistent);
  }
}

static int enum_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                      cpk_result *r)
{
  enum_ws *ws = state;
  enum_counts cnt = {0, 0, 0, 0, 0, INFINITY};
  long max_iter = cpk_monitor_max_iter(mon);
  int stop = 0, rc = CPK_OK;
  (void)s;
  if (resolve_changed(&ws->seen, p) & (RESOLVE_VALUES | RESOLVE_BOUNDS)) {
    if (!(ws->nsets = count_sets(p))) { /* new bounds: more sets than alloc allows */
      snprintf(r->message, sizeof r->message,
               "the new bounds of the %zu variables give more than 2^24 = %zu index sets", p->n,
               ENUM_MAX_SETS);
      return CPK_ETOOBIG;
    }
    load(ws, p);
  }
  memset(ws->digit, 0, ws->n);
  for (size_t i = 0; i < ws->n; i++) r->z[i] = fmin(fmax(0.0, p->lower[i]), p->upper[i]);
  while (cnt.sets < ws->nsets) {
    if ((long)cnt.sets >= max_iter) {
      stop = CPK_STATUS_MAX_ITERATIONS;
      break;
    }
    if (cnt.sets > 0 && cnt.sets % ENUM_CHECK_EVERY == 0 &&
        (stop = cpk_monitor_log(mon, (long)cnt.sets, NAN, (double)r->nsolutions, NAN, NAN, NULL)))
      break;
    if ((rc = visit(ws, p, r, &cnt))) return rc;
    next_set(ws);
    cnt.sets++;
  }
  if (!stop && r->nsolutions == 0 && cnt.consistent > 0 &&
      (rc = settle_singular(ws, p, mon, r, &cnt, &stop)))
    return rc;
  report(ws, &cnt, stop, r);
  return CPK_OK;
}

static const cpk_solver_type enum_type = {
    "enum",
    "enumeration of complementary index sets: all solutions of a small affine problem (n <= 20)",
    CPK_KIND_LCP | CPK_KIND_AFFINE_MCP,
    enum_default_max_iter,
    enum_alloc,
    enum_solve,
    enum_free,
};

const cpk_solver_type *cpk_solver_enum = &enum_type;
