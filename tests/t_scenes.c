/* t_scenes.c: tests of the generated contact scenes (stack, pile, wall, plate): geometry read back from the wrench columns, redundancy, compilation by every model, solutions, and the scene suites. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>
#include "harness.h"
#include "scenes.h"
#include "testlib.h"

#define EPS 1e-12

static cpk_contact_system *scene(cpk_bench_scene_kind k, size_t bodies, unsigned long seed, double mu,
                                 cpk_bench_scene **g)
{
  cpk_bench_scene_options o;
  cpk_contact_system *s = NULL;
  cpk_error err;
  cpk_bench_scene_options_default(&o);
  o.bodies = bodies;
  o.seed = seed;
  o.mu = mu;
  if (cpk_bench_scene_generate(k, &o, &s, g, &err)) t_diag("%s: %s", cpk_bench_scene_name(k), err.message);
  return s;
}

static void cross(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A contact as the wrench columns of one body say it is: frame and point (world frame). */
typedef struct seen {
  double n[3], t[3], x[3];
  int ok; /* the columns are those of a rigid point contact at x: W_d = (d, r x d), W_r = (0, n) */
} seen;

/*
 * Read contact c's columns on body `body` (sign -1 for the second body of the
 * pair): r follows from W_n = (n, r x n) and W_t = (t, r x t) as
 * r = n x (r x n) + ((t x (r x t)) . n) n, then every column is checked against r.
 */
static seen read_side(const cpk_contact_system *s, const cpk_bench_scene *g, size_t c, long body,
                      double sign)
{
  seen v;
  double W[4][6] = {{0}}, r[3], a[3], bt[3], o[3];
  size_t found = 0;
  memset(&v, 0, sizeof v);
  for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
    if (s->wrow[k] / 6 == body) {
      for (int q = 0; q < 4; q++) W[q][s->wrow[k] % 6] = sign * s->wval[4 * k + q];
      found++;
    }
  for (int j = 0; j < 3; j++) v.n[j] = W[0][j], v.t[j] = W[1][j], a[j] = W[0][3 + j];
  cross(v.t, W[1] + 3, bt);
  cross(v.n, a, r);
  for (int j = 0; j < 3; j++) r[j] += dot(bt, v.n) * v.n[j];
  cross(v.n, v.t, o);
  v.ok = found == 6 && fabs(dot(v.n, v.n) - 1) < EPS && fabs(dot(v.n, v.t)) < EPS;
  for (int q = 0; q < 3; q++) {
    const double *d = q == 0 ? v.n : q == 1 ? v.t : o;
    double rd[3];
    cross(r, d, rd);
    for (int j = 0; j < 3; j++)
      v.ok &= fabs(W[q][j] - d[j]) < EPS && fabs(W[q][3 + j] - rd[j]) < 1e-9;
  }
  for (int j = 0; j < 3; j++) {
    v.ok &= fabs(W[3][j]) < EPS && fabs(W[3][3 + j] - v.n[j]) < EPS;
    v.x[j] = g->bodies[body].centre[j] + r[j];
  }
  return v;
}

/* Both bodies of every contact see the same point and the same frame; only their rows are touched. */
static int check_columns(const cpk_contact_system *s, const cpk_bench_scene *g)
{
  int ok = s->nc == g->nc;
  for (size_t c = 0; ok && c < s->nc; c++) {
    long a = g->pair[2 * c], b = g->pair[2 * c + 1];
    seen A = read_side(s, g, c, a, 1.0);
    ok = A.ok && s->wptr[c + 1] - s->wptr[c] == (b >= 0 ? 12u : 6u);
    if (ok && b >= 0) {
      seen B = read_side(s, g, c, b, -1.0);
      ok = B.ok;
      for (int j = 0; j < 3; j++)
        ok &= fabs(A.x[j] - B.x[j]) < 1e-9 && fabs(A.n[j] - B.n[j]) < EPS;
    }
    if (!ok) t_diag("contact %zu: columns are not a rigid point contact", c);
  }
  return ok;
}

