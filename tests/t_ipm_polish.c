/* t_ipm_polish.c: ipm's Newton polish of a nonlinear solve left short of the tolerance (bdnewton from the best point), checked against hand-derived answers. */
#include <math.h>
#include <stdlib.h>
#include "mcp_problems.h"
#include "testlib.h"

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

static cpk_result *run_ipm(const cpk_problem *p, long max_iter, int crossover)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.max_iter = max_iter;
  s.ipm.crossover = crossover;
  if (cpk_result_alloc(p->n, &r)) abort();
  if (cpk_solve(p, "ipm", &s, r, &err)) t_diag("ipm: %s", err.message);
  return r;
}

/*
 * The contact chain of bench/mcp_problems.h (30 particles on a plane, the
 * contact NCP of seed 004 per particle): the normal impulses are m g h
 * exactly. Cut after 8 interior iterations, ipm is far from the tolerance
 * and its last crossover does not solve; the polish does, and the answer is
 * checked against m g h and by the natural residual computed here. Without
 * crossover (no polish either) the same cut run ends unsolved: the polish is
 * what solves it.
 */
static void test_chain_cut_short(void)
{
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  double pn[30];
  if (cpk_mcp_contact_chain(30, 2, &d, &p)) abort();
  cpk_mcp_contact_chain_normal(d, pn);
  cpk_result *r = run_ipm(p, 8, 1);
  double worst = 0.0;
  for (size_t i = 0; i < 30; i++) worst = fmax(worst, fabs(r->z[7 * i + 3] - pn[i]));
  t_ok(r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) && worst < 1e-7,
       "chain of 30, ipm cut at 8 iterations: solved, normal impulses m g h (|diff| %.1e)", worst);
  t_ok(stat(r, "polish") == 1.0 && stat(r, "polish_iterations") >= 1.0 &&
           r->iterations == 8 + (long)stat(r, "polish_iterations"),
       "  by the polish (%g bdnewton iterations, %ld in all)", stat(r, "polish_iterations"),
       r->iterations);
  cpk_result_free(r);
  r = run_ipm(p, 8, 0);
  t_ok(r->status == CPK_STATUS_MAX_ITERATIONS && stat(r, "polish") == 0.0 &&
           !t_is_mcp_solution(p, r->z, 1e-7),
       "  without crossover nor polish: max_iterations, not a solution");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

/* A solve that ipm finishes by itself reports no polish. */
static void test_no_polish_when_solved(void)
{
  cpk_mcp_block b;
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  double want[7];
  int slide;
  cpk_mcp_block_default(&b, 1);
  if (cpk_mcp_block_on_plane(&b, &d, &p) || cpk_mcp_block_solution(&b, want, &slide)) abort();
  cpk_result *r = run_ipm(p, 0, 1);
  double diff = 0.0;
  for (int i = 0; i < 7; i++) diff = fmax(diff, fabs(r->z[i] - want[i]));
  t_ok(r->status == CPK_STATUS_SOLVED && diff < 1e-7 && stat(r, "polish") == 0.0 &&
           stat(r, "polish_iterations") == 0.0,
       "sliding block: solved by the interior iterations, no polish (|diff| %.1e)", diff);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

int main(void)
{
  cpk_init();
  test_chain_cut_short();
  test_no_polish_when_solved();
  return t_done();
}
