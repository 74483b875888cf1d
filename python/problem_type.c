/* problem_type.c: the Python type owning a cpk_problem, built from NumPy arrays (dense, or CSC triples) or read from a file, and its data back as arrays. */
#define NO_IMPORT_ARRAY
#include <math.h>
#include <string.h>
#include "ext.h"

/* The problem goes before its owner: a compiled problem's F reads the owner's map. */
static void problem_dealloc(ext_problem *self)
{
  cpk_problem_free(self->p);
  Py_XDECREF(self->owner);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

PyObject *ext_problem_wrap(cpk_problem *p, PyObject *owner)
{
  ext_problem *obj = PyObject_New(ext_problem, &ext_problem_type);
  if (!obj) {
    cpk_problem_free(p);
    return NULL;
  }
  obj->p = p;
  Py_XINCREF(owner);
  obj->owner = owner;
  obj->busy = 0;
  obj->nbound = 0;
  return (PyObject *)obj;
}

static PyObject *wrap(cpk_problem *p) { return ext_problem_wrap(p, NULL); }

/* A dense n-by-n matrix from a 2-D array. */
static int dense_matrix(PyObject *obj, cpk_matrix **out)
{
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
  int rc;
  if (!a) {
    PyErr_Clear();
    ext_raise(CPK_EINVAL, "M: expected a 2-D array of floats or a scipy.sparse matrix");
    return -1;
  }
  size_t m = (size_t)PyArray_DIM(a, 0), n = (size_t)PyArray_DIM(a, 1);
  if ((rc = cpk_matrix_alloc_dense(m, n, out)) == CPK_OK) {
    const double *x = PyArray_DATA(a);
    for (size_t i = 0; i < m; i++) memcpy(gsl_matrix_ptr((*out)->dense, i, 0), x + i * n, n * sizeof *x);
  }
  Py_DECREF(a);
  if (rc) ext_raise(rc, "M: %s", cpk_strerror(rc));
  return rc ? -1 : 0;
}

/* Pointers must start at 0, never decrease and end at the number of entries, before any is read. */
static int check_pointers(const cpk_int *p, cpk_int n, npy_intp nnz)
{
  if (p[0] != 0 || p[n] != (cpk_int)nnz) return -1;
  for (cpk_int j = 0; j < n; j++)
    if (p[j + 1] < p[j]) return -1;
  return 0;
}

static int csc_arrays(PyObject *ip, PyObject *ii, PyObject *ix, const char *what, PyArrayObject *arr[3])
{
  arr[0] = (PyArrayObject *)PyArray_FROMANY(ip, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY);
  arr[1] = arr[0] ? (PyArrayObject *)PyArray_FROMANY(ii, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY) : NULL;
  arr[2] = arr[1] ? (PyArrayObject *)PyArray_FROMANY(ix, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY) : NULL;
  if (arr[2]) return 0;
  PyErr_Clear();
  ext_raise(CPK_EINVAL, "%s: CSC arrays must be 1-D (indptr, indices integers; data floats)", what);
  return -1;
}

int ext_csc_view(PyObject *tuple, const char *what, cpk_csc *view, PyArrayObject *arr[3])
{
  Py_ssize_t m, n;
  PyObject *ip, *ii, *ix;
  arr[0] = arr[1] = arr[2] = NULL;
  if (!PyArg_ParseTuple(tuple, "nnOOO", &m, &n, &ip, &ii, &ix)) return -1;
  if (m < 0 || n < 0) {
    ext_raise(CPK_EINVAL, "%s: negative dimensions", what);
    return -1;
  }
  if (csc_arrays(ip, ii, ix, what, arr)) return -1;
  npy_intp nnz = PyArray_DIM(arr[1], 0);
  *view = (cpk_csc){m, n, PyArray_DATA(arr[0]), PyArray_DATA(arr[1]), PyArray_DATA(arr[2])};
  if (PyArray_DIM(arr[0], 0) == n + 1 && PyArray_DIM(arr[2], 0) == nnz &&
      check_pointers(view->p, n, nnz) == 0)
    return 0;
  ext_raise(CPK_EBADMAT, "%s: CSC arrays inconsistent (indptr length n+1 from 0 to nnz, "
                         "never decreasing; indices and data of length nnz)", what);
  return -1;
}

/* A sparse matrix from (m, n, indptr, indices, data): checked, then copied by the library. */
static int csc_matrix(PyObject *tuple, cpk_matrix **out)
{
  PyArrayObject *arr[3];
  cpk_csc view;
  int rc = -1;
  if (ext_csc_view(tuple, "M", &view, arr) == 0 && (rc = cpk_matrix_from_csc(&view, out)) != CPK_OK)
    ext_raise(rc, "M: %s (row indices must be in range, sorted and unique in each column)",
              cpk_strerror(rc));
  for (int k = 0; k < 3; k++) Py_XDECREF(arr[k]);
  return rc ? -1 : 0;
}

static int to_matrix(PyObject *obj, cpk_matrix **out)
{
  *out = NULL;
  int rc = PyTuple_Check(obj) ? csc_matrix(obj, out) : dense_matrix(obj, out);
  if (rc == 0 && (*out)->m != (*out)->n) {
    ext_raise(CPK_EINVAL, "M: must be square, got %zu x %zu", (*out)->m, (*out)->n);
    cpk_matrix_free(*out);
    *out = NULL;
    return -1;
  }
  return rc;
}

/* Validate the new problem so that bad data is reported where it was given, not at solve time. */
static PyObject *finish(int rc, cpk_problem *p, const char *what)
{
  cpk_error err;
  cpk_error_clear(&err);
  if (rc) {
    cpk_problem_free(p);
    return ext_raise(rc, "%s: %s", what, cpk_strerror(rc));
  }
  if ((rc = cpk_problem_validate(p, &err)) != CPK_OK) {
    cpk_problem_free(p);
    return ext_raise_error(rc, &err);
  }
  return wrap(p);
}

/* None stays NULL (the library's default bound); anything else must be a vector of length n. */
static int optional_vector(PyObject *obj, const char *what, npy_intp n, PyArrayObject **out)
{
  *out = obj == Py_None ? NULL : ext_vector(obj, what, n);
  return obj != Py_None && !*out ? -1 : 0;
}

PyObject *ext_affine_problem(PyObject *self, PyObject *args)
{
  PyObject *mobj, *qobj, *lobj, *uobj, *res = NULL;
  PyArrayObject *q = NULL, *l = NULL, *u = NULL;
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (!PyArg_ParseTuple(args, "OOOO", &mobj, &qobj, &lobj, &uobj) || to_matrix(mobj, &M)) return NULL;
  npy_intp n = (npy_intp)M->n;
  if ((q = ext_vector(qobj, "q", n)) && optional_vector(lobj, "lower", n, &l) == 0 &&
      optional_vector(uobj, "upper", n, &u) == 0) {
    int rc = lobj == Py_None && uobj == Py_None
                 ? cpk_problem_alloc_lcp(M, PyArray_DATA(q), &p)
                 : cpk_problem_alloc_affine_mcp(M, PyArray_DATA(q), l ? PyArray_DATA(l) : NULL,
                                                u ? PyArray_DATA(u) : NULL, &p);
    res = finish(rc, p, "problem");
  }
  Py_XDECREF(q);
  Py_XDECREF(l);
  Py_XDECREF(u);
  cpk_matrix_free(M);
  return res;
}

PyObject *ext_cone_problem(PyObject *self, PyObject *args)
{
  PyObject *wobj, *qobj, *muobj, *res = NULL;
  Py_ssize_t dim;
  PyArrayObject *q = NULL, *mu = NULL;
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  if (!PyArg_ParseTuple(args, "OOOn", &wobj, &qobj, &muobj, &dim)) return NULL;
  if (dim < 2 || dim > CPK_CONE_DIM_MAX)
    return ext_raise(CPK_EINVAL, "dim must be 2, 3 or 4 (got %zd)", dim);
  if (to_matrix(wobj, &W)) return NULL;
  if (W->n % (size_t)dim) {
    size_t n = W->n;
    cpk_matrix_free(W);
    return ext_raise(CPK_EINVAL, "W: size %zu is not a multiple of dim = %zd", n, dim);
  }
  if ((q = ext_vector(qobj, "q", (npy_intp)W->n)) &&
      (mu = ext_vector(muobj, "mu", (npy_intp)(W->n / (size_t)dim)))) {
    int rc = cpk_problem_alloc_friction_cone(W, PyArray_DATA(q), (size_t)dim, PyArray_DATA(mu), &p);
    res = finish(rc, p, "cone problem");
  }
  Py_XDECREF(q);
  Py_XDECREF(mu);
  cpk_matrix_free(W);
  return res;
}

int ext_probe_file(const char *path, cpk_error *err)
{
  return cpk_file_is_hdf5(path) ? cpk_fclib_probe(path, err) : CPK_OK;
}

PyObject *ext_read_problem(PyObject *self, PyObject *args)
{
  PyObject *path_obj;
  cpk_problem *p = NULL;
  cpk_error err;
  int rc;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj)) return NULL;
  cpk_error_clear(&err);
  Py_BEGIN_ALLOW_THREADS
  rc = ext_probe_file(PyBytes_AS_STRING(path_obj), &err);
  if (!rc) rc = cpk_problem_read_any(PyBytes_AS_STRING(path_obj), &p, &err);
  Py_END_ALLOW_THREADS
  Py_DECREF(path_obj);
  if (rc) return ext_raise_error(rc, &err);
  return wrap(p);
}

