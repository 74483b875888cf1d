/* t_lemke_families.c: Lemke on the problem families: exponential examples, random classes, degeneracy, contact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "families.h"
#include "testlib.h"

static cpk_result *lemke(const cpk_problem *p, long max_iter, const cpk_linsys_type *ls)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.max_iter = max_iter;
  s.linsys = ls;
  if (!p || cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "lemke", &s, r, &err)) {
    t_diag("lemke failed: %s", err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  if (r) cpk_result_get_stat(r, name, &v);
  return v;
}

static void test_exponential(void)
{
  for (size_t n = 1; n <= 12; n++) {
    cpk_problem *p = NULL;
    double z[12];
    cpk_family_murty(n, &p);
    cpk_family_murty_solution(n, z);
    cpk_result *r = lemke(p, 1L << 20, NULL);
    t_ok(r && r->status == CPK_STATUS_SOLVED && max_diff(r->z, z, n) < 1e-9 &&
             stat(r, "pivots") == (double)cpk_family_murty_pivots(n),
         "Murty n=%zu: solved in %g pivots (theory %ld)", n, stat(r, "pivots"),
         cpk_family_murty_pivots(n));
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  for (size_t n = 1; n <= 10; n++) {
    cpk_problem *p = NULL;
    double z[10];
    cpk_family_fathi(n, &p);
    cpk_family_fathi_solution(n, z);
    cpk_result *r = lemke(p, 1L << 20, NULL);
    /* q = -e ties every ratio: the classic order e_1, e_2, ... takes 2^n pivots; the
       perturbation q + eps r + ... that cpkit breaks ties with takes a shorter path. */
    t_ok(r && r->status == CPK_STATUS_SOLVED && max_diff(r->z, z, n) < 1e-9 &&
             stat(r, "pivots") <= (double)cpk_family_fathi_pivots(n),
         "Fathi n=%zu: solved in %g pivots (classic lexicographic order %ld)", n,
         stat(r, "pivots"), cpk_family_fathi_pivots(n));
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/* Unique-solution families: the answer must be the generator's z*. */
static void check_known(cpk_problem *p, const double *zs, const cpk_linsys_type *ls, const char *what)
{
  cpk_result *r = lemke(p, 0, ls);
  double d = r ? max_diff(r->z, zs, p->n) : INFINITY;
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7) && d < 1e-6,
       "%s n=%zu: %s, |z - z*| = %.1e, %ld pivots", what, p ? p->n : 0,
       r ? cpk_status_name(r->status) : "error", d, r ? r->iterations : -1);
  cpk_result_free(r);
}

static void test_random_classes(void)
{
  size_t sizes[] = {2, 7, 25, 80};
  for (size_t k = 0; k < 4; k++) {
    size_t n = sizes[k];
    double *zs = calloc(n, sizeof *zs);
    cpk_problem *p = NULL;
    cpk_family_random_p(n, 100 + k, &p, zs);
    check_known(p, zs, NULL, "random P (not PD)");
    cpk_problem_free(p);
    cpk_family_random_box_mcp(n, 200 + k, &p, zs);
    check_known(p, zs, NULL, "random PD box MCP");
    cpk_problem_free(p);
    cpk_family_known_degenerate(n, 300 + k, &p, zs);
    check_known(p, zs, NULL, "known degenerate");
    cpk_problem_free(p);
    free(zs);
  }
  size_t sparse_sizes[] = {200, 1500};
  for (size_t k = 0; k < 2; k++) {
    size_t n = sparse_sizes[k];
    double *zs = calloc(n, sizeof *zs);
    cpk_problem *p = NULL;
    cpk_family_random_pd(n, 400 + k, CPK_FAMILY_SPARSE, &p, zs);
    check_known(p, zs, cpk_linsys_umfpack, "sparse random PD (UMFPACK basis)");
    cpk_problem_free(p);
    free(zs);
  }
}

static int certificate_holds(const cpk_problem *p, const double *y)
{
  double qy = 0, *g = calloc(p->n, sizeof *g);
  int ok = 1;
  cpk_matrix_mv(p->M, y, g, 1);
  for (size_t j = 0; j < p->n; j++) {
    ok &= y[j] >= -1e-12 && g[j] <= 1e-8;
    qy += p->q[j] * y[j];
  }
  free(g);
  return ok && qy < -1e-9;
}

