/* t_lemke_box.c: lemke's first try on small dense friction-index problems (principal pivoting in their own unknowns): answers checked by hand, warm re-solves counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/*
 * Own check, written from the box conditions: w = Mz + q by its own loop, then per row
 * its box [lo, hi] (a friction row's is [-c z_j, c z_j], z_j >= 0 being row j's own
 * condition) and the distance from z_i to mid(lo, hi, z_i - w_i), which is 0 exactly
 * when z_i is in the box, w_i >= 0 at lo, w_i <= 0 at hi and w_i = 0 inside.
 */
/* Row i at z: w_i = (Mz + q)_i by its own loop, and its box [lo, hi]. */
static void row_at(const cpk_problem *p, const double *z, size_t i, double *w, double *lo, double *hi)
{
  *w = p->q[i];
  for (size_t j = 0; j < p->n; j++) *w += cpk_matrix_get(p->M, i, j) * z[j];
  *lo = p->lower[i];
  *hi = p->upper[i];
  if (p->findex[i] >= 0) {
    *hi = p->fcoef[i] * z[p->findex[i]];
    *lo = -*hi;
  }
}

static double box_error(const cpk_problem *p, const double *z)
{
  double err = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double w, lo, hi;
    row_at(p, z, i, &w, &lo, &hi);
    double t = z[i] - w, mid = t < lo ? lo : (t > hi ? hi : t);
    err = fmax(err, fabs(z[i] - mid));
    if (!(z[i] >= lo - 1e-12 && z[i] <= hi + 1e-12)) err = fmax(err, 1.0); /* out of its box */
  }
  return err;
}

/*
 * The result's basis says what the answer does, checked from M, q and z: a basic unknown
 * has w_i = 0 inside its box, one at its lower (upper) bound sits there with w_i >= 0 (<= 0).
 */
static int basis_consistent(const cpk_problem *p, const double *z, const int *basis, double tol)
{
  for (size_t i = 0; i < p->n; i++) {
    double w, lo, hi;
    row_at(p, z, i, &w, &lo, &hi);
    int ok = basis[i] == CPK_VAR_BASIC      ? fabs(w) <= tol
             : basis[i] == CPK_VAR_AT_LOWER ? fabs(z[i] - lo) <= tol && w >= -tol
                                            : fabs(z[i] - hi) <= tol && w <= tol;
    if (!ok) {
      t_diag("row %zu: state %d, z = %.3g in [%.3g, %.3g], w = %.3g", i, basis[i], z[i], lo, hi, w);
      return 0;
    }
  }
  return 1;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = -1.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/*
 * Engine-like contacts: nb bodies (6 velocities each, unit mass), nc contacts per body
 * against the ground, each a normal row and two friction rows (findex to the normal,
 * c = mu). J's rows are random; M = J J^T is PSD and, with nc = 4 (12 rows for 6
 * velocities), singular, as a box resting on four corners makes it. q = J v + bias, with
 * v pushing every body into the ground.
 */
static cpk_problem *contacts(gsl_rng *g, size_t nb, size_t nc, double mu, int as_float, double **Jout)
{
  size_t n = 3 * nb * nc, nv = 6 * nb;
  double *J = calloc(n * nv, sizeof *J), *M = calloc(n * n, sizeof *M), *q = calloc(n, sizeof *q);
  double *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi), *fc = calloc(n, sizeof *fc);
  int *fi = calloc(n, sizeof *fi);
  for (size_t r = 0; r < n; r++) {
    size_t body = r / (3 * nc);
    for (size_t k = 0; k < 6; k++) J[r * nv + 6 * body + k] = gsl_rng_uniform(g) - 0.5;
    if (r % 3 == 0) J[r * nv + 6 * body + 1] = 1.0; /* normals point up (velocity 1 of the body) */
    fi[r] = r % 3 == 0 ? -1 : (int)(r - r % 3);
    fc[r] = r % 3 == 0 ? 0.0 : mu;
    lo[r] = r % 3 == 0 ? 0.0 : -INFINITY;
    hi[r] = INFINITY;
  }
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      for (size_t k = 0; k < nv; k++) M[a * n + b] += J[a * nv + k] * J[b * nv + k];
  for (size_t a = 0; a < n; a++) {
    for (size_t k = 0; k < nv; k++) q[a] += J[a * nv + k] * (k % 6 == 1 ? -1.0 : 0.3 * (gsl_rng_uniform(g) - 0.5));
    if (a % 3 == 0) q[a] -= 0.01 * gsl_rng_uniform(g); /* penetration bias per corner */
  }
  for (size_t k = 0; as_float && k < n * n; k++) M[k] = (float)M[k]; /* a float engine's data */
  for (size_t k = 0; as_float && k < n; k++) q[k] = (float)q[k];
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  cpk_matrix_from_dense_array(n, n, M, n, 0, &Mm);
  if (Mm) cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  if (p && cpk_problem_set_friction_index(p, fi, fc)) {
    cpk_problem_free(p);
    p = NULL;
  }
  cpk_matrix_free(Mm);
  free(M), free(q), free(lo), free(hi), free(fc), free(fi);
  *Jout = J;
  return p;
}