/* The point lies on the box's boundary (within slack) and n points into the box's side of it. */
static int on_box_face(const cpk_bench_scene_body *B, const double x[3], const double n[3], double slack,
                       double into)
{
  int inside = 1, on_face = 0;
  for (int j = 0; j < 3; j++) {
    double r = x[j] - B->centre[j];
    inside &= fabs(r) <= B->half[j] + slack;
    on_face |= fabs(fabs(r) - B->half[j]) <= slack && fabs(n[j]) == 1.0 && r * n[j] * into < 0;
  }
  return inside && on_face;
}

/* Boxes: contacts on faces of both bodies, normal into the first, gap = face separation. */
static int check_boxes(const cpk_contact_system *s, const cpk_bench_scene *g)
{
  int ok = 1;
  for (size_t c = 0; ok && c < s->nc; c++) {
    long a = g->pair[2 * c], b = g->pair[2 * c + 1];
    seen A = read_side(s, g, c, a, 1.0);
    const cpk_bench_scene_body *BA = &g->bodies[a];
    double psi = s->contacts[c].psi, slack = 0.5 * fabs(psi) + 1e-9;
    int k = fabs(A.n[0]) == 1.0 ? 0 : fabs(A.n[1]) == 1.0 ? 1 : 2;
    double far = b >= 0 ? g->bodies[b].centre[k] + g->bodies[b].half[k] : 0.0;
    ok = A.n[k] == 1.0 && on_box_face(BA, A.x, A.n, slack, 1.0) &&
         (b < 0 ? k == 2 && fabs(A.x[2]) <= slack : on_box_face(&g->bodies[b], A.x, A.n, slack, -1.0));
    ok &= fabs(psi - (BA->centre[k] - BA->half[k] - far)) < 1e-12;
    ok &= b < 0 || dot(A.n, BA->centre) > dot(A.n, g->bodies[b].centre);
    if (!ok) t_diag("box contact %zu (bodies %ld, %ld) is not on their faces", c, a, b);
  }
  return ok;
}

/* Each face pair has 4 contacts at the corners of the overlap: no two coincide. */
static int corners_distinct(const cpk_contact_system *s, const cpk_bench_scene *g)
{
  int ok = 1;
  for (size_t c = 0; ok && c + 1 < s->nc; c++) {
    seen A = read_side(s, g, c, g->pair[2 * c], 1.0), B;
    if (g->pair[2 * c + 2] != g->pair[2 * c] || g->pair[2 * c + 3] != g->pair[2 * c + 1]) continue;
    B = read_side(s, g, c + 1, g->pair[2 * c], 1.0);
    ok = fabs(A.x[0] - B.x[0]) + fabs(A.x[1] - B.x[1]) + fabs(A.x[2] - B.x[2]) > 1e-3;
  }
  return ok;
}

static void test_stack(void)
{
  cpk_bench_scene *g = NULL;
  cpk_contact_system *s = scene(CPK_SCENE_STACK, 10, 3, 0.5, &g);
  t_ok(s && g, "stack: generated");
  if (!s || !g) return;
  t_ok(s->nc == 40, "stack of 10 boxes: 4 corner contacts per box (%zu)", s->nc);
  t_ok(check_columns(s, g), "stack: columns of rigid point contacts, one point per pair");
  t_ok(check_boxes(s, g), "stack: contacts on the faces of both boxes, normal into the upper one");
  t_ok(corners_distinct(s, g), "stack: the 4 contacts of a face are distinct corners");
  int up = 1;
  for (size_t c = 0; c < s->nc; c++) {
    long a = g->pair[2 * c], b = g->pair[2 * c + 1];
    up &= b < 0 || g->bodies[a].centre[2] > g->bodies[b].centre[2];
  }
  t_ok(up, "stack: the body with the + columns is the upper one");
  cpk_bench_scene_free(g);
  cpk_contact_system_free(s);
}

