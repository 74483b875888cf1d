/* simulate.c: a scene run by the time-stepper for Python: overrides, the states of every body after every step, per-step figures and (optionally) every contact, returned as NumPy arrays. */
#define NO_IMPORT_ARRAY
#include <stdlib.h>
#include <string.h>
#include "ext.h"

#define STATE_LEN 13 /* per body: x (3), q (4), v (3), w (3) */

typedef struct {
  double time, energy, residual, solve_time;
  long iterations;
  int status, fallbacks, physics_failures, sweeps, finishes, finish_errors;
  size_t ncontacts;
} step_row;

/* What the run records; grown by doubling. Row 0 is the initial state. */
typedef struct {
  size_t nb, rows, row_cap;
  step_row *steps;
  double *states; /* rows * nb * STATE_LEN */
  int keep_contacts;
  size_t ncont, cont_cap;
  cpk_sim_contact *contacts;
  size_t *contact_row;
  int rc;                 /* CPK_ENOMEM / CPK_EOVERFLOW when recording failed */
  double last_signal_check;
  PyObject *etype, *evalue, *etb; /* Ctrl-C during the run */
} recorder;

static int resize(void **buf, size_t count, size_t elem)
{
  size_t bytes;
  if (cpk_size_mul(count, elem, &bytes)) return CPK_EOVERFLOW;
  void *p = realloc(*buf, bytes ? bytes : 1);
  if (!p) return CPK_ENOMEM;
  *buf = p;
  return CPK_OK;
}

static int reserve_rows(recorder *R)
{
  if (R->rows < R->row_cap) return CPK_OK;
  size_t cap = R->row_cap ? 2 * R->row_cap : 64, per_row;
  int rc = cpk_size_mul(R->nb, STATE_LEN, &per_row);
  if (!rc && cap > R->row_cap) rc = resize((void **)&R->steps, cap, sizeof *R->steps);
  if (!rc) rc = resize((void **)&R->states, cap, per_row * sizeof(double));
  if (!rc) R->row_cap = cap;
  return cap > R->row_cap ? CPK_EOVERFLOW : rc;
}

static int record_contacts(recorder *R, const cpk_sim_step_info *info)
{
  size_t need = R->ncont + info->ncontacts;
  if (!info->ncontacts) return CPK_OK;
  if (need > R->cont_cap) {
    size_t cap = need > 2 * R->cont_cap ? need : 2 * R->cont_cap;
    int rc = resize((void **)&R->contacts, cap, sizeof *R->contacts);
    if (!rc) rc = resize((void **)&R->contact_row, cap, sizeof *R->contact_row);
    if (rc) return rc;
    R->cont_cap = cap;
  }
  memcpy(R->contacts + R->ncont, info->contacts, info->ncontacts * sizeof *info->contacts);
  for (size_t k = 0; k < info->ncontacts; k++) R->contact_row[R->ncont + k] = R->rows;
  R->ncont = need;
  return CPK_OK;
}

/* One row: every body's state now, and what the step did (info NULL: the initial state). */
static int record(recorder *R, const cpk_world *w, const cpk_sim_step_info *info)
{
  int rc = reserve_rows(R);
  if (!rc && info && R->keep_contacts) rc = record_contacts(R, info);
  if (rc) return rc;
  double *s = R->states + R->rows * R->nb * STATE_LEN;
  for (size_t b = 0; b < R->nb; b++, s += STATE_LEN) {
    const cpk_body *B = cpk_world_body(w, b);
    memcpy(s, B->x, 3 * sizeof *s);
    memcpy(s + 3, B->q, 4 * sizeof *s);
    memcpy(s + 7, B->v, 3 * sizeof *s);
    memcpy(s + 10, B->w, 3 * sizeof *s);
  }
  step_row *row = &R->steps[R->rows++];
  *row = (step_row){cpk_world_time(w), cpk_world_energy(w), 0.0, 0.0, 0, CPK_STATUS_SOLVED, 0, 0, 0, 0, 0, 0};
  if (info)
    *row = (step_row){info->time,       cpk_world_energy(w), info->residual,
                      info->solve_time_s, info->iterations, (int)info->status,
                      info->fallbacks,  info->physics_failures, info->sweeps, info->finishes,
                      info->finish_errors, info->ncontacts};
  return CPK_OK;
}