/* ("dense", array) or ("csc", m, n, indptr, indices, data), all copies. */
static PyObject *matrix_data(const cpk_matrix *A)
{
  if (A->format == CPK_MATRIX_DENSE) {
    npy_intp dims[2] = {(npy_intp)A->m, (npy_intp)A->n};
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (!a) return NULL;
    for (size_t i = 0; i < A->m; i++)
      memcpy((double *)PyArray_DATA(a) + i * A->n, gsl_matrix_const_ptr(A->dense, i, 0),
             A->n * sizeof(double));
    return Py_BuildValue("(sN)", "dense", a);
  }
  const cpk_csc *C = A->csc;
  npy_intp np1 = (npy_intp)C->n + 1, nnz = (npy_intp)C->p[C->n];
  PyArrayObject *p = (PyArrayObject *)PyArray_SimpleNew(1, &np1, NPY_INT64);
  PyArrayObject *i = (PyArrayObject *)PyArray_SimpleNew(1, &nnz, NPY_INT64);
  PyObject *x = ext_array_from(C->x, (size_t)nnz);
  if (!p || !i || !x) {
    Py_XDECREF(p);
    Py_XDECREF(i);
    Py_XDECREF(x);
    return NULL;
  }
  memcpy(PyArray_DATA(p), C->p, (size_t)np1 * sizeof *C->p);
  if (nnz) memcpy(PyArray_DATA(i), C->i, (size_t)nnz * sizeof *C->i);
  return Py_BuildValue("(snnNNN)", "csc", (Py_ssize_t)C->m, (Py_ssize_t)C->n, p, i, x);
}

