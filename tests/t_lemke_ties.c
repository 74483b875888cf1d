/* t_lemke_ties.c: Lemke on tie-heavy degenerate LCPs: right answers, no cycling, ties broken without extra solves. */
#include <math.h>
#include <stdlib.h>
#include "families.h"
#include "testlib.h"

static cpk_result *lemke(const cpk_problem *p, const cpk_linsys_type *ls)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.linsys = ls;
  if (!p || cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, "lemke", &s, r, NULL)) {
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  if (r) cpk_result_get_stat(r, name, &v);
  return v;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/*
 * The circulant P-matrix LCP: every ratio test ties. Its solution is the
 * planted z* (unique: P-matrix). Ties must be broken by the carried
 * perturbation, not by a solve per tied row: the solves stay within a few per
 * pivot and refactorization (the row-by-row lexicographic rule used about one
 * per tied row: n/2 at the first step alone).
 */
static void test_circulant(size_t n, const cpk_linsys_type *ls, const char *lsname)
{
  cpk_problem *p = NULL;
  double *zs = calloc(n, sizeof *zs);
  if (!zs || cpk_family_circulant(n, 0.0, &p, zs)) abort();
  cpk_result *r = lemke(p, ls);
  double d = r ? max_diff(r->z, zs, n) : INFINITY;
  t_ok(r && t_is_mcp_solution(p, r->z, 1e-9) && d < 1e-9,
       "circulant n=%zu (%s): |z - z*| = %.1e in %g pivots", n, lsname, d, stat(r, "pivots"));
  double solves = stat(r, "linsys_solves"), budget = 2 * stat(r, "pivots") + 4 * stat(r, "factorizations") + 8;
  t_ok(solves <= budget, "circulant n=%zu (%s): %g ties cost %g solves (budget %g)", n, lsname,
       stat(r, "lex_ties"), solves, budget);
  cpk_result_free(r);
  cpk_problem_free(p);
  free(zs);
}

/* Positive definite (so unique solution) integer LCPs with a degenerate planted solution, every backend. */
static void test_known_degenerate(const cpk_linsys_type *ls, const char *lsname)
{
  int all = 1;
  for (unsigned long seed = 1; seed <= 40; seed++) {
    size_t n = 4 + seed % 40;
    double zs[64];
    cpk_problem *p = NULL;
    if (cpk_family_known_degenerate(n, seed, &p, zs)) abort();
    cpk_result *r = lemke(p, ls);
    int ok = r && t_is_mcp_solution(p, r->z, 1e-8) && max_diff(r->z, zs, n) < 1e-7;
    if (!ok) t_diag("seed %lu n=%zu: %s", seed, n, r ? cpk_status_name(r->status) : "error");
    all &= ok;
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(all, "40 known-degenerate PD LCPs (%s): each solved at its planted z*", lsname);
}

int main(void)
{
  test_circulant(64, NULL, "automatic: lapack");
  test_circulant(256, NULL, "automatic: umfpack");
  test_circulant(64, cpk_linsys_dense, "dense");
  test_known_degenerate(NULL, "automatic");
  test_known_degenerate(cpk_linsys_umfpack, "umfpack");
  test_known_degenerate(cpk_linsys_dense, "dense");
  return t_done();
}
