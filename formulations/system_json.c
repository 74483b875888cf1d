/* system_json.c: reading a contact system from JSON (schema in doc/contact-system.md), every error as `file:line: where: what`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <cpkit/contact.h>
#include <cpkit/fclib.h>
#include <cpkit/util.h>
#include "json_reader.h"

#define MAX_NV 100000000.0

typedef cpk_jr rd; /* the shared reader state (base/json_reader.h) */

static int get_vector(rd *r, json_t *obj, const char *key, size_t want, double **out, size_t *len)
{
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, key);
  int rc = cpk_jr_vector(r, v, want, out, len);
  if (!rc) cpk_jr_pop(r);
  return rc;
}

static int index_value(rd *r, json_t *v, size_t max, size_t *out)
{
  if (!json_is_integer(v)) return cpk_jr_fail(r, "expected an integer");
  json_int_t i = json_integer_value(v);
  if (i < 1 || (unsigned long long)i > max)
    return cpk_jr_fail(r, "index %lld out of range 1..%zu", (long long)i, max);
  *out = (size_t)(i - 1);
  return CPK_OK;
}

/* ---- matrices ----------------------------------------------------------------- */

typedef struct trips {
  size_t n;
  cpk_int *i, *j;
  double *x;
} trips;

static void trips_free(trips *t)
{
  free(t->i);
  free(t->j);
  free(t->x);
}

static int trips_alloc(rd *r, trips *t, size_t n)
{
  t->n = 0;
  t->i = cpk_alloc_array(n, sizeof *t->i);
  t->j = cpk_alloc_array(n, sizeof *t->j);
  t->x = cpk_alloc_array(n, sizeof *t->x);
  return t->i && t->j && t->x ? CPK_OK : cpk_jr_nomem(r);
}

static void trips_add(trips *t, size_t i, size_t j, double x)
{
  t->i[t->n] = (cpk_int)i;
  t->j[t->n] = (cpk_int)j;
  t->x[t->n++] = x;
}

static int matrix_diagonal(rd *r, json_t *a, size_t n, trips *t)
{
  double *d = NULL;
  int rc = cpk_jr_vector(r, a, n, &d, NULL);
  if (!rc) rc = trips_alloc(r, t, n);
  for (size_t k = 0; !rc && k < n; k++) trips_add(t, k, k, d[k]);
  free(d);
  return rc;
}

static int matrix_dense(rd *r, json_t *a, size_t n, trips *t)
{
  size_t nn;
  if (!json_is_array(a) || json_array_size(a) != n)
    return cpk_jr_fail(r, "expected an array of %zu rows", n);
  if (cpk_size_mul(n, n, &nn)) return cpk_jr_fail(r, "matrix too large");
  int rc = trips_alloc(r, t, nn);
  for (size_t i = 0; !rc && i < n; i++) {
    double *row = NULL;
    cpk_jr_push_index(r, i);
    rc = cpk_jr_vector(r, json_array_get(a, i), n, &row, NULL);
    for (size_t j = 0; !rc && j < n; j++)
      if (row[j] != 0.0) trips_add(t, i, j, row[j]);
    if (!rc) cpk_jr_pop(r);
    free(row);
  }
  return rc;
}

static int matrix_triplets(rd *r, json_t *a, size_t n, trips *t)
{
  if (!json_is_array(a)) return cpk_jr_fail(r, "expected an array of [i, j, value] triplets");
  size_t nt = json_array_size(a);
  int rc = trips_alloc(r, t, nt);
  for (size_t k = 0; !rc && k < nt; k++) {
    json_t *e = json_array_get(a, k);
    size_t i = 0, j = 0;
    double x = 0;
    cpk_jr_push_index(r, k);
    if (!json_is_array(e) || json_array_size(e) != 3) rc = cpk_jr_fail(r, "expected [i, j, value]");
    if (!rc) rc = index_value(r, json_array_get(e, 0), n, &i);
    if (!rc) rc = index_value(r, json_array_get(e, 1), n, &j);
    if (!rc) rc = cpk_jr_number(r, json_array_get(e, 2), &x);
    if (!rc) {
      trips_add(t, i, j, x);
      cpk_jr_pop(r);
    }
  }
  return rc;
}

