/* t_pile_cone.c: the cone form's W' of a stepping pile of spheres, compiled anew and updated in place (cpk_compile_update), against the Delassus operator J^T M^-1 J built independently by cpk_contact_system_delassus. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "sphere_pile.h"
#include "testlib.h"

/*
 * The cone form of point-coulomb (e = 1: no scaling) has W'[3c + a][3j + b] =
 * A[4c + a][4j + b] for a, b < 3, A = J^T M^-1 J. The compiler writes W' from the
 * operator's blocks column by column (the order the build generated them in), and an
 * update scatters them into the compiled pattern; a block sent to the wrong place, or
 * one left out, shows here against A taken from the operator's rows (blocks_to_csc).
 * The pile of bench/step_split (bench/sphere_pile.h) at PILE_SPHERES spheres, stepped
 * by nsgs, so the values of every update are new.
 */
#define PILE_SPHERES 61
#define PILE_STEPS 4

/* A (4 nc square, CSC) as a dense column-major array. */
static double *dense_of(const cpk_csc *A)
{
  size_t n = (size_t)A->m;
  double *d = calloc(n * n, sizeof *d);
  for (cpk_int j = 0; d && j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) d[(size_t)j * n + (size_t)A->i[k]] = A->x[k];
  return d;
}

/* Largest |W'(r, col) - A(4 (r / 3) + r % 3, 4 (col / 3) + col % 3)| over W''s entries
 * (nonzero: how many of them are nonzero), and the nonzeros of A's normal and tangent
 * parts that W' has no entry for (missing). */
static double compare(const cpk_csc *W, const double *A, size_t nc, size_t *nonzero,
                      size_t *missing)
{
  size_t n = 4 * nc, seen = 0, total = 0;
  double worst = 0;
  for (cpk_int col = 0; col < W->n; col++)
    for (cpk_int k = W->p[col]; k < W->p[col + 1]; k++) {
      size_t r = (size_t)W->i[k], c = (size_t)col;
      double a = A[(4 * (c / 3) + c % 3) * n + 4 * (r / 3) + r % 3];
      worst = fmax(worst, fabs(W->x[k] - a));
      seen += a != 0.0;
    }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) total += i % 4 < 3 && j % 4 < 3 && A[j * n + i] != 0.0;
  *nonzero = seen;
  *missing = total - seen;
  return worst;
}

/* W' of p against the Delassus operator of s. */
static void check_against_delassus(const cpk_contact_system *s, const cpk_problem *p,
                                   const char *what, int step)
{
  cpk_csc *A = NULL;
  cpk_error err;
  int rc = cpk_contact_system_delassus(s, &A, NULL, &err);
  double *D = rc ? NULL : dense_of(A);
  size_t nonzero = 0, missing = 0;
  int csc = p->M->format == CPK_MATRIX_CSC && (size_t)p->n == 3 * s->nc;
  double worst = D && csc ? compare(p->M->csc, D, s->nc, &nonzero, &missing) : INFINITY;
  t_ok(worst == 0.0 && missing == 0 && nonzero > 3 * s->nc,
       "step %d, %s: W' (%zu nonzero entries) is J^T M^-1 J's normal and tangent rows and "
       "columns (largest difference %g, %zu of its nonzeros missing)",
       step, what, nonzero, worst, missing);
  free(D);
  cpk_csc_free(A);
}

/* 1 when the two problems' W' have the same pattern and the same values, bit for bit. */
static int same_W(const cpk_problem *a, const cpk_problem *b)
{
  const cpk_csc *A = a->M->csc, *B = b->M->csc;
  size_t nnz = (size_t)A->p[A->n];
  return A->n == B->n && !memcmp(A->p, B->p, ((size_t)A->n + 1) * sizeof *A->p) &&
         !memcmp(A->i, B->i, nnz * sizeof *A->i) && !memcmp(A->x, B->x, nnz * sizeof *A->x) &&
         !memcmp(a->q, b->q, a->n * sizeof *a->q);
}

int main(void)
{
  cpk_sim_settings set;
  cpk_world *w = NULL;
  cpk_compile_options co;
  cpk_problem *kept = NULL;
  cpk_varmap *kept_map = NULL;
  cpk_init();
  cpk_sim_settings_default(&set);
  snprintf(set.model, sizeof set.model, "point-coulomb");
  cpk_compile_options_default(&co);
  co.form = CPK_FORM_CONE;
  int ok = !cpk_world_alloc(&set, &w, NULL) && !cpk_bench_sphere_pile(w, PILE_SPHERES, 2);
  t_ok(ok, "a pile of %d spheres", PILE_SPHERES);
  for (int step = 0; ok && step < PILE_STEPS; step++) {
    cpk_contact_system *s = NULL;
    cpk_problem *p = NULL;
    cpk_varmap *map = NULL;
    ok = !cpk_world_contact_system(w, &s, NULL) && s->nc > PILE_SPHERES &&
         !cpk_compile(s, "point-coulomb", &co, &p, &map, NULL) &&
         p->kind == CPK_KIND_FRICTION_CONE;
    t_ok(ok, "step %d: %zu contacts compiled in the cone form", step, s ? s->nc : 0);
    if (ok) check_against_delassus(s, p, "compiled", step);
    if (ok && kept) {
      int rc = cpk_compile_update(s, kept, kept_map, NULL);
      t_ok(!rc && same_W(kept, p), "step %d: the update equals the compile bit for bit", step);
      if (!rc) check_against_delassus(s, kept, "updated", step);
    }
    if (ok && !kept) {
      kept = p;
      kept_map = map;
      p = NULL;
      map = NULL;
    }
    cpk_problem_free(p);
    cpk_varmap_free(map);
    cpk_contact_system_free(s);
    if (ok) ok = !cpk_world_step(w, NULL, NULL);
  }
  cpk_problem_free(kept);
  cpk_varmap_free(kept_map);
  cpk_world_free(w);
  return t_done();
}
