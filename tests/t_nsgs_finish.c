/* t_nsgs_finish.c: nsgs's finish by nsn when nsn refuses the problem: the solve goes on without it, and the refusal is not asked for again at every solve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "testlib.h"

/* A linear solver that refuses every workspace (not for lack of memory) and counts the requests. */
static long requests;

static int refuse_alloc(void **state, size_t n)
{
  (void)n;
  *state = NULL;
  requests++;
  return CPK_EINVAL;
}

static const cpk_linsys_type refusing = {"refusing", refuse_alloc, NULL, NULL, NULL, NULL, NULL, NULL};

/* Two coupled contacts (W = 2 I + 0.5 ones), not solved in one sweep. */
static cpk_problem *two_contacts(void)
{
  double W[36], q[6] = {-1.0, 0.3, -0.2, -1.0, 0.1, 0.4}, mu[2] = {0.5, 0.5};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) W[i * 6 + j] = 0.5 + (i == j ? 2.0 : 0.0);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(6, 6, W, 6, 0, &M)) cpk_problem_alloc_friction_cone(M, q, 3, mu, &p);
  cpk_matrix_free(M);
  return p;
}

static void test_refused_once(void)
{
  cpk_problem *p = two_contacts();
  cpk_settings s;
  cpk_settings_default(&s);
  s.max_iter = 1; /* the sweeps stop by themselves short of the tolerance: the finish is due */
  s.linsys = &refusing;
  cpk_solver *solver = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int ok = p && !cpk_result_alloc(p->n, &r) && !cpk_solver_alloc(cpk_solver_find("nsgs"), p, &s, &solver, &err);
  int status1 = -1, status2 = -1;
  long after_first = -1;
  if (ok && !cpk_solver_solve(solver, r, &err)) status1 = r->status;
  after_first = requests;
  if (ok && !cpk_solver_solve(solver, r, &err)) status2 = r->status;
  t_ok(status1 == CPK_STATUS_MAX_ITERATIONS && status2 == CPK_STATUS_MAX_ITERATIONS && after_first == 1,
       "nsn refused: both solves end as the sweeps left them (%s, %s), the finish was tried (%ld "
       "requests)", status1 >= 0 ? cpk_status_name((cpk_status)status1) : "-",
       status2 >= 0 ? cpk_status_name((cpk_status)status2) : "-", after_first);
  t_ok(requests == 1, "nsn's refusal is remembered: %ld workspace requests over two solves", requests);
  cpk_solver_free(solver);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  cpk_init();
  test_refused_once();
  return t_done();
}
