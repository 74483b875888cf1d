/* scenes.c: generators of contact scenes (stack, pile, wall, plate) as body-form contact systems, and the benchmark suites that compile them with every contact model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include <cpkit/util.h>
#include "scenes.h"

#define GRAVITY 9.81
#define TOWER 4             /* boxes per tower of the stack */
#define SPHERE_R 0.05       /* radius of the pile's and the plate's spheres */
#define LATTICE_GAP 0.001   /* lattice spacing minus a diameter: some pairs touch, some not */
#define JITTER 0.001        /* sphere centres move by up to this in each coordinate */
#define THRESHOLD 0.0025    /* spheres: contact below this gap (the overlaps stay < DELTA_MAX) */
#define BOX_GAP 5e-5        /* boxes: face gaps within +- this (resting, slightly overlapping) */
#define DELTA_MAX 0.002     /* kelvin-voigt rigid core: more than any overlap of a scene */
#define SPHERE_E_R 0.01     /* torsional friction radius of sphere contacts (soft finger) */
#define PLATE_AMPLITUDE 5e-4
#define PLATE_FREQUENCY 50.0
#define MAX_BODIES ((size_t)1 << 24)
#define TWO_PI 6.283185307179586

static const char *const scene_names[CPK_SCENE_COUNT] = {"stack", "pile", "wall", "plate"};

const char *cpk_bench_scene_name(cpk_bench_scene_kind k)
{
  return (unsigned)k < CPK_SCENE_COUNT ? scene_names[k] : NULL;
}

int cpk_bench_scene_from_name(const char *name, cpk_bench_scene_kind *k)
{
  for (unsigned i = 0; i < CPK_SCENE_COUNT; i++)
    if (strcmp(name, scene_names[i]) == 0) {
      *k = (cpk_bench_scene_kind)i;
      return CPK_OK;
    }
  return CPK_ENOTFOUND;
}

void cpk_bench_scene_options_default(cpk_bench_scene_options *o)
{
  o->bodies = 8;
  o->seed = 1;
  o->mu = 0.5;
  o->h = 0.01;
}

void cpk_bench_scene_free(cpk_bench_scene *g)
{
  if (!g) return;
  free(g->bodies);
  free(g->pair);
  free(g);
}

/* ---- building a scene ------------------------------------------------------------- */

/* What the generators share while they place bodies and then contacts. */
typedef struct builder {
  const cpk_bench_scene_options *o;
  gsl_rng *rng;
  cpk_bench_scene *g;
  double *v; /* 6 per body: initial velocity */
  cpk_contact_system *s;
  size_t cap_pairs;
} builder;

/* Uniform in [lo, hi). */
static double uniform(builder *b, double lo, double hi)
{
  return lo + (hi - lo) * gsl_rng_uniform(b->rng);
}

/* A body with a random initial velocity of at most `lin` and `ang` per component. */
static void set_body(builder *b, size_t i, int sphere, const double c[3], const double half[3],
                     double lin, double ang)
{
  cpk_bench_scene_body *body = &b->g->bodies[i];
  body->sphere = sphere;
  body->mass = uniform(b, 0.8, 1.2);
  for (int k = 0; k < 3; k++) {
    body->centre[k] = c[k];
    body->half[k] = half[k];
    b->v[6 * i + k] = uniform(b, -lin, lin);
    b->v[6 * i + 3 + k] = uniform(b, -ang, ang);
  }
}

/* Principal moments of inertia about the centre (world axes: boxes are axis-aligned). */
static void inertia(const cpk_bench_scene_body *body, double I[3])
{
  const double *e = body->half, m = body->mass;
  for (int k = 0; k < 3; k++)
    I[k] = body->sphere ? 0.4 * m * e[0] * e[0]
                        : m / 3.0 * (e[(k + 1) % 3] * e[(k + 1) % 3] + e[(k + 2) % 3] * e[(k + 2) % 3]);
}

