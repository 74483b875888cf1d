/* t_findex.c: friction-index (boxed) rows: hand-solved cases, random engine-like problems, re-solves, every solver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

static const char *const solvers[] = {"lemke", "enum", "bdnewton", "fbnewton", "ipm", "pgs"};
#define NSOLVERS (sizeof solvers / sizeof solvers[0])

/*
 * Independent check of a friction-index solution, with its own loop for w = Mz + q:
 * plain rows by their bounds; row i with j = findex[i]: |z_i| <= c z_j, and w_i = 0 inside,
 * w_i <= 0 at +c z_j, w_i >= 0 at -c z_j (both when c z_j = 0: w_i free). Prints what fails.
 */
static int is_findex_solution(const cpk_problem *p, const double *z, double tol)
{
  size_t n = p->n;
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    double w = p->q[i], lo = p->lower[i], hi = p->upper[i];
    for (size_t j = 0; j < n; j++) w += cpk_matrix_get(p->M, i, j) * z[j];
    if (p->findex[i] >= 0) {
      hi = p->fcoef[i] * z[p->findex[i]];
      lo = -hi;
    }
    int fail = !(z[i] >= lo - tol && z[i] <= hi + tol);
    if (z[i] > lo + tol && w > tol) fail = 1;   /* above the lower bound: w <= 0 */
    if (z[i] < hi - tol && w < -tol) fail = 1;  /* below the upper bound: w >= 0 */
    if (fail) {
      t_diag("row %zu: z = %.10g in [%.10g, %.10g], w = %.3g", i, z[i], lo, hi, w);
      ok = 0;
    }
  }
  return ok;
}

/* The physical conditions of one contact (normal n, friction rows t): the same law, read as a person would. */
static int contact_ok(const cpk_problem *p, const double *z, const double *w, size_t nrow,
                      const size_t *trow, size_t nt, double tol)
{
  int ok = z[nrow] >= -tol && w[nrow] >= -tol && fabs(z[nrow] * w[nrow]) <= tol * (1 + fabs(z[nrow]));
  for (size_t k = 0; k < nt; k++) {
    size_t t = trow[k];
    double lim = p->fcoef[t] * z[nrow];
    if (fabs(z[t]) > lim + tol) ok = 0;                            /* inside the box */
    if (fabs(z[t]) < lim - tol && fabs(w[t]) > tol) ok = 0;        /* sticking: no slip */
    if (z[t] >= lim - tol && lim > tol && w[t] > tol) ok = 0;      /* sliding: friction opposes slip */
    if (z[t] <= -lim + tol && lim > tol && w[t] < -tol) ok = 0;
  }
  return ok;
}

static cpk_problem *boxed(size_t n, const double *Mrows, const double *q, const double *lo,
                          const double *hi, const int *findex, const double *fcoef, int sparse)
{
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  cpk_matrix_from_dense_array(n, n, Mrows, n, 0, &M);
  if (sparse) {
    cpk_csc *C = NULL;
    cpk_matrix_to_csc(M, &C);
    cpk_matrix_free(M);
    cpk_matrix_from_csc(C, &M);
    cpk_csc_free(C);
  }
  cpk_problem_alloc_affine_mcp(M, q, lo, hi, &p);
  cpk_matrix_free(M);
  if (p && cpk_problem_set_friction_index(p, findex, fcoef)) {
    cpk_problem_free(p);
    p = NULL;
  }
  return p;
}

