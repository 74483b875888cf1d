/* t_sparse_stat.c: the `sparse_linsys` statistic follows what the linear-solver backend does (a symbolic analysis of the pattern), not its name. */
#include <math.h>
#include <stdlib.h>
#include "physics_mlcp.h"
#include "testlib.h"

static double stat(const cpk_result *r, const char *name)
{
  double v = -1.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Solve p with backend L; the stat, or -1 when the solve failed or its answer does not hold. */
static double sparse_stat(const cpk_problem *p, const char *solver, const cpk_linsys_type *L)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.linsys = L;
  double v = -1.0;
  if (!cpk_result_alloc(p->n, &r) && !cpk_solve(p, solver, &s, r, NULL) &&
      r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7))
    v = stat(r, "sparse_linsys");
  cpk_result_free(r);
  return v;
}

/* The backends' own word, from alloc on (before any factorization). */
static void test_backends(void)
{
  const cpk_linsys_type *types[] = {cpk_linsys_lapack, cpk_linsys_dense, cpk_linsys_umfpack};
  const int sparse[] = {0, 0, 1};
  for (size_t k = 0; k < 3; k++) {
    cpk_linsys *L = NULL;
    cpk_linsys_stats st;
    int rc = cpk_linsys_alloc(types[k], 4, &L);
    if (!rc) cpk_linsys_get_stats(L, &st);
    t_ok(!rc && st.sparse == sparse[k] && st.factorizations == 0, "%s: stats.sparse = %d at alloc",
         types[k]->name, sparse[k]);
    cpk_linsys_free(L);
  }
}

int main(void)
{
  cpk_init();
  test_backends();
  /* a caller's own backends: UMFPACK under another name, LAPACK's LU under UMFPACK's */
  cpk_linsys_type sparse_renamed = *cpk_linsys_umfpack, dense_misnamed = *cpk_linsys_lapack;
  sparse_renamed.name = "my-sparse-lu";
  dense_misnamed.name = "umfpack";
  cpk_problem *p = NULL;
  cpk_physics_mlcp(16, 6, 2024, &p); /* the 48-variable MLCP of t_resolve_alloc */
  const char *solvers[] = {"lemke", "bdnewton", "fbnewton", "ipm"};
  for (size_t k = 0; p && k < sizeof solvers / sizeof solvers[0]; k++) {
    double umf = sparse_stat(p, solvers[k], cpk_linsys_umfpack);
    double lap = sparse_stat(p, solvers[k], cpk_linsys_lapack);
    double ren = sparse_stat(p, solvers[k], &sparse_renamed);
    double mis = sparse_stat(p, solvers[k], &dense_misnamed);
    t_ok(umf == 1.0 && lap == 0.0, "%s: umfpack 1 (%g), lapack 0 (%g)", solvers[k], umf, lap);
    t_ok(ren == 1.0 && mis == 0.0,
         "%s: UMFPACK named \"my-sparse-lu\" 1 (%g), LAPACK named \"umfpack\" 0 (%g)", solvers[k],
         ren, mis);
  }
  t_ok(p != NULL, "the test problem was built");
  cpk_problem_free(p);
  return t_done();
}