/* The system of the placed bodies: diagonal M, gravity in k, their velocities. */
static int make_system(builder *b, cpk_error *err)
{
  size_t nb = b->g->nbodies, nv = 6 * nb;
  cpk_csc *M = NULL;
  double *k = cpk_calloc_array(nv, sizeof *k);
  int rc = k ? cpk_csc_alloc((cpk_int)nv, (cpk_int)nv, (cpk_int)nv, &M) : CPK_ENOMEM;
  for (size_t i = 0; !rc && i < nb; i++) {
    double I[3];
    inertia(&b->g->bodies[i], I);
    for (size_t j = 0; j < 6; j++) {
      size_t col = 6 * i + j;
      M->p[col + 1] = (cpk_int)col + 1;
      M->i[col] = (cpk_int)col;
      M->x[col] = j < 3 ? b->g->bodies[i].mass : I[j - 3];
    }
    k[6 * i + 2] = -b->g->bodies[i].mass * GRAVITY;
  }
  if (!rc) rc = cpk_contact_system_alloc_body(nv, M, b->v, k, b->o->h, &b->s, err);
  cpk_csc_free(M);
  free(k);
  return rc;
}

/* Parameters shared by every contact: friction, compliance (spring-damper per contact). */
static void contact_params(const builder *b, cpk_contact_params *p, double psi, double e_r)
{
  cpk_contact_params_default(p);
  p->psi = psi;
  p->mu = b->o->mu;
  p->e_r = e_r;
  p->compliant = 1;
  p->K[0] = 2e4;
  p->K[4] = p->K[8] = 1e4;
  p->C[0] = 50;
  p->C[4] = p->C[8] = 20;
  p->delta_max = DELTA_MAX;
}

static int push_pair(builder *b, long a, long other)
{
  cpk_bench_scene *g = b->g;
  if (g->nc == b->cap_pairs) {
    size_t cap = b->cap_pairs ? 2 * b->cap_pairs : 64, bytes;
    if (cpk_size_mul(cap, 2 * sizeof *g->pair, &bytes)) return CPK_EOVERFLOW;
    long *grown = realloc(g->pair, bytes);
    if (!grown) return CPK_ENOMEM;
    g->pair = grown;
    b->cap_pairs = cap;
  }
  g->pair[2 * g->nc] = a;
  g->pair[2 * g->nc + 1] = other;
  g->nc++;
  return CPK_OK;
}

/* A unit tangent orthogonal to the unit n: the world axis least aligned with n, projected. */
static void tangent_of(const double n[3], double t[3])
{
  int k = 0;
  for (int j = 1; j < 3; j++)
    if (fabs(n[j]) < fabs(n[k])) k = j;
  double norm = 0.0;
  for (int j = 0; j < 3; j++) {
    t[j] = (j == k ? 1.0 : 0.0) - n[k] * n[j];
    norm += t[j] * t[j];
  }
  for (int j = 0; j < 3; j++) t[j] /= sqrt(norm);
}

/* One contact at world point x, normal n into body a; `other` (or -1) gets -1 times its columns. */
static int add_contact(builder *b, long a, long other, const double x[3], const double n[3],
                       const cpk_contact_params *p)
{
  cpk_int rows[12];
  double w[4][12], W[4][6], t[3];
  size_t nr = 0;
  tangent_of(n, t);
  for (int side = 0; side < 2; side++) {
    long body = side ? other : a;
    if (body < 0) continue;
    const double *c = b->g->bodies[body].centre;
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    int rc = cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]);
    if (rc) return rc;
    for (size_t j = 0; j < 6; j++, nr++) {
      rows[nr] = (cpk_int)(6 * (size_t)body + j);
      for (int q = 0; q < 4; q++) w[q][nr] = side ? -W[q][j] : W[q][j];
    }
  }
  int rc = cpk_contact_system_add_contact(b->s, p, nr, rows, w[0], w[1], w[2], w[3], NULL);
  return rc ? rc : push_pair(b, a, other);
}

/*
 * Face-to-face contact of axis-aligned boxes along axis k: the lower face of
 * box a rests on the upper face of box `other` (or on the plane at coordinate
 * `plane` when other < 0). The contacts are the 4 corners of the overlap of
 * the two faces, halfway across the gap, normal +e_k into a.
 */
