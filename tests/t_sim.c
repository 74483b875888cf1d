/* t_sim.c: the time-stepper against closed-form motions (free fall, torque-free spin, bodies at rest on planes and spheres, a driven plate), its failure handling, and the scene reader's messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

static const double G = 9.81;

static cpk_world *world_g(const char *model, double h, double g)
{
  cpk_sim_settings S;
  cpk_world *w = NULL;
  cpk_error err;
  cpk_sim_settings_default(&S);
  S.h = h;
  S.gravity[2] = -g;
  strcpy(S.model, model);
  if (cpk_world_alloc(&S, &w, &err)) t_diag("world: %s", err.message);
  return w;
}

static cpk_world *world(const char *model, double h) { return world_g(model, h, G); }

static size_t add(cpk_world *w, const char *name, cpk_body_kind kind, cpk_shape_kind shape,
                  double size0, const double x[3])
{
  cpk_body b;
  cpk_error err;
  size_t i = (size_t)-1;
  cpk_body_default(&b);
  strcpy(b.name, name);
  b.kind = kind;
  b.shape.kind = shape;
  b.shape.size[0] = size0;
  memcpy(b.x, x, sizeof b.x);
  if (cpk_world_add_body(w, &b, &i, &err)) t_diag("add %s: %s", name, err.message);
  return i;
}

static void friction(cpk_world *w, double mu)
{
  cpk_contact_params m;
  cpk_contact_params_default(&m);
  m.mu = mu;
  cpk_world_set_default_material(w, &m, NULL);
}

/* Body 0 the ground (z <= 0), body 1 a unit sphere resting on it; friction mu. */
static void ball_on_ground(cpk_world *w, double mu)
{
  const double zero[3] = {0, 0, 0}, x[3] = {0, 0, 1};
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  add(w, "ball", CPK_BODY_DYNAMIC, CPK_SHAPE_SPHERE, 1, x);
  friction(w, mu);
}

static int steps(cpk_world *w, int n)
{
  cpk_error err;
  for (int k = 0; k < n; k++)
    if (cpk_world_step(w, NULL, &err)) {
      t_diag("step %d: %s", k, err.message);
      return 0;
    }
  return 1;
}

/* Symplectic Euler in free fall: v_n = -g n h, z_n = z0 - g h^2 n (n + 1) / 2. */
static void test_free_fall(void)
{
  const double x[3] = {0, 0, 10}, h = 0.01;
  cpk_world *w = world("polyhedral", h);
  add(w, "ball", CPK_BODY_DYNAMIC, CPK_SHAPE_SPHERE, 0.5, x);
  double e0 = cpk_world_energy(w);
  t_ok(steps(w, 50), "free fall: 50 steps without contacts");
  const cpk_body *b = cpk_world_body(w, 0);
  t_near(b->v[2], -G * 50 * h, 1e-12, "free fall: v = -g t");
  t_near(b->x[2], 10 - G * h * h * 50 * 51 / 2, 1e-12, "free fall: symplectic Euler position");
  /* x+ = x + h v+ loses g^2 h^2 / 2 per step */
  t_near(cpk_world_energy(w) - e0, -0.5 * G * G * h * h * 50, 1e-9, "free fall: energy loss g^2 h^2 n / 2");
  cpk_world_free(w);
}

/* Torque-free spin about a principal axis: constant w; the orientation turns by w t. */
static void test_spin(void)
{
  const double x[3] = {0, 0, 0}, h = 0.01, om = 3.0;
  cpk_world *w = world_g("polyhedral", h, 0);
  cpk_body b;
  cpk_body_default(&b);
  strcpy(b.name, "top");
  b.inertia[0] = 1, b.inertia[1] = 2, b.inertia[2] = 3;
  b.w[1] = om;
  memcpy(b.x, x, sizeof b.x);
  t_ok(cpk_world_add_body(w, &b, NULL, NULL) == CPK_OK, "spin: body added");
  t_ok(steps(w, 100), "spin: 100 steps");
  const cpk_body *s = cpk_world_body(w, 0);
  t_near(s->w[1], om, 1e-12, "spin: w constant about a principal axis");
  t_near(s->q[0], cos(0.5 * om * 1.0), 1e-12, "spin: q_w = cos(w t / 2)");
  t_near(s->q[2], sin(0.5 * om * 1.0), 1e-12, "spin: q_y = sin(w t / 2)");
  cpk_world_free(w);
}