/* {"diagonal": [...]} | {"dense": [[...], ...]} | {"triplets": [[i, j, x], ...]} (1-based). */
static int matrix_value(rd *r, json_t *m, size_t n, cpk_csc **out)
{
  static const char *const keys[] = {"diagonal", "dense", "triplets", NULL};
  trips t = {0};
  json_t *v;
  *out = NULL;
  if (!json_is_object(m) || json_object_size(m) != 1)
    return cpk_jr_fail(r, "expected an object with one of \"diagonal\", \"dense\", \"triplets\"");
  int rc = cpk_jr_check_keys(r, m, keys);
  if (rc) return rc;
  const char *kind = json_object_iter_key(json_object_iter(m));
  v = json_object_get(m, kind);
  cpk_jr_push_key(r, kind);
  if (strcmp(kind, "diagonal") == 0)
    rc = matrix_diagonal(r, v, n, &t);
  else if (strcmp(kind, "dense") == 0)
    rc = matrix_dense(r, v, n, &t);
  else
    rc = matrix_triplets(r, v, n, &t);
  if (!rc) cpk_jr_pop(r);
  if (!rc && cpk_csc_from_triplets((cpk_int)n, (cpk_int)n, (cpk_int)t.n, t.i, t.j, t.x, out))
    rc = cpk_jr_nomem(r);
  trips_free(&t);
  return rc;
}

/* ---- contact parameters -------------------------------------------------------- */

/* "K" or "C": 3 numbers (diagonal) or 3 rows of 3. */
static int stiffness(rd *r, json_t *obj, const char *key, double M[9])
{
  json_t *v = json_object_get(obj, key);
  double *x = NULL;
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, key);
  int rc = CPK_OK;
  memset(M, 0, 9 * sizeof *M);
  if (json_is_array(v) && json_array_size(v) == 3 && json_is_array(json_array_get(v, 0))) {
    for (size_t a = 0; a < 3 && !rc; a++) {
      cpk_jr_push_index(r, a);
      rc = cpk_jr_vector(r, json_array_get(v, a), 3, &x, NULL);
      if (!rc) {
        memcpy(M + 3 * a, x, 3 * sizeof *x);
        cpk_jr_pop(r);
      }
      free(x);
      x = NULL;
    }
  } else {
    rc = cpk_jr_vector(r, v, 3, &x, NULL);
    for (size_t a = 0; !rc && a < 3; a++) M[4 * a] = x[a];
    free(x);
  }
  if (!rc) cpk_jr_pop(r);
  return rc;
}

static int compliance(rd *r, json_t *c, cpk_contact_params *p)
{
  static const char *const keys[] = {"K", "C", "delta_max", "delta_prev", NULL};
  json_t *v = json_object_get(c, "compliance");
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, "compliance");
  if (!json_is_object(v)) return cpk_jr_fail(r, "expected an object");
  int rc = cpk_jr_check_keys(r, v, keys);
  if (!rc && !json_object_get(v, "K")) {
    cpk_jr_push_key(r, "K");
    rc = cpk_jr_fail(r, "missing (the stiffness is required)");
  }
  if (!rc) rc = stiffness(r, v, "K", p->K);
  if (!rc) rc = stiffness(r, v, "C", p->C);
  if (!rc) rc = cpk_jr_get_number(r, v, "delta_max", &p->delta_max, 0);
  if (!rc) rc = cpk_jr_get_fixed(r, v, "delta_prev", 3, p->delta_prev);
  if (!rc && !(p->delta_max > 0)) {
    cpk_jr_push_key(r, "delta_max");
    rc = cpk_jr_fail(r, "must be > 0");
  }
  if (rc) return rc;
  p->compliant = 1;
  cpk_jr_pop(r);
  return CPK_OK;
}