static int face_contacts(builder *b, long a, long other, int k, double plane)
{
  const cpk_bench_scene_body *A = &b->g->bodies[a], *B = other >= 0 ? &b->g->bodies[other] : NULL;
  int i = (k + 1) % 3, j = (k + 2) % 3;
  double lo[3], hi[3], n[3] = {0, 0, 0}, top = B ? B->centre[k] + B->half[k] : plane;
  double bottom = A->centre[k] - A->half[k];
  cpk_contact_params p;
  for (int d = 0; d < 3; d++) {
    lo[d] = A->centre[d] - A->half[d];
    hi[d] = A->centre[d] + A->half[d];
    if (B) lo[d] = fmax(lo[d], B->centre[d] - B->half[d]);
    if (B) hi[d] = fmin(hi[d], B->centre[d] + B->half[d]);
  }
  if (hi[i] - lo[i] < 1e-6 || hi[j] - lo[j] < 1e-6) return CPK_OK; /* faces do not overlap */
  n[k] = 1.0;
  contact_params(b, &p, bottom - top, 0.0);
  for (int corner = 0; corner < 4; corner++) {
    double x[3];
    x[k] = 0.5 * (bottom + top);
    x[i] = corner & 1 ? hi[i] : lo[i];
    x[j] = corner & 2 ? hi[j] : lo[j];
    int rc = add_contact(b, a, other, x, n, &p);
    if (rc) return rc;
  }
  return CPK_OK;
}

/* Spheres a and other touch when their gap is below the threshold; normal from other to a. */
static int sphere_pair(builder *b, long a, long other)
{
  const cpk_bench_scene_body *A = &b->g->bodies[a], *B = &b->g->bodies[other];
  double d[3], dist = 0.0, n[3], x[3];
  cpk_contact_params p;
  for (int k = 0; k < 3; k++) {
    d[k] = A->centre[k] - B->centre[k];
    dist += d[k] * d[k];
  }
  dist = sqrt(dist);
  double psi = dist - A->half[0] - B->half[0];
  if (!(psi < b->g->threshold)) return CPK_OK;
  for (int k = 0; k < 3; k++) {
    n[k] = d[k] / dist;
    x[k] = B->centre[k] + (B->half[0] + 0.5 * psi) * n[k];
  }
  contact_params(b, &p, psi, SPHERE_E_R);
  return add_contact(b, a, other, x, n, &p);
}

/*
 * Sphere a and the fixed plane x_k = plane whose normal towards the sphere is
 * sign * e_k; drift0 is minus the plane's velocity along that normal.
 */
static int sphere_plane(builder *b, long a, int k, double sign, double plane, double drift0)
{
  const cpk_bench_scene_body *A = &b->g->bodies[a];
  double dist = sign * (A->centre[k] - plane), n[3] = {0, 0, 0}, x[3];
  cpk_contact_params p;
  if (!(dist - A->half[0] < b->g->threshold)) return CPK_OK;
  n[k] = sign;
  for (int j = 0; j < 3; j++) x[j] = A->centre[j] - dist * n[j];
  contact_params(b, &p, dist - A->half[0], SPHERE_E_R);
  p.drift[0] = drift0;
  return add_contact(b, a, -1, x, n, &p);
}

/* ---- the four scenes ----------------------------------------------------------------- */

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

static size_t isqrt_up(size_t n)
{
  size_t r = (size_t)sqrt((double)n);
  while (r * r < n) r++;
  return r ? r : 1;
}

/* Towers of TOWER boxes, 1 m apart on a square grid; each box offset a little from the one below. */
static int place_stack(builder *b)
{
  size_t nb = b->g->nbodies, side = isqrt_up(ceil_div(nb, TOWER));
  double top = 0.0;
  for (size_t i = 0; i < nb; i++) {
    size_t tower = i / TOWER, level = i % TOWER;
    double half[3], c[3];
    for (int k = 0; k < 3; k++) half[k] = (k < 2 ? 0.2 : 0.1) * uniform(b, 0.95, 1.05);
    if (level == 0) top = 0.0;
    c[0] = (double)(tower % side) + uniform(b, -0.03, 0.03);
    c[1] = (double)(tower / side) + uniform(b, -0.03, 0.03);
    c[2] = top + uniform(b, -BOX_GAP, BOX_GAP) + half[2];
    top = c[2] + half[2];
    set_body(b, i, 0, c, half, 0.01, 0.01);
  }
  return CPK_OK;
}

static int contacts_stack(builder *b)
{
  int rc = CPK_OK;
  for (size_t i = 0; !rc && i < b->g->nbodies; i++)
    rc = face_contacts(b, (long)i, i % TOWER ? (long)i - 1 : -1, 2, 0.0);
  return rc;
}

