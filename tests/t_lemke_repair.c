/* t_lemke_repair.c: a singular warm basis given to Lemke is repaired (dependent basic variables sent to a bound), not dropped. */
#include <math.h>
#include <stdlib.h>
#include "testlib.h"

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/*
 * M = [2 2 0; 2 2 0; 0 0 1] (PSD, rank 2: two redundant contacts), q = (-2, -2, -1):
 * every z = (a, 1 - a, 1), 0 <= a <= 1, solves it. The warm basis "all basic" is
 * singular; repaired, one of z_1, z_2 goes to 0 and the rest is the answer, no pivot.
 */
/* A problem from a dense row-major M, q and bounds (NULL: an LCP), its result, and a Lemke solve from basis0. */
static int solve_from(size_t n, const double *a, const double *q, const double *lo, const double *hi,
                      int *basis0, cpk_problem **p, cpk_result **r)
{
  cpk_matrix *M = NULL;
  cpk_settings s;
  cpk_settings_default(&s);
  s.basis0 = basis0;
  *p = NULL;
  *r = NULL;
  int rc = cpk_matrix_from_dense_array(n, n, a, n, 0, &M);
  if (!rc) rc = lo ? cpk_problem_alloc_affine_mcp(M, q, lo, hi, p) : cpk_problem_alloc_lcp(M, q, p);
  cpk_matrix_free(M);
  if (!rc) rc = cpk_result_alloc(n, r);
  return rc ? rc : cpk_solve(*p, "lemke", &s, *r, NULL);
}

static void test_redundant(void)
{
  const double a[9] = {2, 2, 0, 2, 2, 0, 0, 0, 1}, q[3] = {-2, -2, -1};
  int basis[3] = {CPK_VAR_BASIC, CPK_VAR_BASIC, CPK_VAR_BASIC};
  cpk_problem *p;
  cpk_result *r;
  int rc = solve_from(3, a, q, NULL, NULL, basis, &p, &r);
  if (!r) {
    t_ok(0, "setup");
    return;
  }
  t_ok(!rc && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-12) &&
           fabs(r->z[0] + r->z[1] - 1.0) < 1e-12 && fabs(r->z[2] - 1.0) < 1e-12,
       "redundant pair, all-basic warm basis: solved, z = (%g, %g, %g)", r->z[0], r->z[1], r->z[2]);
  t_ok(stat(r, "warm_repairs") == 1.0 && r->iterations == 0 && isnan(stat(r, "warm_start_rejected")),
       "the singular warm basis was repaired, not dropped (%g repairs, %ld pivots)",
       stat(r, "warm_repairs"), r->iterations);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/* A singular warm basis whose dependent variables are free cannot be repaired: cold start. */
static void test_free_block(void)
{
  const double a[4] = {1, 1, 1, 1}, q[2] = {-1, -1}, lo[2] = {-INFINITY, -INFINITY}, hi[2] = {INFINITY, INFINITY};
  int basis[2] = {CPK_VAR_BASIC, CPK_VAR_BASIC};
  cpk_problem *p;
  cpk_result *r;
  int rc = solve_from(2, a, q, lo, hi, basis, &p, &r);
  if (!r) {
    t_ok(0, "setup");
    return;
  }
  t_ok(!rc && isnan(stat(r, "warm_repairs")) && stat(r, "warm_start_rejected") == 1.0,
       "singular free block: no repair, the warm start is dropped (%s)", cpk_status_name(r->status));
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(void)
{
  test_redundant();
  test_free_block();
  return t_done();
}
