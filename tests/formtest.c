/* formtest.c: helpers shared by the formulation tests (small systems, solving, finite differences). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "formtest.h"

static cpk_csc *diagonal(size_t n, const double *d)
{
  cpk_csc *M = NULL;
  if (cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)n, &M)) return NULL;
  for (size_t k = 0; k < n; k++) {
    M->p[k + 1] = (cpk_int)k + 1;
    M->i[k] = (cpk_int)k;
    M->x[k] = d[k];
  }
  return M;
}

cpk_contact_system *ft_particle(double m, double h, const double v[3])
{
  double d[3] = {m, m, m}, k[3] = {0, 0, -m * FT_G};
  cpk_contact_system *s = NULL;
  cpk_csc *M = diagonal(3, d);
  if (M) cpk_contact_system_alloc_body(3, M, v, k, h, &s, NULL);
  cpk_csc_free(M);
  return s;
}

int ft_plane_contact(cpk_contact_system *s, const cpk_contact_params *p)
{
  static const cpk_int rows[3] = {0, 1, 2};
  static const double wn[3] = {0, 0, 1}, wt[3] = {1, 0, 0}, wo[3] = {0, 1, 0};
  cpk_contact_params def;
  if (!p) {
    cpk_contact_params_default(&def);
    p = &def;
  }
  return cpk_contact_system_add_contact(s, p, 3, rows, wn, wt, wo, NULL, NULL);
}

cpk_contact_system *ft_sphere(double h, const double v[6])
{
  const double d[6] = {1, 1, 1, 0.4, 0.4, 0.4}, k[6] = {0, 0, -FT_G, 0, 0, 0};
  const double r[3] = {0, 0, -1}, n[3] = {0, 0, 1}, t[3] = {sqrt(0.5), sqrt(0.5), 0};
  const cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
  double W[4][6];
  cpk_contact_params p;
  cpk_contact_system *s = NULL;
  cpk_csc *M = diagonal(6, d);
  cpk_contact_params_default(&p);
  p.mu = 0.2;
  p.e_r = 0.4;
  int rc = M ? cpk_contact_system_alloc_body(6, M, v, k, h, &s, NULL) : CPK_ENOMEM;
  if (!rc) rc = cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]);
  if (!rc) rc = cpk_contact_system_add_contact(s, &p, 6, rows, W[0], W[1], W[2], W[3], NULL);
  cpk_csc_free(M);
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

static void random_unit(gsl_rng *g, double u[3])
{
  double norm;
  do {
    for (int a = 0; a < 3; a++) u[a] = 2 * gsl_rng_uniform(g) - 1;
    norm = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  } while (norm < 0.2 || norm > 1);
  for (int a = 0; a < 3; a++) u[a] /= norm;
}

static void random_params(gsl_rng *g, cpk_contact_params *p, int compliant)
{
  cpk_contact_params_default(p);
  p->psi = 0.0005 * gsl_rng_uniform(g);
  p->mu = 0.1 + 0.7 * gsl_rng_uniform(g);
  p->e_t = 0.8 + 0.4 * gsl_rng_uniform(g);
  p->e_o = 0.8 + 0.4 * gsl_rng_uniform(g);
  p->e_r = gsl_rng_uniform(g) < 0.5 ? 0.0 : 0.05 + 0.1 * gsl_rng_uniform(g);
  if (!compliant) return;
  p->compliant = 1;
  p->K[0] = 2e4 * (1 + gsl_rng_uniform(g));
  p->K[4] = p->K[8] = 1e4;
  p->C[0] = 50;
  p->C[4] = p->C[8] = 20;
  p->delta_max = 0.002 + 0.002 * gsl_rng_uniform(g);
  p->delta_prev[0] = 0.001 * gsl_rng_uniform(g);
}

/* One contact: body a (and b >= 0, else the ground) at random points, random frame. */
static int random_contact(gsl_rng *g, cpk_contact_system *s, size_t a, long b, int compliant)
{
  double n[3] = {0, 0, 1}, t[3], r[3], W[4][6], Wb[4][6], rb[3];
  cpk_int rows[12];
  double w[4][12];
  cpk_contact_params p;
  if (b >= 0) random_unit(g, n);
  do {
    random_unit(g, t);
    double dot = t[0] * n[0] + t[1] * n[1] + t[2] * n[2], norm = 0;
    for (int k = 0; k < 3; k++) {
      t[k] -= dot * n[k];
      norm += t[k] * t[k];
    }
    norm = sqrt(norm);
    if (norm > 0.3)
      for (int k = 0; k < 3; k++) t[k] /= norm;
    else
      t[0] = NAN;
  } while (isnan(t[0]));
  for (int k = 0; k < 3; k++) {
    r[k] = gsl_rng_uniform(g) - 0.5;
    rb[k] = gsl_rng_uniform(g) - 0.5;
  }
  random_params(g, &p, compliant);
  if (cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]) ||
      cpk_rigid_contact_wrenches(rb, n, t, Wb[0], Wb[1], Wb[2], Wb[3]))
    return CPK_EINVAL;
  size_t nr = 0;
  for (size_t k = 0; k < 6; k++, nr++) {
    rows[nr] = (cpk_int)(6 * a + k);
    for (int c = 0; c < 4; c++) w[c][nr] = W[c][k];
  }
  for (size_t k = 0; b >= 0 && k < 6; k++, nr++) {
    rows[nr] = (cpk_int)(6 * (size_t)b + k);
    for (int c = 0; c < 4; c++) w[c][nr] = -Wb[c][k];
  }
  return cpk_contact_system_add_contact(s, &p, nr, rows, w[0], w[1], w[2], w[3], NULL);
}