/* Numerical rank of the normal-normal block of the Delassus matrix (GSL SVD). */
static size_t normal_rank(const cpk_contact_system *s, double *smin_over_smax)
{
  cpk_csc *A = NULL;
  size_t nc = s->nc, rank = 0;
  double *b = malloc(4 * nc * sizeof *b);
  gsl_matrix *N = gsl_matrix_calloc(nc, nc), *V = gsl_matrix_alloc(nc, nc);
  gsl_vector *S = gsl_vector_alloc(nc), *work = gsl_vector_alloc(nc);
  if (b && N && V && S && work && !cpk_contact_system_delassus(s, &A, b, NULL)) {
    for (cpk_int j = 0; j < A->n; j++)
      for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++)
        if (A->i[k] % 4 == 0 && j % 4 == 0)
          gsl_matrix_set(N, (size_t)A->i[k] / 4, (size_t)j / 4, A->x[k]);
    gsl_linalg_SV_decomp(N, V, S, work);
    double smax = gsl_vector_get(S, 0);
    for (size_t i = 0; i < nc; i++) rank += gsl_vector_get(S, i) > 1e-10 * smax;
    *smin_over_smax = gsl_vector_get(S, nc - 1) / smax;
  }
  cpk_csc_free(A);
  free(b);
  gsl_matrix_free(N);
  gsl_matrix_free(V);
  gsl_vector_free(S);
  gsl_vector_free(work);
  return rank;
}

/* A face's 4 normals act on the box as a force along n and two moments: rank 3 per face. */
static void test_stack_singular(void)
{
  for (size_t nb = 1; nb <= 6; nb += 5) {
    cpk_contact_system *s = scene(CPK_SCENE_STACK, nb, 7, 0.5, NULL);
    double ratio = 1.0;
    size_t rank = s ? normal_rank(s, &ratio) : 0;
    t_ok(s && rank == 3 * nb && ratio < 1e-12,
         "stack of %zu: normal Delassus block %zu x %zu has rank %zu = 3 per box (s_min/s_max %.1e)",
         nb, s ? s->nc : 0, s ? s->nc : 0, rank, ratio);
    cpk_contact_system_free(s);
  }
}

static double sphere_gap(const cpk_bench_scene *g, long a, long b)
{
  const double *x = g->bodies[a].centre, *y = g->bodies[b].centre;
  return sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
              (x[2] - y[2]) * (x[2] - y[2])) -
         g->bodies[a].half[0] - g->bodies[b].half[0];
}

/* Sphere pairs: normal along the centre line, point between the surfaces, gap as measured. */
static int check_sphere_pairs(const cpk_contact_system *s, const cpk_bench_scene *g, size_t *npairs)
{
  int ok = 1;
  *npairs = 0;
  for (size_t c = 0; ok && c < s->nc; c++) {
    long a = g->pair[2 * c], b = g->pair[2 * c + 1];
    if (b < 0) continue;
    seen A = read_side(s, g, c, a, 1.0);
    const double *ca = g->bodies[a].centre, *cb = g->bodies[b].centre;
    double d[3] = {ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]}, nd[3], len = sqrt(dot(d, d));
    double psi = sphere_gap(g, a, b);
    cross(A.n, d, nd);
    ok = sqrt(dot(nd, nd)) < 1e-12 * len && dot(A.n, d) > 0;
    ok &= fabs(s->contacts[c].psi - psi) < 1e-12 && psi < g->threshold;
    double along = dot(A.x, A.n) - dot(cb, A.n); /* distance of the point from b's centre */
    ok &= along >= g->bodies[b].half[0] - fabs(psi) && along <= g->bodies[b].half[0] + fabs(psi);
    (*npairs)++;
    if (!ok) t_diag("sphere contact %zu (%ld, %ld): normal off the centre line or bad gap", c, a, b);
  }
  return ok;
}

/* Every pair of spheres whose gap is below the threshold, by brute force over all pairs. */
static size_t close_pairs(const cpk_bench_scene *g)
{
  size_t m = 0;
  for (size_t a = 0; a < g->nbodies; a++)
    for (size_t b = 0; b < a; b++) m += sphere_gap(g, (long)a, (long)b) < g->threshold;
  return m;
}

/* Sphere-plane contacts: the point on the plane, the gap as measured, one per close plane. */
static int check_planes(const cpk_contact_system *s, const cpk_bench_scene *g, size_t *nplanes)
{
  int ok = 1;
  *nplanes = 0;
  for (size_t c = 0; ok && c < s->nc; c++) {
    long a = g->pair[2 * c];
    if (g->pair[2 * c + 1] >= 0) continue;
    seen A = read_side(s, g, c, a, 1.0);
    const cpk_bench_scene_body *B = &g->bodies[a];
    double dist = dot(B->centre, A.n) - dot(A.x, A.n);
    ok = fabs(s->contacts[c].psi - (dist - B->half[0])) < 1e-12 && dist - B->half[0] < g->threshold;
    int k = fabs(A.n[0]) == 1.0 ? 0 : fabs(A.n[1]) == 1.0 ? 1 : 2;
    double plane = A.n[k] > 0 ? 0.0 : g->box[k];
    ok &= fabs(A.n[k]) == 1.0 && fabs(A.x[k] - plane) < 1e-12;
    (*nplanes)++;
  }
  return ok;
}

