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
  PyObject *owner; /**< what p->params points into (a compiled system's map, Python callbacks), or NULL */
  int busy;        /**< solves running (maybe without the GIL): updates are refused meanwhile */
  int nbound;      /**< Solver objects bound to p: its structure (friction-index rows) is fixed */
} ext_problem;

/** A Python object owning one contact system. */
typedef struct {
  PyObject_HEAD
  cpk_contact_system *s;
} ext_system;

extern PyTypeObject ext_problem_type;
extern PyTypeObject ext_system_type;
extern PyTypeObject ext_varmap_type;
extern PyTypeObject ext_callbacks_type;
extern PyTypeObject ext_solver_type;

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
/* Read an HDF5 (FCLIB) file once in a child process first, so a file that crashes libhdf5 itself
   raises cpkit.Error instead of killing the interpreter (cpk_fclib_probe); CPK_OK for other files. */
int ext_probe_file(const char *path, cpk_error *err);
/** Remember the Python class cpkit.Error (called once by the package at import). */
PyObject *ext_register_error(PyObject *self, PyObject *cls);

/** A new C-contiguous float64 copy of a 1-D array of length n (n < 0: any length); NULL with cpkit.Error. */
PyArrayObject *ext_vector(PyObject *obj, const char *what, npy_intp n);
/** A new 1-D float64 array holding n doubles copied from x. */
PyObject *ext_array_from(const double *x, size_t n);
/** A new 1-D int array holding n ints copied from x. */
PyObject *ext_int_array_from(const int *x, size_t n);
/** A new int copy of a 1-D array of n integers; NULL with cpkit.Error naming what and its meaning. */
PyArrayObject *ext_int_vector(PyObject *obj, npy_intp n, const char *what, const char *meaning);
/** What a basis holds, for messages. */
#define EXT_BASIS_MEANING "0 lower, 1 upper, 2 basic"

/** A CSC view of (m, n, indptr, indices, data) with the arrays kept in arr[3] (release with
    Py_XDECREF each); pointers checked (0 .. nnz, never decreasing). -1 with cpkit.Error. */
int ext_csc_view(PyObject *tuple, const char *what, cpk_csc *view, PyArrayObject *arr[3]);

/** Arrays the settings of one solve point into: they live until the solver has copied them. */
typedef struct {
  PyArrayObject *z0, *basis, *covering;
} ext_solve_inputs;
/**
 * Parse (problem, solver name, settings dict, z0, basis, covering), the arguments of solve and
 * bind_solver, into the problem, the solver type and settings (default, then the dict and the
 * warm start; arrays kept in `in`). -1 with an exception.
 */
int ext_solve_args(PyObject *args, ext_problem **prob, const cpk_solver_type **T,
                   ext_solve_inputs *in, cpk_settings *s);
void ext_solve_inputs_release(ext_solve_inputs *in);
/** The result as the dict cpkit.Result is built from. */
PyObject *ext_result_dict(const cpk_problem *p, const cpk_result *r);
/**
 * Run alloc (when *solver is NULL) and solve (when r is not NULL) of a problem object: without the GIL unless the
 * problem is nonlinear (its F is Python code or works in a shared map), marked busy meanwhile.
 * A Python callback's exception is re-raised: -1 then; else the library's code.
 */
int ext_run_solve(ext_problem *prob, const cpk_solver_type *T, const cpk_settings *s,
                  cpk_solver **solver, cpk_result *r, cpk_error *err);
/** -1 with cpkit.Error when prob is being solved (updates must wait), else 0. */
int ext_problem_check_idle(ext_problem *prob);

/* Python callbacks of nonlinear problems (callbacks.c). */
/** Forget a previous callback failure before a solve; install the stop check in s. */
void ext_callbacks_prepare(ext_problem *prob, cpk_settings *s);
/** After a solve: -1 with the callback's exception restored when one failed, else 0. */
int ext_callbacks_reraise(ext_problem *prob);

/* Module functions (problem_type.c, solve.c, callbacks.c, update.c, check.c, simulate.c). */
PyObject *ext_affine_problem(PyObject *self, PyObject *args);
PyObject *ext_cone_problem(PyObject *self, PyObject *args);
PyObject *ext_read_problem(PyObject *self, PyObject *args);
PyObject *ext_solve(PyObject *self, PyObject *args);
PyObject *ext_settings_names(PyObject *self, PyObject *args);
PyObject *ext_read_system(PyObject *self, PyObject *args);
PyObject *ext_compile(PyObject *self, PyObject *args);
PyObject *ext_form_for_solver(PyObject *self, PyObject *args);
/** Wrap s (taken over; freed on failure) as a System object. */
PyObject *ext_system_wrap(cpk_contact_system *s);
PyObject *ext_system_body(PyObject *self, PyObject *args);
PyObject *ext_system_local(PyObject *self, PyObject *args);
PyObject *ext_system_add_contact(ext_system *self, PyObject *args);
PyObject *ext_rigid_contact_wrenches(PyObject *self, PyObject *args);
PyObject *ext_nonlinear_problem(PyObject *self, PyObject *args);
PyObject *ext_bind_solver(PyObject *self, PyObject *args);
PyObject *ext_check_problem(PyObject *self, PyObject *args);
PyObject *ext_check_contact(PyObject *self, PyObject *args);
PyObject *ext_simulate(PyObject *self, PyObject *args);
/* Problem methods (update.c). */
PyObject *ext_problem_update_q(ext_problem *self, PyObject *args);
PyObject *ext_problem_update_bounds(ext_problem *self, PyObject *args);
PyObject *ext_problem_update_values(ext_problem *self, PyObject *args);
PyObject *ext_problem_update_mu(ext_problem *self, PyObject *args);
PyObject *ext_problem_update_fcoef(ext_problem *self, PyObject *args);
PyObject *ext_problem_set_findex(ext_problem *self, PyObject *args);
PyObject *ext_problem_touch(ext_problem *self, PyObject *args);
#endif
