/* ext.h: declarations shared by the C files of the Python extension cpkit._cpkit (NumPy C API set-up, the Problem type, error raising). */
#ifndef CPKIT_PYTHON_EXT_H
#define CPKIT_PYTHON_EXT_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
/* One NumPy API table for the whole module: module.c imports it, the other files use it. */
#define PY_ARRAY_UNIQUE_SYMBOL cpkit_ARRAY_API
#include <numpy/arrayobject.h>
#include <cpkit/cpkit.h>

/** A Python object owning one cpk_problem. */
typedef struct {
  PyObject_HEAD
  cpk_problem *p;
  PyObject *owner; /**< what p->params points into (a compiled system's map), or NULL */
} ext_problem;

extern PyTypeObject ext_problem_type;
extern PyTypeObject ext_system_type;
extern PyTypeObject ext_varmap_type;

/** The static types of the module: a C struct freed by `dealloc`, plain methods. */
#define EXT_TYPE(name, ctype, dealloc, doc, methods)                                           \
  {                                                                                          \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = (name), .tp_basicsize = sizeof(ctype),          \
    .tp_dealloc = (destructor)(dealloc), .tp_flags = Py_TPFLAGS_DEFAULT, .tp_doc = (doc),    \
    .tp_methods = (methods)                                                                  \
  }

/** Wrap p (taken over; freed on failure); owner (may be NULL) is kept alive as long as p. */
PyObject *ext_problem_wrap(cpk_problem *p, PyObject *owner);

/** Raise cpkit.Error(message, code, name); returns NULL for `return ext_raise(...)`. */
PyObject *ext_raise(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Raise cpkit.Error from a filled cpk_error (its message, or cpk_strerror when empty). */
PyObject *ext_raise_error(int code, const cpk_error *err);
/** Remember the Python class cpkit.Error (called once by the package at import). */
PyObject *ext_register_error(PyObject *self, PyObject *cls);

/** A new C-contiguous float64 copy of a 1-D array of length n (n < 0: any length); NULL with cpkit.Error. */
PyArrayObject *ext_vector(PyObject *obj, const char *what, npy_intp n);
/** A new 1-D float64 array holding n doubles copied from x. */
PyObject *ext_array_from(const double *x, size_t n);

/* Module functions (problem_type.c, solve.c). */
PyObject *ext_affine_problem(PyObject *self, PyObject *args);
PyObject *ext_cone_problem(PyObject *self, PyObject *args);
PyObject *ext_read_problem(PyObject *self, PyObject *args);
PyObject *ext_solve(PyObject *self, PyObject *args);
PyObject *ext_settings_names(PyObject *self, PyObject *args);
PyObject *ext_read_system(PyObject *self, PyObject *args);
PyObject *ext_compile(PyObject *self, PyObject *args);
#endif