/* A sphere resting on a plane stays at rest under every model; P_n = m g h. */
static void test_rest(const char *model)
{
  const double h = 0.01;
  cpk_world *w = world(model, h);
  cpk_sim_step_info info;
  cpk_error err;
  ball_on_ground(w, 0.5);
  int ok = 1;
  for (int k = 0; k < 20 && ok; k++) ok = cpk_world_step(w, &info, &err) == CPK_OK;
  if (!ok) t_diag("%s", err.message);
  t_ok(ok && info.ncontacts == 1, "%s: resting sphere has one contact", model);
  /* Newton solvers stop at the residual tolerance 1e-8, so 1e-7 here */
  t_near(ok ? info.contacts[0].P[0] : 0, G * h, 1e-7, "%s: P_n = m g h", model);
  t_near(cpk_world_body(w, 1)->x[2], 1, 1e-9, "%s: no sinking", model);
  t_near(cpk_world_body(w, 1)->v[2], 0, 1e-7, "%s: no velocity", model);
  cpk_world_free(w);
}

/* A rod lying flat: two end contacts sharing the weight; a tilted ellipsoid
 * touching at its analytic lowest point. */
static void test_shapes(void)
{
  const double zero[3] = {0, 0, 0}, h = 0.01;
  cpk_world *w = world("polyhedral", h);
  cpk_body b;
  cpk_sim_step_info info;
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  cpk_body_default(&b);
  strcpy(b.name, "rod");
  b.shape.kind = CPK_SHAPE_ROD;
  b.shape.size[0] = 1; /* half length */
  b.shape.size[1] = 0.1;
  b.x[2] = 0.1;
  cpk_world_add_body(w, &b, NULL, NULL);
  friction(w, 0.3);
  int ok = cpk_world_step(w, &info, NULL) == CPK_OK && cpk_world_step(w, &info, NULL) == CPK_OK;
  t_ok(ok && info.ncontacts == 2, "rod: two end contacts");
  t_near(ok ? info.contacts[0].P[0] : 0, 0.5 * G * h, 1e-9, "rod: each end carries m g h / 2");
  t_near(ok ? info.contacts[1].point[0] : 0, 1, 1e-12, "rod: second contact at x = +L");
  cpk_world_free(w);

  /* ellipsoid (a, b, c) = (2, 1, 0.5) turned by th about y: lowest point at
   * depth sqrt(a^2 sin^2 th + c^2 cos^2 th) below the centre */
  const double th = 0.3, a = 2, c = 0.5, depth = sqrt(a * a * sin(th) * sin(th) + c * c * cos(th) * cos(th));
  w = world("polyhedral", h);
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  cpk_body_default(&b);
  strcpy(b.name, "egg");
  b.shape.kind = CPK_SHAPE_ELLIPSOID;
  b.shape.size[0] = a, b.shape.size[1] = 1, b.shape.size[2] = c;
  b.q[0] = cos(th / 2), b.q[2] = sin(th / 2);
  b.x[2] = depth + 5e-4; /* inside the margin */
  cpk_world_add_body(w, &b, NULL, NULL);
  cpk_contact_system *sys = NULL;
  ok = cpk_world_contact_system(w, &sys, NULL) == CPK_OK;
  t_ok(ok && sys->nc == 1, "ellipsoid: one contact within the margin");
  t_near(ok && sys->nc ? sys->contacts[0].psi : -1, 5e-4, 1e-12, "ellipsoid: gap from the analytic lowest point");
  cpk_contact_system_free(sys);
  cpk_world_free(w);
}

