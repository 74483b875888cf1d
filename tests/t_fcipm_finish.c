/* t_fcipm_finish.c: settings.fcipm.finish: fcipm stopped short by its iteration limit on a box at rest on redundant contacts, then nsn from its best iterate; answers checked by the Coulomb law, the off setting and re-solves. */
#include <math.h>
#include <stdio.h>
#include "testlib.h"

/* fcipm on p with max_iter and the finish setting; NULL when the solve failed. */
static cpk_result *run(const cpk_problem *p, long max_iter, int finish)
{
  cpk_settings s;
  cpk_error err;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.max_iter = max_iter;
  s.fcipm.finish = finish;
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "fcipm", &s, r, &err)) {
    t_diag("fcipm: %s", err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

/* The finish's statistics of r: nsn's iterations and whether the answer is nsn's (NAN: absent). */
static void finish_stats(const cpk_result *r, double *iterations, double *finished)
{
  *iterations = *finished = NAN;
  if (r && cpk_result_get_stat(r, "finish_iterations", iterations)) *iterations = NAN;
  if (r && cpk_result_get_stat(r, "finished", finished)) *finished = NAN;
}

/*
 * The box of issue 14 at rest on four corners (W 16 x 16 of rank 6): 3
 * interior-point iterations are far from the tolerance; fcipm's own answer
 * (finish off) says so, and nsn from that point solves.
 */
static void test_box(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  if (cpk_problem_read_file(t_srcpath("data/cone/box-at-rest-elliptic.cpk"), &p, &err))
    t_diag("%s", err.message);
  if (!t_ok(p != NULL, "the box at rest read")) return;
  double tol = cpk_problem_tolerance(p, 1e-8);
  cpk_result *off = run(p, 3, CPK_FCIPM_FINISH_OFF);
  t_ok(off && off->status == CPK_STATUS_MAX_ITERATIONS && off->iterations == 3 &&
           off->residual > tol && !t_is_fc_solution(p, off->z, tol),
       "finish off: fcipm's own answer, max_iterations after %ld iterations at residual %.2g",
       off ? off->iterations : -1L, off ? off->residual : NAN);
  double fin, finished;
  finish_stats(off, &fin, &finished);
  t_ok(fin == 0.0 && finished == 0.0, "finish off: no nsn iteration");
  cpk_result *on = run(p, 3, CPK_FCIPM_FINISH_NSN);
  t_ok(on && on->status == CPK_STATUS_SOLVED && on->residual <= tol,
       "finish nsn: solved (%s, residual %.2g)", on ? cpk_status_name(on->status) : "no result",
       on ? on->residual : NAN);
  t_ok(on && t_is_fc_solution(p, on->z, tol), "finish nsn: the Coulomb law holds at the answer");
  finish_stats(on, &fin, &finished);
  t_ok(on && fin > 0.0 && (double)on->iterations == 3.0 + fin && finished == 1.0,
       "iterations (%ld) = fcipm's 3 + nsn's finish (%g)", on ? on->iterations : -1L, fin);
  cpk_result_free(on);
  cpk_result_free(off);
  cpk_problem_free(p);
}

/* A bound solver keeps nsn's workspace: a re-solve after a change of q finishes again. */
static void test_resolve(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  cpk_solver *sv = NULL;
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  s.max_iter = 3;
  if (cpk_problem_read_file(t_srcpath("data/cone/box-at-rest-elliptic.cpk"), &p, &err) ||
      p->n > 64 || cpk_result_alloc(p->n, &r) || cpk_solver_alloc(cpk_solver_find("fcipm"), p, &s, &sv, &err)) {
    t_ok(0, "set up the bound solver");
    goto out;
  }
  double tol = cpk_problem_tolerance(p, 1e-8);
  for (int k = 0; k < 2; k++) {
    if (k) {
      double q[64];
      for (size_t i = 0; i < p->n && i < 64; i++) q[i] = p->q[i] * 1.1;
      cpk_problem_update_q(p, q);
    }
    int rc = cpk_solver_solve(sv, r, &err);
    double fin, finished;
    finish_stats(r, &fin, &finished);
    t_ok(!rc && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, tol) && fin > 0.0,
         "solve %d of a bound solver: finished by nsn and solved (residual %.2g)", k + 1,
         r->residual);
  }
out:
  cpk_solver_free(sv);
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_invalid(void)
{
  cpk_settings s;
  cpk_error err;
  cpk_settings_default(&s);
  t_ok(s.fcipm.finish == CPK_DEFAULT_FCIPM_FINISH, "default finish %d", s.fcipm.finish);
  s.fcipm.finish = 2;
  t_ok(cpk_settings_validate(&s, &err) == CPK_EINVAL, "finish 2 refused: %s", err.message);
}

int main(void)
{
  test_box();
  test_resolve();
  test_invalid();
  return t_done();
}
