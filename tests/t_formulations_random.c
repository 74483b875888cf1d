/* t_formulations_random.c: random multi-contact systems: every model's solution checked against its physical conditions independently of the solver and of the compiler; hundreds of contacts compile sparsely. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "formtest.h"

/* Next velocity and contact velocities recomputed from the system alone (diagonal M). */
static void physics(const cpk_contact_system *s, const double *P, double *v, double *U)
{
  double *f = calloc(s->nv, sizeof *f);
  for (size_t r = 0; r < s->nv; r++) f[r] = s->h * s->k[r];
  for (size_t c = 0; c < s->nc; c++)
    for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
      for (int a = 0; a < 4; a++) f[s->wrow[k]] += s->wval[4 * k + a] * P[4 * c + a];
  for (size_t j = 0; j < s->nv; j++) v[j] = s->v[j] + f[j] / s->M->x[s->M->p[j]];
  for (size_t c = 0; c < s->nc; c++)
    for (int a = 0; a < 4; a++) {
      U[4 * c + a] = s->contacts[c].drift[a];
      for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
        U[4 * c + a] += s->wval[4 * k + a] * v[s->wrow[k]];
    }
  free(f);
}

typedef struct verdict {
  double normal, cone, dissipation, momentum, spring;
} verdict;

static double cmax(double a, double b) { return a > b ? a : b; }

/* Signorini on the (possibly deflected) gap: p >= 0, g >= 0, p g = 0, as violations. */
static double signorini(double p, double g)
{
  return cmax(cmax(-p, -g), fabs(p * g) / cmax(1e-3, fabs(p) + fabs(g)));
}

/* Ellipsoid: inside, and on the boundary opposing E^2 U when slipping. */
static void ellipsoid_check(const double *P, const double *U, double pn, double mu,
                            const double e[3], int nk, verdict *w)
{
  double in = 0, slip2 = 0;
  for (int k = 0; k < nk; k++) {
    in += P[1 + k] * P[1 + k] / (e[k] * e[k]);
    slip2 += e[k] * e[k] * U[1 + k] * U[1 + k];
  }
  w->cone = cmax(w->cone, sqrt(in) - mu * pn);
  if (sqrt(slip2) > 1e-6 && pn > 1e-9)
    for (int k = 0; k < nk; k++)
      w->dissipation =
          cmax(w->dissipation, fabs(P[1 + k] + mu * pn * e[k] * e[k] * U[1 + k] / sqrt(slip2)));
}

/* Polyhedral: sum beta <= mu p_n, dissipation equal to the best vertex's. */
static void polyhedral_check(const cpk_varmap *m, const double *z, size_t c, const double *P,
                             const double *U, double mu, verdict *w)
{
  size_t nd = cpk_varmap_ndirections(m, c);
  double sum = 0, best = 0, d[3];
  for (size_t j = 0; j < nd; j++) {
    double beta = ft_get(m, z, CPK_ROLE_P_D, c, j);
    cpk_varmap_direction(m, c, j, d);
    w->cone = cmax(w->cone, -beta);
    sum += beta;
    best = cmax(best, -(d[0] * U[1] + d[1] * U[2] + d[2] * U[3]));
  }
  w->cone = cmax(w->cone, sum - mu * P[0]);
  double diss = -(P[1] * U[1] + P[2] * U[2] + P[3] * U[3]);
  if (nd > 0) w->dissipation = cmax(w->dissipation, fabs(diss - mu * P[0] * best));
}

