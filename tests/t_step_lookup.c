/* t_step_lookup.c: the stepper's cheaper steps (issue 15, branch ncp05c): a change of the settings' solver name between steps is followed (the solver is looked up once and kept by name; a solver of the other form recompiles), step timings only on request and the same trajectory either way, cpk_compile_update_unchecked equal to cpk_compile_update, the contact operator written in place or built anew when its blocks change (equal to a fresh compile), and the hand-parsed indexed quantities ("x[2]"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

/* The seed 004 tripod with point-coulomb and `solver` (NULL when it cannot be made). */
static cpk_world *tripod(const char *solver, int timings, cpk_scene **sc)
{
  return t_tripod_world("point-coulomb", solver, timings, sc);
}

/* Run k steps; the sum of their solver iterations into *iters (may be NULL). */
static int steps(cpk_world *w, int k, long *iters, cpk_error *err)
{
  int rc = CPK_OK;
  for (int i = 0; i < k && !rc; i++) {
    cpk_sim_step_info info;
    rc = cpk_world_step(w, &info, err);
    if (iters) *iters += info.iterations;
  }
  return rc;
}

/* The world keeps its settings (cpk_world_settings is const for callers); an embedding
 * program that owns the world may still write them between steps: the stepper must read
 * the names it is given, not the first ones it looked up. */