/* "directions": [[t, o(, r)], ...]; *dirs receives 3 per direction. */
static int directions(rd *r, json_t *c, cpk_contact_params *p, double **dirs)
{
  json_t *v = json_object_get(c, "directions");
  if (!v) return CPK_OK;
  cpk_jr_push_key(r, "directions");
  if (!json_is_array(v) || json_array_size(v) == 0)
    return cpk_jr_fail(r, "expected an array of [t, o, r]");
  size_t n = json_array_size(v);
  *dirs = cpk_calloc_array(n, 3 * sizeof **dirs);
  if (!*dirs) return cpk_jr_nomem(r);
  for (size_t j = 0; j < n; j++) {
    double *x = NULL;
    size_t len = 0;
    cpk_jr_push_index(r, j);
    int rc = cpk_jr_vector(r, json_array_get(v, j), 0, &x, &len);
    if (!rc && len != 2 && len != 3) rc = cpk_jr_fail(r, "a direction has 2 or 3 components (t, o, r)");
    if (!rc) memcpy(*dirs + 3 * j, x, len * sizeof *x);
    free(x);
    if (rc) return rc;
    cpk_jr_pop(r);
  }
  p->ndirections = n;
  p->directions = *dirs;
  cpk_jr_pop(r);
  return CPK_OK;
}

static int friction_params(rd *r, json_t *c, cpk_contact_params *p)
{
  double *e = NULL;
  size_t ne = 0;
  int rc = cpk_jr_get_number(r, c, "psi", &p->psi, 0);
  if (!rc) rc = cpk_jr_get_number(r, c, "mu", &p->mu, 0);
  if (!rc && p->mu < 0) {
    cpk_jr_push_key(r, "mu");
    return cpk_jr_fail(r, "must be >= 0");
  }
  if (!rc) rc = get_vector(r, c, "e", 0, &e, &ne);
  if (!rc && e) {
    cpk_jr_push_key(r, "e");
    if (ne != 2 && ne != 3)
      rc = cpk_jr_fail(r, "expected [e_t, e_o] or [e_t, e_o, e_r]");
    else if (!(e[0] > 0 && e[1] > 0 && (ne == 2 || e[2] >= 0)))
      rc = cpk_jr_fail(r, "need e_t > 0, e_o > 0, e_r >= 0");
    if (!rc) {
      p->e_t = e[0];
      p->e_o = e[1];
      p->e_r = ne == 3 ? e[2] : 0.0;
      cpk_jr_pop(r);
    }
  }
  free(e);
  if (!rc) rc = cpk_jr_get_fixed(r, c, "drift", 4, p->drift);
  return rc;
}

static int contact_params(rd *r, json_t *c, cpk_contact_params *p, double **dirs)
{
  cpk_contact_params_default(p);
  int rc = friction_params(r, c, p);
  if (!rc) rc = compliance(r, c, p);
  if (!rc) rc = directions(r, c, p, dirs);
  return rc;
}

/* ---- body-form contacts ----------------------------------------------------------- */

typedef struct wrench {
  size_t nrows;
  cpk_int rows[12];
  double w[4][12];
  cpk_int *rowbuf; /* sparse and full forms */
  double *wbuf[4];
} wrench;

static void wrench_free(wrench *w)
{
  free(w->rowbuf);
  for (int a = 0; a < 4; a++) free(w->wbuf[a]);
}

static int unit3(rd *r, json_t *c, const char *key, double v[3], int required)
{
  json_t *a = json_object_get(c, key);
  if (!a && !required) return CPK_OK;
  cpk_jr_push_key(r, key);
  if (!a) return cpk_jr_fail(r, "missing");
  double *x = NULL;
  int rc = cpk_jr_vector(r, a, 3, &x, NULL);
  if (rc) return rc;
  double norm = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  if (!(norm > 0)) rc = cpk_jr_fail(r, "must not be zero");
  for (int k = 0; !rc && k < 3; k++) v[k] = x[k] / norm;
  free(x);
  if (!rc) cpk_jr_pop(r);
  return rc;
}

