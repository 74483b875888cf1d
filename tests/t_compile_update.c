/* t_compile_update.c: cpk_compile_update gives the values of a fresh compile for every form when wrench entries pass through exact zeros, and the stepper keeps one compiled pattern per contact set (counted recompiles). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

/*
 * One rigid body (unequal principal inertias) on two point contacts at
 * r = +-(cos th, sin th, -1), normal z, tangent x. At th = 0 the lever arms
 * have y = 0, so entries of r x n, r x t, r x o are exactly zero that are
 * not at th = 0.3: the pose-dependent zeros that made the mixed forms'
 * patterns change (and the stepper compile anew) before they were emitted
 * structurally.
 */
static cpk_contact_system *body_system(double th, int compliant)
{
  double mass = 2.0, I[3] = {0.3, 0.5, 0.7}, v[6] = {0.1, -0.2, -0.5, 0.3, 0.2, -0.1};
  double k[6] = {0, 0, -9.81 * mass, 0, 0, 0}, vals[6] = {mass, mass, mass, I[0], I[1], I[2]};
  cpk_int ti[6], tj[6];
  for (int i = 0; i < 6; i++) ti[i] = tj[i] = i;
  cpk_csc *M = NULL;
  cpk_contact_system *s = NULL;
  if (cpk_csc_from_triplets(6, 6, 6, ti, tj, vals, &M)) return NULL;
  int rc = cpk_contact_system_alloc_body(6, M, v, k, 1e-3, &s, NULL);
  cpk_csc_free(M);
  for (int side = 0; !rc && side < 2; side++) {
    double sg = side ? -1.0 : 1.0, r[3] = {sg * cos(th), sg * sin(th), -1.0};
    double n[3] = {0, 0, 1}, t[3] = {1, 0, 0}, wn[6], wt[6], wo[6], wr[6];
    cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
    cpk_contact_params p;
    cpk_contact_params_default(&p);
    p.mu = 0.3;
    p.e_r = 0.05;
    p.psi = side ? -1e-4 : 2e-4;
    if (compliant) {
      p.compliant = 1;
      for (int a = 0; a < 3; a++) {
        p.K[4 * a] = 1e5;
        p.C[4 * a] = 50.0;
        p.delta_prev[a] = 1e-5 * (a + 1);
      }
      p.delta_max = 1e-2;
    }
    rc = cpk_rigid_contact_wrenches(r, n, t, wn, wt, wo, wr) ||
         cpk_contact_system_add_contact(s, &p, 6, rows, wn, wt, wo, wr, NULL);
  }
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

/* Largest difference between two arrays (NaN counts as infinite). */
static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0.0;
  for (size_t i = 0; i < n; i++) {
    double e = a[i] == b[i] ? 0.0 : fabs(a[i] - b[i]); /* equal infinite bounds too */
    if (!(e <= d)) d = isnan(e) ? INFINITY : e;
  }
  return d;
}

/* M of an affine or cone problem as a dense row-major n x n array (caller frees). */
static double *dense_of(const cpk_matrix *A)
{
  double *D = calloc(A->m * A->n + 1, sizeof *D);
  if (!D) return NULL;
  if (A->format == CPK_MATRIX_DENSE) {
    for (size_t i = 0; i < A->m; i++)
      for (size_t j = 0; j < A->n; j++) D[i * A->n + j] = gsl_matrix_get(A->dense, i, j);
    return D;
  }
  for (cpk_int j = 0; j < A->csc->n; j++)
    for (cpk_int k = A->csc->p[j]; k < A->csc->p[j + 1]; k++)
      D[(size_t)A->csc->i[k] * A->n + (size_t)j] += A->csc->x[k];
  return D;
}

/* The Jacobian of a nonlinear problem at z, dense (caller frees). */
static double *jacobian_at(const cpk_problem *p, const double *z)
{
  cpk_csc *J = NULL;
  cpk_matrix *A = NULL;
  double *D = NULL;
  if (!cpk_csc_copy(p->jac_pattern, &J) && !p->jacobian(z, J, p->params) &&
      !cpk_matrix_from_csc(J, &A))
    D = dense_of(A);
  cpk_matrix_free(A);
  cpk_csc_free(J);
  return D;
}