/* A ball resting on top of a fixed ball, off-centre: normal along the centre line. */
static void test_sphere_sphere(void)
{
  const double base[3] = {0, 0, 0}, top[3] = {0.6, 0, 0.8}, h = 0.01;
  cpk_world *w = world("polyhedral", h);
  cpk_sim_step_info info;
  add(w, "base", CPK_BODY_FIXED, CPK_SHAPE_SPHERE, 0.5, base);
  add(w, "top", CPK_BODY_DYNAMIC, CPK_SHAPE_SPHERE, 0.5, top);
  friction(w, 1.0);
  int ok = cpk_world_step(w, &info, NULL) == CPK_OK;
  t_ok(ok && info.ncontacts == 1, "sphere-sphere: one contact");
  const cpk_sim_contact *k = ok && info.ncontacts ? &info.contacts[0] : NULL;
  t_ok(k && k->body[0] == 1 && fabs(k->normal[0] - 0.6) < 1e-12 && fabs(k->normal[2] - 0.8) < 1e-12,
       "sphere-sphere: normal into the top ball along the centre line");
  /* sticking (mu = 1 > tan of the 36.9 degree slope): P_n = m g h cos, friction m g h sin */
  t_near(k ? k->P[0] : 0, G * h * 0.8, 1e-9, "sphere-sphere: P_n = m g h cos(theta)");
  cpk_world_free(w);
}

/* A particle on a plate vibrating below g acceleration rides with it. */
static void test_driven_plate(void)
{
  const double zero[3] = {0, 0, 0}, h = 1e-3, amp = 0.001, f = 10; /* a (2 pi f)^2 = 3.9 < g */
  cpk_world *w = world("polyhedral", h);
  cpk_body b;
  cpk_body_default(&b);
  strcpy(b.name, "plate");
  b.kind = CPK_BODY_DRIVEN;
  b.shape.kind = CPK_SHAPE_PLANE;
  b.motion.kind = CPK_MOTION_VIBRATING;
  b.motion.p[2] = 1, b.motion.p[3] = amp, b.motion.p[4] = f;
  cpk_world_add_body(w, &b, NULL, NULL);
  add(w, "p", CPK_BODY_DYNAMIC, CPK_SHAPE_SPHERE, 0, zero);
  friction(w, 0.3);
  t_ok(steps(w, 125), "plate: 125 steps");
  double zp = amp * sin(2 * 3.14159265358979323846 * f * 0.125);
  t_near(cpk_world_body(w, 0)->x[2], zp, 1e-12, "plate: driven to its prescribed position");
  t_near(cpk_world_body(w, 1)->x[2], zp, 1e-5, "plate: the particle rides on it (gap O(h v))");
  cpk_world_free(w);
}

/* A solve that fails leaves the world where it was, with CPK_ENOCONV and the status. */
static void test_failure(void)
{
  cpk_sim_settings S;
  cpk_world *w = NULL;
  cpk_error err;
  cpk_sim_step_info info;
  cpk_sim_settings_default(&S);
  S.h = 0.01;
  strcpy(S.solver, "lemke");
  S.solve.max_iter = 1; /* one pivot cannot solve a frictional contact */
  cpk_world_alloc(&S, &w, NULL);
  ball_on_ground(w, 0.5);
  int rc = cpk_world_step(w, &info, &err);
  t_ok(rc == CPK_ENOCONV && info.status != CPK_STATUS_SOLVED, "failure: CPK_ENOCONV with the status");
  t_ok(rc && strstr(err.message, "lemke") != NULL, "failure: message names the solver (%s)", err.message);
  t_ok(cpk_world_time(w) == 0 && cpk_world_body(w, 1)->v[2] == 0, "failure: world not moved");
  double v;
  t_ok(cpk_world_quantity(w, "ball.nosuch", &v, &err) == CPK_ENOTFOUND, "quantity: unknown name refused");
  t_ok(cpk_world_quantity(w, "ghost.x[0]", &v, &err) == CPK_ENOTFOUND, "quantity: unknown body refused");
  t_ok(cpk_world_quantity(w, "ball.x[3]", &v, &err) == CPK_ENOTFOUND, "quantity: index out of range refused");
  cpk_body b;
  cpk_body_default(&b);
  b.mass = 0;
  t_ok(cpk_world_add_body(w, &b, NULL, &err) == CPK_EINVAL, "body: mass 0 refused (%s)", err.message);
  cpk_world_free(w);
}