static void hand_case(const char *what, size_t n, const double *M, const double *q,
                      const int *findex, const double *fcoef, const double *zexp)
{
  double lo[4] = {0, 0, 0, 0}, hi[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  for (int sparse = 0; sparse < 2; sparse++) {
    cpk_problem *p = boxed(n, M, q, lo, hi, findex, fcoef, sparse);
    t_ok(p != NULL, "%s: problem built", what);
    if (!p) return;
    for (size_t s = 0; s < NSOLVERS; s++) {
      cpk_result *r = NULL;
      cpk_error err;
      cpk_result_alloc(n, &r);
      int rc = cpk_solve(p, solvers[s], NULL, r, &err);
      if (rc) t_diag("%s", err.message);
      double d = 0;
      for (size_t i = 0; i < n; i++) d = fmax(d, fabs(r->z[i] - zexp[i]));
      t_ok(!rc && r->status == CPK_STATUS_SOLVED && d < 1e-6 && is_findex_solution(p, r->z, 1e-7),
           "%s (%s, %s): z matches the hand solution (error %.2g, status %s)", what, solvers[s],
           sparse ? "csc" : "dense", d, cpk_status_name(r->status));
      cpk_result_free(r);
    }
    cpk_problem_free(p);
  }
}

/* One contact with a normal row 0 and friction rows, M = I or coupled: answers derived by hand. */
static void test_hand(void)
{
  const double I2[4] = {1, 0, 0, 1}, C2[4] = {2, 1, 1, 2}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const int f2[2] = {-1, 0}, f3[3] = {-1, 0, 0};
  const double c2[2] = {0, 0.5}, c3[3] = {0, 0.5, 0.5};
  /* sticking: z = -q inside the box, w = 0 */
  hand_case("sticking", 2, I2, (double[]){-1, -0.2}, f2, c2, (double[]){1, 0.2});
  /* sliding +: the free value 2 exceeds 0.5 z_n: z_t = 0.5, w_t = -1.5 */
  hand_case("sliding +", 2, I2, (double[]){-1, -2}, f2, c2, (double[]){1, 0.5});
  hand_case("sliding -", 2, I2, (double[]){-1, 2}, f2, c2, (double[]){1, -0.5});
  /* zero normal: w_n = 1 > 0 so z_n = 0, the box shrinks to 0 and w_t = -2 is free */
  hand_case("zero normal", 2, I2, (double[]){1, -2}, f2, c2, (double[]){0, 0});
  /* coupled: z_t = 0.5 z_n, 2 z_n + 0.5 z_n = 2 gives z_n = 0.8, w_t = 0.8 + 0.8 - 3 = -1.4 */
  hand_case("coupled sliding", 2, C2, (double[]){-2, -3}, f2, c2, (double[]){0.8, 0.4});
  /* two friction rows (box friction): one slides at the bound, the other sticks */
  hand_case("box friction", 3, I3, (double[]){-1, -2, 0.1}, f3, c3, (double[]){1, 0.5, -0.1});
}

/*
 * An engine-like problem: nb bodies (6 dof, unit-ish masses), nc contacts of 3 rows each
 * (normal, 2 tangents with findex -> normal, mu), M = J M^-1 J' + cfm I as Bullet and ODE
 * build it, q = J v + bias with approaching and separating contacts.
 */
static cpk_problem *engine_problem(gsl_rng *g, size_t nb, size_t nc, int sparse, size_t **normal)
{
  size_t n = 3 * nc, nv = 6 * nb;
  double *J = calloc(n * nv, sizeof *J), *M = calloc(n * n, sizeof *M), *q = calloc(n, sizeof *q);
  double *minv = calloc(nv, sizeof *minv), *v = calloc(nv, sizeof *v), *fc = calloc(n, sizeof *fc);
  double *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
  int *fi = calloc(n, sizeof *fi);
  *normal = calloc(nc, sizeof **normal);
  for (size_t k = 0; k < nv; k++) {
    minv[k] = 1.0 / (0.5 + gsl_rng_uniform(g));
    v[k] = 2 * gsl_rng_uniform(g) - 1;
  }
  for (size_t c = 0; c < nc; c++) {
    size_t a = gsl_rng_uniform_int(g, nb), b = gsl_rng_uniform_int(g, nb + 1); /* b == nb: ground */
    double mu = 0.2 + 0.8 * gsl_rng_uniform(g);
    for (size_t r = 3 * c; r < 3 * c + 3; r++) {
      for (size_t k = 0; k < 6; k++) {
        double x = 2 * gsl_rng_uniform(g) - 1;
        J[r * nv + 6 * a + k] += x;
        if (b < nb && b != a) J[r * nv + 6 * b + k] -= x;
      }
      fi[r] = r == 3 * c ? -1 : (int)(3 * c);
      fc[r] = r == 3 * c ? 0 : mu;
      hi[r] = INFINITY;
    }
    (*normal)[c] = 3 * c;
  }
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) {
      double s = i == j ? 1e-6 : 0.0;
      for (size_t k = 0; k < nv; k++) s += J[i * nv + k] * minv[k] * J[j * nv + k];
      M[i * n + j] = s;
    }
    for (size_t k = 0; k < nv; k++) q[i] += J[i * nv + k] * v[k];
    if (fi[i] < 0) q[i] -= 0.3 * gsl_rng_uniform(g); /* penetration bias */
  }
  cpk_problem *p = boxed(n, M, q, lo, hi, fi, fc, sparse);
  free(J), free(M), free(q), free(minv), free(v), free(fc), free(lo), free(hi), free(fi);
  return p;
}

