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
