/* testlib.c: TAP test helpers and an independent box-MCP solution checker. */
#include "testlib.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int t_count, t_failed;

static int t_vreport(int cond, const char *fmt, va_list ap)
{
  t_count++;
  if (!cond) t_failed++;
  printf("%s %d - ", cond ? "ok" : "not ok", t_count);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

int t_ok(int cond, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  t_vreport(cond, fmt, ap);
  va_end(ap);
  return cond;
}

int t_near(double x, double expected, double tol, const char *fmt, ...)
{
  int cond = fabs(x - expected) <= tol;
  va_list ap;
  if (!cond) printf("# got %.17g, expected %.17g (tol %g)\n", x, expected, tol);
  va_start(ap, fmt);
  t_vreport(cond, fmt, ap);
  va_end(ap);
  return cond;
}

void t_diag(const char *fmt, ...)
{
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

int t_done(void)
{
  printf("1..%d\n", t_count);
  if (t_failed) printf("# %d of %d failed\n", t_failed, t_count);
  return t_failed ? 1 : 0;
}

const char *t_srcpath(const char *rel)
{
  static char buf[4096];
  const char *dir = getenv("CPK_TEST_SRCDIR");
  snprintf(buf, sizeof buf, "%s/%s", dir ? dir : ".", rel);
  return buf;
}

unsigned long t_seed(void)
{
  const char *s = getenv("CPK_TEST_SEED");
  return s ? strtoul(s, NULL, 10) : 20261122UL;
}

/* w = F(z) computed here, not through the library, for affine problems. */
static int t_eval(const cpk_problem *p, const double *z, double *w)
{
  size_t n = p->n;
  if (p->kind == CPK_KIND_NONLINEAR_MCP) return p->F(z, w, p->params);
  for (size_t i = 0; i < n; i++) w[i] = p->q[i];
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) {
      double a = cpk_matrix_get(p->M, i, j);
      if (a != 0.0) w[i] += a * z[j];
    }
  return 0;
}

int t_is_mcp_solution(const cpk_problem *p, const double *z, double tol)
{
  size_t n = p->n;
  double *w = malloc((n ? n : 1) * sizeof *w);
  int ok = w != NULL && t_eval(p, z, w) == 0;
  for (size_t i = 0; ok && i < n; i++) {
    double l = p->lower[i], u = p->upper[i];
    int bad = !isfinite(z[i]) || !isfinite(w[i]) || z[i] < l - tol || z[i] > u + tol;
    int at_l = z[i] <= l + tol, at_u = z[i] >= u - tol;
    /* Between the bounds F must vanish; at a bound F may only push outward. */
    if (!at_l && !at_u && fabs(w[i]) > tol) bad = 1;
    if (at_l && !at_u && w[i] < -tol) bad = 1;
    if (at_u && !at_l && w[i] > tol) bad = 1;
    if (bad) {
      printf("# variable %zu: l=%g z=%.17g u=%g F=%.17g violates the MCP (tol %g)\n", i, l, z[i],
             u, w[i], tol);
      ok = 0;
    }
  }
  free(w);
  return ok;
}

/* One contact's Coulomb law checked from its definition (not through the library's projection). */
static int contact_ok(size_t c, size_t d, double mu, const double *r, const double *u, double tol)
{
  double rt = 0.0, ut = 0.0, dot = 0.0;
  for (size_t k = 1; k < d; k++) {
    rt += r[k] * r[k];
    ut += u[k] * u[k];
  }
  rt = sqrt(rt);
  ut = sqrt(ut);
  double un_hat = u[0] + mu * ut; /* De Saxce's modified normal velocity */
  for (size_t k = 0; k < d; k++) dot += r[k] * u[k];
  dot += r[0] * mu * ut;
  const char *why = NULL;
  if (!(rt <= mu * r[0] + tol)) why = "reaction outside the friction cone";
  else if (!(mu * ut <= un_hat + tol)) why = "modified velocity outside the dual cone";
  else if (!(fabs(dot) <= tol * (1.0 + fabs(r[0])))) why = "reaction and modified velocity not orthogonal";
  else if (r[0] > tol && ut > tol && mu > 0) { /* sliding: friction opposes the slip */
    for (size_t k = 1; k < d; k++)
      if (fabs(r[k] + mu * r[0] * u[k] / ut) > tol * (1.0 + r[0])) why = "friction does not oppose the slip";
  }
  if (why)
    printf("# contact %zu: %s (r_n %.6g |r_T| %.6g u_n %.6g |u_T| %.6g mu %g, tol %g)\n", c, why,
           r[0], rt, u[0], ut, mu, tol);
  return why == NULL;
}

int t_is_fc_solution(const cpk_problem *p, const double *r, double tol)
{
  size_t n = p->n, d = p->cone_dim;
  double *u = malloc((n ? n : 1) * sizeof *u);
  int ok = u != NULL && p->kind == CPK_KIND_FRICTION_CONE && d >= 2;
  for (size_t i = 0; ok && i < n; i++) { /* u = W r + q, own loop over the entries */
    u[i] = p->q[i];
    for (size_t j = 0; j < n; j++) u[i] += cpk_matrix_get(p->M, i, j) * r[j];
    if (!isfinite(u[i]) || !isfinite(r[i])) ok = 0;
  }
  for (size_t c = 0; ok && c < p->nc; c++)
    if (!contact_ok(c, d, p->mu[c], r + c * d, u + c * d, tol)) ok = 0;
  free(u);
  return ok;
}

cpk_world *t_tripod_world(const char *model, const char *solver, int timings, cpk_scene **sc)
{
  cpk_world *w = NULL;
  cpk_error err = {0};
  *sc = NULL;
  if (cpk_scene_read_file(t_srcpath("../examples/seed004-tripod.scene.json"), sc, &err))
    return NULL;
  cpk_sim_settings *set = cpk_scene_settings(*sc);
  snprintf(set->model, sizeof set->model, "%s", model);
  snprintf(set->solver, sizeof set->solver, "%s", solver);
  set->timings = timings;
  if (cpk_scene_world(*sc, &w, &err)) w = NULL;
  return w;
}

cpk_problem *t_fclib_problem(const char *rel)
{
  cpk_problem *p = NULL;
  cpk_error err;
  if (cpk_problem_read_fclib(t_srcpath(rel), &p, &err)) {
    t_diag("%s: %s", rel, err.message);
    return NULL;
  }
  return p;
}
