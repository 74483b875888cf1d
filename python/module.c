/* module.c: the extension module cpkit._cpkit: its function table, initialisation (GSL's aborting handler turned off), the solver list and error raising. */
#include <stdarg.h>
#include <stdio.h>
#include <gsl/gsl_errno.h>
#include "ext.h"

/* The package's cpkit.Error class, registered at import; a RuntimeError until then. */
static PyObject *error_class;

PyObject *ext_register_error(PyObject *self, PyObject *cls)
{
  if (!PyType_Check(cls) || !PyObject_IsSubclass(cls, PyExc_Exception)) {
    PyErr_SetString(PyExc_TypeError, "expected an Exception subclass");
    return NULL;
  }
  Py_INCREF(cls);
  Py_XSETREF(error_class, cls);
  Py_RETURN_NONE;
}

static PyObject *raise_text(int code, const char *text)
{
  PyObject *cls = error_class ? error_class : PyExc_RuntimeError;
  PyObject *exc = PyObject_CallFunction(cls, "sis", text, code, cpk_errname(code));
  if (exc) {
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
  }
  return NULL;
}

PyObject *ext_raise(int code, const char *fmt, ...)
{
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return raise_text(code, text);
}

PyObject *ext_raise_error(int code, const cpk_error *err)
{
  return raise_text(code, err && err->message[0] ? err->message : cpk_strerror(code));
}

static PyObject *kinds_list(unsigned kinds)
{
  static const cpk_problem_kind all[] = {CPK_KIND_LCP, CPK_KIND_AFFINE_MCP, CPK_KIND_NONLINEAR_MCP,
                                         CPK_KIND_FRICTION_CONE};
  PyObject *list = PyList_New(0);
  for (size_t k = 0; list && k < sizeof all / sizeof all[0]; k++) {
    if (!(kinds & (unsigned)all[k])) continue;
    PyObject *name = PyUnicode_FromString(cpk_problem_kind_name(all[k]));
    if (!name || PyList_Append(list, name) < 0) Py_CLEAR(list);
    Py_XDECREF(name);
  }
  return list;
}

/* [(name, description, [kind names])] for every registered solver. */
static PyObject *ext_solvers(PyObject *self, PyObject *args)
{
  size_t count = cpk_solver_count();
  PyObject *list = PyList_New((Py_ssize_t)count);
  for (size_t k = 0; list && k < count; k++) {
    const cpk_solver_type *T = cpk_solver_at(k);
    PyObject *kinds = kinds_list(T->kinds);
    PyObject *item = kinds ? Py_BuildValue("(ssN)", T->name, T->description, kinds) : NULL;
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)k, item);
  }
  return list;
}

static PyObject *ext_version(PyObject *self, PyObject *args)
{
  return PyUnicode_FromString(cpk_version());
}

static PyMethodDef methods[] = {
    {"_register_error", ext_register_error, METH_O, "Set the exception class raised for library errors."},
    {"solvers", ext_solvers, METH_NOARGS, "[(name, description, [kinds])] of the registered solvers."},
    {"version", ext_version, METH_NOARGS, "Version string of the linked libcpkit."},
    {"affine_problem", ext_affine_problem, METH_VARARGS,
     "affine_problem(M, q, lower, upper): LCP (bounds None) or affine MCP; M a float64 2-D array "
     "or (m, n, indptr, indices, data) in CSC form."},
    {"cone_problem", ext_cone_problem, METH_VARARGS,
     "cone_problem(W, q, mu, dim): friction-cone problem, W as M above."},
    {"read_problem", ext_read_problem, METH_VARARGS, "read_problem(path): text format v1 or FCLIB HDF5."},
    {"solve", ext_solve, METH_VARARGS,
     "solve(problem, solver, settings, z0, basis, covering) -> dict of the result."},
    {"read_system", ext_read_system, METH_VARARGS, "read_system(path): contact system (JSON or FCLIB)."},
    {"compile", ext_compile, METH_VARARGS,
     "compile(system, model, directions, form, dense) -> (Problem, VarMap)."},
    {"nonlinear_problem", ext_nonlinear_problem, METH_VARARGS,
     "nonlinear_problem(n, F, J, (n, n, indptr, indices, data), lower, upper): F(z) -> n floats, "
     "J(z) -> the Jacobian's values in the pattern's CSC order."},
    {"bind_solver", ext_bind_solver, METH_VARARGS,
     "bind_solver(problem, solver, settings, z0, basis, covering) -> a Solver for re-solves."},
    {"check_problem", ext_check_problem, METH_VARARGS,
     "check_problem(problem, matrix_only, max_n, rel_tol, count_solutions) -> report dict."},
    {"check_contact", ext_check_contact, METH_VARARGS,
     "check_contact(system, model, max_n, rel_tol, count_solutions) -> report dict."},
    {"simulate", ext_simulate, METH_VARARGS,
     "simulate(source, is_text, model, solver, fallback, directions, h, duration, tol, implicit, "
     "max_iter, contacts) -> dict of arrays."},
    {"system_body", ext_system_body, METH_VARARGS,
     "system_body(nv, M as CSC tuple, v, k, h) -> body-form System without contacts."},
    {"system_local", ext_system_local, METH_VARARGS,
     "system_local(nc, dim, W as CSC tuple, q, mu, h) -> local-form System."},
    {"rigid_contact_wrenches", ext_rigid_contact_wrenches, METH_VARARGS,
     "rigid_contact_wrenches(r, n, t) -> 4 x 6 array of W_n, W_t, W_o, W_r."},
    {"form_for_solver", ext_form_for_solver, METH_VARARGS,
     "form_for_solver(model, solver, form) -> the form to compile in for that solver."},
    {"settings_names", ext_settings_names, METH_O,
     "settings_names(solver) -> names of the settings the solver takes."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cpkit._cpkit",
                                    "Low-level bindings of libcpkit; use the cpkit package.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cpkit(void);
PyMODINIT_FUNC PyInit__cpkit(void)
{
  PyObject *m;
  import_array();
  /* GSL's default handler aborts the process: the library reports errors through codes. */
  gsl_set_error_handler_off();
  if (PyType_Ready(&ext_problem_type) < 0 || PyType_Ready(&ext_system_type) < 0 ||
      PyType_Ready(&ext_varmap_type) < 0 || PyType_Ready(&ext_callbacks_type) < 0 ||
      PyType_Ready(&ext_solver_type) < 0)
    return NULL;
  m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&ext_problem_type);
  if (PyModule_AddObject(m, "Problem", (PyObject *)&ext_problem_type) < 0) {
    Py_DECREF(&ext_problem_type);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