static void solver_name_change(void)
{
  cpk_scene *sc;
  cpk_world *w = tripod("nsn", 0, &sc);
  cpk_error err = {0};
  long it_nsn = 0, it_nsgs = 0;
  int rc = w ? steps(w, 20, &it_nsn, &err) : CPK_EINVAL;
  t_ok(!rc, "tripod with nsn: 20 steps (%s)", err.message);
  cpk_sim_settings *S = w ? (cpk_sim_settings *)cpk_world_settings(w) : NULL;
  if (S) snprintf(S->solver, sizeof S->solver, "no-such-solver");
  rc = S ? steps(w, 1, NULL, &err) : CPK_EINVAL;
  t_ok(rc == CPK_ENOTFOUND && strstr(err.message, "no-such-solver"),
       "a solver name changed between steps is the one asked for: unknown, the step fails "
       "naming it (rc %d: %s)", rc, err.message);
  if (S) snprintf(S->solver, sizeof S->solver, "nsgs");
  err.message[0] = '\0';
  rc = S ? steps(w, 20, &it_nsgs, &err) : CPK_EINVAL;
  /* nsn takes about 2 Newton iterations a step here; nsgs sweeps many more (its own
     count, independent of the look-up) */
  t_ok(!rc && it_nsgs > 2 * it_nsn,
       "then nsgs: 20 steps solved by nsgs (%ld sweeps against nsn's %ld iterations) (%s)",
       it_nsgs, it_nsn, err.message);
  if (S) snprintf(S->solver, sizeof S->solver, "nsn");
  long it_back = 0;
  rc = S ? steps(w, 20, &it_back, &err) : CPK_EINVAL;
  t_ok(!rc && it_back < it_nsgs, "and nsn again: 20 steps (%ld iterations) (%s)", it_back,
       err.message);
  /* fbnewton takes the MCP form, nsn the cone form: the kept problem is compiled anew
   * (an update kept the cone problem and every later step failed: "does not accept") */
  const char *next[2] = {"fbnewton", "nsn"};
  for (int k = 0; k < 2; k++) {
    if (S) snprintf(S->solver, sizeof S->solver, "%s", next[k]);
    err.message[0] = '\0';
    rc = S ? steps(w, 10, NULL, &err) : CPK_EINVAL;
    t_ok(!rc, "then %s (the %s form): 10 steps (%s)", next[k], k ? "cone" : "MCP", err.message);
  }
  double z = NAN;
  rc = w ? cpk_world_quantity(w, "tripod.x[2]", &z, NULL) : CPK_EINVAL;
  t_ok(!rc && fabs(z - 1.0186) < 0.05, "the tripod still stands (z = %.4f cm)", z);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/* Step timings off by default (0), measured when asked; the bodies move the same. */
static void timings(void)
{
  cpk_scene *s0, *s1;
  cpk_sim_settings def;
  cpk_sim_settings_default(&def);
  t_ok(def.timings == 0, "timings are off by default");
  cpk_world *w0 = tripod("nsn", 0, &s0), *w1 = tripod("nsn", 1, &s1);
  cpk_error err = {0};
  int rc = w0 && w1 ? CPK_OK : CPK_EINVAL, zero = 1, measured = 1;
  for (int k = 0; k < 300 && !rc; k++) {
    cpk_sim_step_info a, b;
    rc = cpk_world_step(w0, &a, &err) || cpk_world_step(w1, &b, &err);
    zero &= a.solve_time_s == 0 && a.detect_time_s == 0 && a.compile_time_s == 0 &&
            a.solver_time_s == 0;
    measured &= b.solve_time_s > 0 && b.solver_time_s > 0 &&
                b.detect_time_s + b.compile_time_s + b.solver_time_s <= b.solve_time_s;
  }
  t_ok(!rc && zero, "timings 0: every step's times are 0 (%s)", err.message);
  t_ok(!rc && measured, "timings 1: every step's times are measured, parts within the whole");
  int same = !rc;
  for (size_t b = 0; same && b < cpk_world_nbodies(w0); b++) {
    const cpk_body *A = cpk_world_body(w0, b), *B = cpk_world_body(w1, b);
    same = !memcmp(A->x, B->x, sizeof A->x) && !memcmp(A->v, B->v, sizeof A->v) &&
           !memcmp(A->q, B->q, sizeof A->q) && !memcmp(A->w, B->w, sizeof A->w);
  }
  t_ok(same, "300 steps with and without timings: the same poses and velocities bit for bit");
  cpk_world_free(w0);
  cpk_world_free(w1);
  cpk_scene_free(s0);
  cpk_scene_free(s1);
}

/* F(z) of p at a few points into f (3 n). */
static int eval3(const cpk_problem *p, double *f)
{
  double *z = malloc(p->n * sizeof *z);
  int rc = z ? CPK_OK : CPK_ENOMEM;
  for (int t = 0; !rc && t < 3; t++) {
    for (size_t i = 0; i < p->n; i++) z[i] = t * (0.1 + 0.37 * sin(1.7 * (double)i + t));
    rc = cpk_problem_eval(p, z, f + t * p->n);
  }
  free(z);
  return rc;
}

/* The stepper's system of two successive steps: the update of the first's compile to the
 * second through cpk_compile_update and through cpk_compile_update_unchecked give the same
 * problem, bit for bit; a system whose M was written directly is still refused by
 * cpk_compile_update. */
static void update_unchecked(void)
{
  cpk_scene *sc;
  cpk_world *w = tripod("nsn", 0, &sc);
  cpk_contact_system *s0 = NULL, *s1 = NULL;
  cpk_problem *p1 = NULL, *p2 = NULL;
  cpk_varmap *m1 = NULL, *m2 = NULL;
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_CONE;
  cpk_error err = {0};
  int rc = w ? steps(w, 5, NULL, &err) : CPK_EINVAL;
  if (!rc) rc = cpk_world_contact_system(w, &s0, &err);
  if (!rc) rc = cpk_compile(s0, "point-coulomb", &o, &p1, &m1, &err);
  if (!rc) rc = cpk_compile(s0, "point-coulomb", &o, &p2, &m2, &err);
  if (!rc) rc = steps(w, 7, NULL, &err);
  if (!rc) rc = cpk_world_contact_system(w, &s1, &err);
  if (!rc) rc = cpk_compile_update_unchecked(s1, p1, m1, &err);
  if (!rc) rc = cpk_compile_update(s1, p2, m2, &err);
  size_t n = p1 ? p1->n : 0;
  double *f = calloc(6 * n + 1, sizeof *f);
  int same = !rc && f && p2->n == n && !eval3(p1, f) && !eval3(p2, f + 3 * n) &&
             !memcmp(f, f + 3 * n, 3 * n * sizeof *f) &&
             !memcmp(p1->mu, p2->mu, p1->nc * sizeof *p1->mu);
  t_ok(same, "cpk_compile_update_unchecked equals cpk_compile_update bit for bit (n = %zu) (%s)", n,
       err.message);
  /* and both equal a fresh compile of the second system (the comparison above cannot tell
     an update that kept the first step's values: both calls share that code) */
  cpk_problem *p3 = NULL;
  cpk_varmap *m3 = NULL;
  double *g = same ? calloc(3 * n + 1, sizeof *g) : NULL;
  int fresh = g && !cpk_compile(s1, "point-coulomb", &o, &p3, &m3, &err) && p3->n == n &&
              !eval3(p3, g) && !memcmp(f, g, 3 * n * sizeof *f);
  t_ok(fresh, "the unchecked update equals a fresh compile of the new system bit for bit (%s)",
       err.message);
  free(g);
  cpk_problem_free(p3);
  cpk_varmap_free(m3);
  /* values the checked calls would refuse, written around them */
  if (s1 && s1->M) s1->M->x[0] = NAN;
  rc = s1 ? cpk_compile_update(s1, p2, m2, NULL) : CPK_OK;
  t_ok(rc == CPK_EINVAL, "cpk_compile_update still validates: M written with a NaN is refused "
       "(rc %d)", rc);
  free(f);
  cpk_problem_free(p1);
  cpk_problem_free(p2);
  cpk_varmap_free(m1);
  cpk_varmap_free(m2);
  cpk_contact_system_free(s0);
  cpk_contact_system_free(s1);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/* Two unit bodies (M = I, 12 velocities) and two contacts; contact c on body body[c]
 * (0 or 1), its pose moved by th. NULL when it cannot be made. */
static cpk_contact_system *two_bodies(const int body[2], double th)
{
  cpk_int ti[12];
  double one[12];
  for (int i = 0; i < 12; i++) ti[i] = i, one[i] = 1.0 + 0.1 * (i % 3);
  cpk_csc *M = NULL;
  double v[12] = {0.1, -0.2, -0.5 - th, 0.3, 0.2, -0.1, 0.4, -0.3, -0.2 * th, 0.1, 0, 0};
  cpk_contact_system *s = NULL;
  int rc = cpk_csc_from_triplets(12, 12, 12, ti, ti, one, &M) ||
           cpk_contact_system_alloc_body(12, M, v, NULL, 1e-3, &s, NULL);
  cpk_csc_free(M);
  for (int c = 0; !rc && c < 2; c++) {
    double a = th + 2.0 * c, r[3] = {cos(a), sin(a), -1.0}, n[3] = {0, 0, 1};
    double t[3] = {1, 0, 0}, w[4][6];
    cpk_int rows[6];
    for (int i = 0; i < 6; i++) rows[i] = 6 * body[c] + i;
    cpk_contact_params p;
    cpk_contact_params_default(&p);
    p.mu = 0.4;
    p.psi = 1e-4 * c;
    rc = cpk_rigid_contact_wrenches(r, n, t, w[0], w[1], w[2], w[3]) ||
         cpk_contact_system_add_contact(s, &p, 6, rows, w[0], w[1], w[2], w[3], NULL);
  }
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

/* The contact operator is written over the last layout's when its blocks are the same
 * (formulations/delassus.c); an update whose operator has other blocks (fewer: the
 * contacts moved to two bodies; or one the last did not have) builds it from the start,
 * then reports the other structure and leaves the problem as it was. */
static void operator_pattern(const int first[2], const int other[2], const char *what)
{
  cpk_contact_system *a0 = two_bodies(first, 0.0), *a1 = two_bodies(first, 0.1);
  cpk_contact_system *a2 = two_bodies(first, 0.2), *b = two_bodies(other, 0.3);
  cpk_problem *p = NULL, *f = NULL;
  cpk_varmap *m = NULL, *mf = NULL;
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = CPK_FORM_CONE;
  int rc = a0 && a1 && a2 && b ? cpk_compile(a0, "point-coulomb", &o, &p, &m, NULL) : CPK_EINVAL;
  if (!rc) rc = cpk_compile_update(a1, p, m, NULL); /* now the map keeps a0's layout */
  int other_rc = rc ? rc : cpk_compile_update(b, p, m, NULL);
  /* a small cone problem is dense: any pattern updates; a sparse one is a mismatch */
  if (!rc) rc = cpk_compile(other_rc ? a1 : b, "point-coulomb", &o, &f, &mf, NULL);
  size_t n = p ? p->n : 0;
  double *fv = calloc(6 * n + 1, sizeof *fv);
  int same = !rc && fv && !eval3(p, fv) && !eval3(f, fv + 3 * n) &&
             !memcmp(fv, fv + 3 * n, 3 * n * sizeof *fv);
  t_ok((other_rc == CPK_OK || other_rc == CPK_EUNSUP) && same,
       "%s: the update to the other operator equals its fresh compile (or, a mismatch, leaves "
       "the last one) (rc %d)", what, other_rc);
  cpk_problem_free(f);
  cpk_varmap_free(mf);
  f = NULL;
  mf = NULL;
  if (!rc) rc = cpk_compile_update(a2, p, m, NULL);
  if (!rc) rc = cpk_compile(a2, "point-coulomb", &o, &f, &mf, NULL);
  same = !rc && !eval3(p, fv) && !eval3(f, fv + 3 * n) &&
         !memcmp(fv, fv + 3 * n, 3 * n * sizeof *fv);
  t_ok(same, "%s: then an update to the first pattern equals a fresh compile", what);
  free(fv);
  cpk_problem_free(p);
  cpk_problem_free(f);
  cpk_varmap_free(m);
  cpk_varmap_free(mf);
  cpk_contact_system_free(a0);
  cpk_contact_system_free(a1);
  cpk_contact_system_free(a2);
  cpk_contact_system_free(b);
}

/* Indexed body quantities, parsed by hand, take the forms sscanf's "%c[%d]" took. */
static void quantities(void)
{
  cpk_scene *sc;
  cpk_world *w = tripod("nsn", 0, &sc);
  int rc = w ? steps(w, 3, NULL, NULL) : CPK_EINVAL;
  size_t b = 0;
  while (w && b < cpk_world_nbodies(w) && strcmp(cpk_world_body(w, b)->name, "tripod")) b++;
  const cpk_body *B = w && b < cpk_world_nbodies(w) ? cpk_world_body(w, b) : NULL;
  static const char *const good[] = {"tripod.x[2]", "tripod.x[ 2]", "tripod.x[+2]",
                                     "tripod.q[3]", "tripod.w[0]", "tripod.v[1]"};
  static const char *const bad[] = {"tripod.x[2 ]", "tripod.x[3]", "tripod.q[4]", "tripod.x[-1]",
                                    "tripod.x[]",   "tripod.x[2]z", "tripod.x", "tripod.[2]",
                                    "tripod.",      "tripod.xx[1]", "tripod.y[1]", "tripod.x[1"};
  double want[] = {B ? B->x[2] : 0, B ? B->x[2] : 0, B ? B->x[2] : 0,
                   B ? B->q[3] : 0, B ? B->w[0] : 0, B ? B->v[1] : 0};
  int ok = !rc && B;
  for (size_t k = 0; ok && k < sizeof good / sizeof good[0]; k++) {
    double v = NAN;
    ok = !cpk_world_quantity(w, good[k], &v, NULL) && v == want[k];
    if (!ok) t_diag("refused or wrong: %s", good[k]);
  }
  t_ok(ok, "indexed quantities: x[2], x[ 2], x[+2], q[3], w[0], v[1] read the body");
  ok = !rc && B;
  for (size_t k = 0; ok && k < sizeof bad / sizeof bad[0]; k++) {
    double v = NAN;
    ok = cpk_world_quantity(w, bad[k], &v, NULL) == CPK_ENOTFOUND;
    if (!ok) t_diag("accepted: %s", bad[k]);
  }
  t_ok(ok, "malformed or out-of-range indexed quantities are refused");
  cpk_world_free(w);
  cpk_scene_free(sc);
}

int main(void)
{
  solver_name_change();
  timings();
  update_unchecked();
  static const int one_body[2] = {0, 0}, two[2] = {0, 1};
  operator_pattern(one_body, two, "one body, then two (fewer blocks)");
  operator_pattern(two, one_body, "two bodies, then one (a block the last did not have)");
  quantities();
  return t_done();
}
