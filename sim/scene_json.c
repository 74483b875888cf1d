/* scene_json.c: reading a scene file (schema in doc/simulate.md): settings, bodies, materials, ignored pairs, checks; errors as `file:line: path: what`. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "json_reader.h"
#include "scene.h"

static const char *const top_keys[] = {
    "cpkit_scene", "name",     "description", "step",     "duration", "model",
    "solver",      "directions", "latitude",  "gravity",  "margin",   "implicit",
    "tolerance",   "bodies",   "materials",   "ignore",   "checks",   "offset",
    "max_iter",    "warm_start", "fallback", "physics_continue", "physics_finish", NULL};

/* A string member copied (malloc'd); *out stays NULL when absent. */
static int get_copy(cpk_jr *r, json_t *obj, const char *key, char **out)
{
  const char *v = NULL;
  int rc = cpk_jr_get_string(r, obj, key, &v, 0);
  if (!rc && v && !(*out = cpk_strdup(v))) rc = cpk_jr_nomem(r);
  return rc;
}

/* A string member into a fixed buffer (refused when too long). */
static int get_name(cpk_jr *r, json_t *obj, const char *key, char *buf, size_t size, int required)
{
  const char *v = NULL;
  int rc = cpk_jr_get_string(r, obj, key, &v, required);
  if (rc || !v) return rc;
  if (strlen(v) >= size) {
    cpk_jr_push_key(r, key);
    return cpk_jr_fail(r, "longer than %zu characters", size - 1);
  }
  strcpy(buf, v);
  return CPK_OK;
}

static int get_int(cpk_jr *r, json_t *obj, const char *key, long min, long *out)
{
  json_t *v = json_object_get(obj, key);
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, key);
  if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > 1000000)
    return cpk_jr_fail(r, "expected an integer in %ld..1000000", min);
  *out = (long)json_integer_value(v);
  cpk_jr_pop(r);
  return CPK_OK;
}

/* "directions": an integer D or the string "E:C:P". */
static int directions(cpk_jr *r, json_t *root, cpk_compile_options *o)
{
  json_t *v = json_object_get(root, "directions");
  char buf[32];
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, "directions");
  if (json_is_integer(v))
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
  else if (json_is_string(v) && strlen(json_string_value(v)) < sizeof buf)
    strcpy(buf, json_string_value(v));
  else
    return cpk_jr_fail(r, "expected an integer D or a string \"E:C:P\"");
  if (cpk_compile_options_set_directions(o, buf, r->err)) return cpk_jr_relay(r, CPK_EINVAL);
  cpk_jr_pop(r);
  return cpk_jr_get_number(r, root, "latitude", &o->directions.latitude, 0);
}