/* Site (ix, iy, iz) of the pile's lattice: side x side per layer, layers from the floor. */
static void pile_site(size_t q, size_t side, size_t s[3])
{
  s[0] = q % side;
  s[1] = (q / side) % side;
  s[2] = q / (side * side);
}

static int place_pile(builder *b)
{
  size_t nb = b->g->nbodies, side = 1, s[3];
  double spacing = 2 * SPHERE_R + LATTICE_GAP, half[3] = {SPHERE_R, SPHERE_R, SPHERE_R};
  while (side * side * side < nb) side++;
  b->g->box[0] = b->g->box[1] = (double)side * spacing;
  b->g->box[2] = (double)ceil_div(nb, side * side) * spacing;
  for (size_t q = 0; q < nb; q++) {
    double c[3];
    pile_site(q, side, s);
    for (int k = 0; k < 3; k++)
      c[k] = (k < 2 ? 0.5 * spacing : SPHERE_R) + (double)s[k] * spacing + uniform(b, -JITTER, JITTER);
    set_body(b, q, 1, c, half, 0.05, 0.5);
  }
  return CPK_OK;
}

/* Pairs can touch only on neighbouring sites: jitter and gap are far below a diameter. */
static int contacts_pile(builder *b)
{
  size_t nb = b->g->nbodies, side = 1, s[3];
  const double *box = b->g->box;
  int rc = CPK_OK;
  while (side * side * side < nb) side++;
  for (size_t q = 0; !rc && q < nb; q++) {
    pile_site(q, side, s);
    for (size_t r = q > side * side + side + 1 ? q - side * side - side - 1 : 0; !rc && r < q; r++) {
      size_t t[3];
      pile_site(r, side, t);
      int near = 1;
      for (int k = 0; k < 3; k++) near &= s[k] <= t[k] + 1 && t[k] <= s[k] + 1;
      if (near) rc = sphere_pair(b, (long)q, (long)r);
    }
    for (int k = 0; !rc && k < 2; k++) {
      rc = sphere_plane(b, (long)q, k, 1.0, 0.0, 0.0);
      if (!rc) rc = sphere_plane(b, (long)q, k, -1.0, box[k], 0.0);
    }
    if (!rc) rc = sphere_plane(b, (long)q, 2, 1.0, 0.0, 0.0);
  }
  return rc;
}

/* Running bond: courses of `per` bricks, odd courses shifted by half a brick. */
static int place_wall(builder *b)
{
  size_t nb = b->g->nbodies, per = isqrt_up(nb);
  double half[3] = {0.2, 0.1, 0.05}, x = 0.0;
  for (size_t i = 0; i < nb; i++) {
    size_t course = i / per, k = i % per;
    double c[3];
    if (k == 0) x = (course % 2 ? half[0] : 0.0) + uniform(b, -BOX_GAP, BOX_GAP);
    c[0] = x;
    c[1] = uniform(b, -0.005, 0.005);
    c[2] = (double)course * 2 * half[2] + half[2] + uniform(b, -BOX_GAP, BOX_GAP);
    x += 2 * half[0] + uniform(b, -BOX_GAP, 3 * BOX_GAP);
    set_body(b, i, 0, c, half, 0.01, 0.01);
  }
  return CPK_OK;
}

static int contacts_wall(builder *b)
{
  size_t nb = b->g->nbodies, per = isqrt_up(nb);
  int rc = CPK_OK;
  for (size_t i = 0; !rc && i < nb; i++) {
    size_t course = i / per, k = i % per;
    if (k > 0) rc = face_contacts(b, (long)i, (long)i - 1, 0, 0.0);
    if (!rc && course == 0) rc = face_contacts(b, (long)i, -1, 2, 0.0);
    /* with the half-brick shift only positions k-1 .. k+1 of the course below can overlap */
    for (size_t j = k ? k - 1 : 0; !rc && course > 0 && j <= k + 1 && j < per; j++)
      rc = face_contacts(b, (long)i, (long)((course - 1) * per + j), 2, 0.0);
  }
  return rc;
}