/* The scene reader: a good scene runs and its checks measure; each malformed
 * one is refused at its line. */
static const char *good_scene =
    "{\"cpkit_scene\": 1, \"name\": \"drop\", \"step\": 0.01, \"duration\": 0.1,\n"
    " \"bodies\": [{\"name\": \"ball\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 2,\n"
    "              \"position\": [0, 0, 5]}],\n"
    " \"checks\": [{\"label\": \"v\", \"quantity\": \"ball.v[2]\", \"final\": true,\n"
    "              \"expected\": -0.981, \"tol\": 1e-9},\n"
    "             {\"label\": \"below 4.99\", \"quantity\": \"ball.x[2]\",\n"
    "              \"first\": {\"op\": \"<=\", \"value\": 4.99}, \"expected\": 0.05, \"tol\": 1e-9},\n"
    "             {\"label\": \"v at 0.054\", \"quantity\": \"ball.v[2]\", \"at\": 0.054,\n"
    "              \"expected\": -0.5886, \"tol\": 1e-9}]}\n";

static void test_scene_good(void)
{
  cpk_scene *s = NULL;
  cpk_world *w = NULL;
  cpk_error err;
  long n = 0;
  int rc = cpk_scene_read_string(good_scene, "good", &s, &err);
  t_ok(rc == CPK_OK, "scene: good scene read (%s)", rc ? err.message : "ok");
  if (rc) return;
  t_ok(cpk_scene_world(s, &w, &err) == CPK_OK && cpk_world_body(w, 0)->inertia[0] == 0.8,
       "scene: default inertia of a solid sphere 2 m r^2 / 5");
  t_ok(cpk_scene_run(s, w, NULL, NULL, &n, &err) == CPK_OK && n == 10, "scene: 10 steps");
  cpk_scene_check *c0 = cpk_scene_check_get(s, 0), *c1 = cpk_scene_check_get(s, 1);
  t_ok(c0->measured_valid && c0->passed, "scene: final velocity check passes (%g)", c0->measured);
  /* z_n = 5 - g h^2 n (n + 1) / 2 <= 4.99 first at n = 5 */
  t_ok(c1->measured_valid && c1->passed, "scene: first-time check at t = 0.05 (%g)", c1->measured);
  cpk_scene_check *c2 = cpk_scene_check_get(s, 2); /* the step ending at 0.06, not 0.05 */
  t_ok(c2->measured_valid && c2->passed, "scene: 'at 0.054' is the step ending at 0.06 (%g)", c2->measured);
  cpk_world_free(w);
  cpk_scene_free(s);
}

static void bad_scene(const char *text, const char *expect, const char *what)
{
  cpk_scene *s = NULL;
  cpk_error err = {0, ""};
  int rc = cpk_scene_read_string(text, "bad.json", &s, &err);
  t_ok(rc != CPK_OK && s == NULL && strstr(err.message, expect) != NULL, "scene: %s -> '%s' (%s)",
       what, expect, err.message);
  cpk_scene_free(s);
}

/* More bodies than CPK_SCENE_MAX_BODIES: refused while reading, before any world is built. */
static void test_scene_too_many_bodies(void)
{
  const char *head = "{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [";
  const char *one = "{\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1},";
  size_t n = CPK_SCENE_MAX_BODIES + 1, len = strlen(head) + n * strlen(one) + 8;
  char *text = malloc(len), *at = text;
  if (!text) abort();
  at += sprintf(at, "%s", head);
  for (size_t i = 0; i < n; i++) at += sprintf(at, "%s", one);
  sprintf(at - 1, "]}");
  bad_scene(text, "bodies: too many bodies for a scene file (at most 10000)", "10001 bodies");
  free(text);
}

