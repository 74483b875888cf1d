/* system_build.c: contact systems built from arrays for Python: body form (M, v, k, h) with contacts added one at a time, local form (W, q, mu), and the wrench columns of a rigid-body point contact. */
#define NO_IMPORT_ARRAY
#include <string.h>
#include "ext.h"

/* A vector of length n, or NULL for None (the library's zeros); -1 with cpkit.Error. */
static int optional(PyObject *obj, const char *what, npy_intp n, PyArrayObject **out)
{
  *out = obj == Py_None ? NULL : ext_vector(obj, what, n);
  return obj != Py_None && !*out ? -1 : 0;
}

static const double *data_or_null(PyArrayObject *a) { return a ? PyArray_DATA(a) : NULL; }

static void release(PyArrayObject **a, int count)
{
  for (int k = 0; k < count; k++) Py_XDECREF(a[k]);
}

/* system_body(nv, (nv, nv, indptr, indices, data), v, k, h) -> System with no contacts. */
PyObject *ext_system_body(PyObject *self, PyObject *args)
{
  Py_ssize_t nv;
  PyObject *mobj, *vobj, *kobj, *res = NULL;
  PyArrayObject *a[5] = {NULL, NULL, NULL, NULL, NULL}; /* M's three arrays, v, k */
  double h;
  cpk_csc M;
  cpk_contact_system *s = NULL;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "nOOOd", &nv, &mobj, &vobj, &kobj, &h)) return NULL;
  if (nv < 0) return ext_raise(CPK_EINVAL, "nv must be >= 0");
  cpk_error_clear(&err);
  if (ext_csc_view(mobj, "M", &M, a) == 0 && optional(vobj, "v", nv, &a[3]) == 0 &&
      optional(kobj, "k", nv, &a[4]) == 0) {
    int rc = cpk_contact_system_alloc_body((size_t)nv, &M, data_or_null(a[3]), data_or_null(a[4]),
                                           h, &s, &err);
    res = rc ? ext_raise_error(rc, &err) : ext_system_wrap(s);
  }
  release(a, 5);
  return res;
}

/* system_local(nc, dim, (n, n, indptr, indices, data), q, mu, h) -> System. */
PyObject *ext_system_local(PyObject *self, PyObject *args)
{
  Py_ssize_t nc, dim;
  PyObject *wobj, *qobj, *muobj, *res = NULL;
  PyArrayObject *a[5] = {NULL, NULL, NULL, NULL, NULL}; /* W's three arrays, q, mu */
  double h;
  cpk_csc W;
  cpk_contact_system *s = NULL;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "nnOOOd", &nc, &dim, &wobj, &qobj, &muobj, &h)) return NULL;
  if (nc < 0 || (dim != 3 && dim != 4))
    return ext_raise(CPK_EINVAL, "local form: nc >= 0 contacts of dim 3 or 4 unknowns");
  cpk_error_clear(&err);
  if (ext_csc_view(wobj, "W", &W, a) == 0 && (a[3] = ext_vector(qobj, "q", nc * dim)) &&
      optional(muobj, "mu", nc, &a[4]) == 0) {
    int rc = cpk_contact_system_alloc_local((size_t)nc, (size_t)dim, &W, PyArray_DATA(a[3]),
                                            data_or_null(a[4]), h, &s, &err);
    res = rc ? ext_raise_error(rc, &err) : ext_system_wrap(s);
  }
  release(a, 5);
  return res;
}

/* (psi, mu, e_t, e_o, e_r, drift or None) -> params; -1 with an exception. */
static int contact_params(PyObject *tuple, cpk_contact_params *p)
{
  PyObject *drift;
  PyArrayObject *d;
  cpk_contact_params_default(p);
  if (!PyArg_ParseTuple(tuple, "dddddO", &p->psi, &p->mu, &p->e_t, &p->e_o, &p->e_r, &drift))
    return -1;
  if (drift == Py_None) return 0;
  if (!(d = ext_vector(drift, "drift", 4))) return -1;
  memcpy(p->drift, PyArray_DATA(d), sizeof p->drift);
  Py_DECREF(d);
  return 0;
}

/* System.add_contact(rows, wn, wt, wo, wr, (psi, mu, e_t, e_o, e_r, drift)). */
PyObject *ext_system_add_contact(ext_system *self, PyObject *args)
{
  PyObject *robj, *w[4], *ptuple, *res = NULL;
  PyArrayObject *a[5] = {NULL, NULL, NULL, NULL, NULL}; /* rows, wn, wt, wo, wr */
  static const char *names[4] = {"wn", "wt", "wo", "wr"};
  cpk_contact_params p;
  cpk_error err;
  if (!PyArg_ParseTuple(args, "OOOOOO", &robj, &w[0], &w[1], &w[2], &w[3], &ptuple) ||
      contact_params(ptuple, &p))
    return NULL;
  a[0] = (PyArrayObject *)PyArray_FROMANY(robj, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
  if (!a[0]) {
    PyErr_Clear();
    return ext_raise(CPK_EINVAL, "rows: expected a 1-D array of 0-based generalized coordinates");
  }
  npy_intp nrows = PyArray_DIM(a[0], 0);
  int ok = (a[1] = ext_vector(w[0], names[0], nrows)) != NULL;
  for (int k = 1; ok && k < 4; k++) ok = optional(w[k], names[k], nrows, &a[k + 1]) == 0;
  cpk_error_clear(&err);
  if (ok) {
    int rc = cpk_contact_system_add_contact(self->s, &p, (size_t)nrows, PyArray_DATA(a[0]),
                                            PyArray_DATA(a[1]), data_or_null(a[2]),
                                            data_or_null(a[3]), data_or_null(a[4]), &err);
    res = rc ? ext_raise_error(rc, &err) : (Py_INCREF(Py_None), Py_None);
  }
  release(a, 5);
  return res;
}

/* rigid_contact_wrenches(r, n, t) -> 4 x 6 array: W_n, W_t, W_o, W_r of a point contact. */
PyObject *ext_rigid_contact_wrenches(PyObject *self, PyObject *args)
{
  PyObject *obj[3], *res = NULL;
  PyArrayObject *a[3] = {NULL, NULL, NULL};
  static const char *names[3] = {"r", "n", "t"};
  if (!PyArg_ParseTuple(args, "OOO", &obj[0], &obj[1], &obj[2])) return NULL;
  int ok = 1;
  for (int k = 0; ok && k < 3; k++) ok = (a[k] = ext_vector(obj[k], names[k], 3)) != NULL;
  npy_intp dims[2] = {4, 6};
  if (ok && (res = PyArray_ZEROS(2, dims, NPY_DOUBLE, 0))) {
    double *W = PyArray_DATA((PyArrayObject *)res);
    int rc = cpk_rigid_contact_wrenches(PyArray_DATA(a[0]), PyArray_DATA(a[1]), PyArray_DATA(a[2]),
                                        W, W + 6, W + 12, W + 18);
    if (rc) {
      Py_CLEAR(res);
      ext_raise(rc, "rigid_contact_wrenches: n and t must be orthogonal unit vectors");
    }
  }
  release(a, 3);
  return res;
}
