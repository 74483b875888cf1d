/* t_stepper.c: the fast stepper: the broad phase finds exactly the contacts a test of every pair finds, cpk_compile_update gives the problem a fresh compile gives, and a run that updates its compiled problem in place follows the trajectory of one that compiles every step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

/* ---- random scenes: broad phase against every pair ------------------------ */

static double urand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xFFFFFF) / (double)0x1000000;
}

/* A contact the test expects: bodies (in the stepper's order) and the gap. */
typedef struct want {
  size_t b0, b1;
  double gap;
} want;

static int ignored(size_t i, size_t j, const size_t (*ign)[2], size_t nign)
{
  for (size_t k = 0; k < nign; k++)
    if ((ign[k][0] == i && ign[k][1] == j) || (ign[k][0] == j && ign[k][1] == i)) return 1;
  return 0;
}

/* Every pair i < j, by hand: a sphere within the margin of a plane (normal +z of the
 * plane's frame, here turned by its quaternion) or of another sphere (the dynamic one
 * first), skipping pairs with no dynamic body and ignored pairs. */
static size_t expected(const cpk_world *w, double margin, const size_t (*ign)[2], size_t nign,
                       want *out)
{
  size_t n = cpk_world_nbodies(w), k = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      const cpk_body *A = cpk_world_body(w, i), *B = cpk_world_body(w, j);
      if ((A->kind != CPK_BODY_DYNAMIC && B->kind != CPK_BODY_DYNAMIC) || ignored(i, j, ign, nign))
        continue;
      if (A->shape.kind == CPK_SHAPE_PLANE && B->shape.kind == CPK_SHAPE_PLANE) continue;
      if (A->shape.kind == CPK_SHAPE_PLANE || B->shape.kind == CPK_SHAPE_PLANE) {
        const cpk_body *P = A->shape.kind == CPK_SHAPE_PLANE ? A : B, *S = P == A ? B : A;
        const double *q = P->q; /* R e_z of the unit quaternion (w, x, y, z) */
        double nz[3] = {2 * (q[1] * q[3] + q[0] * q[2]), 2 * (q[2] * q[3] - q[0] * q[1]),
                        1 - 2 * (q[1] * q[1] + q[2] * q[2])};
        double gap = 0;
        for (int a = 0; a < 3; a++) gap += (S->x[a] - S->shape.size[0] * nz[a] - P->x[a]) * nz[a];
        if (gap <= margin) out[k++] = (want){S == A ? i : j, S == A ? j : i, gap};
      } else {
        double d = sqrt(pow(A->x[0] - B->x[0], 2) + pow(A->x[1] - B->x[1], 2) +
                        pow(A->x[2] - B->x[2], 2));
        double gap = d - A->shape.size[0] - B->shape.size[0];
        if (d > 0 && gap <= margin)
          out[k++] = A->kind == CPK_BODY_DYNAMIC ? (want){i, j, gap} : (want){j, i, gap};
      }
    }
  return k;
}

static cpk_body sphere(double r, double x, double y, double z, cpk_body_kind kind)
{
  cpk_body b;
  cpk_body_default(&b);
  b.kind = kind;
  b.shape.size[0] = r;
  b.x[0] = x;
  b.x[1] = y;
  b.x[2] = z;
  return b;
}

/* n spheres (some fixed, a few much larger, some ignored pairs) and two planes in a box
 * of side `box`, scale `scale` (far from the origin: cells far out). */