static void test_scene_bad(void)
{
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.01, \"duration\": 1,\n \"bodies\": [],\n}", "bad.json:3:",
            "syntax error");
  bad_scene("{\"cpkit_scene\": 2}", "unsupported version", "version");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.01, \"duration\": 1,\n \"colour\": 3,\n \"bodies\": []}",
            "bad.json:2: colour: unknown key", "unknown key");
  bad_scene("{\"cpkit_scene\": 1, \"duration\": 1, \"bodies\": []}", "step: missing", "missing step");
  bad_scene("{\"cpkit_scene\": 1, \"step\": -1, \"duration\": 1,\n \"bodies\": [{\"name\": \"b\", "
            "\"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}]}",
            "step h must be > 0", "negative step");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"cube\", \"mass\": 1}]}",
            "bad.json:3: bodies[0].shape: unknown shape 'cube'", "unknown shape");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1}]}",
            "bodies[0].mass: missing", "dynamic body without mass");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}],\n"
            " \"materials\": [{\"bodies\": [\"b\", \"ghost\"], \"mu\": 1}]}",
            "bad.json:4: materials[0].bodies: no body called 'ghost'", "material of an unknown body");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}],\n"
            " \"checks\": [{\"label\": \"x\", \"quantity\": \"b.colour\", \"final\": true,\n"
            "   \"expected\": 0, \"tol\": 1}]}",
            "bad.json:4: checks[0].quantity: quantity 'b.colour': unknown", "unknown quantity");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}],\n"
            " \"checks\": [{\"label\": \"x\", \"quantity\": \"b.x[0]\", \"final\": true, \"max\": true,\n"
            "   \"expected\": 0, \"tol\": 1}]}",
            "give exactly one of", "two measurements in one check");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1, \"model\": \"magic\",\n"
            " \"bodies\": [{\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}]}",
            "unknown contact model 'magic'", "unknown model");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"p\", \"kind\": \"driven\", \"shape\": \"plane\"}]}",
            "a driven body needs a motion", "driven body without motion");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"t\", \"shape\": \"points\", \"mass\": 1, \"points\": [[0, 0, 1]]}]}",
            "needs its inertia", "feet without inertia");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}],\n"
            " \"materials\": [{\"mu\": 1, \"directions\": [[1, 0]]}]}",
            "bad.json:4: materials[0].directions[0]: expected 3 numbers", "short direction");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b`touch x`\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}]}",
            "bad.json:3: bodies[0].name: body names must be unique", "a name with a backquote");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}],\n"
            " \"checks\": [{\"label\": \"x\", \"quantity\": \"b.x[0]\", \"final\": false,\n"
            "   \"expected\": 0, \"tol\": 1}]}",
            "checks[0].final: expected true", "\"final\": false");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1,\n"
            "   \"motion\": {\"type\": \"vibrating\", \"amplitude\": 1, \"frequency\": 1}}]}",
            "only a driven body", "a motion on a dynamic body");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1,\n \"bodies\": [\n"
            "  {\"name\": \"p\", \"kind\": \"driven\", \"shape\": \"plane\", \"motion\":\n"
            "   {\"type\": \"oscillating\", \"frequency\": 1e-170}}]}",
            "non-finite pose", "a frequency so small the pose overflows");
  bad_scene("{\"cpkit_scene\": 1, \"step\": 0.1, \"duration\": 1, \"warm_start\": 1,\n"
            " \"bodies\": [{\"name\": \"b\", \"shape\": \"sphere\", \"radius\": 1, \"mass\": 1}]}",
            "warm_start: expected true or false", "warm_start not a boolean");
}

/* A sphere spinning in place slides (twist slip) under every model that has torsion. */
static void test_spin_mode(const char *model)
{
  const double zero[3] = {0, 0, 0}, x[3] = {0, 0, 1};
  cpk_sim_settings S;
  cpk_world *w = NULL;
  cpk_contact_params m;
  cpk_sim_settings_default(&S);
  S.h = 0.07;
  strcpy(S.model, model);
  cpk_compile_options_set_directions(&S.compile, "8:1:5", NULL);
  cpk_world_alloc(&S, &w, NULL);
  cpk_body b;
  double mode = -1;
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  cpk_body_default(&b);
  strcpy(b.name, "ball");
  memcpy(b.x, x, sizeof b.x);
  b.w[2] = 1.962;
  cpk_world_add_body(w, &b, NULL, NULL);
  cpk_contact_params_default(&m);
  m.mu = 0.2, m.e_r = 0.4;
  cpk_world_set_default_material(w, &m, NULL);
  int ok = steps(w, 3) && cpk_world_quantity(w, "ball.mode", &mode, NULL) == CPK_OK;
  t_ok(ok && mode == 2, "%s: a sphere spinning in place is sliding (mode %g)", model, mode);
  cpk_world_free(w);
}