/* How many planes (floor, four walls; the plate is the floor) each sphere is within the threshold of. */
static size_t close_planes(const cpk_bench_scene *g, int walls)
{
  size_t m = 0;
  for (size_t a = 0; a < g->nbodies; a++) {
    const double *c = g->bodies[a].centre, R = g->bodies[a].half[0], th = g->threshold;
    m += c[2] - R < th;
    for (int k = 0; walls && k < 2; k++) m += (c[k] - R < th) + (g->box[k] - c[k] - R < th);
  }
  return m;
}

static void test_pile(void)
{
  cpk_bench_scene *g = NULL;
  cpk_contact_system *s = scene(CPK_SCENE_PILE, 60, 5, 0.3, &g);
  size_t npairs = 0, nplanes = 0;
  t_ok(s && g, "pile: generated");
  if (!s || !g) return;
  t_ok(check_columns(s, g), "pile: columns of rigid point contacts, one point per pair");
  t_ok(check_sphere_pairs(s, g, &npairs), "pile: sphere-sphere normals along the centre line, gaps below the threshold");
  size_t close = close_pairs(g);
  t_ok(npairs == close && npairs > 60,
       "pile: every pair closer than the threshold is a contact (%zu of %zu)", npairs, close);
  int planes_ok = check_planes(s, g, &nplanes);
  t_ok(planes_ok && nplanes == close_planes(g, 1) && nplanes > 0,
       "pile: one contact per wall within the threshold, point on the wall (%zu)", nplanes);
  size_t over = 0, apart = 0;
  for (size_t c = 0; c < s->nc; c++) {
    over += s->contacts[c].psi < 0;
    apart += s->contacts[c].psi > 0;
  }
  t_ok(over > 0 && apart > 0, "pile: some contacts overlap (%zu), some are open (%zu)", over, apart);
  cpk_bench_scene_free(g);
  cpk_contact_system_free(s);
}

static void test_wall(void)
{
  cpk_bench_scene *g = NULL;
  cpk_contact_system *s = scene(CPK_SCENE_WALL, 12, 2, 0.8, &g);
  t_ok(s && g, "wall: generated");
  if (!s || !g) return;
  t_ok(check_columns(s, g), "wall: columns of rigid point contacts, one point per pair");
  t_ok(check_boxes(s, g), "wall: contacts on the faces of both bricks, normal into the first");
  size_t side = 0, supported = 0;
  for (size_t c = 0; c < s->nc; c++) {
    seen A = read_side(s, g, c, g->pair[2 * c], 1.0);
    side += A.n[0] == 1.0;
  }
  for (size_t i = 0; i < g->nbodies; i++) {
    int below = 0;
    for (size_t c = 0; c < s->nc; c++)
      below |= g->pair[2 * c] == (long)i && read_side(s, g, c, (long)i, 1.0).n[2] == 1.0;
    supported += below;
  }
  t_ok(side > 0 && supported == g->nbodies,
       "wall: side contacts between neighbours (%zu), every brick rests on something", side);
  cpk_bench_scene_free(g);
  cpk_contact_system_free(s);
}

static void test_plate(void)
{
  cpk_bench_scene *g = NULL;
  cpk_contact_system *s = scene(CPK_SCENE_PLATE, 25, 4, 0.5, &g);
  size_t npairs = 0, nplanes = 0;
  t_ok(s && g, "plate: generated");
  if (!s || !g) return;
  t_ok(check_columns(s, g), "plate: columns of rigid point contacts, one point per pair");
  int pairs_ok = check_sphere_pairs(s, g, &npairs), planes_ok = check_planes(s, g, &nplanes);
  t_ok(pairs_ok && npairs == close_pairs(g) && npairs > 0,
       "plate: sphere pairs along the centre line, all pairs below the threshold (%zu)", npairs);
  t_ok(planes_ok && nplanes == close_planes(g, 0) && nplanes > 0 && nplanes < g->nbodies,
       "plate: particles within the threshold touch the plate, the others not (%zu of %zu)", nplanes,
       g->nbodies);
  int drift = g->plate_velocity != 0.0;
  for (size_t c = 0; c < s->nc; c++)
    drift &= s->contacts[c].drift[0] == (g->pair[2 * c + 1] < 0 ? -g->plate_velocity : 0.0);
  t_ok(drift, "plate: plate contacts carry the plate's velocity as drift (%g m/s)", g->plate_velocity);
  cpk_bench_scene_free(g);
  cpk_contact_system_free(s);
}

