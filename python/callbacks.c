/* callbacks.c: nonlinear MCPs whose F and Jacobian are Python callables: the C callbacks that call them, and the exception a callback raised, kept until the solve returns and then re-raised. */
#define NO_IMPORT_ARRAY
#include <string.h>
#include "ext.h"

/*
 * The problem's params. F(z) must return n floats and J(z) the Jacobian's values in the
 * pattern's CSC order (the package's wrappers in _nonlinear.py make them so). The first
 * exception a callback raises is kept; from then on every callback fails at once and the
 * iteration callback stops the solve, so the exception comes back as soon as possible.
 */
typedef struct {
  PyObject_HEAD
  PyObject *F, *J;
  size_t n;
  PyObject *etype, *evalue, *etb; /* the kept exception, or NULL */
} ext_callbacks;

static void forget(ext_callbacks *cb)
{
  Py_CLEAR(cb->etype);
  Py_CLEAR(cb->evalue);
  Py_CLEAR(cb->etb);
}

static void callbacks_dealloc(ext_callbacks *self)
{
  Py_XDECREF(self->F);
  Py_XDECREF(self->J);
  forget(self);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Keep the pending exception (the first one only); the Python error state is cleared. */
static void keep_exception(ext_callbacks *cb)
{
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  if (cb->etype || !t) {
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return;
  }
  PyErr_NormalizeException(&t, &v, &tb);
  if (tb && v) PyException_SetTraceback(v, tb);
  cb->etype = t;
  cb->evalue = v;
  cb->etb = tb;
}

/* Call fn(copy of z) and copy its 1-D float64 answer of length len into out. */
static int call_into(ext_callbacks *cb, PyObject *fn, const double *z, double *out, size_t len,
                     const char *what)
{
  if (cb->etype) return 1; /* a callback failed already: stop */
  PyGILState_STATE g = PyGILState_Ensure();
  int rc = 1;
  PyObject *zarr = ext_array_from(z, cb->n);
  PyObject *res = zarr ? PyObject_CallFunctionObjArgs(fn, zarr, NULL) : NULL;
  PyArrayObject *a = res ? ext_vector(res, what, (npy_intp)len) : NULL;
  if (a) {
    if (len) memcpy(out, PyArray_DATA(a), len * sizeof *out);
    rc = 0;
  } else {
    keep_exception(cb);
  }
  Py_XDECREF(a);
  Py_XDECREF(res);
  Py_XDECREF(zarr);
  PyGILState_Release(g);
  return rc;
}

static int call_f(const double *z, double *f, void *params)
{
  ext_callbacks *cb = params;
  return call_into(cb, cb->F, z, f, cb->n, "F(z)");
}

static int call_jacobian(const double *z, cpk_csc *J, void *params)
{
  ext_callbacks *cb = params;
  return call_into(cb, cb->J, z, J->x, (size_t)J->p[J->n], "jacobian values");
}

/* The iteration callback: stop after a callback failure, or on Ctrl-C (the GIL is held). */
static int stop_check(const cpk_iteration_info *info, void *data)
{
  ext_callbacks *cb = data;
  if (cb->etype) return 1;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) keep_exception(cb);
  PyGILState_Release(g);
  return cb->etype != NULL;
}

static ext_callbacks *callbacks_of(ext_problem *prob)
{
  return prob->owner && Py_TYPE(prob->owner) == &ext_callbacks_type ? (ext_callbacks *)prob->owner
                                                                      : NULL;
}

void ext_callbacks_prepare(ext_problem *prob, cpk_settings *s)
{
  ext_callbacks *cb = callbacks_of(prob);
  if (!cb) return;
  forget(cb);
  s->callback = stop_check;
  s->callback_data = cb;
}

int ext_callbacks_reraise(ext_problem *prob)
{
  ext_callbacks *cb = callbacks_of(prob);
  if (!cb || !cb->etype) return 0;
  PyErr_Restore(cb->etype, cb->evalue, cb->etb); /* steals the references */
  cb->etype = cb->evalue = cb->etb = NULL;
  return -1;
}

static int bounds_args(PyObject *lobj, PyObject *uobj, npy_intp n, PyArrayObject **l,
                       PyArrayObject **u)
{
  *l = *u = NULL;
  if (lobj != Py_None && !(*l = ext_vector(lobj, "lower", n))) return -1;
  if (uobj != Py_None && !(*u = ext_vector(uobj, "upper", n))) return -1;
  return 0;
}

static ext_callbacks *callbacks_new(PyObject *F, PyObject *J, size_t n)
{
  if (!PyCallable_Check(F) || !PyCallable_Check(J)) {
    PyErr_SetString(PyExc_TypeError, "F and jacobian must be callable");
    return NULL;
  }
  ext_callbacks *cb = PyObject_New(ext_callbacks, &ext_callbacks_type);
  if (!cb) return NULL;
  Py_INCREF(F);
  Py_INCREF(J);
  cb->F = F;
  cb->J = J;
  cb->n = n;
  cb->etype = cb->evalue = cb->etb = NULL;
  return cb;
}

/* nonlinear_problem(n, F, J, (n, n, indptr, indices, data), lower, upper) -> Problem. */
PyObject *ext_nonlinear_problem(PyObject *self, PyObject *args)
{
  Py_ssize_t n;
  PyObject *F, *J, *pattern, *lobj, *uobj, *res = NULL;
  PyArrayObject *arr[3] = {NULL, NULL, NULL}, *l = NULL, *u = NULL;
  cpk_csc view;
  cpk_problem *p = NULL;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "nOOOOO", &n, &F, &J, &pattern, &lobj, &uobj)) return NULL;
  if (n < 0) return ext_raise(CPK_EINVAL, "n must be >= 0");
  ext_callbacks *cb = callbacks_new(F, J, (size_t)n);
  if (cb && ext_csc_view(pattern, "jac_pattern", &view, arr) == 0 &&
      bounds_args(lobj, uobj, n, &l, &u) == 0) {
    int rc = cpk_problem_alloc_nonlinear_mcp((size_t)n, call_f, call_jacobian, &view, cb,
                                             l ? PyArray_DATA(l) : NULL, u ? PyArray_DATA(u) : NULL, &p);
    cpk_error_clear(&err);
    if (rc == CPK_EINVAL)
      ext_raise(rc, "jac_pattern: must be %zd-by-%zd with row indices in range, sorted and unique "
                    "in each column", n, n);
    else if (rc)
      ext_raise(rc, "nonlinear problem: %s", cpk_strerror(rc));
    else if ((rc = cpk_problem_validate(p, &err)))
      ext_raise_error(rc, &err);
    else
      res = ext_problem_wrap(p, (PyObject *)cb), p = NULL;
    cpk_problem_free(p);
  }
  for (int k = 0; k < 3; k++) Py_XDECREF(arr[k]);
  Py_XDECREF(l);
  Py_XDECREF(u);
  Py_XDECREF(cb);
  return res;
}

PyTypeObject ext_callbacks_type =
    EXT_TYPE("cpkit._cpkit.Callbacks", ext_callbacks, callbacks_dealloc,
             "The Python F and Jacobian of a nonlinear problem (its params).", NULL);