/* Tangent: the given one made orthogonal to n, or a fixed choice. */
static int tangent(rd *r, json_t *c, const double n[3], double t[3])
{
  double given[3] = {0, 0, 0};
  int have = json_object_get(c, "tangent") != NULL;
  int rc = unit3(r, c, "tangent", given, 0);
  if (rc) return rc;
  if (!have) { /* the axis least aligned with n, made orthogonal */
    int k = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0
            : fabs(n[1]) <= fabs(n[2])                           ? 1
                                                                 : 2;
    given[k] = 1.0;
  }
  double dot = given[0] * n[0] + given[1] * n[1] + given[2] * n[2], norm = 0.0;
  for (int a = 0; a < 3; a++) {
    t[a] = given[a] - dot * n[a];
    norm += t[a] * t[a];
  }
  norm = sqrt(norm);
  cpk_jr_push_key(r, "tangent");
  if (norm < 1e-6) return cpk_jr_fail(r, "is parallel to the normal");
  cpk_jr_pop(r);
  for (int a = 0; a < 3; a++) t[a] /= norm;
  return CPK_OK;
}

/* One body's 6 rows: sign +1 for "body", -1 for "body2" (the reaction). */
static int body_rows(rd *r, json_t *c, const char *bkey, const char *pkey, double sign,
                     const double n[3], const double t[3], size_t nv, wrench *w)
{
  size_t b = 0;
  double pt[3] = {0, 0, 0}, W[4][6];
  cpk_jr_push_key(r, bkey);
  int rc = index_value(r, json_object_get(c, bkey), nv / 6, &b);
  if (rc) return rc;
  cpk_jr_pop(r);
  rc = cpk_jr_get_fixed(r, c, pkey, 3, pt);
  if (!rc)
    rc = cpk_rigid_contact_wrenches(pt, n, t, W[0], W[1], W[2], W[3]) ? cpk_jr_fail(r, "bad frame") : 0;
  for (size_t k = 0; !rc && k < 6; k++) {
    size_t row = 6 * b + k, at = w->nrows;
    for (size_t e = 0; e < w->nrows; e++)
      if ((size_t)w->rows[e] == row) at = e;
    if (at == w->nrows) {
      w->rows[w->nrows++] = (cpk_int)row;
      for (int a = 0; a < 4; a++) w->w[a][at] = 0.0;
    }
    for (int a = 0; a < 4; a++) w->w[a][at] += sign * W[a][k];
  }
  return rc;
}

static int geometric_wrench(rd *r, json_t *c, size_t nv, wrench *w)
{
  double n[3], t[3];
  if (nv % 6 != 0) return cpk_jr_fail(r, "\"body\" needs 6 velocities per body (nv = %zu)", nv);
  int rc = unit3(r, c, "normal", n, 1);
  if (!rc) rc = tangent(r, c, n, t);
  if (!rc) rc = body_rows(r, c, "body", "point", 1.0, n, t, nv, w);
  if (!rc && json_object_get(c, "body2"))
    rc = body_rows(r, c, "body2", "point2", -1.0, n, t, nv, w);
  return rc;
}

/* "rows": [...] with W_n.. of the same length, or W_n.. of length nv. */
static int listed_wrench(rd *r, json_t *c, size_t nv, wrench *w)
{
  static const char *const wk[4] = {"W_n", "W_t", "W_o", "W_r"};
  json_t *rows = json_object_get(c, "rows");
  size_t len = nv;
  if (rows) {
    cpk_jr_push_key(r, "rows");
    if (!json_is_array(rows) || json_array_size(rows) == 0 || json_array_size(rows) > nv)
      return cpk_jr_fail(r, "expected an array of 1 to %zu row indices", nv);
    len = json_array_size(rows);
    if (!(w->rowbuf = cpk_alloc_array(len, sizeof *w->rowbuf))) return cpk_jr_nomem(r);
    for (size_t k = 0; k < len; k++) {
      size_t row;
      cpk_jr_push_index(r, k);
      int rc = index_value(r, json_array_get(rows, k), nv, &row);
      if (rc) return rc;
      w->rowbuf[k] = (cpk_int)row;
      cpk_jr_pop(r);
    }
    cpk_jr_pop(r);
  }
  if (!json_object_get(c, "W_n")) {
    cpk_jr_push_key(r, "W_n");
    return cpk_jr_fail(r, "missing (give W_n, or body/normal)");
  }
  for (int a = 0; a < 4; a++) {
    int rc = get_vector(r, c, wk[a], len, &w->wbuf[a], NULL);
    if (rc) return rc;
  }
  if (!rows) {
    if (!(w->rowbuf = cpk_alloc_array(nv, sizeof *w->rowbuf))) return cpk_jr_nomem(r);
    for (size_t k = 0; k < nv; k++) w->rowbuf[k] = (cpk_int)k;
  }
  w->nrows = len;
  return CPK_OK;
}