/* One layer of spheres on a square grid, most resting on the plate, some just above it. */
static int place_plate(builder *b)
{
  size_t nb = b->g->nbodies, side = isqrt_up(nb);
  double spacing = 2 * SPHERE_R + LATTICE_GAP, half[3] = {SPHERE_R, SPHERE_R, SPHERE_R};
  double omega = TWO_PI * PLATE_FREQUENCY;
  b->g->plate_velocity = PLATE_AMPLITUDE * omega * cos(uniform(b, 0.0, TWO_PI));
  for (size_t q = 0; q < nb; q++) {
    double c[3];
    c[0] = (double)(q % side) * spacing + uniform(b, -JITTER, JITTER);
    c[1] = (double)(q / side) * spacing + uniform(b, -JITTER, JITTER);
    /* every third particle is just above the contact threshold: in flight above the plate */
    c[2] = SPHERE_R + (q % 3 == 2 ? uniform(b, 1.1, 1.6) : uniform(b, -0.2, 0.9)) * THRESHOLD;
    set_body(b, q, 1, c, half, 0.05, 1.0);
    b->v[6 * q + 2] = uniform(b, -0.2, 0.2);
  }
  return CPK_OK;
}

/* Grid neighbours of particle q among the earlier ones: the row below (3) and the left one. */
static int contacts_plate(builder *b)
{
  size_t nb = b->g->nbodies, side = isqrt_up(nb);
  int rc = CPK_OK;
  for (size_t q = 0; !rc && q < nb; q++) {
    size_t row = q / side, col = q % side;
    rc = sphere_plane(b, (long)q, 2, 1.0, 0.0, -b->g->plate_velocity);
    if (!rc && col > 0) rc = sphere_pair(b, (long)q, (long)q - 1);
    for (size_t c = col ? col - 1 : 0; !rc && row > 0 && c <= col + 1 && c < side; c++)
      rc = sphere_pair(b, (long)q, (long)((row - 1) * side + c));
  }
  return rc;
}

/* ---- generate ------------------------------------------------------------------------- */

static int check_options(const cpk_bench_scene_options *o, cpk_bench_scene_kind kind, cpk_error *err)
{
  if ((unsigned)kind >= CPK_SCENE_COUNT)
    return cpk_error_set(err, CPK_EINVAL, "unknown scene kind %d", (int)kind);
  if (o->bodies < 1 || o->bodies > MAX_BODIES)
    return cpk_error_set(err, CPK_EINVAL, "scene: need 1 <= bodies <= %zu", MAX_BODIES);
  if (!(o->mu >= 0 && isfinite(o->mu)))
    return cpk_error_set(err, CPK_EINVAL, "scene: mu must be finite and >= 0");
  if (!(o->h > 0 && isfinite(o->h)))
    return cpk_error_set(err, CPK_EINVAL, "scene: h must be finite and > 0");
  return CPK_OK;
}

static int alloc_builder(builder *b, cpk_bench_scene_kind kind, const cpk_bench_scene_options *o)
{
  memset(b, 0, sizeof *b);
  b->o = o;
  b->g = calloc(1, sizeof *b->g);
  b->rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!b->g || !b->rng) return CPK_ENOMEM;
  gsl_rng_set(b->rng, o->seed);
  b->g->kind = kind;
  b->g->nbodies = o->bodies;
  b->g->threshold = THRESHOLD;
  b->g->bodies = cpk_calloc_array(o->bodies, sizeof *b->g->bodies);
  b->v = cpk_calloc_array(o->bodies, 6 * sizeof *b->v);
  return b->g->bodies && b->v ? CPK_OK : CPK_ENOMEM;
}

static int (*const placers[CPK_SCENE_COUNT])(builder *) = {place_stack, place_pile, place_wall,
                                                           place_plate};
static int (*const contacters[CPK_SCENE_COUNT])(builder *) = {contacts_stack, contacts_pile,
                                                              contacts_wall, contacts_plate};

int cpk_bench_scene_generate(cpk_bench_scene_kind kind, const cpk_bench_scene_options *o, cpk_contact_system **sys,
                       cpk_bench_scene **geometry, cpk_error *err)
{
  builder b;
  char name[64];
  cpk_error_clear(err);
  *sys = NULL;
  if (geometry) *geometry = NULL;
  int rc = check_options(o, kind, err);
  if (rc) return rc;
  rc = alloc_builder(&b, kind, o);
  if (!rc) rc = placers[kind](&b);
  if (!rc) rc = make_system(&b, err);
  if (!rc) rc = contacters[kind](&b);
  snprintf(name, sizeof name, "%s-b%zu-s%lu", scene_names[kind], o->bodies, o->seed);
  if (!rc) rc = cpk_contact_system_set_name(b.s, name);
  if (!rc) rc = cpk_contact_system_validate(b.s, err);
  gsl_rng_free(b.rng);
  free(b.v);
  if (rc) {
    cpk_contact_system_free(b.s);
    cpk_bench_scene_free(b.g);
    if (err && !err->message[0]) cpk_error_set(err, rc, "scene %s: %s", name, cpk_strerror(rc));
    return rc;
  }
  *sys = b.s;
  if (geometry)
    *geometry = b.g;
  else
    cpk_bench_scene_free(b.g);
  return CPK_OK;
}

