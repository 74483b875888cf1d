/* system_type.c: contact systems for Python: read one (JSON or FCLIB), compile it with a model into a problem and its variable map, and turn a solution back into per-contact impulses, velocities and modes. */
#define NO_IMPORT_ARRAY
#include <stdlib.h>
#include "ext.h"

typedef struct {
  PyObject_HEAD
  cpk_varmap *m;
} ext_varmap;

static void system_dealloc(ext_system *self)
{
  cpk_contact_system_free(self->s);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static void varmap_dealloc(ext_varmap *self)
{
  cpk_varmap_free(self->m);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

PyObject *ext_system_wrap(cpk_contact_system *s)
{
  ext_system *obj = PyObject_New(ext_system, &ext_system_type);
  if (!obj) {
    cpk_contact_system_free(s);
    return NULL;
  }
  obj->s = s;
  return (PyObject *)obj;
}

PyObject *ext_read_system(PyObject *self, PyObject *args)
{
  PyObject *path_obj;
  cpk_contact_system *s = NULL;
  cpk_error err;
  int rc;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj)) return NULL;
  cpk_error_clear(&err);
  rc = ext_probe_file(PyBytes_AS_STRING(path_obj), &err);
  if (!rc) rc = cpk_contact_system_read_file(PyBytes_AS_STRING(path_obj), &s, &err);
  Py_DECREF(path_obj);
  if (rc) return ext_raise_error(rc, &err);
  return ext_system_wrap(s);
}

static PyObject *system_info(ext_system *self, PyObject *unused)
{
  const cpk_contact_system *s = self->s;
  return Py_BuildValue("{s:z,s:s,s:n,s:n,s:d}", "name", s->name, "form",
                       s->form == CPK_SYSTEM_LOCAL ? "local" : "body", "nc", (Py_ssize_t)s->nc,
                       "nv", (Py_ssize_t)s->nv, "h", s->h);
}

static int compile_options(const char *directions, int form, int dense, cpk_compile_options *o,
                           cpk_error *err)
{
  cpk_compile_options_default(o);
  if (form < CPK_FORM_AUTO || form > CPK_FORM_CONE)
    return cpk_error_set(err, CPK_EINVAL, "form must be auto, mixed, reduced or cone");
  o->form = (cpk_problem_form)form;
  o->dense = dense != 0;
  return directions ? cpk_compile_options_set_directions(o, directions, err) : CPK_OK;
}

/* compile(system, model, directions, form, dense) -> (Problem, VarMap); the Problem keeps the map alive. */
PyObject *ext_compile(PyObject *self, PyObject *args)
{
  ext_system *sys;
  const char *model, *directions;
  int form, dense, rc;
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "O!szip", &ext_system_type, &sys, &model, &directions, &form, &dense))
    return NULL;
  cpk_error_clear(&err);
  if ((rc = compile_options(directions, form, dense, &o, &err)) ||
      (rc = cpk_compile(sys->s, model, &o, &p, &m, &err)))
    return ext_raise_error(rc, &err);
  ext_varmap *map = PyObject_New(ext_varmap, &ext_varmap_type);
  if (!map) {
    cpk_problem_free(p);
    cpk_varmap_free(m);
    return NULL;
  }
  map->m = m;
  PyObject *prob = ext_problem_wrap(p, (PyObject *)map);
  return prob ? Py_BuildValue("(NN)", prob, map) : (Py_DECREF(map), NULL);
}

/* form_for_solver(model, solver, form) -> the form `cpkit solve-system` compiles in for that solver. */
PyObject *ext_form_for_solver(PyObject *self, PyObject *args)
{
  const char *model, *solver;
  int form;
  if (!PyArg_ParseTuple(args, "ssi", &model, &solver, &form)) return NULL;
  return PyLong_FromLong((long)cpk_compile_form_for_solver(model, solver, (cpk_problem_form)form));
}

static PyObject *matrix4(size_t nc)
{
  npy_intp dims[2] = {(npy_intp)nc, 4};
  return PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
}