static const char *const body_contact_keys[] = {
    "psi", "mu",  "e",    "drift", "compliance", "directions", "rows",   "W_n",     "W_t",
    "W_o", "W_r", "body", "point", "body2",      "point2",     "normal", "tangent", NULL};

static int body_contact(rd *r, json_t *c, cpk_contact_system *s)
{
  cpk_contact_params p;
  wrench w = {0};
  double *dirs = NULL;
  if (!json_is_object(c)) return cpk_jr_fail(r, "expected an object");
  int rc = cpk_jr_check_keys(r, c, body_contact_keys);
  if (!rc) rc = contact_params(r, c, &p, &dirs);
  if (!rc && json_object_get(c, "body")) {
    if (json_object_get(c, "W_n") || json_object_get(c, "rows"))
      rc = cpk_jr_fail(r, "give either body/normal or rows/W_n, not both");
    if (!rc) rc = geometric_wrench(r, c, s->nv, &w);
    if (!rc)
      rc = cpk_contact_system_add_contact(s, &p, w.nrows, w.rows, w.w[0], w.w[1], w.w[2], w.w[3],
                                          r->err);
  } else if (!rc) {
    rc = listed_wrench(r, c, s->nv, &w);
    if (!rc)
      rc = cpk_contact_system_add_contact(s, &p, w.nrows, w.rowbuf, w.wbuf[0], w.wbuf[1], w.wbuf[2],
                                          w.wbuf[3], r->err);
  }
  if (rc && rc != CPK_EPARSE) rc = cpk_jr_relay(r, rc);
  wrench_free(&w);
  free(dirs);
  return rc;
}

/* want = number of contacts expected (0: any); required: the key must be there. */
static int contacts_array(rd *r, json_t *root, cpk_contact_system *s, size_t want, int required)
{
  json_t *a = json_object_get(root, "contacts");
  if (!a && !required) return CPK_OK;
  cpk_jr_push_key(r, "contacts");
  if (!a) return cpk_jr_fail(r, "missing");
  if (!json_is_array(a)) return cpk_jr_fail(r, "expected an array of contacts");
  if (want && json_array_size(a) != want)
    return cpk_jr_fail(r, "expected %zu contacts (the size of q / dim), found %zu", want,
                json_array_size(a));
  for (size_t i = 0; i < json_array_size(a); i++) {
    cpk_jr_push_index(r, i);
    int rc;
    if (s->form == CPK_SYSTEM_BODY) {
      rc = body_contact(r, json_array_get(a, i), s);
    } else {
      cpk_contact_params p;
      double *dirs = NULL;
      static const char *const keys[] = {"psi",        "mu",         "e", "drift",
                                         "compliance", "directions", NULL};
      json_t *c = json_array_get(a, i);
      rc = json_is_object(c) ? cpk_jr_check_keys(r, c, keys) : cpk_jr_fail(r, "expected an object");
      if (!rc) rc = contact_params(r, c, &p, &dirs);
      if (!rc && cpk_contact_set_params(s, i, &p, r->err)) rc = cpk_jr_relay(r, CPK_EINVAL);
      free(dirs);
    }
    if (rc) return rc;
    cpk_jr_pop(r);
  }
  cpk_jr_pop(r);
  return CPK_OK;
}

/* ---- mass -------------------------------------------------------------------------- */