/* ---- benchmark suites ------------------------------------------------------------------ */

/* How a scene is compiled: the model, and for polyhedral its number of plane directions. */
typedef struct scene_variant {
  const char *label, *model;
  size_t d;
} scene_variant;

static const scene_variant variants[] = {
    {"point-coulomb", "point-coulomb", 0},   {"elliptic-torsional", "elliptic-torsional", 0},
    {"polyhedral-d4", "polyhedral", 4},      {"polyhedral-d8", "polyhedral", 8},
    {"polyhedral-d16", "polyhedral", 16},    {"polyhedral-d32", "polyhedral", 32},
    {"kelvin-voigt", "kelvin-voigt", 0},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define ALL_VARIANTS ((1u << NVARIANTS) - 1)
#define V_COULOMB (1u << 0)
#define V_POLY_D8 (1u << 3)
#define V_KV (1u << 6)

/* One scene of a suite at up to 4 sizes, with the variants (bit mask), steps and frictions. */
typedef struct scene_row {
  const char *suite;
  cpk_bench_scene_kind kind;
  size_t bodies[4]; /* 0-terminated */
  unsigned variants;
  double h[3];  /* 0-terminated */
  double mu[4]; /* 0-terminated */
} scene_row;

/*
 * `scenes` is every scene x every variant x 2 steps x 3 frictions at 8 ... 18
 * contacts (polyhedral d = 32 already costs the Newton methods seconds there);
 * `scenes-large` reaches 10 000+ contacts with the
 * models the sparse solvers take best; `scenes-standard` is the slice of
 * `standard` (see doc/bench.md for the times behind these choices).
 */
static const scene_row scene_rows[] = {
    {"scenes", CPK_SCENE_STACK, {2}, ALL_VARIANTS, {1e-2, 1e-3}, {0.1, 0.5, 1.0}},
    {"scenes", CPK_SCENE_PILE, {4}, ALL_VARIANTS, {1e-2, 1e-3}, {0.1, 0.5, 1.0}},
    {"scenes", CPK_SCENE_WALL, {2}, ALL_VARIANTS, {1e-2, 1e-3}, {0.1, 0.5, 1.0}},
    {"scenes", CPK_SCENE_PLATE, {9}, ALL_VARIANTS, {1e-2, 1e-3}, {0.1, 0.5, 1.0}},
    {"scenes-large", CPK_SCENE_STACK, {64, 640, 2560}, V_COULOMB | V_POLY_D8 | V_KV, {1e-2}, {0.5}},
    {"scenes-large", CPK_SCENE_PILE, {125, 1000, 3375}, V_COULOMB | V_POLY_D8 | V_KV, {1e-2}, {0.5}},
    {"scenes-large", CPK_SCENE_WALL, {64, 400, 900}, V_COULOMB | V_POLY_D8 | V_KV, {1e-2}, {0.5}},
    {"scenes-large", CPK_SCENE_PLATE, {100, 1000, 4096}, V_COULOMB | V_POLY_D8 | V_KV, {1e-2}, {0.5}},
    {"scenes-standard", CPK_SCENE_STACK, {4}, V_COULOMB | V_POLY_D8, {1e-2}, {0.5}},
    {"scenes-standard", CPK_SCENE_PILE, {8}, V_COULOMB | V_POLY_D8, {1e-2}, {0.5}},
    {"scenes-standard", CPK_SCENE_WALL, {4}, V_COULOMB | V_POLY_D8, {1e-2}, {0.5}},
    {"scenes-standard", CPK_SCENE_PLATE, {9}, V_COULOMB | V_POLY_D8, {1e-2}, {0.5}},
};
#define NSCENE_ROWS (sizeof scene_rows / sizeof scene_rows[0])

/* The variant of a family "SCENE/LABEL" and its scene; NULL if it is not one. */
static const scene_variant *parse_family(const char *family, cpk_bench_scene_kind *kind)
{
  const char *slash = strchr(family, '/');
  char scene[16];
  if (!slash || (size_t)(slash - family) >= sizeof scene) return NULL;
  memcpy(scene, family, (size_t)(slash - family));
  scene[slash - family] = '\0';
  if (cpk_bench_scene_from_name(scene, kind)) return NULL;
  for (size_t v = 0; v < NVARIANTS; v++)
    if (strcmp(slash + 1, variants[v].label) == 0) return &variants[v];
  return NULL;
}

int cpk_bench_family_is_scene(const char *family)
{
  cpk_bench_scene_kind kind;
  return parse_family(family, &kind) != NULL;
}

static int push_scene(cpk_bench_suite *s, const scene_row *r, size_t bodies, size_t v, double h,
                      double mu, const char *label)
{
  cpk_bench_instance in;
  memset(&in, 0, sizeof in);
  snprintf(in.suite, sizeof in.suite, "%s", label);
  snprintf(in.family, sizeof in.family, "%s/%s", scene_names[r->kind], variants[v].label);
  snprintf(in.name, sizeof in.name, "%s-b%zu-%s-h%g-mu%.1f-s1", scene_names[r->kind], bodies,
           variants[v].label, h, mu);
  in.size = bodies;
  in.seed = 1;
  in.param = v;
  in.mu = mu;
  in.h = h;
  /* Stewart-Trinkle's LCP always has a solution (Anitescu-Potra); the nonlinear models: unknown */
  in.expect = variants[v].d ? CPK_BENCH_EXPECT_SOLUTION : CPK_BENCH_EXPECT_UNKNOWN;
  return cpk_bench_suite_push(s, &in);
}

int cpk_bench_scene_suite_add(cpk_bench_suite *s, const char *suite, const char *label)
{
  int found = 0, rc = CPK_OK;
  for (size_t k = 0; k < NSCENE_ROWS && !rc; k++) {
    const scene_row *r = &scene_rows[k];
    if (strcmp(r->suite, suite) != 0) continue;
    found = 1;
    for (size_t v = 0; v < NVARIANTS; v++)
      for (size_t hi = 0; r->variants >> v & 1 && hi < 3 && r->h[hi] > 0; hi++)
        for (size_t mi = 0; mi < 4 && r->mu[mi] > 0; mi++)
          for (size_t b = 0; !rc && b < 4 && r->bodies[b]; b++)
            rc = push_scene(s, r, r->bodies[b], v, r->h[hi], r->mu[mi], label);
  }
  return rc ? rc : found ? CPK_OK : CPK_ENOTFOUND;
}

static void free_map(void *map) { cpk_varmap_free(map); }

/* Nonlinear models start from the compiled problem's recommended start (the free
 * motion, cpk_varmap_start), as a cold time step would. */
static int scene_start(cpk_bench_built *out, const cpk_varmap *map, cpk_error *err)
{
  out->z0 = cpk_alloc_array(out->problem->n, sizeof *out->z0);
  return out->z0 ? cpk_varmap_start(map, out->z0, err) : CPK_ENOMEM;
}

int cpk_bench_build_scene(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  cpk_bench_scene_kind kind;
  const scene_variant *v = parse_family(in->family, &kind);
  cpk_bench_scene_options so;
  cpk_compile_options co;
  cpk_contact_system *sys = NULL;
  cpk_varmap *map = NULL;
  if (!v) return cpk_error_set(err, CPK_ENOTFOUND, "%s: not a scene family", in->family);
  cpk_bench_scene_options_default(&so);
  so.bodies = in->size;
  so.seed = in->seed;
  so.mu = in->mu;
  so.h = in->h;
  cpk_compile_options_default(&co);
  if (v->d) co.directions.d = v->d;
  int rc = cpk_bench_scene_generate(kind, &so, &sys, NULL, err);
  if (!rc) rc = cpk_compile(sys, v->model, &co, &out->problem, &map, err);
  if (!rc) {
    out->ctx = map;
    out->ctx_free = free_map;
    out->size = sys->nc;
  }
  if (!rc && out->problem->kind == CPK_KIND_NONLINEAR_MCP) rc = scene_start(out, map, err);
  cpk_contact_system_free(sys);
  return rc;
}