static PyObject *problem_data(ext_problem *self, PyObject *unused)
{
  const cpk_problem *p = self->p;
  int cone = p->kind == CPK_KIND_FRICTION_CONE;
  PyObject *M = p->M ? matrix_data(p->M) : (Py_INCREF(Py_None), Py_None);
  PyObject *q = p->q ? ext_array_from(p->q, p->n) : (Py_INCREF(Py_None), Py_None);
  PyObject *fcoef = p->findex ? ext_array_from(p->fcoef, p->n) : (Py_INCREF(Py_None), Py_None);
  PyObject *rev = Py_BuildValue("{s:k,s:k,s:k,s:k,s:k}", "q", p->rev.q, "bounds", p->rev.bounds,
                                "values", p->rev.values, "mu", p->rev.mu, "params", p->rev.params);
  return Py_BuildValue("{s:s,s:n,s:z,s:N,s:N,s:N,s:N,s:n,s:n,s:N,s:N,s:N,s:N}", "kind",
                       cpk_problem_kind_name(p->kind), "n", (Py_ssize_t)p->n, "name", p->name,
                       "M", M, "q", q, "lower",
                       ext_array_from(p->lower, p->n), "upper", ext_array_from(p->upper, p->n),
                       "nc", (Py_ssize_t)p->nc, "cone_dim", (Py_ssize_t)p->cone_dim, "mu",
                       cone ? ext_array_from(p->mu, p->nc) : (Py_INCREF(Py_None), Py_None),
                       "findex", p->findex ? ext_int_array_from(p->findex, p->n) : (Py_INCREF(Py_None), Py_None), "fcoef", fcoef, "rev", rev);
}

static PyMethodDef problem_methods[] = {
    {"data", (PyCFunction)problem_data, METH_NOARGS,
     "Copies of the problem's data: dict with kind, n, name, M, q, lower, upper, nc, cone_dim, mu, "
     "findex, fcoef, rev."},
    {"update_q", (PyCFunction)ext_problem_update_q, METH_VARARGS, "update_q(q)"},
    {"update_bounds", (PyCFunction)ext_problem_update_bounds, METH_VARARGS,
     "update_bounds(lower or None, upper or None)"},
    {"update_values", (PyCFunction)ext_problem_update_values, METH_VARARGS,
     "update_values(values): M's values in the stored order (CSC x, or row-major dense)"},
    {"update_mu", (PyCFunction)ext_problem_update_mu, METH_VARARGS, "update_mu(mu)"},
    {"update_fcoef", (PyCFunction)ext_problem_update_fcoef, METH_VARARGS, "update_fcoef(fcoef)"},
    {"set_friction_index", (PyCFunction)ext_problem_set_findex, METH_VARARGS,
     "set_friction_index(findex or None, fcoef)"},
    {"touch_params", (PyCFunction)ext_problem_touch, METH_NOARGS,
     "Tell bound solvers the nonlinear problem's parameters changed."},
    {NULL, NULL, 0, NULL}};

PyTypeObject ext_problem_type =
    EXT_TYPE("cpkit._cpkit.Problem", ext_problem, problem_dealloc,
             "A cpkit problem owned by the library (build through the cpkit package).",
             problem_methods);
