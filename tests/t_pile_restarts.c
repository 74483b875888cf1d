/* t_pile_restarts.c: the restarts of bdnewton/fbnewton perturb a compiled contact problem relative to its unknowns (no absolute 1 in whatever units): fbnewton solves bench's pile-b4-elliptic-torsional-h0.001-mu1.0-s1, a jam that no MCP solver solved (issue 14), answer checked by the MCP residual and the physical check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>
#include "harness.h"
#include "scenes.h"
#include "testlib.h"

/*
 * Four spheres in a box, mu = 1: two contacts of one sphere jam it (the only
 * answer nsn finds on the cone form has normal impulses of 128 there, 200
 * times the spheres' weight impulse, and friction on the cone). From the free
 * motion (the start a cold time step and `cpkit bench` use) fbnewton's first
 * attempt stalls near P_n = 3; with restarts perturbed by 0.1 k (1 + |z_i|),
 * the absolute 1 moved the twist impulses p_r = e_r y_r (e_r = 0.01 m) by
 * friction equivalents of 10-50 N s and no restart solved it.
 */
static void test_pile(const char *family, double mu)
{
  cpk_bench_instance in;
  cpk_bench_built b;
  cpk_error err;
  memset(&in, 0, sizeof in);
  memset(&b, 0, sizeof b);
  snprintf(in.family, sizeof in.family, "%s", family);
  in.size = 4;
  in.seed = 1;
  in.mu = mu;
  in.h = 1e-3;
  if (cpk_bench_build_scene(&in, &b, &err)) {
    t_ok(0, "%s: build: %s", family, err.message);
    return;
  }
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_physics_check pc;
  cpk_settings_default(&s);
  s.z0 = b.z0;
  if (cpk_result_alloc(b.problem->n, &r)) abort();
  if (cpk_solve(b.problem, "fbnewton", &s, r, &err)) t_diag("fbnewton: %s", err.message);
  int mcp = t_is_mcp_solution(b.problem, r->z, 1e-7);
  int phys = !cpk_varmap_check(b.ctx, r->z, 1e-3, &pc, &err) && pc.ok;
  double pmax = 0.0;
  for (size_t i = 0; i < b.problem->n; i++)
    if (cpk_varmap_var(b.ctx, i)->role == CPK_ROLE_P_N) pmax = fmax(pmax, r->z[i]);
  t_ok(r->status == CPK_STATUS_SOLVED && mcp && phys && pmax > 100.0,
       "pile-b4 %s mu %.1f, fbnewton from the free motion: solved (%s), MCP residual and physical "
       "check pass, the jam's normal impulse %.1f", family, mu, cpk_status_name(r->status), pmax);
  cpk_result_free(r);
  cpk_bench_built_free(&b);
}

int main(void)
{
  cpk_init();
  test_pile("pile/elliptic-torsional", 1.0);
  test_pile("pile/point-coulomb", 1.0);
  return t_done();
}
