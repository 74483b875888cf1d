/* t_update_alloc.c: cpk_compile_update equals a fresh compile bit for bit (unchanged contact set, a changed one that must mismatch, the original set again, a reset velocity dimension) and of an unchanged set makes no heap allocation once warmed up; the tripod's steps stand and (without ASan) allocate nothing in steady state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "alloc_count.h"

#define ROUNDS 8

/*
 * One rigid body on `feet` (2 or 3) of three feet at 120 degrees turned by th (the seed
 * 004 tripod's shape), unequal inertias so that M's inertia block is full once turned;
 * the velocity and the gaps change with th too; velocities 6 to nv-1 (nv <= 12) are free
 * unit masses no contact touches. Into *sys: a new system, or with *sys set the same one
 * made anew by cpk_contact_system_reset_body (its arrays kept). Every round of the test
 * is a new pose of the same contact set: what the stepper updates.
 */
static int tripod_build(cpk_contact_system **sys, double th, int feet, size_t nv)
{
  double mass = 50.0, v[12] = {0.1 * th, -0.2, -0.5, 0.3, 0.2 * th, -0.1, 0.4, -0.3, 0.2, 0.1};
  double k[12] = {0, 0, -981.0 * mass, 0, 0, 0}, c = cos(th), s = sin(th);
  double I[3] = {50.0, 60.0, 100.0}, R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
  cpk_int ti[14], tj[14];
  double x[14];
  size_t e = 0;
  for (int i = 0; i < 3; i++, e++) ti[e] = tj[e] = i, x[e] = mass;
  for (int i = 0; i < 3; i++) /* R diag(I) R^T, written in full: the pattern of any pose */
    for (int j = 0; j < 3; j++)
      if (i == 2 ? j == 2 : j < 2) {
        double sum = 0.0;
        for (int a = 0; a < 3; a++) sum += R[3 * i + a] * I[a] * R[3 * j + a];
        ti[e] = 3 + i, tj[e] = 3 + j, x[e++] = sum;
      }
  for (size_t i = 6; i < nv; i++, e++) ti[e] = tj[e] = (cpk_int)i, x[e] = 1.0;
  cpk_csc *M = NULL;
  int rc = cpk_csc_from_triplets((cpk_int)nv, (cpk_int)nv, (cpk_int)e, ti, tj, x, &M) ||
           (*sys ? cpk_contact_system_reset_body(*sys, nv, M, v, k, 1e-4, NULL)
                 : cpk_contact_system_alloc_body(nv, M, v, k, 1e-4, sys, NULL));
  cpk_csc_free(M);
  for (int f = 0; !rc && f < feet; f++) {
    double a = th + 2.0 * M_PI * f / 3.0, r[3] = {2.0 * cos(a), 2.0 * sin(a), -1.0};
    double n[3] = {0, 0, 1}, t[3] = {cos(a), sin(a), 0}, w[4][6];
    cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
    cpk_contact_params p;
    cpk_contact_params_default(&p);
    p.mu = 0.3;
    p.psi = 1e-5 * (f - 1) * (1.0 + th);
    rc = cpk_rigid_contact_wrenches(r, n, t, w[0], w[1], w[2], w[3]) ||
         cpk_contact_system_add_contact(*sys, &p, 6, rows, w[0], w[1], w[2], w[3], NULL);
  }
  return rc;
}

/* A new system of tripod_build, NULL when it fails. */
static cpk_contact_system *tripod_system(double th, int feet)
{
  cpk_contact_system *sys = NULL;
  if (tripod_build(&sys, th, feet, 6)) {
    cpk_contact_system_free(sys);
    return NULL;
  }
  return sys;
}

/* 1 when u and f agree bit for bit: F at three points, bounds, mu. */
static int same_problem(const cpk_problem *u, const cpk_problem *f)
{
  size_t n = f->n;
  if (u->n != n || u->kind != f->kind) return 0;
  double *z = malloc(3 * n * sizeof *z), *fu = z ? z + n : NULL, *ff = z ? z + 2 * n : NULL;
  int same = z != NULL;
  for (int trial = 0; same && trial < 3; trial++) {
    for (size_t i = 0; i < n; i++) z[i] = trial * (0.1 + 0.37 * sin(1.7 * (double)i + trial));
    same = !cpk_problem_eval(u, z, fu) && !cpk_problem_eval(f, z, ff) &&
           !memcmp(fu, ff, n * sizeof *fu);
  }
  if (same && f->lower)
    same = !memcmp(u->lower, f->lower, n * sizeof *u->lower) &&
           !memcmp(u->upper, f->upper, n * sizeof *u->upper);
  if (same && f->mu) same = !memcmp(u->mu, f->mu, f->nc * sizeof *f->mu);
  free(z);
  return same;
}

