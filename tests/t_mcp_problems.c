/* t_mcp_problems.c: the nonlinear test problems: Jacobians against finite differences, listed solutions, monotonicity claims, the block's hand answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_problems.h"
#include "testlib.h"

/* Deterministic uniform numbers in [0, 1) (the tests must not depend on the library's RNG use). */
static double urand(unsigned long *s)
{
  *s = *s * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* Dense F'(z) through the problem's own callback and pattern (entries outside the pattern are 0). */
static int jacobian_dense(const cpk_problem *p, const double *z, double *Jd)
{
  cpk_csc *J = NULL;
  size_t n = p->n;
  if (cpk_csc_copy(p->jac_pattern, &J)) return -1;
  int rc = p->jacobian(z, J, p->params);
  memset(Jd, 0, n * n * sizeof *Jd);
  for (cpk_int j = 0; !rc && j < J->n; j++)
    for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++) Jd[(size_t)J->i[k] * n + (size_t)j] = J->x[k];
  cpk_csc_free(J);
  return rc;
}

/*
 * Largest relative gap between the analytic Jacobian and central differences
 * of F at z, over all n^2 entries (so a pattern missing an entry shows up).
 */
static double fd_gap(const cpk_problem *p, const double *z)
{
  size_t n = p->n;
  double *J = malloc(n * n * sizeof *J), *zp = malloc(n * sizeof *zp);
  double *fp = malloc(n * sizeof *fp), *fm = malloc(n * sizeof *fm), worst = 0.0;
  if (!J || !zp || !fp || !fm || jacobian_dense(p, z, J)) worst = INFINITY;
  for (size_t j = 0; isfinite(worst) && j < n; j++) {
    double h = 1e-6 * fmax(1.0, fabs(z[j]));
    memcpy(zp, z, n * sizeof *zp);
    zp[j] = z[j] + h;
    int bad = p->F(zp, fp, p->params);
    zp[j] = z[j] - h;
    bad |= p->F(zp, fm, p->params);
    if (bad) worst = INFINITY;
    for (size_t i = 0; !bad && i < n; i++) {
      double fd = (fp[i] - fm[i]) / (2 * h), a = J[i * n + j];
      worst = fmax(worst, fabs(fd - a) / fmax(1.0, fabs(a)));
    }
  }
  free(J), free(zp), free(fp), free(fm);
  return worst;
}

/* A point near z inside F's domain: positive entries perturbed by up to 10%, others by +-0.1. */
static void perturb(const double *z, size_t n, unsigned long *s, double *out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = z[i] > 0.0 ? z[i] * (0.9 + 0.2 * urand(s)) : z[i] + 0.1 * urand(s);
}

static void test_table_jacobians(void)
{
  unsigned long s = t_seed();
  t_ok(cpk_mcp_count() >= 8, "at least 8 small problems (%zu)", cpk_mcp_count());
  for (size_t k = 0; k < cpk_mcp_count(); k++) {
    const cpk_mcp_info *info = cpk_mcp_at(k);
    cpk_problem *p = NULL;
    double z[CPK_MCP_MAX_N], worst = 0.0;
    t_ok(cpk_mcp_problem(info, &p) == CPK_OK && p->n == info->n, "%s: built (n = %zu)", info->name,
         info->n);
    if (!p) continue;
    t_ok(cpk_mcp_find(info->name) == info, "%s: found by name", info->name);
    for (size_t st = 0; st < info->nstarts; st++) {
      const double *z0 = info->starts + st * info->n;
      perturb(z0, info->n, &s, z);
      worst = fmax(worst, fmax(fd_gap(p, z0), fd_gap(p, z)));
    }
    for (size_t sol = 0; sol < info->nsolutions; sol++) {
      perturb(info->solutions + sol * info->n, info->n, &s, z);
      worst = fmax(worst, fd_gap(p, z));
    }
    t_ok(worst < 1e-6, "%s: Jacobian matches central differences (worst relative gap %.1e)",
         info->name, worst);
    cpk_problem_free(p);
  }
}

static void test_listed_solutions(void)
{
  for (size_t k = 0; k < cpk_mcp_count(); k++) {
    const cpk_mcp_info *info = cpk_mcp_at(k);
    cpk_problem *p = NULL;
    if (cpk_mcp_problem(info, &p)) continue;
    for (size_t sol = 0; sol < info->nsolutions; sol++)
      t_ok(t_is_mcp_solution(p, info->solutions + sol * info->n, 1e-12),
           "%s: listed solution %zu solves the problem", info->name, sol + 1);
    cpk_problem_free(p);
  }
  /* the mathiesen ray: (3, 6t, t, 5t) for any t > 0 */
  const cpk_mcp_info *m = cpk_mcp_find("mathiesen");
  cpk_problem *p = NULL;
  if (m && !cpk_mcp_problem(m, &p)) {
    const double z[4] = {3, 6 * 0.37, 0.37, 5 * 0.37};
    t_ok(t_is_mcp_solution(p, z, 1e-12), "mathiesen: (3, 6t, t, 5t) solves it for t = 0.37");
    cpk_problem_free(p);
  }
}