static int settings(cpk_jr *r, json_t *root, cpk_scene *s)
{
  cpk_sim_settings *S = &s->settings;
  long implicit = 0;
  int rc = cpk_jr_get_number(r, root, "step", &S->h, 1);
  if (!rc) rc = cpk_jr_get_number(r, root, "duration", &s->duration, 1);
  if (!rc) rc = get_name(r, root, "model", S->model, sizeof S->model, 0);
  if (!rc && !cpk_sim_model_known(S->model)) {
    cpk_jr_push_key(r, "model");
    return cpk_jr_fail(r, "unknown contact model '%s' (see cpkit compile --help)", S->model);
  }
  if (!rc) rc = get_name(r, root, "solver", S->solver, sizeof S->solver, 0);
  if (!rc && S->solver[0] && !cpk_solver_find(S->solver)) {
    cpk_jr_push_key(r, "solver");
    return cpk_jr_fail(r, "unknown solver '%s' (see cpkit solvers)", S->solver);
  }
  if (!rc) rc = get_name(r, root, "fallback", S->fallback, sizeof S->fallback, 0);
  if (!rc && S->fallback[0] && !cpk_solver_find(S->fallback)) {
    cpk_jr_push_key(r, "fallback");
    return cpk_jr_fail(r, "unknown solver '%s' (see cpkit solvers)", S->fallback);
  }
  if (!rc) rc = directions(r, root, &S->compile);
  if (!rc) rc = cpk_jr_get_fixed(r, root, "gravity", 3, S->gravity);
  if (!rc) rc = cpk_jr_get_number(r, root, "margin", &S->margin, 0);
  if (!rc) rc = cpk_jr_get_number(r, root, "tolerance", &S->solve.tol, 0);
  if (!rc) rc = get_int(r, root, "implicit", 0, &implicit);
  long max_iter = S->solve.max_iter;
  if (!rc) rc = get_int(r, root, "max_iter", 0, &max_iter);
  if (!rc) rc = cpk_jr_get_number(r, root, "offset", &S->compile.directions.offset, 0);
  json_t *ws = json_object_get(root, "warm_start");
  if (!rc && ws && !json_is_boolean(ws)) {
    cpk_jr_push_key(r, "warm_start");
    return cpk_jr_fail(r, "expected true or false");
  }
  json_t *pc = json_object_get(root, "physics_continue");
  if (!rc && pc && !json_is_boolean(pc)) {
    cpk_jr_push_key(r, "physics_continue");
    return cpk_jr_fail(r, "expected true or false");
  }
  if (pc) S->physics_continue = json_is_true(pc);
  json_t *pf = json_object_get(root, "physics_finish");
  if (!rc && pf && !json_is_boolean(pf)) {
    cpk_jr_push_key(r, "physics_finish");
    return cpk_jr_fail(r, "expected true or false");
  }
  if (pf) S->physics_finish = json_is_true(pf);
  if (rc) return rc;
  S->implicit_iterations = (int)implicit;
  S->solve.max_iter = max_iter;
  if (ws) S->warm_start = json_is_true(ws);
  if (!(s->duration > 0)) {
    cpk_jr_push_key(r, "duration");
    return cpk_jr_fail(r, "must be > 0");
  }
  cpk_world *w = NULL; /* the world checks everything else about the settings */
  if (cpk_world_alloc(S, &w, r->err)) return cpk_jr_relay(r, CPK_EINVAL);
  cpk_world_free(w);
  return CPK_OK;
}

static int lookup(cpk_jr *r, const char *const *names, const char *what, const char *v, int *out)
{
  for (int k = 0; names[k]; k++)
    if (!strcmp(v, names[k])) return *out = k, CPK_OK;
  return cpk_jr_fail(r, "unknown %s '%s'", what, v);
}

static int body_enum(cpk_jr *r, json_t *b, const char *key, const char *const *names, int *out,
                     int required)
{
  const char *v = NULL;
  int rc = cpk_jr_get_string(r, b, key, &v, required);
  if (rc || !v) return rc;
  cpk_jr_push_key(r, key);
  rc = lookup(r, names, key, v, out);
  if (!rc) cpk_jr_pop(r);
  return rc;
}

/* Principal inertia of a solid shape of mass m when the file gives none. */
static void default_inertia(cpk_body *B)
{
  double m = B->mass, *I = B->inertia, *a = B->shape.size;
  switch (B->shape.kind) {
  case CPK_SHAPE_SPHERE:
    for (int i = 0; i < 3; i++) I[i] = a[0] > 0 ? 0.4 * m * a[0] * a[0] : m;
    break;
  case CPK_SHAPE_ELLIPSOID:
    I[0] = 0.2 * m * (a[1] * a[1] + a[2] * a[2]);
    I[1] = 0.2 * m * (a[0] * a[0] + a[2] * a[2]);
    I[2] = 0.2 * m * (a[0] * a[0] + a[1] * a[1]);
    break;
  case CPK_SHAPE_ROD:
    I[1] = I[2] = m * a[0] * a[0] / 3;
    I[0] = a[1] > 0 ? 0.4 * m * a[1] * a[1] : 1e-6 * m * a[0] * a[0];
    break;
  default: break;
  }
}

/* The parameters of each motion type (cpk_motion.p, see sim.h); the axis or
 * direction starts at *axis_at. */
