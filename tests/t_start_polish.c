/* t_start_polish.c: bdnewton, fbnewton and ipm do not return a warm start that passes the tolerance only just as it is: one Newton step finishes it (issue 14: the tilted ellipsoid's touch-down), checked against the hand-derived solution. */
#include <math.h>
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

/*
 * The LCP M = [[2, 1], [1, 2]], q = (-1, -1) has the solution z = (1/3, 1/3)
 * (both free: M z + q = 0). A start 3e-7 from it along z_1 has natural residual
 * 6e-7, below tol = 1e-6 (|q|_inf = 1 leaves the tolerance as it is): before the
 * change the three solvers returned it with 0 iterations, 3e-7 from the answer.
 * Now one Newton step (ipm: its crossover step) lands on it (to rounding). A start far below the
 * tolerance (the solution itself) is still returned as given.
 */
static void run(const char *solver, double shift, double want_err, long want_iter)
{
  double Md[4] = {2, 1, 1, 2}, q[2] = {-1, -1}, z0[2] = {1.0 / 3 + shift, 1.0 / 3};
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_settings s;
  cpk_error err;
  if (cpk_matrix_from_dense_array(2, 2, Md, 2, 0, &M) || cpk_problem_alloc_lcp(M, q, &p) ||
      cpk_result_alloc(2, &r))
    abort();
  cpk_settings_default(&s);
  s.tol = 1e-6;
  s.z0 = z0;
  if (cpk_solve(p, solver, &s, r, &err)) t_diag("%s: %s", solver, err.message);
  double e = fmax(fabs(r->z[0] - 1.0 / 3), fabs(r->z[1] - 1.0 / 3));
  t_ok(r->status == CPK_STATUS_SOLVED && e <= want_err && (want_iter < 0 || r->iterations == want_iter),
       "%s from a start %g off: solved, %.1e from (1/3, 1/3) (at most %g), %ld iterations", solver,
       shift, e, want_err, r->iterations);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

int main(void)
{
  cpk_init();
  run("bdnewton", 3e-7, 1e-12, 1);
  run("fbnewton", 3e-7, 1e-12, 1);
  run("bdnewton", 0.0, 1e-15, 0);
  run("fbnewton", 0.0, 1e-15, 0);
  run("ipm", 3e-7, 1e-12, -1);
  run("ipm", 0.0, 1e-15, -1);
  return t_done();
}