/* Kelvin-Voigt: spring law, the layer's bound and the core's complementarity. */
static void compliant_check(const cpk_contact_system *s, const cpk_varmap *m, const double *z,
                            size_t c, const double *P, const double *U, verdict *w)
{
  const cpk_contact_params *p = &s->contacts[c];
  double dl[3], pns = ft_get(m, z, CPK_ROLE_P_NS, c, 0), pnr = ft_get(m, z, CPK_ROLE_P_NR, c, 0);
  double ps[3] = {pns, P[1], P[2]};
  cpk_varmap_deflection(m, z, c, dl);
  for (int a = 0; a < 3; a++) {
    double law = -ps[a];
    for (int b = 0; b < 3; b++)
      law +=
          (s->h * p->K[3 * a + b] + p->C[3 * a + b]) * dl[b] - p->C[3 * a + b] * p->delta_prev[b];
    w->spring = cmax(w->spring, fabs(law));
  }
  w->normal = cmax(w->normal, signorini(pns, U[0] + (p->psi + dl[0]) / s->h));
  w->normal = cmax(w->normal, signorini(pnr, (p->delta_max - dl[0]) / s->h));
}

static verdict check_solution(const cpk_contact_system *s, const char *model, const cpk_varmap *m,
                              const double *z)
{
  verdict w = {0, 0, 0, 0, 0};
  double *P = malloc(4 * s->nc * sizeof *P), *U = malloc(4 * s->nc * sizeof *U);
  double *v = malloc(s->nv * sizeof *v), *vm = malloc(s->nv * sizeof *vm);
  cpk_varmap_impulses(m, z, P);
  physics(s, P, v, U);
  cpk_varmap_velocity(m, z, vm, NULL);
  for (size_t j = 0; j < s->nv; j++) w.momentum = cmax(w.momentum, fabs(v[j] - vm[j]));
  for (size_t c = 0; c < s->nc; c++) {
    const cpk_contact_params *p = &s->contacts[c];
    double *Pc = P + 4 * c, *Uc = U + 4 * c, e[3] = {p->e_t, p->e_o, p->e_r};
    int kv = strcmp(model, "kelvin-voigt") == 0 && p->compliant;
    if (kv)
      compliant_check(s, m, z, c, Pc, Uc, &w);
    else
      w.normal = cmax(w.normal, signorini(Pc[0], Uc[0] + p->psi / s->h));
    if (p->mu == 0) continue;
    if (strcmp(model, "polyhedral") == 0) {
      polyhedral_check(m, z, c, Pc, Uc, p->mu, &w);
    } else if (strcmp(model, "point-coulomb") == 0) {
      double one[3] = {1, 1, 1};
      ellipsoid_check(Pc, Uc, Pc[0], p->mu, one, 2, &w);
    } else {
      ellipsoid_check(Pc, Uc, Pc[0], p->mu, e, p->e_r > 0 ? 3 : 2, &w);
    }
  }
  free(P);
  free(U);
  free(v);
  free(vm);
  return w;
}

/* Impulses of the polyhedral model with 16 directions (lemke): the warm start a time-stepper
 * would hand a Newton method (seed 000 section 4 hot-starts its B-differentiable Newton). */
static double *polyhedral_impulses(const cpk_contact_system *s)
{
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_compile_options_default(&o);
  o.directions.d = 16;
  double *P = calloc(4 * s->nc, sizeof *P);
  if (P && !cpk_compile(s, "polyhedral", &o, &p, &m, NULL)) {
    cpk_result *r = ft_solve(p, "lemke", 0);
    if (r && r->status == CPK_STATUS_SOLVED) cpk_varmap_impulses(m, r->z, P);
    cpk_result_free(r);
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return P;
}

/* The best of the registered nonlinear methods from z0: the first that reports solved, else
 * the lowest residual. Near separated contacts the squared cone is degenerate (p_n = 0 leaves
 * sigma free) and Newton's convergence turns linear, so a method may stop at 1e-7. */
static cpk_result *solve_nonlinear(const cpk_problem *p, const double *z0, const char **name)
{
  static const char *const names[] = {"bdnewton", "ipm", "fbnewton"};
  cpk_result *best = NULL;
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const cpk_solver_type *T = cpk_solver_find(names[k]);
    cpk_settings st;
    cpk_result *r = NULL;
    if (!T || !cpk_solver_accepts(T, p)) continue;
    cpk_settings_default(&st);
    st.tol = 1e-10;
    st.max_iter = 50; /* from a good start Newton needs few; fail fast and try the next */
    st.z0 = z0;
    if (cpk_result_alloc(p->n, &r) || cpk_solve(p, names[k], &st, r, NULL)) {
      cpk_result_free(r);
      continue;
    }
    if (!best || r->residual < best->residual) {
      cpk_result_free(best);
      best = r;
      *name = names[k];
    } else {
      cpk_result_free(r);
    }
    if (best->status == CPK_STATUS_SOLVED) break;
  }
  return best;
}

