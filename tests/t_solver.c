/* t_solver.c: the registry, the plug-in interface, settings validation, and the driver's residual check. */
#include <math.h>
#include <string.h>
#include "testlib.h"

/* A deliberately wrong solver: returns z = 0 and claims it solved the problem. */
static int liar_alloc(void **st, const cpk_problem *p, const cpk_settings *s, cpk_error *e)
{
  static int dummy;
  *st = &dummy;
  return CPK_OK;
}
static int liar_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *m,
                      cpk_result *r)
{
  memset(r->z, 0, p->n * sizeof *r->z);
  r->status = CPK_STATUS_SOLVED;
  return CPK_OK;
}
static void liar_free(void *st) {}
static const cpk_solver_type liar = {"liar", "claims success", CPK_KIND_LCP, NULL,
                                     liar_alloc, liar_solve, liar_free};

int main(void)
{
  t_ok(cpk_solver_find("lemke") == cpk_solver_lemke, "lemke registered");
  t_ok(cpk_solver_find("enum") == cpk_solver_enum, "enum registered");
  t_ok(cpk_solver_find("nope") == NULL && cpk_solver_find(NULL) == NULL, "unknown names give NULL");
  size_t count = cpk_solver_count();
  int names_ok = count >= 2 && cpk_solver_at(count) == NULL;
  for (size_t i = 0; i < count; i++) names_ok &= cpk_solver_find(cpk_solver_at(i)->name) == cpk_solver_at(i);
  t_ok(names_ok, "every registered solver is found by its name");

  cpk_matrix *M = NULL;
  cpk_matrix_alloc_dense(1, 1, &M);
  gsl_matrix_set(M->dense, 0, 0, 1);
  double q[] = {-1};
  cpk_problem *p = NULL;
  cpk_problem_alloc_lcp(M, q, &p);
  cpk_result *r = NULL;
  cpk_result_alloc(1, &r);
  cpk_solver *s = NULL;
  cpk_error err;
  t_ok(cpk_solver_alloc(&liar, p, NULL, &s, &err) == CPK_OK, "a user-defined solver plugs in");
  t_ok(s && cpk_solver_solve(s, r, &err) == CPK_OK, "its solve runs");
  t_ok(r->status == CPK_STATUS_STALLED && r->residual == 1.0 && strstr(r->message, "residual"),
       "a false 'solved' claim is downgraded by the common residual: %s", r->message);
  cpk_solver_free(s);

  cpk_settings st;
  cpk_settings_default(&st);
  st.tol = -1;
  t_ok(cpk_solve(p, "lemke", &st, r, &err) == CPK_EINVAL && strstr(err.message, "tolerance"),
       "negative tolerance rejected: %s", err.message);
  cpk_settings_default(&st);
  st.time_limit = NAN;
  t_ok(cpk_solve(p, "lemke", &st, r, &err) == CPK_EINVAL, "NaN time limit rejected");
  cpk_settings_default(&st);
  int bad_basis[] = {7};
  st.basis0 = bad_basis;
  t_ok(cpk_solve(p, "lemke", &st, r, &err) == CPK_EINVAL, "invalid warm-start basis rejected: %s", err.message);
  t_ok(cpk_solve(p, "nope", NULL, r, &err) == CPK_ENOTFOUND, "unknown solver: %s", err.message);
  cpk_result *r2 = NULL;
  cpk_result_alloc(2, &r2);
  t_ok(cpk_solve(p, "lemke", NULL, r2, &err) == CPK_EINVAL, "result of the wrong size rejected");
  t_ok(cpk_solve(p, "lemke", NULL, r, &err) == CPK_OK && r->status == CPK_STATUS_SOLVED &&
           r->z[0] == 1.0 && strcmp(r->solver, "lemke") == 0,
       "lemke through the one-call driver: z = 1");
  t_ok(cpk_result_set_stat(r, "x", 2) == CPK_OK && cpk_result_set_stat(r, "x", 3) == CPK_OK, "stat overwrite");
  double v = 0;
  t_ok(cpk_result_get_stat(r, "x", &v) == CPK_OK && v == 3, "stat read back");
  cpk_status stt;
  t_ok(cpk_status_from_name("ray_termination", &stt) == CPK_OK && stt == CPK_STATUS_RAY_TERMINATION &&
           strcmp(cpk_status_name(CPK_STATUS_NO_SOLUTION), "no_solution") == 0,
       "status names round-trip");
  cpk_result_free(r2);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  return t_done();
}
