/* t_restart_floor.c: the relative restarts of bdnewton/fbnewton perturb a component that is 0 (a cold start, a bound) by a floor from the problem's row scale: an NCP whose solution needs its unknown to leave 0 and whose start stalls is solved by fbnewton's restart 5. */
#include <math.h>
#include <stdlib.h>
#include "testlib.h"

/*
 * One unknown z >= 0 in units of S = 1e-3 (u = z / S): F(z) = S (-1 - u + 100 u^2),
 * defined (the callback fails elsewhere) for 0 <= u <= 2. F(0) = -S < 0, so z = 0 is
 * no solution; the only one is the root u* = (1 + sqrt(401)) / 200 = 0.1051. F falls
 * until u = 0.005, so from z = 0 Newton's step goes below 0, outside F's domain: the
 * start is a stall. The absolute restarts move z by 0.1 k (1 + |z|), 100 to 300 times
 * the domain; the relative ones by 0.1 k |z| = 0 at the stall and at the start, before
 * the floor. With the row scale S, a floor of a tenth of it reaches past u = 0.005
 * (restart 5 moves z to u = 0.0064).
 */
#define S 1e-3
#define UMAX 2.0

static int in_domain(double z) { return z >= 0.0 && z <= UMAX * S; }

static int fun(const double *z, double *f, void *params)
{
  (void)params;
  double u = z[0] / S;
  if (!in_domain(z[0])) return 1;
  f[0] = S * (-1.0 - u + 100.0 * u * u);
  return 0;
}

static int jac(const double *z, cpk_csc *J, void *params)
{
  (void)params;
  if (!in_domain(z[0])) return 1;
  J->x[0] = -1.0 + 200.0 * z[0] / S;
  return 0;
}

static cpk_problem *problem(void)
{
  cpk_csc *pat = NULL;
  cpk_problem *p = NULL;
  double l = 0.0, u = INFINITY, scale = S;
  if (cpk_csc_alloc(1, 1, 1, &pat)) abort();
  pat->p[0] = 0, pat->p[1] = 1, pat->i[0] = 0;
  if (cpk_problem_alloc_nonlinear_mcp(1, fun, jac, pat, NULL, &l, &u, &p)) abort();
  cpk_csc_free(pat);
  if (cpk_problem_set_row_scale(p, &scale)) abort();
  return p;
}

static void run(const cpk_problem *p, const char *solver, int restarts)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.newton.crash = 0; /* the restarts alone: the crash's projected-gradient steps leave 0 by F's sign */
  s.newton.restarts = restarts;
  if (cpk_result_alloc(1, &r)) abort();
  int rc = cpk_solve(p, solver, &s, r, &err);
  double ustar = (1.0 + sqrt(401.0)) / 200.0, z = r->z[0], f = NAN;
  int ok = rc == CPK_OK && in_domain(z) && fun(&z, &f, NULL) == 0;
  double res = ok ? fabs(z - fmax(z - f, 0.0)) : INFINITY;
  if (restarts == 0)
    t_ok(ok && res > 1e-3 * S, "%s without restarts stalls at the start (z = %g, natural residual %g)",
         solver, z, res);
  else
    t_ok(ok && res <= 1e-8 && fabs(z / S - ustar) < 1e-4,
         "%s with %d restarts: u = %.6f (root %.6f), natural residual %g (%s)", solver, restarts, z / S,
         ustar, res, r->message);
  cpk_result_free(r);
}

int main(void)
{
  cpk_problem *p = problem();
  /* bdnewton shares the restart points but not the outcome: its restart reaches u = 0.87,
     inside the root's basin, and its non-monotone search then accepts the min-map's step
     back to z = 0 (the piece z < F pulls z to its bound), where it stalls again. */
  run(p, "bdnewton", 0);
  run(p, "fbnewton", 0);
  run(p, "fbnewton", 5);
  cpk_problem_free(p);
  return t_done();
}
