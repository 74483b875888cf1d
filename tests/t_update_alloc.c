/* t_update_alloc.c: cpk_compile_update of an unchanged contact set makes no heap allocation once warmed up (it lays the system out again in the map it replaced), its problem equals a fresh compile's bit for bit, and the tripod's steps allocate nothing in steady state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "alloc_count.h"

#ifndef ALLOC_COUNT_NONE
#define ROUNDS 8

/*
 * One rigid body on three feet at 120 degrees turned by th (the seed 004
 * tripod's shape), unequal inertias so that M's inertia block is full once
 * turned; the velocity and the gaps change with th too. Every round of the
 * test is a new pose of the same contact set: what the stepper updates.
 */
static cpk_contact_system *tripod_system(double th)
{
  double mass = 50.0, v[6] = {0.1 * th, -0.2, -0.5, 0.3, 0.2 * th, -0.1};
  double k[6] = {0, 0, -981.0 * mass, 0, 0, 0}, c = cos(th), s = sin(th);
  double I[3] = {50.0, 60.0, 100.0}, R[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
  cpk_int ti[12], tj[12];
  double x[12];
  size_t e = 0;
  for (int i = 0; i < 3; i++, e++) ti[e] = tj[e] = i, x[e] = mass;
  for (int i = 0; i < 3; i++) /* R diag(I) R^T, written in full: the pattern of any pose */
    for (int j = 0; j < 3; j++)
      if (i == 2 ? j == 2 : j < 2) {
        double sum = 0.0;
        for (int a = 0; a < 3; a++) sum += R[3 * i + a] * I[a] * R[3 * j + a];
        ti[e] = 3 + i, tj[e] = 3 + j, x[e++] = sum;
      }
  cpk_csc *M = NULL;
  cpk_contact_system *sys = NULL;
  int rc = cpk_csc_from_triplets(6, 6, (cpk_int)e, ti, tj, x, &M) ||
           cpk_contact_system_alloc_body(6, M, v, k, 1e-4, &sys, NULL);
  cpk_csc_free(M);
  for (int f = 0; !rc && f < 3; f++) {
    double a = th + 2.0 * M_PI * f / 3.0, r[3] = {2.0 * cos(a), 2.0 * sin(a), -1.0};
    double n[3] = {0, 0, 1}, t[3] = {cos(a), sin(a), 0}, w[4][6];
    cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
    cpk_contact_params p;
    cpk_contact_params_default(&p);
    p.mu = 0.3;
    p.psi = 1e-5 * (f - 1) * (1.0 + th);
    rc = cpk_rigid_contact_wrenches(r, n, t, w[0], w[1], w[2], w[3]) ||
         cpk_contact_system_add_contact(sys, &p, 6, rows, w[0], w[1], w[2], w[3], NULL);
  }
  if (rc) {
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

/* Compile at round 0, update through the other rounds: allocations of each update, and
 * each updated problem against a fresh compile of its round. */
static void update_rounds(const char *model, cpk_problem_form form, const char *name)
{
  cpk_contact_system *sys[ROUNDS] = {0};
  cpk_compile_options o;
  cpk_compile_options_default(&o);
  o.form = form;
  int built = 1;
  for (int r = 0; r < ROUNDS; r++) built &= (sys[r] = tripod_system(0.07 * r)) != NULL;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err = {0};
  int rc = !built || cpk_compile(sys[0], model, &o, &p, &m, &err);
  if (!t_ok(!rc, "%s: compiled (%s)", name, err.message)) goto done;
  long later = 0, first = 0;
  int same = 1, updated = 1;
  for (int r = 1; r < ROUNDS; r++) {
    alloc_count_start();
    rc = cpk_compile_update(sys[r], p, m, &err);
    long count = alloc_count_stop();
    if (r <= 2) first += count; /* the first updates build the second layout */
    else later += count;
    cpk_problem *f = NULL;
    cpk_varmap *mf = NULL;
    updated &= rc == CPK_OK;
    same &= !rc && !cpk_compile(sys[r], model, &o, &f, &mf, NULL) && same_problem(p, f);
    cpk_problem_free(f);
    cpk_varmap_free(mf);
  }
  t_ok(updated, "%s: every pose updated in place (%s)", name, err.message);
  t_ok(same, "%s: each update equals a fresh compile bit for bit", name);
  t_ok(later == 0, "%s: updates 3-%d allocate nothing (%ld allocations; %ld in the first two)",
       name, ROUNDS - 1, later, first);
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
    if (k == 20) alloc_count_start();
    rc = cpk_world_step(w, NULL, &err);
  }
  if (w && !rc) later = alloc_count_stop();
  double z = NAN, speed = NAN;
  if (!rc) rc = cpk_world_quantity(w, "tripod.x[2]", &z, &err) ||
                cpk_world_quantity(w, "tripod.speed", &speed, &err);
  t_ok(!rc, "tripod, %s with %s: 200 steps (%s)", model, solver, err.message);
  /* the feet stay on the plate, whose height is 800 / (66 pi)^2 (1 - cos) cm: under 0.02 cm */
  t_ok(!rc && fabs(z - 1.0186081145348647) < 0.05 && speed < 5.0,
       "tripod, %s with %s: still standing on the plate (z = %.4f cm, speed %.3f cm/s)", model,
       solver, z, speed);
  t_ok(!rc && later == 0, "tripod, %s with %s: steps 21-200 allocate nothing (%ld allocations)",
       model, solver, later);
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
#else /* AddressSanitizer replaces the allocator: nothing to count */
int main(void) { return puts("1..0 # SKIP allocations are not counted under AddressSanitizer") < 0; }
#endif