/* Ctrl-C: look at Python's signals at most every 0.2 s (the GIL is taken for that only). */
static int interrupted(recorder *R)
{
  double now = cpk_wtime();
  if (now - R->last_signal_check < 0.2) return 0;
  R->last_signal_check = now;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) PyErr_Fetch(&R->etype, &R->evalue, &R->etb);
  PyGILState_Release(g);
  return R->etype != NULL;
}

static int on_step(const cpk_world *w, const cpk_sim_step_info *info, void *data)
{
  recorder *R = data;
  R->rc = record(R, w, info);
  return R->rc || interrupted(R);
}

static void recorder_free(recorder *R)
{
  free(R->steps);
  free(R->states);
  free(R->contacts);
  free(R->contact_row);
  Py_XDECREF(R->etype);
  Py_XDECREF(R->evalue);
  Py_XDECREF(R->etb);
}

/* The overrides of `cpkit simulate`'s options; NULL / <= 0 / < 0 leave the scene's value. */
typedef struct {
  const char *model, *solver, *fallback, *directions;
  double h, duration, tol;
  int implicit;
  long max_iter;
} sim_overrides;

static int apply_overrides(cpk_scene *scene, const sim_overrides *o, cpk_error *err)
{
  cpk_sim_settings *S = cpk_scene_settings(scene);
  const char *names[2] = {o->solver, o->fallback};
  if (o->model && !cpk_sim_model_known(o->model))
    return cpk_error_set(err, CPK_ENOTFOUND, "unknown model '%s' (valid: point-coulomb, "
                         "elliptic-torsional, polyhedral, kelvin-voigt, distributed, "
                         "kelvin-voigt-implicit)", o->model);
  for (int k = 0; k < 2; k++)
    if (names[k] && !cpk_solver_find(names[k]))
      return cpk_error_set(err, CPK_ENOTFOUND, "unknown solver '%s' (see cpkit.solvers())", names[k]);
  if (o->directions) {
    int rc = cpk_compile_options_set_directions(&S->compile, o->directions, err);
    if (rc) return rc;
  }
  S->timings = 1; /* the steps' solve_time_s column */
  if (o->model) snprintf(S->model, sizeof S->model, "%s", o->model);
  if (o->solver) snprintf(S->solver, sizeof S->solver, "%s", o->solver);
  if (o->fallback) snprintf(S->fallback, sizeof S->fallback, "%s", o->fallback);
  if (o->h > 0) S->h = o->h;
  if (o->duration > 0) cpk_scene_set_duration(scene, o->duration);
  if (o->implicit >= 0) S->implicit_iterations = o->implicit;
  if (o->tol > 0) S->solve.tol = o->tol;
  if (o->max_iter > 0) S->solve.max_iter = o->max_iter;
  return CPK_OK;
}

/* Read the scene (a file, or JSON text), apply the overrides, run it into R (no GIL needed). */
static int run_scene(const char *source, int is_text, const sim_overrides *o, recorder *R,
                     cpk_scene **scene, cpk_world **world, long *steps, cpk_error *err)
{
  int rc = is_text ? cpk_scene_read_string(source, "<scene>", scene, err)
                   : cpk_scene_read_file(source, scene, err);
  if (!rc) rc = apply_overrides(*scene, o, err);
  if (!rc) rc = cpk_scene_world(*scene, world, err);
  if (rc) return rc;
  R->nb = cpk_world_nbodies(*world);
  if ((R->rc = record(R, *world, NULL))) return cpk_error_set(err, R->rc, "simulate: %s", cpk_strerror(R->rc));
  rc = cpk_scene_run(*scene, *world, on_step, R, steps, err);
  if (!rc && R->rc) rc = cpk_error_set(err, R->rc, "simulate: recording the trajectory: %s",
                                       cpk_strerror(R->rc));
  return rc;
}