static void random_scene(unsigned seed, size_t n, double box, double offset)
{
  unsigned s = seed;
  double margin = 0.01 + 0.2 * urand(&s);
  cpk_sim_settings set;
  cpk_sim_settings_default(&set);
  set.margin = margin;
  cpk_world *w = NULL;
  int rc = cpk_world_alloc(&set, &w, NULL);
  size_t (*ign)[2] = calloc(n / 10 + 1, sizeof *ign), nign = 0;
  want *exp = calloc(n * n / 2 + 4 * n + 1, sizeof *exp);
  cpk_body p;
  cpk_body_default(&p);
  p.kind = CPK_BODY_FIXED;
  p.shape.kind = CPK_SHAPE_PLANE;
  p.x[2] = offset + 0.5;
  if (!rc) rc = cpk_world_add_body(w, &p, NULL, NULL);
  p.q[0] = cos(0.3);
  p.q[1] = sin(0.3); /* turned 0.6 rad about x */
  p.x[1] = offset + box;
  if (!rc) rc = cpk_world_add_body(w, &p, NULL, NULL);
  for (size_t k = 0; !rc && k < n; k++) {
    double u = urand(&s), r = u < 0.03 ? 2 + 3 * urand(&s) : 0.05 + 0.45 * urand(&s);
    cpk_body b = sphere(r, offset + box * urand(&s), offset + box * urand(&s),
                        offset + box * urand(&s), urand(&s) < 0.2 ? CPK_BODY_FIXED : CPK_BODY_DYNAMIC);
    rc = cpk_world_add_body(w, &b, NULL, NULL);
  }
  for (size_t k = 0; !rc && k < n / 10; k++) { /* ignore a few close pairs */
    size_t i = 2 + (size_t)(urand(&s) * (double)n), j = i + 1;
    if (j < n + 2 && !cpk_world_ignore_pair(w, i, j, NULL)) {
      ign[nign][0] = i;
      ign[nign++][1] = j;
    }
  }
  cpk_sim_contact *got = NULL;
  size_t ngot = 0, nexp = rc ? 0 : expected(w, margin, (const size_t(*)[2])ign, nign, exp);
  if (!rc) rc = cpk_world_find_contacts(w, &got, &ngot, NULL);
  int same = !rc && ngot == nexp, gaps = 1;
  for (size_t k = 0; same && k < ngot; k++) {
    same = got[k].body[0] == exp[k].b0 && got[k].body[1] == exp[k].b1;
    gaps &= fabs(got[k].gap - exp[k].gap) <= 1e-9 * (1 + fabs(offset));
  }
  t_ok(same && nexp > 0, "random scene %u (%zu spheres, box %g at %g): the %zu contacts of every "
       "pair, in the same order (found %zu)", seed, n, box, offset, nexp, ngot);
  t_ok(gaps, "random scene %u: same gaps", seed);
  free(got);
  free(exp);
  free(ign);
  cpk_world_free(w);
}

/* Shapes with no contact routine are refused even far apart, as when every pair was
 * tested, and accepted once the pair is ignored. */
static void unsupported_far(void)
{
  cpk_sim_settings set;
  cpk_sim_settings_default(&set);
  cpk_world *w = NULL;
  cpk_error err = {0};
  cpk_body a = sphere(1, 0, 0, 0, CPK_BODY_DYNAMIC), b = a;
  a.shape.kind = b.shape.kind = CPK_SHAPE_ELLIPSOID;
  a.shape.size[1] = a.shape.size[2] = b.shape.size[1] = b.shape.size[2] = 1;
  b.x[0] = 1000;
  int rc = cpk_world_alloc(&set, &w, NULL);
  if (!rc) rc = cpk_world_add_body(w, &a, NULL, NULL);
  if (!rc) rc = cpk_world_add_body(w, &b, NULL, NULL);
  cpk_sim_contact *c = NULL;
  size_t n = 0;
  t_ok(!rc && cpk_world_find_contacts(w, &c, &n, &err) == CPK_EUNSUP,
       "two ellipsoids 1000 apart: no contact routine, refused (%s)", err.message);
  free(c);
  c = NULL;
  t_ok(!rc && !cpk_world_ignore_pair(w, 0, 1, NULL) && !cpk_world_find_contacts(w, &c, &n, NULL) &&
           n == 0,
       "the same pair ignored: no contact, no error");
  free(c);
  cpk_world_free(w);
}

/* ---- reuse: in-place updates against compiles every step ---------------------- */

/* Three touching balls on a plane, pushed sideways and spinning, and a fourth resting
 * on two of them: plane and ball-ball contacts that slide, stick and persist. */