/* F and (nonlinear) the Jacobian at a few points, or (affine, cone) M and q; bounds,
 * mu and row scales: the updated problem u against the fresh compile f. */
static void compare(const char *what, const cpk_problem *u, const cpk_problem *f)
{
  size_t n = f->n;
  if (!t_ok(u->n == n && u->kind == f->kind, "%s: same size and kind", what)) return;
  double *zu = malloc(n * sizeof *zu), *wu = malloc(n * sizeof *wu), *wf = malloc(n * sizeof *wf);
  int ok = zu && wu && wf;
  double dF = 0.0, dJ = 0.0, scale = 1.0;
  for (int trial = 0; ok && trial < 3; trial++) {
    for (size_t i = 0; i < n; i++) zu[i] = trial * (0.1 + 0.37 * sin(1.7 * (double)i + trial));
    ok = !cpk_problem_eval(u, zu, wu) && !cpk_problem_eval(f, zu, wf);
    if (ok) dF = fmax(dF, max_diff(wu, wf, n));
    for (size_t i = 0; ok && i < n; i++) scale = fmax(scale, fabs(wf[i]));
    if (ok && f->kind == CPK_KIND_NONLINEAR_MCP) {
      double *Ju = jacobian_at(u, zu), *Jf = jacobian_at(f, zu);
      ok = Ju && Jf;
      if (ok) dJ = fmax(dJ, max_diff(Ju, Jf, n * n));
      free(Ju);
      free(Jf);
    }
  }
  if (ok && f->kind != CPK_KIND_NONLINEAR_MCP) {
    double *Mu = dense_of(u->M), *Mf = dense_of(f->M);
    ok = Mu && Mf;
    if (ok) dJ = max_diff(Mu, Mf, n * n);
    free(Mu);
    free(Mf);
  }
  t_ok(ok && dF <= 1e-12 * scale, "%s: F equals a fresh compile's (%.1e)", what, dF);
  t_ok(ok && dJ <= 1e-12 * scale, "%s: the Jacobian / matrix equals a fresh compile's (%.1e)",
       what, dJ);
  if (f->lower)
    t_ok(max_diff(u->lower, f->lower, n) == 0.0 && max_diff(u->upper, f->upper, n) == 0.0,
         "%s: same bounds", what);
  if (f->mu) t_ok(max_diff(u->mu, f->mu, f->nc) == 0.0, "%s: same mu", what);
  if (f->row_scale) {
    int same = u->row_scale != NULL;
    for (size_t i = 0; same && i < n; i++)
      same = fabs(u->row_scale[i] - f->row_scale[i]) <= 1e-12 * f->row_scale[i];
    t_ok(same, "%s: row scales refreshed", what);
  }
  free(zu);
  free(wu);
  free(wf);
}

/* Compile at pose a, update to pose b (in place, same pattern), compare with b compiled. */
static void update_case(const char *model, cpk_problem_form form, int compliant, double a,
                        double b)
{
  char what[120];
  snprintf(what, sizeof what, "%s (form %d) th %g -> %g", model, (int)form, a, b);
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = form;
  cpk_contact_system *sa = body_system(a, compliant), *sb = body_system(b, compliant);
  cpk_problem *p = NULL, *f = NULL;
  cpk_varmap *m = NULL, *mf = NULL;
  cpk_error err = {0};
  int rc = !sa || !sb || cpk_compile(sa, model, &o, &p, &m, &err) ||
           cpk_compile(sb, model, &o, &f, &mf, &err);
  if (!t_ok(!rc, "%s: compiled (%s)", what, err.message)) goto done;
  unsigned long values = p->rev.values, params = p->rev.params;
  rc = cpk_compile_update(sb, p, m, &err);
  t_ok(rc == CPK_OK, "%s: updated in place, pattern kept (%s)", what, rc ? err.message : "");
  if (rc) goto done;
  t_ok(p->rev.values != values || p->rev.params != params,
       "%s: the change counters moved (a bound solver refreshes)", what);
  compare(what, p, f);
done:
  cpk_problem_free(p);
  cpk_problem_free(f);
  cpk_varmap_free(m);
  cpk_varmap_free(mf);
  cpk_contact_system_free(sa);
  cpk_contact_system_free(sb);
}