/* The 2 x 2 case of the Bullet test: z = (1, 0.5) exactly (the refinement removes reg's bias). */
static void test_hand(void)
{
  const double M[4] = {1, 0, 0, 1}, q[2] = {-1, -2}, lo[2] = {0, -INFINITY}, hi[2] = {INFINITY, INFINITY};
  const int fi[2] = {-1, 0};
  const double fc[2] = {0, 0.5};
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_matrix_from_dense_array(2, 2, M, 2, 0, &Mm);
  cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  cpk_problem_set_friction_index(p, fi, fc);
  cpk_result_alloc(2, &r);
  int rc = cpk_solve(p, "lemke", NULL, r, &err);
  t_ok(!rc && fabs(r->z[0] - 1) < 1e-10 && fabs(r->z[1] - 0.5) < 1e-10,
       "hand: z = (%.15g, %.15g) is (1, 0.5) to 1e-10", r->z[0], r->z[1]);
  t_ok(stat(r, "box_pivots") >= 0 && stat(r, "box_fallback") < 0,
       "hand: answered by the pivoting in the problem's own unknowns, no fallback");
  t_ok(r->has_basis && r->basis[0] == CPK_VAR_BASIC && r->basis[1] == CPK_VAR_AT_UPPER,
       "hand: basis (basic, at the upper bound)");
  const double qsep[2] = {1, -2}; /* separating: z = 0, the box [0, 0], w_1 = -2 */
  rc = cpk_problem_update_q(p, qsep);
  if (!rc) rc = cpk_solve(p, "lemke", NULL, r, &err);
  t_ok(!rc && fabs(r->z[0]) < 1e-12 && fabs(r->z[1]) < 1e-12 && r->has_basis &&
           basis_consistent(p, r->z, r->basis, 1e-9) && r->basis[1] == CPK_VAR_AT_UPPER,
       "hand, separating: z = 0, the closed box's row reported at the bound w < 0 allows");
  cpk_matrix_free(Mm);
  cpk_problem_free(p);
  cpk_result_free(r);
}

/* Random redundant contact sets: every answer checked; how many the box method took, said. */
static void test_redundant(gsl_rng *g)
{
  int solved = 0, by_box = 0, polished = 0, total = 0;
  for (size_t nc = 3; nc <= 4; nc++)
    for (int trial = 0; trial < 10; trial++) {
      double *J = NULL;
      cpk_problem *p = contacts(g, 2, nc, 0.5, 0, &J);
      cpk_result *r = NULL;
      cpk_error err;
      cpk_result_alloc(p ? p->n : 1, &r);
      int rc = p ? cpk_solve(p, "lemke", NULL, r, &err) : CPK_EINVAL;
      double e = rc ? INFINITY : box_error(p, r->z);
      total++;
      if (!rc && r->status == CPK_STATUS_SOLVED && e <= 1e-7) solved++;
      else t_diag("nc %zu trial %d: rc %d status %s error %.3g", nc, trial, rc,
                  rc ? "-" : cpk_status_name(r->status), e);
      if (!rc && stat(r, "box_fallback") < 0) by_box++;
      if (!rc && stat(r, "box_polish") > 0) polished++;
      cpk_problem_free(p);
      cpk_result_free(r);
      free(J);
    }
  t_ok(solved == total, "redundant contacts (2 bodies, 3 and 4 corners, M = J J^T singular): %d of %d "
       "solved, each checked by its own box conditions", solved, total);
  t_diag("%d of %d answered without Lemke's encoded path, %d by its path on M + reg I polished "
         "against M", by_box, total, polished);
}