static cpk_world *balls(const char *model, const char *solver, int reuse)
{
  cpk_sim_settings set;
  cpk_sim_settings_default(&set);
  snprintf(set.model, sizeof set.model, "%s", model);
  snprintf(set.solver, sizeof set.solver, "%s", solver);
  set.reuse = reuse;
  set.h = 1e-3;
  cpk_world *w = NULL;
  if (cpk_world_alloc(&set, &w, NULL)) return NULL;
  cpk_body ground;
  cpk_body_default(&ground);
  ground.kind = CPK_BODY_FIXED;
  ground.shape.kind = CPK_SHAPE_PLANE;
  int rc = cpk_world_add_body(w, &ground, NULL, NULL);
  for (int k = 0; k < 3 && !rc; k++) {
    cpk_body b = sphere(0.5, 1.0 * k, 0, 0.5, CPK_BODY_DYNAMIC);
    b.v[0] = 0.5 - 0.1 * k; /* the back ball faster: they stay pressed together */
    b.w[2] = 2.0 - k;
    rc = cpk_world_add_body(w, &b, NULL, NULL);
  }
  cpk_body top = sphere(0.5, 0.5, 0, 0.5 + sqrt(0.75), CPK_BODY_DYNAMIC);
  if (!rc) rc = cpk_world_add_body(w, &top, NULL, NULL);
  cpk_contact_params m;
  cpk_contact_params_default(&m);
  m.mu = 0.3;
  if (!rc) rc = cpk_world_set_default_material(w, &m, NULL);
  if (rc) {
    cpk_world_free(w);
    return NULL;
  }
  return w;
}

/* expect_updates: the problem is updated in place on most steps (every form's pattern
 * is structural: it changes only with the contact set). */
static void same_trajectory(const char *model, const char *solver, double tol, int expect_updates)
{
  cpk_world *a = balls(model, solver, 1), *b = balls(model, solver, 0);
  cpk_sim_step_info ia, ib;
  cpk_error err = {0};
  long compiles = 0, steps = 0;
  double diff = 0;
  int rc = a && b ? CPK_OK : CPK_ENOMEM;
  for (int k = 0; k < 200 && !rc; k++, steps++) {
    rc = cpk_world_step(a, &ia, &err);
    if (!rc) rc = cpk_world_step(b, &ib, &err);
    compiles += ia.compiles;
    for (size_t i = 1; !rc && i < cpk_world_nbodies(a); i++)
      for (int c = 0; c < 3; c++) {
        const cpk_body *A = cpk_world_body(a, i), *B = cpk_world_body(b, i);
        diff = fmax(diff, fmax(fabs(A->x[c] - B->x[c]), fabs(A->v[c] - B->v[c])));
        diff = fmax(diff, fabs(A->w[c] - B->w[c]));
      }
  }
  t_ok(!rc, "%s/%s: 200 steps both ways (%s)", model, solver[0] ? solver : "default", err.message);
  t_ok(diff <= tol, "%s/%s: updating in place follows the compile-every-step trajectory "
       "(largest difference %.3g, tol %g)", model, solver[0] ? solver : "default", diff, tol);
  t_ok(!expect_updates || compiles < steps / 2, "%s/%s: the compiled problem was updated in place (%ld compiles in "
       "%ld steps)", model, solver[0] ? solver : "default", compiles, steps);
  cpk_world_free(a);
  cpk_world_free(b);
}

/* ---- cpk_compile_update against cpk_compile ------------------------------------ */

static double max_diff_matrix(const cpk_matrix *A, const cpk_matrix *B)
{
  double d = 0;
  for (size_t i = 0; i < A->m; i++)
    for (size_t j = 0; j < A->n; j++)
      d = fmax(d, fabs(cpk_matrix_get(A, i, j) - cpk_matrix_get(B, i, j)));
  return d;
}

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, a[i] == b[i] ? 0 : fabs(a[i] - b[i]));
  return d;
}