static long n_stick, n_slide; /* friction rows seen inside and at their bounds (coverage) */

static int physical(const cpk_problem *p, const cpk_result *r, const size_t *normal, size_t nc)
{
  int ok = 1;
  for (size_t c = 0; c < nc; c++) {
    size_t t[2] = {normal[c] + 1, normal[c] + 2};
    ok &= contact_ok(p, r->z, r->w, normal[c], t, 2, 1e-6);
    for (int k = 0; k < 2; k++) {
      double lim = p->fcoef[t[k]] * r->z[normal[c]];
      if (lim > 1e-6) *(fabs(r->z[t[k]]) < lim - 1e-6 ? &n_stick : &n_slide) += 1;
    }
  }
  return ok;
}

/* Random engine-like problems: every solver's answer passes the independent checks. */
static void test_random(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed());
  for (int trial = 0; trial < 8; trial++) {
    size_t nc = trial < 4 ? 2 : 6, nb = 1 + trial % 3, *normal = NULL;
    cpk_problem *p = engine_problem(g, nb, nc, trial % 2, &normal);
    for (size_t s = 0; s < NSOLVERS; s++) {
      if (nc > 2 && !strcmp(solvers[s], "enum")) { /* 3 nc + 4 nc unknowns: too many to enumerate */
        cpk_solver *E = NULL;
        cpk_error err;
        int rc = cpk_solver_alloc(cpk_solver_enum, p, NULL, &E, &err);
        t_ok(rc && strstr(err.message, "encoding of 12 friction-index rows: 42 unknowns"),
             "enum refuses the encoded size and says so: %s", err.message);
        cpk_solver_free(E);
        continue;
      }
      cpk_result *r = NULL;
      cpk_error err;
      cpk_result_alloc(p->n, &r);
      int rc = cpk_solve(p, solvers[s], NULL, r, &err);
      int good = !rc && r->status == CPK_STATUS_SOLVED;
      if (good || !strcmp(solvers[s], "lemke") || !strcmp(solvers[s], "enum"))
        t_ok(good && is_findex_solution(p, r->z, 1e-6) && physical(p, r, normal, nc),
             "random %d (%zu contacts, %s): %s solution passes the independent checks (%s)", trial,
             nc, trial % 2 ? "csc" : "dense", solvers[s], cpk_status_name(r->status));
      else
        t_diag("random %d: %s ended %s (%s)", trial, solvers[s], cpk_status_name(r->status),
               rc ? err.message : r->message);
      cpk_result_free(r);
    }
    free(normal);
    cpk_problem_free(p);
  }
  t_ok(n_stick > 0 && n_slide > 0, "the random problems have sticking (%ld) and sliding (%ld) rows",
       n_stick, n_slide);
  gsl_rng_free(g);
}

/* Solve p with a new solver and check it (the reference for re-solves). */
static int fresh_ok(const cpk_problem *p, const char *solver, double *z)
{
  cpk_result *r = NULL;
  cpk_result_alloc(p->n, &r);
  int ok = !cpk_solve(p, solver, NULL, r, NULL) && r->status == CPK_STATUS_SOLVED &&
           is_findex_solution(p, r->z, 1e-6);
  memcpy(z, r->z, p->n * sizeof *z);
  cpk_result_free(r);
  return ok;
}

/*
 * Re-solves with the solver kept: after update_q, update_matrix_values and update_fcoef the
 * answer is the new problem's (checked independently and against a fresh solve), and a warm
 * start from the last basis on an unchanged problem needs no pivot.
 */