/* Steps of a scene with model and solver: the compiles the stepper made. */
static long scene_compiles(const char *scene, const char *model, const char *solver, int steps,
                           int *failed)
{
  cpk_scene *s = NULL;
  cpk_world *w = NULL;
  cpk_error err = {0};
  long compiles = 0;
  *failed = 1;
  if (cpk_scene_read_file(t_srcpath(scene), &s, &err)) {
    t_diag("%s", err.message);
    return -1;
  }
  cpk_sim_settings *set = cpk_scene_settings(s);
  snprintf(set->model, sizeof set->model, "%s", model);
  snprintf(set->solver, sizeof set->solver, "%s", solver);
  int rc = cpk_scene_world(s, &w, &err);
  for (int k = 0; !rc && k < steps; k++) {
    cpk_sim_step_info info;
    rc = cpk_world_step(w, &info, &err);
    compiles += info.compiles;
  }
  if (rc) t_diag("%s", err.message);
  *failed = rc != 0;
  cpk_world_free(w);
  cpk_scene_free(s);
  return compiles;
}

/* s as JSON text (NULL on failure; the caller frees). */
static char *json_of(const cpk_contact_system *s)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  int rc = cpk_contact_system_write_json(s, f, NULL);
  fclose(f);
  if (rc) free(text);
  return rc ? NULL : text;
}

/* A body with one contact whose rows are given in the order perm, as JSON. */
static char *permuted_json(const int perm[6])
{
  cpk_contact_system *t = NULL;
  double M6[6] = {2, 2, 2, 0.3, 0.5, 0.7}, v[6] = {0.1, -0.2, -0.5, 0.3, 0.2, -0.1};
  double k[6] = {0, 0, -9.81 * 2.0, 0, 0, 0}, r[3] = {-cos(0.3), -sin(0.3), -1.0};
  double n[3] = {0, 0, 1}, tg[3] = {1, 0, 0}, w[4][6], pw[4][6];
  cpk_int ti[6] = {0, 1, 2, 3, 4, 5}, rows[6];
  cpk_csc *M = NULL;
  cpk_contact_params p;
  cpk_contact_params_default(&p);
  p.mu = 0.3;
  int rc = cpk_csc_from_triplets(6, 6, 6, ti, ti, M6, &M) ||
           cpk_contact_system_alloc_body(6, M, v, k, 1e-3, &t, NULL) ||
           cpk_rigid_contact_wrenches(r, n, tg, w[0], w[1], w[2], w[3]);
  for (int i = 0; i < 6; i++) {
    rows[i] = perm[i];
    for (int a = 0; a < 4; a++) pw[a][i] = w[a][perm[i]];
  }
  if (!rc) rc = cpk_contact_system_add_contact(t, &p, 6, rows, pw[0], pw[1], pw[2], pw[3], NULL);
  char *text = rc ? NULL : json_of(t);
  cpk_csc_free(M);
  cpk_contact_system_free(t);
  return text;
}

/* b's contacts added to s (their rows and values read back from b). */
static int add_contacts_of(cpk_contact_system *s, const cpk_contact_system *b)
{
  int rc = CPK_OK;
  for (size_t c = 0; !rc && c < b->nc; c++) {
    size_t r0 = b->wptr[c], nr = b->wptr[c + 1] - r0;
    double w[4][6];
    for (size_t i = 0; i < nr && i < 6; i++)
      for (int a = 0; a < 4; a++) w[a][i] = b->wval[4 * (r0 + i) + a];
    rc = nr > 6 ? CPK_EINVAL
                : cpk_contact_system_add_contact(s, &b->contacts[c], nr, b->wrow + r0, w[0], w[1],
                                                 w[2], w[3], NULL);
  }
  return rc;
}