static int motion_params(cpk_jr *r, json_t *m, int type, double *p, int *axis_at)
{
  int rc = CPK_OK;
  if (type == CPK_MOTION_ROTATING) {
    *axis_at = 3;
    rc = cpk_jr_get_fixed(r, m, "point", 3, p);
    p[5] = 1; /* axis default z */
    if (!rc) rc = cpk_jr_get_fixed(r, m, "axis", 3, p + 3);
    if (!rc) rc = cpk_jr_get_number(r, m, "alpha", &p[6], 1);
    if (!rc) rc = cpk_jr_get_number(r, m, "period", &p[7], 1);
    if (!rc && !(p[7] > 0)) rc = cpk_jr_fail(r, "period must be > 0");
    return rc;
  }
  *axis_at = 0;
  p[2] = 1; /* direction or axis default z */
  if (type == CPK_MOTION_VIBRATING) {
    rc = cpk_jr_get_fixed(r, m, "direction", 3, p);
    if (!rc) rc = cpk_jr_get_number(r, m, "amplitude", &p[3], 1);
    if (!rc) rc = cpk_jr_get_number(r, m, "frequency", &p[4], 1);
    if (!rc) rc = cpk_jr_get_number(r, m, "phase", &p[5], 0);
  } else if (type == CPK_MOTION_OSCILLATING) {
    rc = cpk_jr_get_fixed(r, m, "axis", 3, p);
    if (!rc) rc = cpk_jr_get_number(r, m, "angular_amplitude", &p[3], 0);
    if (!rc) rc = cpk_jr_get_number(r, m, "linear_amplitude", &p[4], 0);
    if (!rc) rc = cpk_jr_get_number(r, m, "frequency", &p[5], 1);
    if (!rc && !(p[5] > 0)) rc = cpk_jr_fail(r, "frequency must be > 0");
    if (!rc) rc = cpk_jr_get_number(r, m, "angular_phase", &p[6], 0);
    if (!rc) rc = cpk_jr_get_number(r, m, "linear_phase", &p[7], 0);
  }
  return rc;
}

static int motion(cpk_jr *r, json_t *b, cpk_body *B)
{
  static const char *const keys[] = {
      "type",      "point",     "axis",      "alpha",            "period",
      "direction", "amplitude", "frequency", "phase",            "angular_amplitude",
      "linear_amplitude", "angular_phase", "linear_phase", NULL};
  static const char *const types[] = {"none", "rotating", "vibrating", "oscillating", NULL};
  json_t *m = json_object_get(b, "motion");
  int type = 0, axis_at = 0, rc;
  if (!m) return B->kind == CPK_BODY_DRIVEN ? cpk_jr_fail(r, "a driven body needs a motion") : 0;
  if (B->kind != CPK_BODY_DRIVEN) {
    cpk_jr_push_key(r, "motion");
    return cpk_jr_fail(r, "only a driven body (\"kind\": \"driven\") has a motion");
  }
  cpk_jr_push_key(r, "motion");
  if (!json_is_object(m)) return cpk_jr_fail(r, "expected an object");
  rc = cpk_jr_check_keys(r, m, keys);
  if (!rc) rc = body_enum(r, m, "type", types, &type, 1);
  if (!rc) rc = motion_params(r, m, type, B->motion.p, &axis_at);
  if (rc) return rc;
  double *axis = B->motion.p + axis_at;
  double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (type && !(len > 0)) return cpk_jr_fail(r, "the axis or direction must not be zero");
  for (int i = 0; i < 3 && type; i++) axis[i] /= len;
  B->motion.kind = (cpk_motion_kind)type;
  cpk_jr_pop(r);
  return CPK_OK;
}

/* "points": [[x, y, z], ...] of a feet shape. */
static int feet(cpk_jr *r, json_t *b, cpk_shape *S)
{
  json_t *a = json_object_get(b, "points");
  cpk_jr_push_key(r, "points");
  if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > CPK_SHAPE_MAX_POINTS)
    return cpk_jr_fail(r, "expected 1 to %d points [x, y, z]", CPK_SHAPE_MAX_POINTS);
  for (size_t k = 0; k < json_array_size(a); k++) {
    double *x = NULL;
    cpk_jr_push_index(r, k);
    int rc = cpk_jr_vector(r, json_array_get(a, k), 3, &x, NULL);
    if (rc) return rc;
    memcpy(S->points[k], x, sizeof S->points[k]);
    free(x);
    cpk_jr_pop(r);
  }
  S->npoints = json_array_size(a);
  cpk_jr_pop(r);
  return CPK_OK;
}