static PyObject *new_array(npy_intp d0, npy_intp d1, npy_intp d2, int type)
{
  npy_intp dims[3] = {d0, d1, d2};
  return PyArray_ZEROS(d2 ? 3 : d1 ? 2 : 1, dims, type, 0);
}

#define AT(a, T, k) (((T *)PyArray_DATA((PyArrayObject *)(a)))[k])

/* Per-step figures: time, energy, residual, solve_time, iterations, fallbacks, physics_failures, sweeps, ncontacts, finishes, finish_errors, status (names). */
static PyObject *steps_dict(const recorder *R)
{
  npy_intp n = (npy_intp)R->rows;
  PyObject *d[4], *l[7], *status = PyList_New(n);
  for (int k = 0; k < 4; k++) d[k] = new_array(n, 0, 0, NPY_DOUBLE);
  for (int k = 0; k < 7; k++) l[k] = new_array(n, 0, 0, NPY_INT64);
  for (npy_intp i = 0; status && i < n; i++) {
    const step_row *s = &R->steps[i];
    PyObject *name = PyUnicode_FromString(cpk_status_name((cpk_status)s->status));
    if (!name || !d[3] || !l[6]) {
      Py_XDECREF(name);
      Py_CLEAR(status);
      break;
    }
    PyList_SET_ITEM(status, i, name);
    AT(d[0], double, i) = s->time, AT(d[1], double, i) = s->energy;
    AT(d[2], double, i) = s->residual, AT(d[3], double, i) = s->solve_time;
    AT(l[0], npy_int64, i) = s->iterations, AT(l[1], npy_int64, i) = s->fallbacks;
    AT(l[2], npy_int64, i) = s->physics_failures, AT(l[3], npy_int64, i) = s->sweeps;
    AT(l[4], npy_int64, i) = (npy_int64)s->ncontacts, AT(l[5], npy_int64, i) = s->finishes;
    AT(l[6], npy_int64, i) = s->finish_errors;
  }
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "time", d[0], "energy",
                       d[1], "residual", d[2], "solve_time", d[3], "iterations", l[0], "fallbacks",
                       l[1], "physics_failures", l[2], "sweeps", l[3], "ncontacts", l[4],
                       "finishes", l[5], "finish_errors", l[6], "status", status);
}

static PyObject *states_array(const recorder *R)
{
  PyObject *a = new_array((npy_intp)R->rows, (npy_intp)R->nb, STATE_LEN, NPY_DOUBLE);
  if (a && R->rows && R->nb)
    memcpy(PyArray_DATA((PyArrayObject *)a), R->states, R->rows * R->nb * STATE_LEN * sizeof(double));
  return a;
}

/* Every contact of every step: row (index into time), bodies, feature, point, normal, gap, impulse (n, t, o, r), mode. */
static PyObject *contacts_dict(const recorder *R)
{
  if (!R->keep_contacts) Py_RETURN_NONE;
  npy_intp n = (npy_intp)R->ncont;
  PyObject *row = new_array(n, 0, 0, NPY_INT64), *bodies = new_array(n, 2, 0, NPY_INT64);
  PyObject *feature = new_array(n, 0, 0, NPY_INT64), *mode = new_array(n, 0, 0, NPY_INT64);
  PyObject *point = new_array(n, 3, 0, NPY_DOUBLE), *normal = new_array(n, 3, 0, NPY_DOUBLE);
  PyObject *gap = new_array(n, 0, 0, NPY_DOUBLE), *P = new_array(n, 4, 0, NPY_DOUBLE);
  for (npy_intp k = 0; row && bodies && feature && mode && point && normal && gap && P && k < n; k++) {
    const cpk_sim_contact *c = &R->contacts[k];
    AT(row, npy_int64, k) = (npy_int64)R->contact_row[k];
    AT(bodies, npy_int64, 2 * k) = (npy_int64)c->body[0];
    AT(bodies, npy_int64, 2 * k + 1) = (npy_int64)c->body[1];
    AT(feature, npy_int64, k) = c->feature, AT(mode, npy_int64, k) = c->mode;
    AT(gap, double, k) = c->gap;
    memcpy(&AT(point, double, 3 * k), c->point, 3 * sizeof(double));
    memcpy(&AT(normal, double, 3 * k), c->normal, 3 * sizeof(double));
    memcpy(&AT(P, double, 4 * k), c->P, 4 * sizeof(double));
  }
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "row", row, "bodies", bodies, "feature",
                       feature, "point", point, "normal", normal, "gap", gap, "impulse", P, "mode", mode);
}