static void consistency(const cpk_contact_system *s, const char *model, cpk_problem_form f,
                        const char *what)
{
  cpk_compile_options o;
  cpk_varmap *m = NULL;
  cpk_problem *p = NULL;
  cpk_error err;
  const char *solver = "lemke";
  cpk_compile_options_default(&o);
  o.form = f;
  const char *tag = f == CPK_FORM_MIXED ? "mixed" : "reduced";
  if (cpk_compile(s, model, &o, &p, &m, &err)) {
    t_ok(0, "%s: %s %s compiles: %s", what, model, tag, err.message);
    return;
  }
  cpk_result *r = NULL;
  if (p->kind != CPK_KIND_NONLINEAR_MCP) {
    r = ft_solve(p, "lemke", 1e-12);
  } else if (ft_nonlinear_solver()) {
    double *P = polyhedral_impulses(s), *z0 = calloc(p->n, sizeof *z0);
    if (P && z0 && !cpk_varmap_point(m, P, z0, NULL)) r = solve_nonlinear(p, z0, &solver);
    free(P);
    free(z0);
  }
  if (p->kind == CPK_KIND_NONLINEAR_MCP && !ft_nonlinear_solver()) {
    t_ok(1, "%s: %s %s # SKIP no nonlinear MCP solver registered", what, model, tag);
  } else if (!r || !(r->residual <= 1e-6)) {
    t_ok(0, "%s: %s %s solved (%s, residual %.1e)", what, model, tag,
         r ? cpk_status_name(r->status) : "no solver ran", r ? r->residual : INFINITY);
  } else {
    verdict w = check_solution(s, model, m, r->z);
    /* The conditions hold to the residual's accuracy; at separated contacts the squared cone
     * bounds p_f only by sqrt(residual). */
    double lin = fmax(1e-6, 100 * r->residual), sq = fmax(1e-4, 10 * sqrt(r->residual));
    t_ok(w.normal < lin && w.cone < sq && w.dissipation < sq && w.momentum < lin && w.spring < lin,
         "%s: %s %s by %s (residual %.1e): Signorini %.1e, cone %.1e, max dissipation %.1e, "
         "momentum %.1e, spring %.1e",
         what, model, tag, solver, r->residual, w.normal, w.cone, w.dissipation, w.momentum,
         w.spring);
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(m);
}

static void test_consistency(void)
{
  static const char *const models[] = {"polyhedral", "point-coulomb", "elliptic-torsional",
                                       "kelvin-voigt"};
  cpk_contact_system *rigid = ft_random_bodies(4, 8, 0.01, t_seed(), 0);
  cpk_contact_system *soft = ft_random_bodies(4, 8, 0.01, t_seed() + 1, 1);
  cpk_contact_system *soft0 = ft_random_bodies(4, 8, 0.01, t_seed() + 2, 1);
  for (size_t c = 0; soft0 && c < soft0->nc; c++) {
    cpk_contact_params p = soft0->contacts[c];
    p.mu = 0; /* frictionless: kelvin-voigt is then an affine MCP */
    cpk_contact_set_params(soft0, c, &p, NULL);
  }
  t_ok(rigid && soft && soft0, "random systems: 4 bodies, 8 contacts");
  for (int f = CPK_FORM_MIXED; f <= CPK_FORM_REDUCED; f++) {
    for (int k = 0; k < 3; k++) consistency(rigid, models[k], (cpk_problem_form)f, "rigid");
    consistency(soft, "kelvin-voigt", (cpk_problem_form)f, "compliant");
    consistency(soft0, "kelvin-voigt", (cpk_problem_form)f, "compliant, frictionless");
  }
  cpk_contact_system_free(rigid);
  cpk_contact_system_free(soft);
  cpk_contact_system_free(soft0);
}

/* ---- many contacts ------------------------------------------------------------ */

/* Entries a sparse compile may have: contacts only couple through shared bodies. */
static double structural_bound(const cpk_contact_system *s, const cpk_varmap *m)
{
  size_t nc = s->nc, n = cpk_varmap_n(m);
  double *mc = calloc(nc, sizeof *mc), bound = 0;
  for (size_t i = 0; i < n; i++) {
    const cpk_var_info *v = cpk_varmap_var(m, i);
    if (v->role != CPK_ROLE_V) mc[v->contact] += 1;
  }
  for (size_t c = 0; c < nc; c++) {
    size_t rows = s->wptr[c + 1] - s->wptr[c];
    if (cpk_varmap_is_mixed(m)) bound += 2.0 * mc[c] * (double)rows + mc[c] * mc[c];
    for (size_t j = 0; !cpk_varmap_is_mixed(m) && j < nc; j++) {
      int share = 0; /* bodies are 6 consecutive rows */
      for (size_t a = s->wptr[c]; a < s->wptr[c + 1] && !share; a++)
        for (size_t b = s->wptr[j]; b < s->wptr[j + 1] && !share; b++)
          share = s->wrow[a] / 6 == s->wrow[b] / 6;
      if (share) bound += mc[c] * mc[j];
    }
  }
  if (cpk_varmap_is_mixed(m)) bound += (double)s->M->p[s->nv];
  free(mc);
  return bound;
}

static void test_large(void)
{
  static const char *const models[] = {"polyhedral", "point-coulomb", "elliptic-torsional",
                                       "kelvin-voigt"};
  const size_t nb = 150, nc = 400;
  cpk_contact_system *s = ft_random_bodies(nb, nc, 0.01, t_seed() + 3, 1);
  t_ok(s != NULL, "random system: %zu bodies, %zu contacts", nb, nc);
  for (int k = 0; s && k < 4; k++)
    for (int f = CPK_FORM_MIXED; f <= CPK_FORM_REDUCED; f++) {
      cpk_compile_options o;
      cpk_problem *p = NULL;
      cpk_varmap *m = NULL;
      cpk_error err;
      cpk_compile_options_default(&o);
      o.form = (cpk_problem_form)f;
      double t0 = cpk_wtime();
      int rc = cpk_compile(s, models[k], &o, &p, &m, &err);
      double dt = cpk_wtime() - t0;
      size_t nnz = !p                                  ? 0
                   : p->kind == CPK_KIND_NONLINEAR_MCP ? (size_t)p->jac_pattern->p[p->n]
                                                       : cpk_matrix_nnz(p->M);
      int sparse = p && p->kind != CPK_KIND_NONLINEAR_MCP ? p->M->format == CPK_MATRIX_CSC : 1;
      double bound = p ? structural_bound(s, m) : 0;
      t_ok(rc == CPK_OK && sparse && (double)nnz <= bound && dt < 5.0,
           "%s %s: n = %zu, %zu non-zeros <= %.0f allowed by the body coupling (%.2f%% dense), "
           "%.3f s",
           models[k], f == CPK_FORM_MIXED ? "mixed" : "reduced", p ? p->n : 0, nnz, bound,
           p ? 100.0 * (double)nnz / ((double)p->n * (double)p->n) : 0.0, dt);
      cpk_problem_free(p);
      cpk_varmap_free(m);
    }
  cpk_contact_system_free(s);
}

int main(void)
{
  double t0 = cpk_wtime();
  test_consistency();
  t_diag("consistency: %.2f s", cpk_wtime() - t0);
  t0 = cpk_wtime();
  test_large();
  t_diag("large: %.2f s", cpk_wtime() - t0);
  return t_done();
}