/* cpk_contact_system_reset_body (the stepper's system, refilled every step): a system reset
 * to b's data and given b's contacts is b; bad data leaves it as it was. */
static void reset_case(void)
{
  cpk_contact_system *a = body_system(0.0, 1), *b = body_system(0.3, 0);
  char *before = a ? json_of(a) : NULL, *same = NULL, *got = NULL, *want = b ? json_of(b) : NULL;
  int bad = a && b ? cpk_contact_system_reset_body(a, b->nv, b->M, b->v, b->k, -1.0, NULL) : 0;
  same = a ? json_of(a) : NULL;
  t_ok(bad == CPK_EINVAL && before && same && strcmp(before, same) == 0,
       "reset with h < 0: CPK_EINVAL, the system unchanged");
  int rc = !a || !b || cpk_contact_system_reset_body(a, b->nv, b->M, b->v, b->k, b->h, NULL) ||
           add_contacts_of(a, b);
  got = rc ? NULL : json_of(a);
  t_ok(got && want && strcmp(got, want) == 0, "reset and refilled: the same system as a new one");
  free(before);
  free(same);
  free(got);
  free(want);
  cpk_contact_system_free(a);
  cpk_contact_system_free(b);
}

int main(void)
{
  cpk_init();
  { /* rows in any order are stored sorted with their values (contact_system.c store_rows) */
    const int sorted[6] = {0, 1, 2, 3, 4, 5}, mixed[6] = {4, 0, 5, 2, 1, 3};
    char *a = permuted_json(sorted), *b = permuted_json(mixed);
    t_ok(a && b && strcmp(a, b) == 0, "a contact's rows in any order: the same system");
    t_ok(a && strstr(a, "\"rows\"") != NULL, "the system's JSON lists the rows");
    free(a);
    free(b);
  }
  reset_case();
  const struct {
    const char *model;
    cpk_problem_form form;
    int compliant;
  } cases[] = {
      {"polyhedral", CPK_FORM_AUTO, 0},          /* LCP, reduced */
      {"polyhedral", CPK_FORM_MIXED, 0},         /* affine MCP with v */
      {"point-coulomb", CPK_FORM_AUTO, 0},       /* nonlinear MCP, mixed */
      {"point-coulomb", CPK_FORM_REDUCED, 0},    /* nonlinear MCP, reduced */
      {"point-coulomb", CPK_FORM_CONE, 0},       /* friction-cone problem */
      {"elliptic-torsional", CPK_FORM_AUTO, 0},  /* torsion: the twist columns too */
      {"elliptic-torsional", CPK_FORM_CONE, 0},
      {"kelvin-voigt", CPK_FORM_AUTO, 1},        /* compliant, mixed */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    update_case(cases[c].model, cases[c].form, cases[c].compliant, 0.0, 0.3); /* zeros vanish */
    update_case(cases[c].model, cases[c].form, cases[c].compliant, 0.3, 0.0); /* zeros appear */
  }

  /* The rotated plate: the contact's lever arm turns through exact zeros; before the
   * structural patterns the mixed forms compiled anew on about half the steps. */
  const char *models[][2] = {{"point-coulomb", "fbnewton"}, {"kelvin-voigt", "fbnewton"},
                             {"polyhedral", "lemke"}, {"point-coulomb", "nsgs"}};
  for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
    int failed;
    long n = scene_compiles("../examples/seed004-rotated-plate.scene.json", models[k][0],
                            models[k][1], 400, &failed);
    t_ok(!failed && n == 1, "rotated plate, %s with %s: 400 steps, %ld compile(s) (one expected)",
         models[k][0], models[k][1], n);
  }
  return t_done();
}