static int contacts_equal(const cpk_sim_contact *a, size_t na, const cpk_sim_contact *b, size_t nb)
{
  if (na != nb) return 0;
  for (size_t k = 0; k < na; k++)
    if (a[k].body[0] != b[k].body[0] || a[k].body[1] != b[k].body[1] ||
        a[k].feature != b[k].feature)
      return 0;
  return 1;
}

/* The contact systems of w at two consecutive steps with the same contacts. */
static int same_contacts_ahead(cpk_world *w, cpk_contact_system **s1, cpk_contact_system **s2,
                               cpk_error *err)
{
  cpk_sim_contact *c1 = NULL, *c2 = NULL;
  size_t n1 = 0, n2 = 0;
  int rc = cpk_world_find_contacts(w, &c1, &n1, err);
  if (!rc) rc = cpk_world_contact_system(w, s1, err);
  for (int k = 0; k < 100 && !rc; k++) {
    rc = cpk_world_step(w, NULL, err);
    if (!rc) rc = cpk_world_find_contacts(w, &c2, &n2, err);
    if (!rc && contacts_equal(c1, n1, c2, n2)) break;
    free(c1);
    c1 = c2;
    n1 = n2;
    c2 = NULL;
    cpk_contact_system_free(*s1);
    *s1 = NULL;
    if (!rc) rc = cpk_world_contact_system(w, s1, err);
  }
  if (!rc) rc = cpk_world_contact_system(w, s2, err);
  free(c1);
  free(c2);
  return rc;
}

static void release(cpk_problem **p, cpk_problem **fresh, cpk_varmap **m, cpk_varmap **mf,
                    cpk_contact_system **s1, cpk_contact_system **s2)
{
  cpk_problem_free(*p);
  cpk_problem_free(*fresh);
  cpk_varmap_free(*m);
  cpk_varmap_free(*mf);
  cpk_contact_system_free(*s1);
  cpk_contact_system_free(*s2);
  *p = *fresh = NULL;
  *m = *mf = NULL;
  *s1 = *s2 = NULL;
}

/* The systems of a world at two times (same contacts), and one with a contact fewer.
 * moves: the form's pattern follows exact zeros of the wrenches (the mixed forms), so an
 * update may be refused. */