/* Smallest eigenvalue of the symmetric part of a 2x2 principal block of J (row-major n x n). */
static double block_min_eig(const double *J, size_t n, size_t a, size_t b)
{
  double p = J[a * n + a], q = J[b * n + b], r = 0.5 * (J[a * n + b] + J[b * n + a]);
  return 0.5 * (p + q) - sqrt(0.25 * (p - q) * (p - q) + r * r);
}

/* The witnesses of mcp_problems.h for the problems declared not monotone, and the obstacle's proof. */
static void test_monotonicity_claims(void)
{
  struct { const char *name; double z[4]; size_t a, b; } wit[] = {
      {"kojshin", {0, 0, 0, 0}, 0, 1}, {"josephy", {0, 0, 0, 0}, 0, 1},
      {"mathiesen", {1, 1, 1, 1}, 1, 3}, {"mathinum", {1, 1, 1, 0}, 1, 2}};
  for (size_t k = 0; k < sizeof wit / sizeof wit[0]; k++) {
    const cpk_mcp_info *info = cpk_mcp_find(wit[k].name);
    double J[16];
    info->jacobian_dense(wit[k].z, J);
    t_ok(info->monotonicity == CPK_MCP_NOT_MONOTONE &&
             block_min_eig(J, info->n, wit[k].a, wit[k].b) < 0.0,
         "%s: declared not monotone, and F' has an indefinite symmetric 2x2 block", wit[k].name);
  }
  const cpk_mcp_info *b = cpk_mcp_find("billups");
  double x = 0.0, J1;
  b->jacobian_dense(&x, &J1);
  t_ok(b->monotonicity == CPK_MCP_NOT_MONOTONE && J1 < 0.0, "billups: F'(0) = %g < 0", J1);
  const cpk_mcp_info *o = cpk_mcp_find("obstacle");
  unsigned long s = t_seed();
  int ok = o->monotonicity == CPK_MCP_STRONGLY_MONOTONE;
  for (int trial = 0; trial < 200; trial++) {
    double u[CPK_MCP_MAX_N], v[CPK_MCP_MAX_N], fu[CPK_MCP_MAX_N], fv[CPK_MCP_MAX_N], ip = 0, d2 = 0;
    for (size_t i = 0; i < o->n; i++) u[i] = 2 * urand(&s) - 1, v[i] = 2 * urand(&s) - 1;
    o->F(u, fu, NULL);
    o->F(v, fv, NULL);
    for (size_t i = 0; i < o->n; i++) ip += (fu[i] - fv[i]) * (u[i] - v[i]), d2 += (u[i] - v[i]) * (u[i] - v[i]);
    /* lambda_min of the (N+1)^2-scaled second difference is 4 (N+1)^2 sin^2(pi / (2(N+1))) ~ 9.9 */
    ok &= ip >= 9.0 * d2;
  }
  t_ok(ok, "obstacle: (F(u) - F(v))'(u - v) >= 9 |u - v|^2 at 200 random pairs");
}

/* Domain errors are reported, not turned into NaN. */
static void test_domains(void)
{
  double f[CPK_MCP_MAX_N], z[CPK_MCP_MAX_N] = {0};
  const char *names[] = {"mathiesen", "mathinum", "nash", "cournot5"};
  for (size_t k = 0; k < 4; k++) {
    const cpk_mcp_info *info = cpk_mcp_find(names[k]);
    t_ok(info->F(z, f, NULL) != 0, "%s: F reports failure at z = 0 (outside its domain)", names[k]);
  }
  const cpk_mcp_info *nash = cpk_mcp_find("nash");
  for (size_t i = 0; i < nash->n; i++) z[i] = 1.0;
  z[3] = -0.5;
  t_ok(nash->F(z, f, NULL) != 0, "nash: F reports failure for a negative output");
}