/* "bodies": [{"mass": m, "inertia": [Ixx, Iyy, Izz] or 3 rows}], 6 velocities each. */
static int bodies_mass(rd *r, json_t *a, cpk_csc **M, size_t *nv)
{
  static const char *const keys[] = {"mass", "inertia", NULL};
  trips t = {0};
  size_t nb = json_is_array(a) ? json_array_size(a) : 0;
  if (nb == 0) return cpk_jr_fail(r, "expected a non-empty array of bodies");
  int rc = trips_alloc(r, &t, 12 * nb);
  for (size_t b = 0; !rc && b < nb; b++) {
    json_t *o = json_array_get(a, b);
    double m = 0, I[9] = {0};
    cpk_jr_push_index(r, b);
    rc = json_is_object(o) ? cpk_jr_check_keys(r, o, keys) : cpk_jr_fail(r, "expected an object");
    if (!rc) rc = cpk_jr_get_number(r, o, "mass", &m, 1);
    if (!rc && !(m > 0)) rc = cpk_jr_fail(r, "mass must be > 0");
    if (!rc)
      rc = json_object_get(o, "inertia") ? stiffness(r, o, "inertia", I)
                                         : cpk_jr_fail(r, "inertia missing");
    for (size_t k = 0; !rc && k < 3; k++) trips_add(&t, 6 * b + k, 6 * b + k, m);
    for (size_t e = 0; !rc && e < 9; e++)
      if (I[e] != 0.0) trips_add(&t, 6 * b + 3 + e / 3, 6 * b + 3 + e % 3, I[e]);
    if (!rc) cpk_jr_pop(r);
  }
  *nv = 6 * nb;
  if (!rc && cpk_csc_from_triplets((cpk_int)*nv, (cpk_int)*nv, (cpk_int)t.n, t.i, t.j, t.x, M))
    rc = cpk_jr_nomem(r);
  trips_free(&t);
  return rc;
}

/* nv from "nv", else from the first sized item. A claimed nv must be backed by the file. */
static int body_size(rd *r, json_t *root, size_t *nv)
{
  json_t *M = json_object_get(root, "M"), *v = json_object_get(root, "v"),
         *k = json_object_get(root, "k");
  json_t *x = json_object_get(root, "nv"), *d = M ? json_object_get(M, "diagonal") : NULL;
  json_t *dn = M ? json_object_get(M, "dense") : NULL,
         *tr = M ? json_object_get(M, "triplets") : NULL;
  size_t backing = json_is_array(d)    ? json_array_size(d)
                   : json_is_array(dn) ? json_array_size(dn)
                   : json_is_array(tr) ? json_array_size(tr)
                                       : 0;
  *nv = json_is_array(v) ? json_array_size(v) : json_is_array(k) ? json_array_size(k) : backing;
  if (x) {
    cpk_jr_push_key(r, "nv");
    if (!json_is_integer(x) || json_integer_value(x) < 1 || (double)json_integer_value(x) > MAX_NV)
      return cpk_jr_fail(r, "expected an integer in 1..%.0f", MAX_NV);
    *nv = (size_t)json_integer_value(x);
    /* M needs nv positive diagonal entries, so the file holds at least nv numbers */
    if (*nv > backing && !(json_is_array(v) && json_array_size(v) >= *nv))
      return cpk_jr_fail(r, "nv = %zu is larger than the data given", *nv);
    cpk_jr_pop(r);
  }
  if (*nv == 0) return cpk_jr_fail(r, "cannot tell nv: give \"nv\", \"v\" or a diagonal/dense M");
  return CPK_OK;
}

static int body_mass(rd *r, json_t *root, cpk_csc **M, size_t *nv)
{
  json_t *b = json_object_get(root, "bodies"), *m = json_object_get(root, "M");
  int rc;
  if ((b != NULL) == (m != NULL)) return cpk_jr_fail(r, "give exactly one of \"M\" and \"bodies\"");
  if (b) {
    cpk_jr_push_key(r, "bodies");
    rc = bodies_mass(r, b, M, nv);
    if (!rc && json_object_get(root, "nv") &&
        (size_t)json_integer_value(json_object_get(root, "nv")) != *nv) {
      cpk_jr_pop(r);
      cpk_jr_push_key(r, "nv");
      rc = cpk_jr_fail(r, "does not match 6 x the number of bodies (%zu)", *nv);
    }
  } else {
    rc = body_size(r, root, nv);
    if (rc) return rc;
    cpk_jr_push_key(r, "M");
    rc = matrix_value(r, m, *nv, M);
  }
  if (!rc) cpk_jr_pop(r);
  return rc;
}