cpk_contact_system *ft_random_bodies(size_t nbodies, size_t ncontacts, double h, unsigned long seed,
                                     int compliant)
{
  size_t nv = 6 * nbodies;
  double *d = malloc(nv * sizeof *d), *v = malloc(nv * sizeof *v), *k = malloc(nv * sizeof *k);
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  cpk_contact_system *s = NULL;
  int rc = d && v && k && g ? CPK_OK : CPK_ENOMEM;
  if (!rc) gsl_rng_set(g, seed);
  for (size_t b = 0; !rc && b < nbodies; b++) {
    double m = 1 + 4 * gsl_rng_uniform(g);
    for (size_t j = 0; j < 6; j++) {
      d[6 * b + j] = j < 3 ? m : m * (0.05 + 0.15 * gsl_rng_uniform(g));
      /* sliding in the plane, pressed down, spinning a little: every contact mode occurs */
      double u = gsl_rng_uniform(g);
      v[6 * b + j] = j < 2 ? 2 * u - 1 : j == 2 ? -0.5 * u : u - 0.5;
      k[6 * b + j] = j == 2 ? -m * FT_G : 0.0;
    }
  }
  cpk_csc *M = rc ? NULL : diagonal(nv, d);
  if (!rc) rc = M ? cpk_contact_system_alloc_body(nv, M, v, k, h, &s, NULL) : CPK_ENOMEM;
  for (size_t c = 0; !rc && c < ncontacts; c++) {
    size_t a = gsl_rng_uniform_int(g, nbodies);
    long b = nbodies > 1 && gsl_rng_uniform(g) < 0.6 ? (long)gsl_rng_uniform_int(g, nbodies) : -1;
    if (b == (long)a) b = -1;
    rc = random_contact(g, s, a, b, compliant);
  }
  cpk_csc_free(M);
  free(d);
  free(v);
  free(k);
  gsl_rng_free(g);
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

cpk_result *ft_solve(const cpk_problem *p, const char *solver, double tol)
{
  cpk_result *r = NULL;
  cpk_settings st;
  cpk_error err;
  if (!cpk_solver_find(solver)) return NULL;
  cpk_settings_default(&st);
  if (tol > 0) st.tol = tol;
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, solver, &st, r, &err)) {
    printf("# %s: %s\n", solver, err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

int ft_set(const cpk_varmap *m, double *z, cpk_var_role role, size_t c, size_t idx, double value)
{
  size_t i = cpk_varmap_find(m, role, c, idx);
  if (i == (size_t)-1) return 0;
  z[i] = value;
  return 1;
}

double ft_get(const cpk_varmap *m, const double *z, cpk_var_role role, size_t c, size_t idx)
{
  size_t i = cpk_varmap_find(m, role, c, idx);
  return i == (size_t)-1 ? NAN : z[i];
}

static double pattern_value(const cpk_csc *J, size_t i, size_t j, int *found)
{
  *found = 0;
  for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++)
    if ((size_t)J->i[k] == i) {
      *found = 1;
      return J->x[k];
    }
  return 0.0;
}

double ft_jacobian_error(const cpk_problem *p, const double *z, double eps, double tol,
                         size_t *outside)
{
  size_t n = p->n;
  double *zp = malloc(n * sizeof *zp), *fp = malloc(n * sizeof *fp), *fm = malloc(n * sizeof *fm);
  cpk_csc *J = NULL;
  double worst = 0.0;
  *outside = 0;
  if (!zp || !fp || !fm || cpk_csc_copy(p->jac_pattern, &J) || p->jacobian(z, J, p->params)) {
    worst = INFINITY;
    n = 0;
  }
  for (size_t j = 0; j < n; j++) {
    memcpy(zp, z, n * sizeof *zp);
    zp[j] = z[j] + eps;
    p->F(zp, fp, p->params);
    zp[j] = z[j] - eps;
    p->F(zp, fm, p->params);
    for (size_t i = 0; i < n; i++) {
      int found;
      double fd = (fp[i] - fm[i]) / (2 * eps), an = pattern_value(J, i, j, &found);
      if (!found && fabs(fd) > tol) (*outside)++;
      double e = fabs(fd - an) / fmax(1.0, fabs(an));
      if (e > worst) worst = e;
    }
  }
  cpk_csc_free(J);
  free(zp);
  free(fp);
  free(fm);
  return worst;
}

double ft_residual(const cpk_problem *p, const double *z)
{
  double *w = malloc(p->n * sizeof *w), r = INFINITY;
  if (w && cpk_problem_residual(p, z, w, &r)) r = INFINITY;
  free(w);
  return r;
}

const char *ft_nonlinear_solver(void)
{
  static const char *const names[] = {"bdnewton", "fbnewton", "ipm"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const cpk_solver_type *T = cpk_solver_find(names[k]);
    if (T && (T->kinds & CPK_KIND_NONLINEAR_MCP)) return names[k];
  }
  return NULL;
}