/* The block on a plane: the hand-derived answers against F, independently of any solver. */
static void test_block(int sliding_case)
{
  cpk_mcp_block b;
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  double z[7], f[7], z0[7];
  int sliding = -1;
  const char *what = sliding_case ? "sliding" : "sticking";
  cpk_mcp_block_default(&b, sliding_case);
  t_ok(cpk_mcp_block_on_plane(&b, &d, &p) == CPK_OK && p->n == 7, "block %s: NCP built", what);
  if (!p) return;
  int rc = cpk_mcp_block_solution(&b, z, &sliding);
  t_ok(rc == CPK_OK && sliding == sliding_case, "block %s: hand answer classified as %s", what,
       sliding ? "sliding" : "sticking");
  t_ok(t_is_mcp_solution(p, z, 1e-12), "block %s: hand answer solves the NCP", what);
  double m = b.mass, g = b.gravity, h = b.h, mu = b.mu;
  t_near(z[3], m * g * h, 1e-15, "block %s: p_n = m g h", what);
  if (sliding_case) {
    t_near(z[0], b.v0[0] - mu * g * h, 1e-14, "block sliding: v_x = v0 - mu g h");
    t_near(z[4], -mu * m * g * h, 1e-15, "block sliding: p_t = -mu p_n (on the cone, opposing)");
    t_near(z[6], z[0], 1e-15, "block sliding: sigma = sliding speed");
  } else {
    t_near(z[4], -h * b.push[0], 1e-15, "block sticking: p_t cancels the push");
    t_near(z[5], -h * b.push[1], 1e-15, "block sticking: p_o cancels the push");
    t_ok(z[0] == 0.0 && z[1] == 0.0 && z[6] == 0.0, "block sticking: v_t = 0, sigma = 0");
    t_ok(hypot(z[4], z[5]) < mu * z[3], "block sticking: friction strictly inside the cone");
  }
  p->F(z, f, p->params);
  t_ok(fabs(f[6]) < 1e-15 || !sliding_case, "block %s: F_sigma = 0 when sliding", what);
  cpk_mcp_block_start(&b, z0);
  t_ok(fd_gap(p, z0) < 1e-6 && fd_gap(p, z) < 1e-6,
       "block %s: Jacobian matches central differences at the start and the answer", what);
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

static void test_block_edge_cases(void)
{
  cpk_mcp_block b;
  double z[7];
  int sliding;
  cpk_mcp_block_default(&b, 0);
  b.gap = 1.0; /* far above the plane: no contact impulse, sigma not unique */
  t_ok(cpk_mcp_block_solution(&b, z, &sliding) == CPK_EINVAL, "block in flight: no hand answer");
  cpk_mcp_block_default(&b, 0);
  b.push[0] = b.mu * b.mass * b.gravity, b.push[1] = 0.0; /* exactly the friction limit */
  t_ok(cpk_mcp_block_solution(&b, z, &sliding) == CPK_EINVAL, "block at the stick/slip limit: refused");
  cpk_mcp_block_default(&b, 1);
  b.v0[1] = -0.5, b.push[0] = 2.0, b.gap = 0.0005;
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  int ok = cpk_mcp_block_on_plane(&b, &d, &p) == CPK_OK &&
           cpk_mcp_block_solution(&b, z, &sliding) == CPK_OK;
  t_ok(ok && sliding && t_is_mcp_solution(p, z, 1e-12),
       "block sliding diagonally onto the plane from a gap: hand answer solves the NCP");
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
}

static void test_chain(void)
{
  cpk_mcp_data *d = NULL;
  cpk_problem *p = NULL;
  t_ok(cpk_mcp_contact_chain(5, t_seed(), &d, &p) == CPK_OK && p->n == 35, "chain of 5: built");
  if (!p) return;
  double z[35], pn[5];
  unsigned long s = t_seed();
  cpk_mcp_contact_chain_start(d, z);
  cpk_mcp_contact_chain_normal(d, pn);
  t_ok(fd_gap(p, z) < 1e-6, "chain: Jacobian (sparse pattern) matches central differences at the start");
  for (size_t i = 0; i < 35; i++) z[i] += urand(&s) - 0.5;
  t_ok(fd_gap(p, z) < 1e-6, "chain: ... and at a random point");
  t_ok(p->jac_pattern->p[35] == 24 * 5 - 6, "chain: nnz(F') = 24 N - 6 = %lld",
       (long long)p->jac_pattern->p[35]);
  int pos = 1;
  for (size_t i = 0; i < 5; i++) pos &= pn[i] > 0.0;
  t_ok(pos, "chain: normal impulses m g h > 0");
  cpk_problem_free(p);
  cpk_mcp_data_free(d);
  t_ok(cpk_mcp_contact_chain(0, 1, &d, &p) == CPK_EINVAL && !p && !d, "chain of 0: refused");
}

int main(void)
{
  test_table_jacobians();
  test_listed_solutions();
  test_monotonicity_claims();
  test_domains();
  test_block(0);
  test_block(1);
  test_block_edge_cases();
  test_chain();
  return t_done();
}