static int shape(cpk_jr *r, json_t *b, cpk_body *B)
{
  static const char *const shapes[] = {"plane",  "sphere",   "ellipsoid", "rod",
                                       "points", "particle", NULL};
  int k = 0, rc = body_enum(r, b, "shape", shapes, &k, 1);
  double *a = B->shape.size;
  a[0] = a[1] = a[2] = 0;
  B->shape.kind = k == 5 ? CPK_SHAPE_SPHERE : (cpk_shape_kind)k;
  if (!rc && k == CPK_SHAPE_POINTS) {
    rc = feet(r, b, &B->shape);
    if (!rc) rc = cpk_jr_get_number(r, b, "radius", &a[0], 0);
    if (!rc && B->kind == CPK_BODY_DYNAMIC && !json_object_get(b, "inertia"))
      return cpk_jr_fail(r, "a body of shape \"points\" needs its inertia");
  }
  if (!rc && k == CPK_SHAPE_SPHERE) rc = cpk_jr_get_number(r, b, "radius", &a[0], 1);
  if (!rc && k == CPK_SHAPE_ELLIPSOID) {
    if (!json_object_get(b, "semi_axes")) return cpk_jr_fail(r, "an ellipsoid needs semi_axes");
    rc = cpk_jr_get_fixed(r, b, "semi_axes", 3, a);
  }
  if (!rc && k == CPK_SHAPE_ROD) {
    rc = cpk_jr_get_number(r, b, "half_length", &a[0], 1);
    if (!rc) rc = cpk_jr_get_number(r, b, "radius", &a[1], 0);
  }
  if (!rc && (k == CPK_SHAPE_PLANE || k == CPK_SHAPE_ELLIPSOID || k == 5) && json_object_get(b, "radius"))
    return cpk_jr_fail(r, "\"radius\" is for spheres, rods and points");
  if (!rc && k != CPK_SHAPE_POINTS && json_object_get(b, "points"))
    return cpk_jr_fail(r, "\"points\" is for the shape \"points\"");
  return rc;
}

/* Names go into CSV headers, quantity names and gnuplot scripts: a safe alphabet only. */
static int safe_name(const char *n)
{
  if (!n[0]) return 0;
  for (; *n; n++)
    if (!isalnum((unsigned char)*n) && *n != '_' && *n != '-') return 0;
  return 1;
}

static int body(cpk_jr *r, json_t *b, cpk_scene *s, cpk_body *B)
{
  static const char *const keys[] = {
      "name",     "kind",     "shape",    "radius",      "semi_axes",        "half_length", "points",
      "mass",     "inertia",  "position", "orientation", "velocity",         "angular_velocity",
      "force",    "torque",   "motion",   NULL};
  static const char *const kinds[] = {"dynamic", "fixed", "driven", NULL};
  int kind = 0;
  cpk_body_default(B);
  if (!json_is_object(b)) return cpk_jr_fail(r, "expected a body object");
  int rc = cpk_jr_check_keys(r, b, keys);
  if (!rc) rc = get_name(r, b, "name", B->name, sizeof B->name, 1);
  if (!rc && (!safe_name(B->name) || sim_scene_body(s, B->name, strlen(B->name)) != (size_t)-1)) {
    cpk_jr_push_key(r, "name");
    return cpk_jr_fail(r, "body names must be unique, non-empty, and made of letters, digits, "
                          "'_' and '-' (they become CSV columns and plot labels)");
  }

  if (!rc) rc = body_enum(r, b, "kind", kinds, &kind, 0);
  B->kind = (cpk_body_kind)kind;
  if (!rc) rc = shape(r, b, B);
  B->mass = 0;
  if (!rc) rc = cpk_jr_get_number(r, b, "mass", &B->mass, B->kind == CPK_BODY_DYNAMIC);
  if (!rc) default_inertia(B);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "inertia", 3, B->inertia);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "position", 3, B->x);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "orientation", 4, B->q);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "velocity", 3, B->v);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "angular_velocity", 3, B->w);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "force", 3, B->force);
  if (!rc) rc = cpk_jr_get_fixed(r, b, "torque", 3, B->torque);
  if (!rc) rc = motion(r, b, B);
  return rc;
}


/* A pair of body names ["A", "B"] -> indices. */
static int body_pair(cpk_jr *r, const cpk_scene *s, json_t *p, size_t idx[2])
{
  if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_string(json_array_get(p, 0)) ||
      !json_is_string(json_array_get(p, 1)))
    return cpk_jr_fail(r, "expected two body names");
  for (size_t k = 0; k < 2; k++) {
    const char *n = json_string_value(json_array_get(p, k));
    idx[k] = sim_scene_body(s, n, strlen(n));
    if (idx[k] == (size_t)-1) return cpk_jr_fail(r, "no body called '%s'", n);
  }
  if (idx[0] == idx[1]) return cpk_jr_fail(r, "a body cannot touch itself");
  return CPK_OK;
}