/*
 * A steady sequence, as an engine's resting stack gives: q moves by 1e-5 relative per
 * step; from the second solve on, each re-solve must take 0 moves (the last active set)
 * and still be checked.
 */
static void test_steady(gsl_rng *g)
{
  double *J = NULL;
  cpk_problem *p = contacts(g, 2, 4, 0.6, 0, &J);
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings set;
  cpk_settings_default(&set);
  int rc = p ? cpk_solver_alloc(cpk_solver_lemke, p, &set, &s, &err) : CPK_EINVAL;
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  if (!rc) rc = cpk_solver_solve(s, r, &err);
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && box_error(p, r->z) <= 1e-7, "steady: first solve checked");
  double *q = calloc(p ? p->n : 1, sizeof *q);
  long moves = 0, bad = 0, fallbacks = 0;
  for (int step = 0; !rc && step < 20; step++) {
    for (size_t i = 0; i < p->n; i++) q[i] = p->q[i] * (1.0 + 1e-5 * (gsl_rng_uniform(g) - 0.5));
    rc = cpk_problem_update_q(p, q);
    if (!rc) rc = cpk_solver_solve(s, r, &err);
    if (rc || r->status != CPK_STATUS_SOLVED || box_error(p, r->z) > 1e-7) bad++;
    else if (!r->has_basis || !basis_consistent(p, r->z, r->basis, 1e-7)) bad++;
    if (!rc) moves += r->iterations;
    if (!rc && stat(r, "box_fallback") >= 0) fallbacks++;
  }
  t_ok(!rc && bad == 0, "steady: 20 re-solves, each checked by its own box conditions and its basis (%ld failed)", bad);
  t_ok(!rc && moves == 0 && fallbacks == 0, "steady: 0 moves in all (got %ld), no fallback (got %ld)",
       moves, fallbacks);
  free(q);
  free(J);
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* A covering vector asks for Lemke's path: it runs on the encoding, and agrees. */
static void test_covering(gsl_rng *g)
{
  double *J = NULL;
  cpk_problem *p = contacts(g, 1, 3, 0.5, 0, &J);
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings set;
  cpk_settings_default(&set);
  double *d = calloc(p ? p->n : 1, sizeof *d);
  for (size_t i = 0; p && i < p->n; i++) d[i] = 1.0;
  set.lemke.covering = d;
  int rc = p ? cpk_result_alloc(p->n, &r) : CPK_EINVAL;
  if (!rc) rc = cpk_solve(p, "lemke", &set, r, &err);
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && box_error(p, r->z) <= 1e-7 && stat(r, "pivots") > 0 &&
           stat(r, "box_pivots") < 0,
       "covering vector given: Lemke's encoded path only, answer checked");
  free(d);
  free(J);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * Float data (M, q rounded as a float engine's are) with four corners per body: M is
 * singular up to rounding. Lemke's path on the encoding, forced by a covering vector,
 * is counted (it cycled on Bullet's stack); lemke's default (the box method, else the
 * path on M + reg I polished against M) must solve every one, checked by hand.
 */
static void test_float(gsl_rng *g)
{
  int solved = 0, path_ok = 0, total = 0;
  for (int trial = 0; trial < 30; trial++) {
    double *J = NULL, *d = NULL;
    cpk_problem *p = contacts(g, 3, 4, 0.5, 1, &J);
    cpk_result *r = NULL;
    cpk_error err;
    cpk_settings set;
    cpk_settings_default(&set);
    set.tol = 1e-6;
    int rc = p ? cpk_result_alloc(p->n, &r) : CPK_EINVAL;
    if (!rc) rc = cpk_solve(p, "lemke", &set, r, &err);
    total++;
    if (!rc && r->status == CPK_STATUS_SOLVED && box_error(p, r->z) <= 1e-6) solved++;
    else t_diag("float trial %d: rc %d status %s: %s", trial, rc, rc ? "-" : cpk_status_name(r->status), rc ? "" : r->message);
    d = calloc(p ? p->n : 1, sizeof *d);
    for (size_t i = 0; p && i < p->n; i++) d[i] = 1.0;
    set.lemke.covering = d;
    if (!rc) rc = cpk_solve(p, "lemke", &set, r, &err);
    if (!rc && r->status == CPK_STATUS_SOLVED) path_ok++;
    else if (!rc) t_diag("float trial %d, path alone: %s", trial, r->message);
    free(d);
    free(J);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(solved == total, "float data, 3 bodies on 4 corners: %d of %d solved by lemke, checked by hand",
       solved, total);
  t_diag("Lemke's path alone on the encoding of M: %d of %d solved", path_ok, total);
}

/* A problem of tests/data/lemke_box/ (format in its first line), NULL if unreadable. */
static cpk_problem *read_mlcp(const char *rel)
{
  FILE *f = fopen(t_srcpath(rel), "r");
  char line[512];
  size_t n = 0;
  if (!f || !fgets(line, sizeof line, f) || fscanf(f, "%zu", &n) != 1 || n == 0 || n > 1000) {
    if (f) fclose(f);
    return NULL;
  }
  double *v = calloc(n * n + 5 * n, sizeof *v);
  int *fi = calloc(n, sizeof *fi), ok = v && fi;
  for (size_t k = 0; ok && k < n * n + 3 * n; k++) ok = fscanf(f, "%lf", &v[k]) == 1;
  for (size_t k = 0; ok && k < n; k++) ok = fscanf(f, "%d", &fi[k]) == 1;
  for (size_t k = 0; ok && k < n; k++) ok = fscanf(f, "%lf", &v[n * n + 3 * n + k]) == 1;
  fclose(f);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (ok) cpk_matrix_from_dense_array(n, n, v, n, 0, &M);
  if (M) cpk_problem_alloc_affine_mcp(M, v + n * n, v + n * n + n, v + n * n + 2 * n, &p);
  if (p && cpk_problem_set_friction_index(p, fi, v + n * n + 3 * n)) {
    cpk_problem_free(p);
    p = NULL;
  }
  cpk_matrix_free(M);
  free(v);
  free(fi);
  return p;
}

/*
 * Two calls of Bullet's 6-box stack (n = 48, 24 friction rows, float data, M singular up
 * to rounding), solved cold: Lemke's path on the encoding of M cycles on both ("a basis
 * repeated"; 105 of the stack's 300 calls); lemke must solve them, checked by hand.
 */
static void test_bullet_files(void)
{
  const char *files[] = {"data/lemke_box/bullet-stack-036.txt", "data/lemke_box/bullet-stack-069.txt"};
  for (size_t k = 0; k < 2; k++) {
    cpk_problem *p = read_mlcp(files[k]);
    cpk_result *r = NULL;
    cpk_error err;
    cpk_settings set;
    cpk_settings_default(&set);
    set.tol = 1e-6; /* the adapter's for float data */
    int rc = p ? cpk_result_alloc(p->n, &r) : CPK_EINVAL;
    if (!rc) rc = cpk_solve(p, "lemke", &set, r, &err);
    double e = rc ? INFINITY : box_error(p, r->z);
    t_ok(!rc && r->status == CPK_STATUS_SOLVED && e <= cpk_problem_tolerance(p, set.tol),
         "%s cold: solved (%s, %ld pivots), box conditions to %.2g by hand", files[k],
         rc ? "not read" : cpk_status_name(r->status), rc ? 0L : r->iterations, e);
    if (!rc) t_diag("%s", r->message);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

int main(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed());
  test_hand();
  test_redundant(g);
  test_steady(g);
  test_covering(g);
  test_float(g);
  test_bullet_files();
  gsl_rng_free(g);
  return t_done();
}
