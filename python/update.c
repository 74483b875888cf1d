/* update.c: the Problem methods that change a problem in place for re-solves (q, bounds, M's values, mu, friction-index rows), refused while a solve runs. */
#define NO_IMPORT_ARRAY
#include "ext.h"

int ext_problem_check_idle(ext_problem *prob)
{
  if (!prob->busy) return 0;
  ext_raise(CPK_EINVAL, "the problem is being solved in another thread: update it after the solve");
  return -1;
}

/* Parse one vector argument of length n (n < 0: any) and check the problem is idle. */
static PyArrayObject *vector_arg(ext_problem *self, PyObject *args, const char *what, npy_intp n)
{
  PyObject *obj;
  if (!PyArg_ParseTuple(args, "O", &obj) || ext_problem_check_idle(self)) return NULL;
  return ext_vector(obj, what, n);
}

/* The library's answer: None, or cpkit.Error saying what the data must be. */
static PyObject *done(int rc, PyArrayObject *a, const char *what)
{
  Py_XDECREF(a);
  if (rc) return ext_raise(rc, "%s", what);
  Py_RETURN_NONE;
}

PyObject *ext_problem_update_q(ext_problem *self, PyObject *args)
{
  if (!self->p->q) return ext_raise(CPK_EINVAL, "update_q: a nonlinear problem has no q");
  PyArrayObject *q = vector_arg(self, args, "q", (npy_intp)self->p->n);
  if (!q) return NULL;
  return done(cpk_problem_update_q(self->p, PyArray_DATA(q)), q,
              "update_q: every entry of q must be finite");
}

PyObject *ext_problem_update_bounds(ext_problem *self, PyObject *args)
{
  PyObject *lobj, *uobj;
  PyArrayObject *l = NULL, *u = NULL;
  npy_intp n = (npy_intp)self->p->n;
  if (!PyArg_ParseTuple(args, "OO", &lobj, &uobj) || ext_problem_check_idle(self)) return NULL;
  if ((lobj != Py_None && !(l = ext_vector(lobj, "lower", n))) ||
      (uobj != Py_None && !(u = ext_vector(uobj, "upper", n)))) {
    Py_XDECREF(l);
    return NULL;
  }
  int rc = cpk_problem_update_bounds(self->p, l ? PyArray_DATA(l) : NULL, u ? PyArray_DATA(u) : NULL);
  Py_XDECREF(u);
  return done(rc, l,
              self->p->kind == CPK_KIND_LCP
                  ? "update_bounds: an LCP keeps the bounds 0 and +inf (build an MCP to change them)"
              : self->p->kind == CPK_KIND_FRICTION_CONE
                  ? "update_bounds: a friction-cone problem has no bounds to change"
                  : "update_bounds: need lower <= upper, no NaN, lower < +inf and upper > -inf");
}

PyObject *ext_problem_update_values(ext_problem *self, PyObject *args)
{
  const cpk_matrix *M = self->p->M;
  if (!M) return ext_raise(CPK_EINVAL, "update_matrix: a nonlinear problem has no matrix");
  size_t count = M->format == CPK_MATRIX_DENSE ? M->m * M->n : cpk_matrix_nnz(M);
  PyArrayObject *x = vector_arg(self, args, "matrix values", (npy_intp)count);
  if (!x) return NULL;
  return done(cpk_problem_update_matrix_values(self->p, PyArray_DATA(x)), x,
              "update_matrix: every value must be finite");
}

PyObject *ext_problem_update_mu(ext_problem *self, PyObject *args)
{
  if (self->p->kind != CPK_KIND_FRICTION_CONE)
    return ext_raise(CPK_EINVAL, "update_mu: only friction-cone problems have mu "
                                 "(friction-index rows: update_fcoef)");
  PyArrayObject *mu = vector_arg(self, args, "mu", (npy_intp)self->p->nc);
  if (!mu) return NULL;
  return done(cpk_problem_update_mu(self->p, PyArray_DATA(mu)), mu,
              "update_mu: every coefficient must be finite and >= 0");
}

PyObject *ext_problem_update_fcoef(ext_problem *self, PyObject *args)
{
  if (!self->p->findex)
    return ext_raise(CPK_EINVAL, "update_fcoef: the problem has no friction-index rows");
  PyArrayObject *c = vector_arg(self, args, "fcoef", (npy_intp)self->p->n);
  if (!c) return NULL;
  return done(cpk_problem_update_fcoef(self->p, PyArray_DATA(c)), c,
              "update_fcoef: the coefficients of friction-index rows must be finite and >= 0");
}

PyObject *ext_problem_set_findex(ext_problem *self, PyObject *args)
{
  PyObject *fobj, *cobj;
  PyArrayObject *f = NULL, *c = NULL;
  npy_intp n = (npy_intp)self->p->n;
  if (!PyArg_ParseTuple(args, "OO", &fobj, &cobj) || ext_problem_check_idle(self)) return NULL;
  if (self->nbound)
    return ext_raise(CPK_EINVAL, "set_friction_index: a Solver is bound to the problem; set the "
                                "rows before creating it");
  if (fobj != Py_None &&
      (!(f = ext_int_vector(fobj, n, "findex", "-1: plain row, else the 0-based index of the row "
                                               "whose z scales the bounds")) ||
       !(c = ext_vector(cobj, "fcoef", n)))) {
    Py_XDECREF(f);
    return NULL;
  }
  int rc = cpk_problem_set_friction_index(self->p, f ? PyArray_DATA(f) : NULL,
                                          c ? PyArray_DATA(c) : NULL);
  Py_XDECREF(f);
  return done(rc, c,
              rc == CPK_ENOMEM ? "set_friction_index: out of memory"
                               : "set_friction_index: need an LCP or affine MCP, findex[i] < n, "
                                 "findex[i] != i, the scaling row j not itself a friction-index "
                                 "row and with lower[j] >= 0, fcoef finite and >= 0");
}

PyObject *ext_problem_touch(ext_problem *self, PyObject *unused)
{
  if (ext_problem_check_idle(self)) return NULL;
  cpk_problem_touch_params(self->p);
  Py_RETURN_NONE;
}
