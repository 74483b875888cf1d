/* solver_type.c: a solver bound to one problem object for re-solves: allocated once (workspace, factorizations), solved again after the problem's update_* methods, one result reused. */
#define NO_IMPORT_ARRAY
#include "ext.h"

typedef struct {
  PyObject_HEAD
  ext_problem *prob; /* kept alive: the solver borrows prob->p */
  const cpk_solver_type *T;
  cpk_solver *solver;
  cpk_result *r;
  int busy; /* a solve of this solver runs: its state is not shared between threads */
} ext_solver;

static void solver_dealloc(ext_solver *self)
{
  cpk_solver_free(self->solver);
  cpk_result_free(self->r);
  if (self->prob) self->prob->nbound--;
  Py_XDECREF(self->prob);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Allocate the solver for the problem (GIL released as for a solve); -1 with an exception. */
static int bind(ext_solver *self, const cpk_settings *s)
{
  cpk_error err;
  cpk_error_clear(&err);
  int rc = cpk_result_alloc(self->prob->p->n, &self->r);
  if (rc == CPK_OK) rc = ext_run_solve(self->prob, self->T, s, &self->solver, NULL, &err);
  if (rc > 0) ext_raise_error(rc, &err);
  return rc ? -1 : 0;
}

/* bind_solver(problem, solver, settings, z0, basis, covering) -> Solver. */
PyObject *ext_bind_solver(PyObject *module, PyObject *args)
{
  ext_problem *prob;
  const cpk_solver_type *T;
  ext_solve_inputs in = {NULL, NULL, NULL};
  cpk_settings s;
  ext_solver *self = NULL;
  if (ext_solve_args(args, &prob, &T, &in, &s) == 0 &&
      (self = PyObject_New(ext_solver, &ext_solver_type))) {
    Py_INCREF(prob);
    prob->nbound++;
    self->prob = prob;
    self->T = T;
    self->solver = NULL;
    self->r = NULL;
    self->busy = 0;
    if (bind(self, &s)) Py_CLEAR(self);
  }
  ext_solve_inputs_release(&in);
  return (PyObject *)self;
}

static PyObject *solver_solve(ext_solver *self, PyObject *unused)
{
  cpk_error err;
  cpk_settings unused_settings;
  if (self->busy) return ext_raise(CPK_EINVAL, "this Solver is solving in another thread");
  cpk_settings_default(&unused_settings); /* the bound solver keeps the settings it was made with */
  cpk_error_clear(&err);
  self->busy = 1;
  int rc = ext_run_solve(self->prob, self->T, &unused_settings, &self->solver, self->r, &err);
  self->busy = 0;
  if (rc < 0) return NULL;
  return rc ? ext_raise_error(rc, &err) : ext_result_dict(self->prob->p, self->r);
}

static PyObject *solver_warm_start(ext_solver *self, PyObject *args)
{
  PyObject *zobj, *bobj;
  PyArrayObject *z = NULL, *b = NULL;
  npy_intp n = (npy_intp)self->prob->p->n;
  if (!PyArg_ParseTuple(args, "OO", &zobj, &bobj)) return NULL;
  if (self->busy) return ext_raise(CPK_EINVAL, "this Solver is solving in another thread");
  if (zobj != Py_None && !(z = ext_vector(zobj, "z0", n))) return NULL;
  if (bobj != Py_None && !(b = ext_int_vector(bobj, n, "basis", EXT_BASIS_MEANING))) {
    Py_XDECREF(z);
    return NULL;
  }
  int rc = cpk_solver_set_warm_start(self->solver, z ? PyArray_DATA(z) : NULL,
                                     b ? PyArray_DATA(b) : NULL);
  Py_XDECREF(z);
  Py_XDECREF(b);
  if (rc) return ext_raise(rc, "warm start: z0 must be finite, basis entries 0, 1 or 2");
  Py_RETURN_NONE;
}

static PyMethodDef solver_methods[] = {
    {"solve", (PyCFunction)solver_solve, METH_NOARGS,
     "Solve the problem as it is now; -> dict of the result."},
    {"warm_start", (PyCFunction)solver_warm_start, METH_VARARGS,
     "warm_start(z0 or None, basis or None): the start of the next solves."},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_solver_type =
    EXT_TYPE("cpkit._cpkit.Solver", ext_solver, solver_dealloc,
             "A solver bound to one problem (build through cpkit.Solver).", solver_methods);