/* Same options, same system; another seed, another one. */
static void test_seeds(void)
{
  for (int k = 0; k < CPK_SCENE_COUNT; k++) {
    cpk_contact_system *a = scene((cpk_bench_scene_kind)k, 9, 11, 0.5, NULL);
    cpk_contact_system *b = scene((cpk_bench_scene_kind)k, 9, 11, 0.5, NULL);
    cpk_contact_system *c = scene((cpk_bench_scene_kind)k, 9, 12, 0.5, NULL);
    int same = a && b && a->nc == b->nc && a->wptr[a->nc] == b->wptr[b->nc];
    same = same && memcmp(a->wval, b->wval, 4 * a->wptr[a->nc] * sizeof *a->wval) == 0 &&
           memcmp(a->v, b->v, a->nv * sizeof *a->v) == 0;
    int differ = c && a && memcmp(a->v, c->v, a->nv * sizeof *a->v) != 0;
    t_ok(same && differ && cpk_contact_system_validate(a, NULL) == CPK_OK,
         "%s: valid, same seed same system, other seed other velocities", cpk_bench_scene_name((cpk_bench_scene_kind)k));
    cpk_contact_system_free(a);
    cpk_contact_system_free(b);
    cpk_contact_system_free(c);
  }
}

static void test_bad_options(void)
{
  cpk_bench_scene_options o;
  cpk_contact_system *s = NULL;
  cpk_error err;
  cpk_bench_scene_options_default(&o);
  o.bodies = 0;
  int rc0 = cpk_bench_scene_generate(CPK_SCENE_PILE, &o, &s, NULL, &err);
  cpk_bench_scene_options_default(&o);
  o.mu = -1;
  int rc1 = cpk_bench_scene_generate(CPK_SCENE_STACK, &o, &s, NULL, &err);
  cpk_bench_scene_options_default(&o);
  o.h = 0;
  int rc2 = cpk_bench_scene_generate(CPK_SCENE_WALL, &o, &s, NULL, &err);
  int rc3 = cpk_bench_scene_generate((cpk_bench_scene_kind)9, &o, &s, NULL, &err);
  t_ok(rc0 == CPK_EINVAL && rc1 == CPK_EINVAL && rc2 == CPK_EINVAL && rc3 == CPK_EINVAL && !s,
       "bad options (0 bodies, mu < 0, h = 0, unknown scene) are CPK_EINVAL");
}

static const char *const models[] = {"point-coulomb", "elliptic-torsional", "polyhedral",
                                     "kelvin-voigt"};

/* Every model compiles every scene (polyhedral with each d of the suites). */
static void test_compile(void)
{
  for (int k = 0; k < CPK_SCENE_COUNT; k++) {
    cpk_contact_system *s = scene((cpk_bench_scene_kind)k, 6, 1, 0.5, NULL);
    int ok = s != NULL;
    for (size_t m = 0; ok && m < 4; m++)
      for (size_t d = 4; ok && d <= (m == 2 ? 32u : 4u); d *= 2) {
        cpk_compile_options o;
        cpk_problem *p = NULL;
        cpk_varmap *map = NULL;
        cpk_error err;
        cpk_compile_options_default(&o);
        o.directions.d = d;
        ok = cpk_compile(s, models[m], &o, &p, &map, &err) == CPK_OK && p->n > 0 &&
             cpk_varmap_ncontacts(map) == s->nc;
        if (ok && m == 2) ok = cpk_varmap_ndirections(map, 0) == d;
        if (!ok) t_diag("%s d %zu: %s", models[m], d, err.message);
        cpk_problem_free(p);
        cpk_varmap_free(map);
      }
    t_ok(ok, "%s: compiled by every model (polyhedral d = 4 ... 32)", cpk_bench_scene_name((cpk_bench_scene_kind)k));
    cpk_contact_system_free(s);
  }
}