/* ---- the two forms ------------------------------------------------------------------- */

static const char *const body_keys[] = {"cpkit_contact_system", "name", "form", "h", "nv", "M",
                                        "bodies", "v", "k", "contacts", "influence", "u0", NULL};
static const char *const local_keys[] = {"cpkit_contact_system", "name", "form", "h", "dim", "W",
                                         "q", "mu", "contacts", "influence", "u0", NULL};

/* "influence": a matrix of 3 nc rows and columns (distributed compliance), "u0": 3 nc numbers.
 * Read after the contacts, which fix nc. */
static int influence(rd *r, json_t *root, cpk_contact_system *s)
{
  json_t *g = json_object_get(root, "influence");
  cpk_csc *G = NULL;
  double *u0 = NULL;
  if (!g && json_object_get(root, "u0")) {
    cpk_jr_push_key(r, "u0");
    return cpk_jr_fail(r, "given without \"influence\"");
  }
  if (!g) return CPK_OK;
  cpk_jr_push_key(r, "influence");
  int rc = s->nc > 0 ? matrix_value(r, g, 3 * s->nc, &G) : cpk_jr_fail(r, "the system has no contacts");
  if (!rc) cpk_jr_pop(r);
  if (!rc) rc = get_vector(r, root, "u0", 3 * s->nc, &u0, NULL);
  if (!rc && cpk_contact_system_set_compliance_matrix(s, G, u0, r->err)) {
    cpk_jr_push_key(r, "influence");
    rc = cpk_jr_relay(r, CPK_EINVAL);
  }
  cpk_csc_free(G);
  free(u0);
  return rc;
}

static int read_body(rd *r, json_t *root, cpk_contact_system **out)
{
  cpk_csc *M = NULL;
  double *v = NULL, *k = NULL, h = 0.0;
  size_t nv = 0;
  int rc = cpk_jr_check_keys(r, root, body_keys);
  if (!rc) rc = cpk_jr_get_number(r, root, "h", &h, 1);
  if (!rc && h < 0) {
    cpk_jr_push_key(r, "h");
    rc = cpk_jr_fail(r, "must be >= 0");
  }
  if (!rc) rc = body_mass(r, root, &M, &nv);
  if (!rc) rc = get_vector(r, root, "v", nv, &v, NULL);
  if (!rc) rc = get_vector(r, root, "k", nv, &k, NULL);
  if (!rc && cpk_contact_system_alloc_body(nv, M, v, k, h, out, r->err)) {
    cpk_jr_push_key(r, "M");
    rc = cpk_jr_relay(r, CPK_EINVAL);
  }
  if (!rc) rc = contacts_array(r, root, *out, 0, 0);
  if (!rc) rc = influence(r, root, *out);
  cpk_csc_free(M);
  free(v);
  free(k);
  return rc;
}

static int local_size(rd *r, json_t *root, size_t *dim, double **q, size_t *m)
{
  double d = 3;
  int rc = cpk_jr_get_number(r, root, "dim", &d, 0);
  if (!rc && d != 3 && d != 4) {
    cpk_jr_push_key(r, "dim");
    return cpk_jr_fail(r, "must be 3 (n, t, o) or 4 (n, t, o, r)");
  }
  *dim = (size_t)d;
  if (!rc && !json_object_get(root, "q")) {
    cpk_jr_push_key(r, "q");
    return cpk_jr_fail(r, "missing");
  }
  if (!rc) rc = get_vector(r, root, "q", 0, q, m);
  if (!rc && *m % *dim != 0) {
    cpk_jr_push_key(r, "q");
    return cpk_jr_fail(r, "length %zu is not a multiple of dim = %zu", *m, *dim);
  }
  return rc;
}