/* A number or [normal, tangential] -> the diagonal (n, t, t). */
static int diag3(cpk_jr *r, json_t *m, const char *key, double D[9])
{
  json_t *v = json_object_get(m, key);
  double nt[2];
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, key);
  if (json_is_number(v)) {
    nt[0] = nt[1] = json_number_value(v);
  } else {
    double *x = NULL;
    int rc = cpk_jr_vector(r, v, 2, &x, NULL);
    if (rc) return rc;
    nt[0] = x[0];
    nt[1] = x[1];
    free(x);
  }
  if (!(nt[0] >= 0 && nt[1] >= 0) || !isfinite(nt[0] + nt[1])) return cpk_jr_fail(r, "must be >= 0");
  for (int e = 0; e < 9; e++) D[e] = 0;
  D[0] = nt[0];
  D[4] = D[8] = nt[1];
  cpk_jr_pop(r);
  return CPK_OK;
}

/* "directions": [[t, o, r], ...] of the polyhedral model for this material. */
static int material_directions(cpk_jr *r, json_t *m, scene_material *M)
{
  json_t *a = json_object_get(m, "directions");
  if (!a) return CPK_OK;
  cpk_jr_push_key(r, "directions");
  if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > 10000)
    return cpk_jr_fail(r, "expected an array of directions [t, o, r]");
  M->dirs = cpk_alloc_array(3 * json_array_size(a), sizeof *M->dirs);
  if (!M->dirs) return cpk_jr_nomem(r);
  for (size_t k = 0; k < json_array_size(a); k++) {
    double *x = NULL;
    cpk_jr_push_index(r, k);
    int rc = cpk_jr_vector(r, json_array_get(a, k), 3, &x, NULL);
    if (rc) return rc;
    memcpy(M->dirs + 3 * k, x, 3 * sizeof *x);
    free(x);
    cpk_jr_pop(r);
  }
  M->params.ndirections = json_array_size(a);
  M->params.directions = M->dirs;
  cpk_jr_pop(r);
  return CPK_OK;
}

static int material(cpk_jr *r, json_t *m, cpk_scene *s, scene_material *M)
{
  static const char *const keys[] = {"bodies",  "mu",        "e_t",        "e_o", "e_r",
                                     "stiffness", "damping", "delta_max", "directions", NULL};
  cpk_contact_params *p = &M->params;
  cpk_contact_params_default(p);
  if (!json_is_object(m)) return cpk_jr_fail(r, "expected a material object");
  int rc = cpk_jr_check_keys(r, m, keys);
  if (!rc && json_object_get(m, "bodies")) {
    cpk_jr_push_key(r, "bodies");
    size_t idx[2];
    rc = body_pair(r, s, json_object_get(m, "bodies"), idx);
    if (rc) return rc;
    M->pair = 1;
    M->i = idx[0];
    M->j = idx[1];
    cpk_jr_pop(r);
  }
  if (!rc) rc = cpk_jr_get_number(r, m, "mu", &p->mu, 0);
  if (!rc) rc = cpk_jr_get_number(r, m, "e_t", &p->e_t, 0);
  if (!rc) rc = cpk_jr_get_number(r, m, "e_o", &p->e_o, 0);
  if (!rc) rc = cpk_jr_get_number(r, m, "e_r", &p->e_r, 0);
  if (!rc) rc = diag3(r, m, "stiffness", p->K);
  if (!rc) rc = diag3(r, m, "damping", p->C);
  if (!rc) rc = cpk_jr_get_number(r, m, "delta_max", &p->delta_max, 0);
  if (!rc) rc = material_directions(r, m, M);
  if (rc) return rc;
  p->compliant = json_object_get(m, "stiffness") != NULL;
  if (!(p->mu >= 0) || !(p->e_t > 0) || !(p->e_o > 0) || !(p->e_r >= 0))
    return cpk_jr_fail(r, "need mu >= 0, e_t > 0, e_o > 0, e_r >= 0");
  if (!(p->delta_max > 0)) return cpk_jr_fail(r, "delta_max must be > 0");
  return CPK_OK;
}