/* 1 when p equals a fresh compile of s with model and o bit for bit. */
static int same_as_fresh(const cpk_problem *p, const cpk_contact_system *s, const char *model,
                         const cpk_compile_options *o)
{
  cpk_problem *f = NULL;
  cpk_varmap *mf = NULL;
  int same = !cpk_compile(s, model, o, &f, &mf, NULL) && same_problem(p, f);
  cpk_problem_free(f);
  cpk_varmap_free(mf);
  return same;
}

/* Rounds 1 to ROUNDS-1 of sys updated into p and m: whether each succeeded and equals a
 * fresh compile; the allocations of the first two updates (they may build the second
 * layout) into *first and of the others into *later (the counts stay 0 under ASan). */
static int update_poses(cpk_contact_system *const *sys, cpk_problem *p, cpk_varmap *m,
                        const char *model, const cpk_compile_options *o, long *first,
                        long *later, cpk_error *err)
{
  int ok = 1;
  *first = *later = 0;
  for (int r = 1; r < ROUNDS; r++) {
#ifndef ALLOC_COUNT_NONE
    alloc_count_start();
#endif
    int rc = cpk_compile_update(sys[r], p, m, err);
#ifndef ALLOC_COUNT_NONE
    *(r <= 2 ? first : later) += alloc_count_stop();
#endif
    ok &= rc == CPK_OK && same_as_fresh(p, sys[r], model, o);
  }
  return ok;
}

/* A changed contact set: two feet, a mismatch that leaves p as it was; the two-foot
 * system compiled anew then updated to a new pose (a spare of other sizes). */
static void two_feet(const cpk_contact_system *last, cpk_problem *p, cpk_varmap *m,
                     const char *model, const cpk_compile_options *o, const char *name)
{
  cpk_contact_system *two[2] = {tripod_system(0.9, 2), tripod_system(1.0, 2)};
  cpk_problem *p2 = NULL;
  cpk_varmap *m2 = NULL;
  cpk_error err = {0};
  int rc = two[0] && two[1] ? cpk_compile_update(two[0], p, m, &err) : -1;
  t_ok(rc == CPK_EUNSUP && same_as_fresh(p, last, model, o),
       "%s: two feet instead of three: CPK_EUNSUP, the problem unchanged (rc %d)", name, rc);
  err.message[0] = '\0';
  rc = !two[0] || cpk_compile(two[0], model, o, &p2, &m2, &err) ||
       cpk_compile_update(two[1], p2, m2, &err);
  t_ok(!rc && same_as_fresh(p2, two[1], model, o),
       "%s: two feet compiled anew, updated: equals a fresh compile (%s)", name, err.message);
  cpk_problem_free(p2);
  cpk_varmap_free(m2);
  cpk_contact_system_free(two[0]);
  cpk_contact_system_free(two[1]);
}

/* One system reset with cpk_contact_system_reset_body to 12 velocities, then to 6 again:
 * each update either succeeds and equals a fresh compile, or (12 velocities, a form whose
 * pattern holds them) is CPK_EUNSUP with the problem unchanged; back at 6 it succeeds. */
static void reset_velocities(const cpk_contact_system *last, cpk_problem *p, cpk_varmap *m,
                             const char *model, const cpk_compile_options *o, const char *name)
{
  cpk_contact_system *rs = NULL;
  cpk_error err = {0};
  int rc = tripod_build(&rs, 0.3, 3, 12) ? -1 : cpk_compile_update(rs, p, m, &err);
  t_ok(rc == CPK_OK ? same_as_fresh(p, rs, model, o)
                    : rc == CPK_EUNSUP && same_as_fresh(p, last, model, o),
       "%s: reset to 12 velocities: %s", name,
       rc == CPK_OK ? "updated, equals a fresh compile" : "CPK_EUNSUP, problem unchanged");
  err.message[0] = '\0';
  rc = tripod_build(&rs, 0.35, 3, 6) ? -1 : cpk_compile_update(rs, p, m, &err);
  t_ok(rc == CPK_OK && same_as_fresh(p, rs, model, o),
       "%s: reset to 6 velocities: updated, equals a fresh compile (rc %d, %s)", name, rc,
       err.message);
  cpk_contact_system_free(rs);
}

/* Compile at round 0, update through the other rounds: allocations of each update, and
 * each updated problem against a fresh compile of its round; then a changed contact set
 * (mismatch), the original set again (a new spare laid out), and a reset system whose
 * velocity dimension changes between updates. */