/* A tripod on three symmetric feet carries m g h / 3 on each; an oscillating
 * plate sits at its analytic pose. */
static void test_feet_and_oscillation(void)
{
  const double h = 1e-3, B = 2 * 3.14159265358979323846 * 5;
  cpk_world *w = world("polyhedral", h);
  cpk_body plate, tri;
  cpk_sim_step_info info;
  cpk_body_default(&plate);
  strcpy(plate.name, "plate");
  plate.kind = CPK_BODY_DRIVEN;
  plate.shape.kind = CPK_SHAPE_PLANE;
  plate.motion.kind = CPK_MOTION_OSCILLATING;
  plate.motion.p[2] = 1, plate.motion.p[3] = 2.0, plate.motion.p[4] = 0, plate.motion.p[5] = 5;
  cpk_world_add_body(w, &plate, NULL, NULL);
  cpk_body_default(&tri);
  strcpy(tri.name, "tri");
  tri.shape.kind = CPK_SHAPE_POINTS;
  tri.shape.npoints = 3;
  tri.shape.size[0] = 0; /* point feet */
  for (int k = 0; k < 3; k++) {
    double a = 2 * 3.14159265358979323846 * k / 3;
    tri.shape.points[k][0] = cos(a), tri.shape.points[k][1] = sin(a), tri.shape.points[k][2] = -0.5;
  }
  tri.x[2] = 0.5;
  cpk_world_add_body(w, &tri, NULL, NULL);
  friction(w, 1.0);
  int ok = 1;
  for (int k = 0; k < 100 && ok; k++) ok = cpk_world_step(w, &info, NULL) == CPK_OK;
  t_ok(ok && info.ncontacts == 3, "feet: three contacts");
  for (size_t c = 0; ok && c < 3; c++)
    t_near(info.contacts[c].P[0], G * h / 3, 1e-7, "feet: foot %zu carries m g h / 3", c);
  /* angle -a_r sin(B t) / B^2 about z at t = 0.1 */
  double th = -2.0 * sin(B * 0.1) / (B * B);
  t_near(cpk_world_body(w, 0)->q[3], sin(th / 2), 1e-12, "oscillating: plate angle at t = 0.1");
  t_near(cpk_world_body(w, 0)->w[2], -2.0 * cos(B * 0.1) / B, 1e-12, "oscillating: plate rate");
  cpk_world_free(w);
}

/* The next step's problem, solved from the stepper's start point, gives the
 * impulse the step itself then produces. */
static void test_next_problem(void)
{
  const double h = 0.01;
  cpk_world *w = world("polyhedral", h);
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  cpk_result *r = NULL;
  cpk_sim_step_info info;
  cpk_settings set;
  double *z0 = NULL, P[4] = {0, 0, 0, 0};
  size_t nc = 0;
  ball_on_ground(w, 0.5);
  steps(w, 3);
  int ok = cpk_world_next_problem(w, &p, &map, &z0, &nc, NULL) == CPK_OK;
  t_ok(ok && nc == 1 && z0 != NULL, "next problem: one contact and a start point");
  cpk_settings_default(&set);
  set.z0 = z0;
  ok = ok && cpk_result_alloc(p->n, &r) == CPK_OK && cpk_solve(p, "lemke", &set, r, NULL) == CPK_OK &&
       r->status == CPK_STATUS_SOLVED && t_is_mcp_solution(p, r->z, 1e-8);
  t_ok(ok, "next problem: solved from the start point");
  t_ok(ok && r->iterations == 0, "next problem: the warm start is already the solution (%ld pivots)",
       ok ? r->iterations : -1L);
  if (ok) cpk_varmap_impulses(map, r->z, P);
  ok = ok && cpk_world_step(w, &info, NULL) == CPK_OK && info.ncontacts == 1;
  t_near(ok ? info.contacts[0].P[0] : -1, P[0], 1e-12, "next problem: same impulse as the step");
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  free(z0);
  cpk_world_free(w);
}