static void test_psd(void)
{
  for (size_t k = 0; k < 4; k++) {
    size_t n = 6 + 10 * k, rank = n / 2;
    double *zs = calloc(n, sizeof *zs);
    cpk_problem *p = NULL;
    cpk_family_random_psd(n, rank, 500 + k, 1, &p, zs);
    cpk_result *r = lemke(p, 0, NULL);
    t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
         "PSD rank %zu/%zu with a solution: solved", rank, n);
    cpk_result_free(r);
    cpk_problem_free(p);
    cpk_family_random_psd(n, rank, 600 + k, 0, &p, zs);
    r = lemke(p, 0, NULL);
    t_ok(r && r->status == CPK_STATUS_NO_SOLUTION && r->has_ray && certificate_holds(p, r->ray),
         "PSD rank %zu/%zu without a solution: %s, certificate checked", rank, n,
         r ? cpk_status_name(r->status) : "error");
    cpk_result_free(r);
    cpk_problem_free(p);
    free(zs);
  }
}

static void test_degenerate(void)
{
  int all = 1;
  long worst = 0;
  for (unsigned long seed = 1; seed <= 60; seed++) {
    size_t n = 3 + seed % 30;
    cpk_problem *p = NULL;
    cpk_family_degenerate(n, seed, &p);
    cpk_result *r = lemke(p, 0, NULL);
    int ok = r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-8);
    if (!ok) t_diag("degenerate seed %lu n=%zu: %s", seed, n, r ? cpk_status_name(r->status) : "error");
    if (r && r->iterations > worst) worst = r->iterations;
    all &= ok;
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(all, "60 degenerate integer PD problems (n = 3..32) all solved, at most %ld pivots", worst);
}

static void test_contact(void)
{
  cpk_problem *p = NULL;
  cpk_family_delassus(600, 250, 7, &p);
  cpk_result *rs = lemke(p, 0, cpk_linsys_umfpack), *rd = lemke(p, 0, cpk_linsys_dense);
  t_ok(rs && rs->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, rs->z, 1e-7) &&
           stat(rs, "sparse_linsys") == 1,
       "sparse Delassus LCP, 600 contacts: solved with the UMFPACK basis (%ld pivots, %g factorizations)",
       rs ? rs->iterations : -1, stat(rs, "factorizations"));
  t_ok(rs && rd && rd->status == CPK_STATUS_SOLVED && max_diff(rs->z, rd->z, p->n) < 1e-6,
       "dense and sparse bases agree on it");
  cpk_result_free(rs);
  cpk_result_free(rd);
  cpk_problem_free(p);

  cpk_family_contact_kkt(30, 60, 8, &p);
  cpk_result *r = lemke(p, 0, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
       "contact KKT MCP with 180 free velocities: solved");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_family_contact_kkt_box(30, 60, 0.5, 9, &p);
  r = lemke(p, 0, NULL);
  t_ok(r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7),
       "box-friction contact MCP (free, one-sided and two-sided bounds): solved, %g bound flips",
       stat(r, "bound_flips"));
  cpk_result_free(r);
  cpk_problem_free(p);
}

static void test_block(void)
{
  cpk_problem *p = NULL;
  size_t d = 8;
  cpk_family_block_on_plane_lcp(d, &p);
  double *z = calloc(p->n, sizeof *z);
  cpk_family_block_on_plane_solution(d, z);
  cpk_result *r = lemke(p, 0, NULL);
  double pn = 0;
  for (size_t i = 0; i < 4; i++) pn += r ? r->z[i] : NAN;
  t_ok(r && r->status == CPK_STATUS_SOLVED, "block on plane (d = 8): solved");
  t_near(pn, CPK_BLOCK_MASS * CPK_BLOCK_GRAVITY * CPK_BLOCK_STEP, 1e-9,
         "total normal impulse = m g h (supports the weight over the step)");
  /* p_n is not unique (4 contacts, 3 constrained dof), so neither is p_t; the sliding law is. */
  int sliding = r != NULL;
  for (size_t i = 0; r && i < 4; i++)
    for (size_t j = 0; j < d; j++) {
      double pt = r->z[4 + i * d + j], want = j == d / 2 ? CPK_BLOCK_MU * r->z[i] : 0.0;
      sliding &= fabs(pt - want) < 1e-9;
    }
  t_ok(sliding, "each contact slides: p_t = mu p_n along -x only (maximum dissipation)");
  t_ok(r && max_diff(r->z + 4 + 4 * d, z + 4 + 4 * d, 4) < 1e-9,
       "sliding speed sigma = v - mu g h at every contact");
  cpk_result_free(r);
  cpk_problem_free(p);
  free(z);
}

int main(void)
{
  test_exponential();
  test_random_classes();
  test_psd();
  test_degenerate();
  test_contact();
  test_block();
  return t_done();
}