static void update_rounds(const char *model, cpk_problem_form form, const char *name)
{
  cpk_contact_system *sys[ROUNDS] = {0};
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = form;
  int built = 1;
  for (int r = 0; r < ROUNDS; r++) built &= (sys[r] = tripod_system(0.07 * r, 3)) != NULL;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err = {0};
  int rc = !built || cpk_compile(sys[0], model, &o, &p, &m, &err);
  if (!t_ok(!rc, "%s: compiled (%s)", name, err.message)) goto done;
  long later = 0, first = 0;
  t_ok(update_poses(sys, p, m, model, &o, &first, &later, &err),
       "%s: every pose updated in place, equal to a fresh compile bit for bit (%s)", name,
       err.message);
#ifndef ALLOC_COUNT_NONE
  t_ok(later == 0, "%s: updates 3-%d allocate nothing (%ld allocations; %ld in the first two)",
       name, ROUNDS - 1, later, first);
#endif
  two_feet(sys[ROUNDS - 1], p, m, model, &o, name);
  t_ok(update_poses(sys, p, m, model, &o, &first, &later, &err),
       "%s: three feet again: every pose updated, equal to a fresh compile (%s)", name,
       err.message);
#ifndef ALLOC_COUNT_NONE
  /* the mismatch dropped the spare: the first update lays a new one out */
  t_ok(first > 0 && later == 0,
       "%s: after the mismatch the first updates allocate (%ld), updates 3-%d nothing (%ld)",
       name, first, ROUNDS - 1, later);
#endif
  reset_velocities(sys[ROUNDS - 1], p, m, model, &o, name);
done:
  cpk_problem_free(p);
  cpk_varmap_free(m);
  for (int r = 0; r < ROUNDS; r++) cpk_contact_system_free(sys[r]);
}

/* Steps of seed 004's tripod with model and solver: the allocations of steps 21-200 (the
 * contact set is the same from the first step on), and the tripod's height and speed at
 * t = 0.02 against the plate's motion (independent of the counting). */
static void stepper(const char *model, const char *solver)
{
  cpk_scene *sc = NULL;
  cpk_world *w = NULL;
  cpk_error err = {0};
  long later = 0;
  int rc = cpk_scene_read_file(t_srcpath("../examples/seed004-tripod.scene.json"), &sc, &err);
  if (!rc) {
    cpk_sim_settings *set = cpk_scene_settings(sc);
    snprintf(set->model, sizeof set->model, "%s", model);
    snprintf(set->solver, sizeof set->solver, "%s", solver);
    rc = cpk_scene_world(sc, &w, &err);
  }
  for (int k = 0; !rc && k < 200; k++) {
#ifndef ALLOC_COUNT_NONE
    if (k == 20) alloc_count_start();
#endif
    rc = cpk_world_step(w, NULL, &err);
  }
#ifndef ALLOC_COUNT_NONE
  if (w && !rc) later = alloc_count_stop();
#endif
  double z = NAN, speed = NAN;
  if (!rc) rc = cpk_world_quantity(w, "tripod.x[2]", &z, &err) ||
                cpk_world_quantity(w, "tripod.speed", &speed, &err);
  t_ok(!rc, "tripod, %s with %s: 200 steps (%s)", model, solver, err.message);
  /* the feet stay on the plate, whose height is 800 / (66 pi)^2 (1 - cos) cm: under 0.02 cm */
  t_ok(!rc && fabs(z - 1.0186081145348647) < 0.05 && speed < 5.0,
       "tripod, %s with %s: still standing on the plate (z = %.4f cm, speed %.3f cm/s)", model,
       solver, z, speed);
#ifndef ALLOC_COUNT_NONE
  t_ok(!rc && later == 0, "tripod, %s with %s: steps 21-200 allocate nothing (%ld allocations)",
       model, solver, later);
#else
  (void)later; /* ASan replaces the allocator: nothing to count */
#endif
  cpk_world_free(w);
  cpk_scene_free(sc);
}

int main(void)
{
  stepper("point-coulomb", "nsn");
  stepper("polyhedral", "lemke");
  update_rounds("point-coulomb", CPK_FORM_CONE, "point-coulomb, cone form");
  update_rounds("elliptic-torsional", CPK_FORM_CONE, "elliptic-torsional, cone form");
  update_rounds("polyhedral", CPK_FORM_AUTO, "polyhedral LCP");
  update_rounds("point-coulomb", CPK_FORM_MIXED, "point-coulomb, mixed MCP");
  update_rounds("point-coulomb", CPK_FORM_REDUCED, "point-coulomb, reduced MCP");
  return t_done();
}