/* A new contact under a nonlinear model starts from the polyhedral prediction:
 * for a ball resting on a plane that is already the solution. */
static void test_predicted_start(void)
{
  const double h = 0.01;
  cpk_world *w = world("point-coulomb", h);
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  double *z0 = NULL, P[4] = {0, 0, 0, 0};
  ball_on_ground(w, 0.5);
  int ok = cpk_world_next_problem(w, &p, &map, &z0, NULL, NULL) == CPK_OK && z0;
  if (ok) cpk_varmap_impulses(map, z0, P);
  t_near(P[0], G * h, 1e-9, "first step, point-coulomb: start point carries P_n = m g h");
  t_ok(ok && t_is_mcp_solution(p, z0, 1e-8), "first step: the start point already solves it");
  cpk_problem_free(p);
  cpk_varmap_free(map);
  free(z0);
  cpk_world_free(w);
}

/* A refused pair material leaves no trace: the default set later still applies. */
static void test_refused_material(void)
{
  const double zero[3] = {0, 0, 0}, x[3] = {0, 0, 1};
  cpk_world *w = world("polyhedral", 0.01);
  cpk_contact_params m;
  cpk_body b;
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  cpk_body_default(&b);
  strcpy(b.name, "ball");
  memcpy(b.x, x, sizeof b.x);
  b.v[0] = 1;
  cpk_world_add_body(w, &b, NULL, NULL);
  cpk_contact_params_default(&m);
  m.mu = -1;
  t_ok(cpk_world_set_material(w, 0, 1, &m, NULL) == CPK_EINVAL, "material: mu < 0 refused");
  friction(w, 0.5);
  steps(w, 10);
  t_near(cpk_world_body(w, 1)->v[0], 5.0 / 7.0, 1e-9, "material: the later default applies (rolls at 5/7)");
  cpk_world_free(w);
}

/* Three stacked balls, the middle one moving: both its contacts' friction oppose
 * its motion, one of them as the second body of its pair (the reaction). */
static void test_ft_of_second_body(void)
{
  const double zero[3] = {0, 0, 0}, h = 0.01;
  cpk_world *w = world("polyhedral", h);
  cpk_sim_step_info info;
  cpk_body b;
  add(w, "ground", CPK_BODY_FIXED, CPK_SHAPE_PLANE, 0, zero);
  for (int k = 0; k < 3; k++) {
    cpk_body_default(&b);
    snprintf(b.name, sizeof b.name, "b%d", k);
    b.shape.size[0] = 0.5;
    b.x[2] = 0.5 + k;
    b.v[0] = k == 1 ? 1.0 : 0.0;
    cpk_world_add_body(w, &b, NULL, NULL);
  }
  friction(w, 0.2);
  double v0 = 1.0, ft = -1;
  int ok = cpk_world_step(w, &info, NULL) == CPK_OK && cpk_world_quantity(w, "b1.ft", &ft, NULL) == CPK_OK;
  double dv = ok ? fabs(cpk_world_body(w, 2)->v[0] - v0) : 0;
  t_near(ft, dv / h, 1e-9, "ft: the middle ball's net friction is m |dv| / h (both contacts)");
  cpk_world_free(w);
}

int main(void)
{
  test_free_fall();
  test_spin();
  test_rest("polyhedral");
  test_rest("elliptic-torsional");
  test_rest("point-coulomb");
  test_rest("kelvin-voigt");
  test_shapes();
  test_sphere_sphere();
  test_driven_plate();
  test_failure();
  test_spin_mode("polyhedral");
  test_spin_mode("elliptic-torsional");
  test_feet_and_oscillation();
  test_next_problem();
  test_predicted_start();
  test_refused_material();
  test_ft_of_second_body();
  test_scene_good();
  test_scene_bad();
  test_scene_too_many_bodies();
  return t_done();
}