static void test_resolve(const char *solver, int sparse)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed() + 7);
  size_t *normal = NULL, nc = 5;
  cpk_problem *p = engine_problem(g, 3, nc, sparse, &normal);
  size_t n = p->n, nnz = cpk_matrix_nnz(p->M);
  cpk_solver *S = NULL;
  cpk_result *r = NULL;
  double *z = calloc(n, sizeof *z), *v = calloc(nnz, sizeof *v), *q = calloc(n, sizeof *q);
  double *fc = calloc(n, sizeof *fc);
  cpk_result_alloc(n, &r);
  int rc = cpk_solver_alloc(cpk_solver_find(solver), p, NULL, &S, NULL);
  /* fbnewton classifies the bounds (finite or not) at alloc: a new finite bound (step 4) is its
     re-solve work on plain problems too, not the encoding's */
  int steps = strcmp(solver, "fbnewton") ? 5 : 4;
  for (int step = 0; step < steps && !rc; step++) {
    if (step == 1) { /* new q */
      for (size_t i = 0; i < n; i++) q[i] = p->q[i] + 0.3 * (gsl_rng_uniform(g) - 0.5);
      rc = cpk_problem_update_q(p, q);
    } else if (step == 2) { /* new values of M, same pattern: scale, stays PSD */
      const double *x = sparse ? p->M->csc->x : p->M->dense->data;
      for (size_t k = 0; k < nnz; k++) v[k] = 1.5 * x[k];
      rc = cpk_problem_update_matrix_values(p, v);
    } else if (step == 3) { /* new friction coefficients */
      for (size_t i = 0; i < n; i++) fc[i] = 0.5 * p->fcoef[i];
      rc = cpk_problem_update_fcoef(p, fc);
    } else if (step == 4) { /* new bounds, same coefficients: caps on the normal impulses */
      double zmax = 0;
      for (size_t c = 0; c < nc; c++) zmax = fmax(zmax, r->z[normal[c]]);
      for (size_t i = 0; i < n; i++) q[i] = p->upper[i];
      for (size_t c = 0; c < nc; c++) q[normal[c]] = 0.7 * zmax;
      rc = cpk_problem_update_bounds(p, NULL, q);
    }
    if (!rc) rc = cpk_solver_solve(S, r, NULL);
    int ref = fresh_ok(p, solver, z);
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(r->z[i] - z[i]));
    t_ok(!rc && ref && r->status == CPK_STATUS_SOLVED && is_findex_solution(p, r->z, 1e-6) &&
             (step == 4 || physical(p, r, normal, nc)) && d < 1e-5,
         "%s re-solve %d (%s): solves the updated problem (differs from a fresh solve by %.2g)",
         solver, step, sparse ? "csc" : "dense", d);
  }
  /* The last basis as a warm start: accepted, nothing to pivot (the encoding hands back the
     encoded basis it came from: mapping the original basis forward loses a, b, l all basic). */
  if (!rc && !strcmp(solver, "lemke")) {
    int *basis = malloc(n * sizeof *basis);
    memcpy(basis, r->basis, n * sizeof *basis);
    rc = cpk_solver_set_warm_start(S, NULL, basis);
    if (!rc) rc = cpk_solver_solve(S, r, NULL);
    double rejected = 0;
    cpk_result_get_stat(r, "warm_start_rejected", &rejected);
    t_ok(!rc && r->status == CPK_STATUS_SOLVED && r->iterations <= 1 && rejected == 0 &&
             is_findex_solution(p, r->z, 1e-6),
         "lemke warm start from its own basis (%s): %ld pivots", sparse ? "csc" : "dense",
         r->iterations);
    free(basis);
  }
  t_ok(!rc, "%s re-solves ran without error", solver);
  cpk_solver_free(S);
  cpk_result_free(r);
  cpk_problem_free(p);
  free(z), free(v), free(q), free(fc), free(normal);
  gsl_rng_free(g);
}

/* Rows declared after the solver was bound: refused with invalid_input, never read out of step. */
static void test_changed_rows(void)
{
  const double M[4] = {1, 0, 0, 1}, q[2] = {-1, -2}, c[2] = {0, 0.5};
  const int f[2] = {-1, 0}, g[2] = {1, -1};
  cpk_problem *p = boxed(2, M, q, NULL, NULL, f, c, 0);
  cpk_solver *S = NULL;
  cpk_result *r = NULL;
  cpk_result_alloc(2, &r);
  int rc = cpk_solver_alloc(cpk_solver_lemke, p, NULL, &S, NULL);
  if (!rc) rc = cpk_problem_set_friction_index(p, g, (const double[]){0.5, 0});
  if (!rc) rc = cpk_solver_solve(S, r, NULL);
  t_ok(!rc && r->status == CPK_STATUS_INVALID_INPUT,
       "friction-index rows changed under a bound solver: invalid_input (%s)", r->message);
  cpk_solver_free(S);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_hand();
  test_random();
  test_changed_rows();
  /* ipm and pgs copy M's values at alloc (ipm: a dense M's CSC copy; pgs: the diagonal and a
     sparse M's rows): they miss cpk_problem_update_matrix_values on plain problems too, which
     is their re-solve work, not the encoding's */
  const char *resolvers[] = {"lemke", "bdnewton", "fbnewton"};
  for (size_t s = 0; s < 3; s++) {
    test_resolve(resolvers[s], 0);
    test_resolve(resolvers[s], 1);
  }
  return t_done();
}