/* How a check measures: exactly one of at, final, max, min, first. */
static int check_kind(cpk_jr *r, json_t *c, cpk_scene_check *k)
{
  static const char *const kinds[] = {"at", "final", "max", "min", "first", NULL};
  int n = 0;
  for (int i = 0; kinds[i]; i++)
    if (json_object_get(c, kinds[i])) n++, k->kind = (cpk_check_kind)i;
  if (n != 1) return cpk_jr_fail(r, "give exactly one of at, final, max, min, first");
  if ((k->kind == CPK_CHECK_FINAL || k->kind == CPK_CHECK_MAX || k->kind == CPK_CHECK_MIN) &&
      !json_is_true(json_object_get(c, kinds[k->kind]))) {
    cpk_jr_push_key(r, kinds[k->kind]);
    return cpk_jr_fail(r, "expected true");
  }
  if (k->kind == CPK_CHECK_AT) return cpk_jr_get_number(r, c, "at", &k->at, 1);
  if (k->kind != CPK_CHECK_FIRST) return CPK_OK;
  json_t *f = json_object_get(c, "first");
  static const char *const fkeys[] = {"op", "value", NULL};
  const char *op = NULL;
  cpk_jr_push_key(r, "first");
  if (!json_is_object(f)) return cpk_jr_fail(r, "expected {\"op\": \"<=\", \"value\": v}");
  int rc = cpk_jr_check_keys(r, f, fkeys);
  if (!rc) rc = cpk_jr_get_string(r, f, "op", &op, 1);
  if (!rc && strcmp(op, "<=") && strcmp(op, ">=") && strcmp(op, "=="))
    return cpk_jr_fail(r, "op must be \"<=\", \">=\" or \"==\"");
  if (!rc) rc = cpk_jr_get_number(r, f, "value", &k->value, 1);
  if (rc) return rc;
  strcpy(k->op, op);
  cpk_jr_pop(r);
  return CPK_OK;
}

static int check(cpk_jr *r, json_t *c, cpk_scene *s, cpk_scene_check *k)
{
  static const char *const keys[] = {"label", "quantity", "at",  "final", "max",    "min",
                                     "first", "expected", "tol", "why",   "source", NULL};
  memset(k, 0, sizeof *k);
  if (!json_is_object(c)) return cpk_jr_fail(r, "expected a check object");
  int rc = cpk_jr_check_keys(r, c, keys);
  if (!rc) rc = get_name(r, c, "label", k->label, sizeof k->label, 1);
  if (!rc) rc = get_name(r, c, "quantity", k->quantity, sizeof k->quantity, 1);
  if (!rc) rc = get_name(r, c, "why", k->why, sizeof k->why, 0);
  if (!rc) rc = get_name(r, c, "source", k->source, sizeof k->source, 0);
  if (!rc) rc = check_kind(r, c, k);
  if (!rc) rc = cpk_jr_get_number(r, c, "expected", &k->expected, 1);
  if (!rc) rc = cpk_jr_get_number(r, c, "tol", &k->tol, 1);
  if (rc) return rc;
  if (!(k->tol >= 0)) return cpk_jr_fail(r, "tol must be >= 0");
  cpk_world *w = NULL; /* is the quantity one the world knows? */
  double v;
  rc = cpk_scene_world(s, &w, r->err);
  if (!rc && cpk_world_quantity(w, k->quantity, &v, r->err)) rc = CPK_ENOTFOUND;
  cpk_world_free(w);
  if (rc) {
    cpk_jr_push_key(r, "quantity");
    return cpk_jr_relay(r, rc);
  }
  return CPK_OK;
}


/* One element of a list: read item into the zeroed element `at`. */
typedef int (*item_reader)(cpk_jr *r, cpk_scene *s, json_t *item, void *at);

/* The array `key` of root (absent: nothing, or "missing" when required): *arr
 * gets one zeroed element of `size` bytes per item, and *n counts the items
 * read so far, so cpk_scene_free releases a partly read list. */
static int read_list(cpk_jr *r, json_t *root, const char *key, int required, cpk_scene *s,
                     void **arr, size_t size, size_t *n, item_reader item)
{
  json_t *a = json_object_get(root, key);
  if (!a && !required) return CPK_OK;
  cpk_jr_push_key(r, key);
  if (!json_is_array(a) || (required && json_array_size(a) == 0))
    return cpk_jr_fail(r, a ? "expected a non-empty array" : "missing");
  *arr = cpk_calloc_array(json_array_size(a) + 1, size);
  if (!*arr) return cpk_jr_nomem(r);
  for (size_t i = 0; i < json_array_size(a); i++) {
    cpk_jr_push_index(r, i);
    int rc = item(r, s, json_array_get(a, i), (char *)*arr + i * size);
    if (rc) return rc;
    (*n)++;
    cpk_jr_pop(r);
  }
  cpk_jr_pop(r);
  return CPK_OK;
}