static PyObject *checks_list(cpk_scene *scene)
{
  size_t n = cpk_scene_nchecks(scene);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t k = 0; list && k < n; k++) {
    const cpk_scene_check *c = cpk_scene_check_get(scene, k);
    PyObject *item = Py_BuildValue("{s:s,s:s,s:d,s:d,s:O,s:d,s:O,s:s}", "label", c->label, "quantity",
                                   c->quantity, "expected", c->expected, "tol", c->tol, "measured",
                                   c->measured_valid ? Py_True : Py_False, "value", c->measured,
                                   "passed", c->passed ? Py_True : Py_False, "why", c->why);
    if (!item) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)k, item);
  }
  return list;
}

static PyObject *bodies_list(const cpk_world *w)
{
  static const char *kinds[] = {"dynamic", "fixed", "driven"};
  size_t n = cpk_world_nbodies(w);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t b = 0; list && b < n; b++) {
    const cpk_body *B = cpk_world_body(w, b);
    PyObject *item = Py_BuildValue("(ss)", B->name, kinds[B->kind <= CPK_BODY_DRIVEN ? B->kind : 0]);
    if (!item) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)b, item);
  }
  return list;
}

static PyObject *result_of(const recorder *R, cpk_scene *scene, const cpk_world *w, long steps,
                           int rc, const cpk_error *err)
{
  return Py_BuildValue("{s:s,s:N,s:N,s:N,s:N,s:N,s:l,s:d,s:d,s:i,s:s,s:s}", "name",
                       cpk_scene_name(scene), "bodies", bodies_list(w), "state", states_array(R),
                       "steps_data", steps_dict(R), "contacts", contacts_dict(R), "checks",
                       checks_list(scene), "steps", steps, "h", cpk_world_settings(w)->h, "duration",
                       cpk_scene_duration(scene), "error_code", rc, "error_name", cpk_errname(rc),
                       "error", rc ? (err->message[0] ? err->message : cpk_strerror(rc)) : "");
}

/* simulate(source, is_text, model, solver, fallback, directions, h, duration, tol, implicit,
   max_iter, contacts) -> dict; a failed step gives the dict with its error (the trajectory so far). */
PyObject *ext_simulate(PyObject *self, PyObject *args)
{
  PyObject *src, *out = NULL;
  int is_text, rc;
  sim_overrides o;
  recorder R;
  cpk_scene *scene = NULL;
  cpk_world *world = NULL;
  cpk_error err;
  long steps = 0;
  memset(&R, 0, sizeof R);
  if (!PyArg_ParseTuple(args, "O&pzzzzdddilp", PyUnicode_FSConverter, &src, &is_text, &o.model,
                        &o.solver, &o.fallback, &o.directions, &o.h, &o.duration, &o.tol,
                        &o.implicit, &o.max_iter, &R.keep_contacts))
    return NULL;
  cpk_error_clear(&err);
  Py_BEGIN_ALLOW_THREADS
  rc = run_scene(PyBytes_AS_STRING(src), is_text, &o, &R, &scene, &world, &steps, &err);
  Py_END_ALLOW_THREADS
  Py_DECREF(src);
  if (R.etype) { /* interrupted: the signal handler's exception */
    PyErr_Restore(R.etype, R.evalue, R.etb);
    R.etype = R.evalue = R.etb = NULL;
  } else if (!world || R.rc) {
    ext_raise_error(rc, &err);
  } else {
    out = result_of(&R, scene, world, steps, rc, &err);
  }
  recorder_free(&R);
  cpk_world_free(world);
  cpk_scene_free(scene);
  return out;
}
