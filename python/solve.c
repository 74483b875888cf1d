/* solve.c: the extension's solve(): settings from a dict, warm start, one cpk_solver run with the GIL released, the result as a dict of arrays. */
#define NO_IMPORT_ARRAY
#include <string.h>
#include "ext.h"
#include "settings_table.h"

void ext_solve_inputs_release(ext_solve_inputs *in)
{
  Py_XDECREF(in->z0);
  Py_XDECREF(in->basis);
  Py_XDECREF(in->covering);
}

static int apply_linsys(PyObject *value, cpk_settings *s)
{
  const char *name = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
  if (name && (s->linsys = cpk_linsys_find(name))) return 0;
  PyErr_Clear();
  ext_raise(CPK_EINVAL, "linsys: unknown linear solver (valid: %s, %s)", cpk_linsys_dense->name,
            cpk_linsys_umfpack->name);
  return -1;
}

static int apply_one(const char *solver, PyObject *key, PyObject *value, cpk_settings *s)
{
  const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
  if (!name) return -1;
  if (strcmp(name, "linsys") == 0) return apply_linsys(value, s);
  const cpk_setting_desc *e = cpk_settings_find(solver, name);
  if (!e) {
    ext_raise(CPK_EINVAL, "unknown setting '%s' for solver '%s'", name, solver);
    return -1;
  }
  if (ext_setting_apply(e, value, s) == 0) return 0;
  PyErr_Clear();
  ext_raise(CPK_EINVAL, "setting '%s': expected %s", name,
            e->type == CPK_SETTING_DOUBLE ? "a number" : "an integer in range");
  return -1;
}

static int apply_settings(const char *solver, PyObject *dict, cpk_settings *s)
{
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "settings must be a dict");
    return -1;
  }
  while (PyDict_Next(dict, &pos, &key, &value))
    if (apply_one(solver, key, value, s)) return -1;
  return 0;
}

static int warm_start(PyObject *z0, PyObject *basis, PyObject *covering, npy_intp n,
                      ext_solve_inputs *in, cpk_settings *s)
{
  if (z0 != Py_None) {
    if (!(in->z0 = ext_vector(z0, "z0", n))) return -1;
    s->z0 = PyArray_DATA(in->z0);
  }
  if (basis != Py_None) {
    if (!(in->basis = ext_int_vector(basis, n, "basis", EXT_BASIS_MEANING))) return -1;
    s->basis0 = PyArray_DATA(in->basis);
  }
  if (covering != Py_None) {
    if (!(in->covering = ext_vector(covering, "covering", n))) return -1;
    s->lemke.covering = PyArray_DATA(in->covering);
  }
  return 0;
}

static PyObject *stats_dict(const cpk_result *r)
{
  PyObject *d = PyDict_New();
  for (size_t k = 0; d && k < r->nstats; k++) {
    PyObject *v = PyFloat_FromDouble(r->stats[k].value);
    if (!v || PyDict_SetItemString(d, r->stats[k].name, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyObject *solutions_array(const cpk_result *r)
{
  if (!r->nsolutions) Py_RETURN_NONE;
  npy_intp dims[2] = {(npy_intp)r->nsolutions, (npy_intp)r->n};
  PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (a) memcpy(PyArray_DATA(a), r->solutions, r->nsolutions * r->n * sizeof(double));
  return (PyObject *)a;
}

PyObject *ext_result_dict(const cpk_problem *p, const cpk_result *r)
{
  PyObject *merit = Py_None;
  Py_INCREF(Py_None);
  if (p->kind == CPK_KIND_FRICTION_CONE) {
    Py_DECREF(Py_None);
    merit = PyFloat_FromDouble(cpk_fc_merit(p, r->z, r->w));
  }
  PyObject *ray = r->has_ray ? ext_array_from(r->ray, r->n) : (Py_INCREF(Py_None), Py_None);
  return Py_BuildValue("{s:s,s:s,s:N,s:N,s:d,s:d,s:l,s:d,s:N,s:N,s:N,s:N,s:s,s:N}", "status",
                       cpk_status_name(r->status), "solver", r->solver ? r->solver : "", "z",
                       ext_array_from(r->z, r->n), "w", ext_array_from(r->w, r->n), "residual",
                       r->residual, "tolerance", r->tolerance, "iterations", r->iterations, "time",
                       r->time_s, "stats", stats_dict(r), "basis", r->has_basis ? ext_int_array_from(r->basis, r->n) : (Py_INCREF(Py_None), Py_None), "ray", ray,
                       "solutions", solutions_array(r), "message", r->message, "fc_merit", merit);
}

int ext_solve_args(PyObject *args, ext_problem **prob, const cpk_solver_type **T,
                   ext_solve_inputs *in, cpk_settings *s)
{
  const char *name;
  PyObject *settings, *z0, *basis, *covering;
  if (!PyArg_ParseTuple(args, "O!sOOOO", &ext_problem_type, prob, &name, &settings, &z0, &basis,
                        &covering))
    return -1;
  if (!(*T = cpk_solver_find(name))) {
    ext_raise(CPK_ENOTFOUND, "unknown solver '%s'", name);
    return -1;
  }
  cpk_settings_default(s);
  return apply_settings(name, settings, s) ||
                 warm_start(z0, basis, covering, (npy_intp)(*prob)->p->n, in, s)
             ? -1
             : 0;
}

/*
 * Alloc and solve without the GIL (the problem object is kept alive by the caller's
 * reference), except for a nonlinear problem: its F is Python code, or works in its
 * compiled map's buffers, which two threads must not share; the GIL serialises them.
 */
int ext_run_solve(ext_problem *prob, const cpk_solver_type *T, const cpk_settings *s,
                  cpk_solver **solver, cpk_result *r, cpk_error *err)
{
  cpk_settings local = *s;
  int rc = CPK_OK;
  if (prob->busy && prob->p->kind == CPK_KIND_NONLINEAR_MCP) {
    ext_raise(CPK_EINVAL, "this nonlinear problem is being solved in another thread");
    return -1;
  }
  ext_callbacks_prepare(prob, &local);
  prob->busy++;
  PyThreadState *ts = prob->p->kind == CPK_KIND_NONLINEAR_MCP ? NULL : PyEval_SaveThread();
  if (!*solver) rc = cpk_solver_alloc(T, prob->p, &local, solver, err);
  if (rc == CPK_OK && r) rc = cpk_solver_solve(*solver, r, err);
  if (ts) PyEval_RestoreThread(ts);
  prob->busy--;
  return ext_callbacks_reraise(prob) ? -1 : rc;
}

static PyObject *solve_with(const cpk_solver_type *T, ext_problem *prob, const cpk_settings *s)
{
  cpk_result *r = NULL;
  cpk_solver *solver = NULL;
  cpk_error err;
  PyObject *out = NULL;
  cpk_error_clear(&err);
  int rc = cpk_result_alloc(prob->p->n, &r);
  if (rc == CPK_OK) rc = ext_run_solve(prob, T, s, &solver, r, &err);
  if (rc >= 0) out = rc ? ext_raise_error(rc, &err) : ext_result_dict(prob->p, r);
  cpk_solver_free(solver);
  cpk_result_free(r);
  return out;
}

PyObject *ext_solve(PyObject *self, PyObject *args)
{
  ext_problem *prob;
  const cpk_solver_type *T;
  PyObject *out = NULL;
  ext_solve_inputs in = {NULL, NULL, NULL};
  cpk_settings s;
  if (ext_solve_args(args, &prob, &T, &in, &s) == 0) out = solve_with(T, prob, &s);
  ext_solve_inputs_release(&in);
  return out;
}