static PyObject *modes_list(const int *modes, size_t nc)
{
  PyObject *list = PyList_New((Py_ssize_t)nc);
  for (size_t c = 0; list && c < nc; c++) {
    PyObject *name = PyUnicode_FromString(cpk_contact_mode_name(modes[c]));
    if (!name) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)c, name);
  }
  return list;
}

/* Per-contact physics of z: arrays P, U (nc x 4: n, t, o, r), modes, v (body form). */
static int contact_data(const cpk_varmap *m, const double *z, double tol, PyObject *out[4],
                        cpk_error *err)
{
  size_t nc = cpk_varmap_ncontacts(m), nv = cpk_varmap_nv(m);
  int *modes = cpk_alloc_array(nc, sizeof *modes);
  npy_intp nvi = (npy_intp)nv;
  int rc = CPK_ENOMEM;
  out[0] = matrix4(nc);
  out[1] = matrix4(nc);
  out[3] = nv ? PyArray_ZEROS(1, &nvi, NPY_DOUBLE, 0) : (Py_INCREF(Py_None), Py_None);
  if (modes && out[0] && out[1] && out[3] &&
      !(rc = cpk_varmap_impulses(m, z, PyArray_DATA((PyArrayObject *)out[0]))) &&
      !(rc = cpk_varmap_contact_velocities(m, z, PyArray_DATA((PyArrayObject *)out[1]), err)) &&
      !(rc = cpk_varmap_modes(m, z, tol, modes, err)) && nv)
    rc = cpk_varmap_velocity(m, z, PyArray_DATA((PyArrayObject *)out[3]), err);
  out[2] = rc ? NULL : modes_list(modes, nc);
  free(modes);
  return rc;
}

static PyObject *varmap_contacts(ext_varmap *self, PyObject *args)
{
  PyObject *zobj, *out[4] = {NULL, NULL, NULL, NULL};
  double tol;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "Od", &zobj, &tol)) return NULL;
  PyArrayObject *z = ext_vector(zobj, "z", (npy_intp)cpk_varmap_n(self->m));
  if (!z) return NULL;
  cpk_error_clear(&err);
  int rc = contact_data(self->m, PyArray_DATA(z), tol, out, &err);
  Py_DECREF(z);
  if (rc || !out[2]) {
    for (int k = 0; k < 4; k++) Py_XDECREF(out[k]);
    return rc ? ext_raise_error(rc, &err) : NULL;
  }
  return Py_BuildValue("{s:N,s:N,s:N,s:N}", "impulses", out[0], "contact_velocities", out[1], "modes",
                       out[2], "v", out[3]);
}

static PyObject *varmap_info(ext_varmap *self, PyObject *unused)
{
  const cpk_varmap *m = self->m;
  return Py_BuildValue("{s:s,s:n,s:n,s:n,s:O}", "model",
                       cpk_contact_model_name(cpk_varmap_model(m)), "n", (Py_ssize_t)cpk_varmap_n(m),
                       "nc", (Py_ssize_t)cpk_varmap_ncontacts(m), "nv", (Py_ssize_t)cpk_varmap_nv(m),
                       "mixed", cpk_varmap_is_mixed(m) ? Py_True : Py_False);
}

static PyMethodDef system_methods[] = {
    {"info", (PyCFunction)system_info, METH_NOARGS, "dict: name, form, nc, nv, h."},
    {"add_contact", (PyCFunction)ext_system_add_contact, METH_VARARGS,
     "add_contact(rows, wn, wt, wo, wr, (psi, mu, e_t, e_o, e_r, drift)): body form only."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef varmap_methods[] = {
    {"info", (PyCFunction)varmap_info, METH_NOARGS, "dict: model, n, nc, nv, mixed."},
    {"contacts", (PyCFunction)varmap_contacts, METH_VARARGS,
     "contacts(z, tol) -> dict: impulses, contact_velocities (nc x 4: n, t, o, r), modes, v."},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_system_type = EXT_TYPE("cpkit._cpkit.System", ext_system, system_dealloc,
                                        "A contact system owned by the library.", system_methods);

PyTypeObject ext_varmap_type =
    EXT_TYPE("cpkit._cpkit.VarMap", ext_varmap, varmap_dealloc,
             "The variable map of a compiled contact system.", varmap_methods);
