/* t_resolve_errors.c: a re-solve that the updates make impossible says why (enum's index sets, fcipm's W), as the first allocation does. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "testlib.h"

/* A solver for p and a first solve that solves: 1, or 0 (then *solver, *r may still need freeing). */
static int first_solve(const cpk_problem *p, const char *name, cpk_solver **solver, cpk_result **r,
                       cpk_error *err)
{
  cpk_settings s;
  cpk_settings_default(&s);
  return p && !cpk_result_alloc(p->n, r) &&
         !cpk_solver_alloc(cpk_solver_find(name), p, &s, solver, err) &&
         !cpk_solver_solve(*solver, *r, err) && (*r)->status == CPK_STATUS_SOLVED;
}

/*
 * enum on 16 variables with a lower bound each (2^16 index sets) is allocated;
 * finite upper bounds then make 3^16 > 2^24 sets: the re-solve refuses, and
 * the error says it is the index sets, not just "problem too large".
 */
static void test_enum_bounds(void)
{
  enum { N = 16 };
  double M[N * N] = {0}, q[N], lo[N], hi[N], hi2[N];
  for (size_t i = 0; i < N; i++) {
    M[i * N + i] = 2.0;
    q[i] = i % 2 ? -1.0 : 1.0;
    lo[i] = 0.0;
    hi[i] = INFINITY;
    hi2[i] = 5.0;
  }
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(N, N, M, N, 0, &Mm)) cpk_problem_alloc_affine_mcp(Mm, q, lo, hi, &p);
  cpk_matrix_free(Mm);
  cpk_solver *solver = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int ok = first_solve(p, "enum", &solver, &r, &err);
  t_ok(ok, "enum: 2^16 index sets solved");
  int rc = ok ? cpk_problem_update_bounds(p, lo, hi2) : -1;
  if (!rc) rc = cpk_solver_solve(solver, r, &err);
  t_ok(rc == CPK_ETOOBIG && strstr(err.message, "index sets"),
       "enum: new bounds with 3^16 sets refused, and said why (%s)", rc > 0 ? err.message : "-");
  cpk_solver_free(solver);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* fcipm allocated on a monotone W; a negative diagonal entry written in place makes it refuse. */
static void test_fcipm_diagonal(void)
{
  double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1.0, 0.2, 0.0}, mu = 0.5;
  cpk_matrix *Mm = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(3, 3, W, 3, 0, &Mm)) cpk_problem_alloc_friction_cone(Mm, q, 3, &mu, &p);
  cpk_matrix_free(Mm);
  cpk_solver *solver = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int ok = first_solve(p, "fcipm", &solver, &r, &err);
  t_ok(ok, "fcipm: first solve solved");
  W[4] = -1.0;
  int rc = ok ? cpk_problem_update_matrix_dense(p, W, 3, 0) : -1;
  if (!rc) rc = cpk_solver_solve(solver, r, &err);
  t_ok(rc == CPK_EINVAL && strstr(err.message, "positive semidefinite"),
       "fcipm: a negative W_22 refused on the re-solve, and said why (%s)", rc > 0 ? err.message : "-");
  cpk_solver_free(solver);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  cpk_init();
  test_enum_bounds();
  test_fcipm_diagonal();
  return t_done();
}
