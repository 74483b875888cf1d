/* arrays.c: NumPy array conversions of the Python extension (input vectors checked for shape, outputs copied). */
#define NO_IMPORT_ARRAY
#include <string.h>
#include "ext.h"

PyArrayObject *ext_vector(PyObject *obj, const char *what, npy_intp n)
{
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 0,
                                                      NPY_ARRAY_IN_ARRAY);
  if (!a) {
    PyErr_Clear();
    return (PyArrayObject *)ext_raise(CPK_EINVAL, "%s: not convertible to an array of floats", what);
  }
  if (PyArray_NDIM(a) != 1 || (n >= 0 && PyArray_DIM(a, 0) != n)) {
    if (PyArray_NDIM(a) != 1)
      ext_raise(CPK_EINVAL, "%s: expected a 1-D array, got %d dimensions", what, PyArray_NDIM(a));
    else
      ext_raise(CPK_EINVAL, "%s: expected length %ld, got %ld", what, (long)n,
                (long)PyArray_DIM(a, 0));
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

PyObject *ext_array_from(const double *x, size_t n)
{
  npy_intp dim = (npy_intp)n;
  PyObject *a = PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
  if (a && n) memcpy(PyArray_DATA((PyArrayObject *)a), x, n * sizeof *x);
  return a;
}

PyObject *ext_int_array_from(const int *x, size_t n)
{
  npy_intp dim = (npy_intp)n;
  PyObject *a = PyArray_SimpleNew(1, &dim, NPY_INT);
  if (a && n) memcpy(PyArray_DATA((PyArrayObject *)a), x, n * sizeof *x);
  return a;
}

PyArrayObject *ext_int_vector(PyObject *obj, npy_intp n, const char *what, const char *meaning)
{
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT, 1, 1,
                                                      NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
  if (a && PyArray_DIM(a, 0) == n) return a;
  PyErr_Clear();
  Py_XDECREF(a);
  return (PyArrayObject *)ext_raise(CPK_EINVAL, "%s: expected %ld integers (%s)", what, (long)n,
                                    meaning);
}