static cpk_result *solve(const cpk_problem *p, const char *solver, const double *z0)
{
  cpk_settings st;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&st);
  st.z0 = z0;
  if (cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, solver, &st, r, &err)) {
    t_diag("%s: %s", solver, err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

/* Impulses inside the friction cone: |P_T| <= mu P_n (the polygon is inscribed in the circle). */
static int in_cone(const cpk_contact_system *s, const double *P)
{
  int ok = 1;
  for (size_t c = 0; c < s->nc; c++)
    ok &= P[4 * c] >= -1e-12 &&
          hypot(P[4 * c + 1], P[4 * c + 2]) <= s->contacts[c].mu * P[4 * c] * (1 + 1e-9) + 1e-12;
  return ok;
}

/* Compile with a model; NULL problem on failure. */
static cpk_problem *compile(const cpk_contact_system *s, const char *model, cpk_varmap **map)
{
  cpk_problem *p = NULL;
  cpk_error err;
  if (cpk_compile(s, model, NULL, &p, map, &err)) t_diag("%s: %s", model, err.message);
  return p;
}

/*
 * A nonlinear model's MCP hot-started from the polyhedral impulses (cpk_varmap_point), the
 * way a time-stepper would: fbnewton first, then the other nonlinear solvers (kelvin-voigt's
 * stiff spring rows defeat fbnewton on some scenes); the answer is checked by testlib.
 */
static void solve_nonlinear(const cpk_contact_system *s, const char *model, const double *P,
                            const char *what)
{
  static const char *const solvers[] = {"fbnewton", "bdnewton", "ipm"};
  cpk_varmap *map = NULL;
  cpk_problem *p = compile(s, model, &map);
  double *z0 = p ? malloc(p->n * sizeof *z0) : NULL;
  const char *by = "none";
  int ok = 0;
  for (size_t k = 0; !ok && z0 && k < 3 && !cpk_varmap_point(map, P, z0, NULL); k++) {
    cpk_result *r = solve(p, solvers[k], z0);
    ok = r && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-7);
    if (ok) by = solvers[k];
    cpk_result_free(r);
  }
  t_ok(ok, "%s %s: solved (by %s), answer checked", what, model, by);
  free(z0);
  cpk_problem_free(p);
  cpk_varmap_free(map);
}

/* Lemke solves the polyhedral LCP (the Stewart-Trinkle LCP always has a solution). */
static void test_solve(cpk_bench_scene_kind k, size_t bodies)
{
  cpk_contact_system *s = scene(k, bodies, 1, 0.5, NULL);
  cpk_varmap *pm = NULL;
  cpk_problem *pp = s ? compile(s, "polyhedral", &pm) : NULL;
  cpk_result *r = pp ? solve(pp, "lemke", NULL) : NULL;
  double *P = s ? malloc(4 * s->nc * sizeof *P) : NULL;
  char what[64];
  snprintf(what, sizeof what, "%s-b%zu (%zu contacts)", cpk_bench_scene_name(k), bodies,
           s ? s->nc : 0);
  int ok = r && P && r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(pp, r->z, 1e-8) &&
           cpk_varmap_impulses(pm, r->z, P) == CPK_OK;
  t_ok(ok && in_cone(s, P), "%s polyhedral: lemke's answer solves the LCP, impulses in the cone",
       what);
  for (size_t m = 0; ok && m < 4; m++)
    if (m != 2) solve_nonlinear(s, models[m], P, what);
  free(P);
  cpk_result_free(r);
  cpk_problem_free(pp);
  cpk_varmap_free(pm);
  cpk_contact_system_free(s);
}

static int has_name(const char *name)
{
  for (const char *const *n = cpk_bench_suite_names(); *n; n++)
    if (strcmp(*n, name) == 0) return 1;
  return 0;
}

/* `scenes`: 4 scenes x 7 variants x 2 steps x 3 frictions, names that say it all. */
static void test_suite_scenes(void)
{
  cpk_bench_suite suite = {0};
  cpk_error err;
  size_t families = 0, builds = 0, built_ok = 0;
  int rc = cpk_bench_suite_add(&suite, "scenes", &err), named = 1;
  t_ok(rc == CPK_OK && suite.count == 4 * 7 * 2 * 3, "suite scenes: %zu instances", suite.count);
  for (size_t i = 0; i < suite.count; i++) {
    const cpk_bench_instance *in = &suite.items[i];
    char h[32], mu[32];
    snprintf(h, sizeof h, "-h%g-", in->h);
    snprintf(mu, sizeof mu, "-mu%.1f-", in->mu);
    named &= cpk_bench_family_is_scene(in->family) && cpk_bench_family_is_contact(in->family) &&
             strstr(in->name, h) && strstr(in->name, mu) &&
             strstr(in->name, strchr(in->family, '/') + 1);
    families += strcmp(in->family, "wall/polyhedral-d16") == 0;
    if (in->h != 1e-2 || in->mu != 0.5) continue;
    cpk_bench_built b;
    builds++;
    if (cpk_bench_build(in, &b, &err) == CPK_OK) {
      cpk_bench_scene_kind k = strncmp(in->family, "stack", 5) == 0 ? CPK_SCENE_STACK
                         : strncmp(in->family, "pile", 4) == 0 ? CPK_SCENE_PILE
                         : strncmp(in->family, "wall", 4) == 0 ? CPK_SCENE_WALL
                                                               : CPK_SCENE_PLATE;
      cpk_contact_system *s = scene(k, in->size, in->seed, in->mu, NULL);
      int poly = strstr(in->family, "polyhedral") != NULL;
      built_ok += s && b.size == s->nc && (b.problem->kind == CPK_KIND_LCP) == poly &&
                  (poly || b.z0 != NULL);
      cpk_contact_system_free(s);
      cpk_bench_built_free(&b);
    } else
      t_diag("%s", err.message);
  }
  t_ok(named, "suite scenes: family SCENE/MODEL, name with the model, h and mu");
  t_ok(families == 6, "suite scenes: wall/polyhedral-d16 at 2 steps x 3 frictions (%zu)", families);
  t_ok(builds == 28 && built_ok == builds,
       "suite scenes: every instance at h 0.01, mu 0.5 builds, size = contacts (%zu of %zu)",
       built_ok, builds);
  t_ok(has_name("scenes") && has_name("scenes-large"), "--list shows scenes and scenes-large");
  cpk_bench_suite_clear(&suite);
}

/* `scenes-large` reaches 10 000 contacts for each scene (generated, not compiled: too slow here). */
static void test_suite_large(void)
{
  cpk_bench_suite suite = {0};
  size_t largest[CPK_SCENE_COUNT] = {0};
  int rc = cpk_bench_suite_add(&suite, "scenes-large", NULL);
  for (size_t i = 0; !rc && i < suite.count; i++)
    for (int k = 0; k < CPK_SCENE_COUNT; k++)
      if (strncmp(suite.items[i].family, cpk_bench_scene_name((cpk_bench_scene_kind)k),
                  strlen(cpk_bench_scene_name((cpk_bench_scene_kind)k))) == 0 &&
          suite.items[i].size > largest[k])
        largest[k] = suite.items[i].size;
  for (int k = 0; k < CPK_SCENE_COUNT; k++) {
    cpk_contact_system *s = largest[k] ? scene((cpk_bench_scene_kind)k, largest[k], 1, 0.5, NULL) : NULL;
    t_ok(s && s->nc >= 10000, "scenes-large: %s with %zu bodies has %zu >= 10 000 contacts",
         cpk_bench_scene_name((cpk_bench_scene_kind)k), largest[k], s ? s->nc : 0);
    cpk_contact_system_free(s);
  }
  cpk_bench_suite_clear(&suite);
}

int main(void)
{
  gsl_set_error_handler_off();
  test_stack();
  test_stack_singular();
  test_pile();
  test_wall();
  test_plate();
  test_seeds();
  test_bad_options();
  test_compile();
  test_solve(CPK_SCENE_STACK, 3);
  test_solve(CPK_SCENE_PILE, 3);
  test_solve(CPK_SCENE_WALL, 3);
  test_solve(CPK_SCENE_PLATE, 4);
  test_suite_scenes();
  test_suite_large();
  return t_done();
}