static int read_local(rd *r, json_t *root, cpk_contact_system **out)
{
  cpk_csc *W = NULL;
  double *q = NULL, *mu = NULL, h = 1.0;
  size_t dim = 3, m = 0;
  int rc = cpk_jr_check_keys(r, root, local_keys);
  if (!rc) rc = cpk_jr_get_number(r, root, "h", &h, 0);
  if (!rc && !(h > 0)) {
    cpk_jr_push_key(r, "h");
    rc = cpk_jr_fail(r, "must be > 0");
  }
  if (!rc) rc = local_size(r, root, &dim, &q, &m);
  if (!rc && !json_object_get(root, "W")) {
    cpk_jr_push_key(r, "W");
    rc = cpk_jr_fail(r, "missing");
  }
  if (!rc) {
    cpk_jr_push_key(r, "W");
    rc = matrix_value(r, json_object_get(root, "W"), m, &W);
    if (!rc) cpk_jr_pop(r);
  }
  if (!rc) rc = get_vector(r, root, "mu", m / dim, &mu, NULL);
  if (!rc && cpk_contact_system_alloc_local(m / dim, dim, W, q, mu, h, out, r->err))
    rc = cpk_jr_relay(r, CPK_EINVAL);
  if (!rc) rc = contacts_array(r, root, *out, m / dim, !json_object_get(root, "mu"));
  if (!rc) rc = influence(r, root, *out);
  cpk_csc_free(W);
  free(q);
  free(mu);
  return rc;
}

static int read_root(rd *r, json_t *root, cpk_contact_system **out)
{
  json_t *ver = json_object_get(root, "cpkit_contact_system"),
         *form = json_object_get(root, "form");
  json_t *name = json_object_get(root, "name");
  if (!json_is_object(root)) return cpk_jr_fail(r, "expected a JSON object");
  cpk_jr_push_key(r, "cpkit_contact_system");
  if (!ver)
    return cpk_jr_fail(r, "missing: a contact system file starts with \"cpkit_contact_system\": 1");
  if (!json_is_integer(ver) || json_integer_value(ver) != 1)
    return cpk_jr_fail(r, "unsupported version (expected 1)");
  cpk_jr_pop(r);
  cpk_jr_push_key(r, "form");
  if (form && !json_is_string(form)) return cpk_jr_fail(r, "expected \"body\" or \"local\"");
  const char *f = form ? json_string_value(form) : "body";
  if (strcmp(f, "body") != 0 && strcmp(f, "local") != 0)
    return cpk_jr_fail(r, "expected \"body\" or \"local\"");
  cpk_jr_pop(r);
  cpk_jr_push_key(r, "name");
  if (name && !json_is_string(name)) return cpk_jr_fail(r, "expected a string");
  cpk_jr_pop(r);
  int rc = strcmp(f, "body") == 0 ? read_body(r, root, out) : read_local(r, root, out);
  if (!rc && name && cpk_contact_system_set_name(*out, json_string_value(name))) rc = cpk_jr_nomem(r);
  return rc;
}

int cpk_contact_system_read_json_string(const char *text, const char *name,
                                        cpk_contact_system **out, cpk_error *err)
{
  rd r = {name ? name : "<string>", text, err, {{0}}, 0};
  json_t *root = NULL;
  *out = NULL;
  if (!text) return cpk_error_set(err, CPK_EINVAL, "no text");
  int rc = cpk_jr_parse(text, r.path, &root, err);
  if (rc) return rc;
  rc = read_root(&r, root, out);
  json_decref(root);
  if (rc) {
    cpk_contact_system_free(*out);
    *out = NULL;
  }
  return rc;
}

int cpk_contact_system_read_json_file(const char *path, cpk_contact_system **out, cpk_error *err)
{
  char *text = NULL;
  *out = NULL;
  int rc = cpk_jr_slurp(path, &text, err);
  if (!rc) rc = cpk_contact_system_read_json_string(text, path, out, err);
  free(text);
  return rc;
}

int cpk_contact_system_read_file(const char *path, cpk_contact_system **out, cpk_error *err)
{
  *out = NULL;
  if (cpk_file_is_hdf5(path)) return cpk_contact_system_read_fclib(path, out, err);
  return cpk_contact_system_read_json_file(path, out, err);
}