static void update_vs_compile(const char *model, cpk_problem_form form, int moves)
{
  cpk_world *w = balls(model, "", 1);
  cpk_contact_system *s1 = NULL, *s2 = NULL, *s3 = NULL;
  cpk_problem *p = NULL, *fresh = NULL;
  cpk_varmap *m = NULL, *mf = NULL;
  cpk_compile_options o;
  cpk_error err = {0};
  cpk_compile_options_default(&o);
  o.form = form;
  int rc = w ? CPK_OK : CPK_ENOMEM, tries = 0, changed = 0;
  unsigned long rev0 = 0;
  for (int k = 0; k < 20 && !rc; k++) rc = cpk_world_step(w, NULL, &err);
  /* Consecutive states with the same contacts until one update is taken: a pattern that
   * follows exact zeros of the values may move from one step to the next, and is then
   * refused with the problem unchanged. */
  for (; tries < 20 && !rc; tries++) {
    rc = same_contacts_ahead(w, &s1, &s2, &err);
    if (!rc) rc = cpk_compile(s1, model, &o, &p, &m, &err);
    if (!rc) rc = cpk_compile(s2, model, &o, &fresh, &mf, &err);
    rev0 = p ? p->rev.q + p->rev.values + p->rev.params : 0;
    if (!rc) rc = cpk_compile_update(s2, p, m, &err);
    if (rc != CPK_EUNSUP) break;
    int same = p->rev.q + p->rev.values + p->rev.params == rev0;
    release(&p, &fresh, &m, &mf, &s1, &s2);
    changed |= !same;
    if (!same) break; /* refused but changed: reported below */
    rc = CPK_OK;
  }
  if (moves && (rc == CPK_EUNSUP || tries == 20)) {
    t_ok(!changed, "%s form %d: the pattern moved at every step tried: refused, problems "
         "unchanged", model, (int)form);
    rc = CPK_EUNSUP;
  } else {
    t_ok(!rc && tries < 20 && !changed, "%s form %d: compiled, stepped, updated after %d refusals (%s)", model,
         (int)form, tries, err.message);
  }
  if (!rc) {
    size_t n = p->n;
    double *z = calloc(n, sizeof *z), *f1 = calloc(n, sizeof *f1), *f2 = calloc(n, sizeof *f2);
    unsigned s = 7;
    for (size_t i = 0; i < n; i++) z[i] = p->lower[i] == 0 ? urand(&s) : urand(&s) - 0.5;
    int ev = z && f1 && f2 && !cpk_problem_eval(p, z, f1) && !cpk_problem_eval(fresh, z, f2);
    double d = ev ? max_diff(f1, f2, n) : INFINITY;
    if (p->M) d = fmax(d, max_diff_matrix(p->M, fresh->M));
    if (p->kind == CPK_KIND_FRICTION_CONE) d = fmax(d, max_diff(p->mu, fresh->mu, p->nc));
    d = fmax(d, max_diff(p->lower, fresh->lower, n) + max_diff(p->upper, fresh->upper, n));
    t_ok(p->kind == fresh->kind && n == fresh->n && d == 0,
         "%s form %d: the updated problem is the fresh compile's (F at a point, M, bounds, mu: "
         "largest difference %g)", model, (int)form, d);
    double P1[64] = {0}, P2[64] = {0};
    t_ok(cpk_varmap_ncontacts(m) <= 16 && !cpk_varmap_impulses(m, z, P1) &&
             !cpk_varmap_impulses(mf, z, P2) && max_diff(P1, P2, 4 * cpk_varmap_ncontacts(m)) == 0,
         "%s form %d: the updated map reads impulses as the fresh one", model, (int)form);
    free(z);
    free(f1);
    free(f2);
  }
  /* one contact fewer: refused, problem unchanged */
  if (!rc) {
    cpk_world_ignore_pair(w, 0, 1, NULL);
    rc = cpk_world_contact_system(w, &s3, &err);
  }
  if (!rc) {
    double q0 = p->q ? p->q[0] : 0;
    unsigned long revq = p->rev.q;
    int u = cpk_compile_update(s3, p, m, &err);
    t_ok(u == CPK_EUNSUP && p->rev.q == revq && (!p->q || p->q[0] == q0),
         "%s form %d: a contact fewer is another structure: CPK_EUNSUP, problem unchanged (%s)",
         model, (int)form, err.message);
  }
  release(&p, &fresh, &m, &mf, &s1, &s2);
  cpk_contact_system_free(s3);
  cpk_world_free(w);
}

int main(void)
{
  cpk_init();
  random_scene(1, 200, 6, 0);
  random_scene(2, 400, 8, 0);
  random_scene(3, 300, 5, 1e6);  /* far from the origin */
  random_scene(4, 150, 1e-3, 0); /* all in one cell */
  random_scene(5, 12, 1.5, 0);   /* 14 bodies: every pair tested directly, no grid */
  random_scene(6, 14, 1, 1e6);   /* 16 bodies, the most tested directly */
  random_scene(7, 15, 1, 0);     /* 17: the grid again */
  unsupported_far();
  /* Kept across steps, Lemke starts from its last basis (sim/step_cache.c), compiled
   * anew from the stepper's point: another pivot path to the same solution, up to the
   * solves' rounding, which 200 steps of sliding and sticking carry to about 6e-9. */
  same_trajectory("polyhedral", "lemke", 1e-8, 1);
  same_trajectory("point-coulomb", "", 1e-9, 1);
  same_trajectory("point-coulomb", "ipm", 1e-9, 1);
  update_vs_compile("polyhedral", CPK_FORM_AUTO, 0);
  update_vs_compile("polyhedral", CPK_FORM_MIXED, 1);
  update_vs_compile("point-coulomb", CPK_FORM_AUTO, 1);
  update_vs_compile("point-coulomb", CPK_FORM_CONE, 0);
  update_vs_compile("kelvin-voigt", CPK_FORM_AUTO, 1);
  return t_done();
}