/* A body, with the world's own checks reported at it. */
static int body_item(cpk_jr *r, cpk_scene *s, json_t *item, void *at)
{
  cpk_world *w = NULL;
  cpk_sim_settings S;
  int rc = body(r, item, s, at);
  if (rc) return rc;
  cpk_sim_settings_default(&S);
  if (!cpk_world_alloc(&S, &w, r->err) && cpk_world_add_body(w, at, NULL, r->err)) rc = CPK_EINVAL;
  cpk_world_free(w);
  return rc ? cpk_jr_relay(r, rc) : CPK_OK;
}

static int material_item(cpk_jr *r, cpk_scene *s, json_t *item, void *at)
{
  scene_material *M = at;
  int rc = material(r, item, s, M);
  if (rc) { /* not counted: release what it allocated */
    free(M->dirs);
    M->dirs = NULL;
  }
  return rc;
}

static int ignore_item(cpk_jr *r, cpk_scene *s, json_t *item, void *at)
{
  return body_pair(r, s, item, at);
}

static int check_item(cpk_jr *r, cpk_scene *s, json_t *item, void *at)
{
  return check(r, item, s, at);
}

#define CPK_STR2(x) #x
#define CPK_STR(x) CPK_STR2(x)

static int read_root(cpk_jr *r, json_t *root, cpk_scene *s)
{
  if (!json_is_object(root)) return cpk_jr_fail(r, "expected a JSON object");
  json_t *ver = json_object_get(root, "cpkit_scene");
  cpk_jr_push_key(r, "cpkit_scene");
  if (!ver) return cpk_jr_fail(r, "missing: a scene file starts with \"cpkit_scene\": 1");
  if (!json_is_integer(ver) || json_integer_value(ver) != 1)
    return cpk_jr_fail(r, "unsupported version (expected 1)");
  cpk_jr_pop(r);
  int rc = cpk_jr_check_keys(r, root, top_keys);
  if (!rc) rc = get_copy(r, root, "name", &s->name);
  if (!rc) rc = get_copy(r, root, "description", &s->description);
  if (!rc) rc = settings(r, root, s);
  json_t *bodies = json_object_get(root, "bodies");
  if (!rc && json_is_array(bodies) && json_array_size(bodies) > CPK_SCENE_MAX_BODIES) {
    cpk_jr_push_key(r, "bodies");
    return cpk_jr_fail(r, "too many bodies for a scene file (at most " CPK_STR(CPK_SCENE_MAX_BODIES)
                          "); build larger worlds through cpk_world_add_body");
  }
  if (!rc)
    rc = read_list(r, root, "bodies", 1, s, (void **)&s->bodies, sizeof *s->bodies, &s->nbodies,
                   body_item);
  if (!rc)
    rc = read_list(r, root, "materials", 0, s, (void **)&s->materials, sizeof *s->materials,
                   &s->nmaterials, material_item);
  if (!rc)
    rc = read_list(r, root, "ignore", 0, s, (void **)&s->ignore, sizeof *s->ignore, &s->nignore,
                   ignore_item);
  if (!rc)
    rc = read_list(r, root, "checks", 0, s, (void **)&s->checks, sizeof *s->checks, &s->nchecks,
                   check_item);
  return rc;
}

int cpk_scene_read_string(const char *text, const char *name, cpk_scene **out, cpk_error *err)
{
  cpk_jr r = {name ? name : "<string>", text, err, {{0}}, 0};
  json_t *root = NULL;
  *out = NULL;
  if (!text) return cpk_error_set(err, CPK_EINVAL, "no text");
  cpk_scene *s = calloc(1, sizeof *s);
  if (!s) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  cpk_sim_settings_default(&s->settings);
  int rc = cpk_jr_parse(text, r.path, &root, err);
  if (!rc) rc = read_root(&r, root, s);
  json_decref(root);
  if (rc) {
    cpk_scene_free(s);
    return rc;
  }
  *out = s;
  return CPK_OK;
}

int cpk_scene_read_file(const char *path, cpk_scene **out, cpk_error *err)
{
  char *text = NULL;
  *out = NULL;
  int rc = cpk_jr_slurp(path, &text, err);
  if (!rc) rc = cpk_scene_read_string(text, path, out, err);
  free(text);
  return rc;
}
