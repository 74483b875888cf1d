/* check.c: the existence and uniqueness checks (<cpkit/check.h>) for Python: a problem, its matrix alone, or a contact system, the report returned as data. */
#define NO_IMPORT_ARRAY
#include <string.h>
#include "ext.h"

static PyObject *entries_list(const cpk_check_report *r)
{
  PyObject *list = PyList_New((Py_ssize_t)r->count);
  for (size_t k = 0; list && k < r->count; k++) {
    const cpk_check_entry *e = &r->entries[k];
    PyObject *item = Py_BuildValue("(sss)", e->name, cpk_verdict_name(e->verdict), e->reason);
    if (!item) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)k, item);
  }
  return list;
}

static PyObject *report_dict(const cpk_check_report *r)
{
  PyObject *sol = Py_None;
  Py_INCREF(Py_None);
  if (r->nsolutions) {
    npy_intp dims[2] = {(npy_intp)r->nsolutions, (npy_intp)r->n};
    Py_DECREF(Py_None);
    sol = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (sol) memcpy(PyArray_DATA((PyArrayObject *)sol), r->solutions, r->nsolutions * r->n * sizeof(double));
  }
  return Py_BuildValue("{s:n,s:N,s:N,s:d}", "n", (Py_ssize_t)r->n, "entries", entries_list(r),
                       "solutions", sol, "time", r->time_s);
}

static int parse_settings(Py_ssize_t max_n, double rel_tol, int count, cpk_check_settings *s)
{
  cpk_check_settings_default(s);
  if (max_n < 0 || !(rel_tol > 0.0)) {
    ext_raise(CPK_EINVAL, "check: max_n must be >= 0 and rel_tol > 0");
    return -1;
  }
  s->max_n = (size_t)max_n;
  s->rel_tol = rel_tol;
  s->count_solutions = count;
  return 0;
}

typedef int (*check_fn)(const void *subject, const char *model, const cpk_check_settings *s,
                        cpk_check_report *r, cpk_error *err);

/* Run the checks with the GIL released (they only read their subject) and build the dict. */
static PyObject *run_checks(check_fn fn, const void *subject, const char *model,
                            const cpk_check_settings *s)
{
  cpk_check_report *r = NULL;
  cpk_error err;
  int rc;
  cpk_error_clear(&err);
  if ((rc = cpk_check_report_alloc(&r)) == CPK_OK) {
    Py_BEGIN_ALLOW_THREADS
    rc = fn(subject, model, s, r, &err);
    Py_END_ALLOW_THREADS
  }
  PyObject *out = rc ? ext_raise_error(rc, &err) : report_dict(r);
  cpk_check_report_free(r);
  return out;
}

static int problem_checks(const void *p, const char *unused, const cpk_check_settings *s,
                          cpk_check_report *r, cpk_error *err)
{
  return cpk_check_problem(p, s, r, err);
}

/* The classes of M and what they imply for the LCP, without the problem's q. */
static int matrix_checks(const void *p, const char *unused, const cpk_check_settings *s,
                         cpk_check_report *r, cpk_error *err)
{
  int rc = cpk_check_matrix_classes(((const cpk_problem *)p)->M, s, r, err);
  return rc ? rc : cpk_check_implications(r, 1);
}

static int contact_checks(const void *sys, const char *model, const cpk_check_settings *s,
                          cpk_check_report *r, cpk_error *err)
{
  return cpk_check_contact(sys, model, s, r, err);
}

/* check_problem(problem, matrix_only, max_n, rel_tol, count_solutions) -> report dict. */
PyObject *ext_check_problem(PyObject *self, PyObject *args)
{
  ext_problem *prob;
  int matrix_only, count;
  Py_ssize_t max_n;
  double rel_tol;
  cpk_check_settings s;
  if (!PyArg_ParseTuple(args, "O!pndp", &ext_problem_type, &prob, &matrix_only, &max_n, &rel_tol,
                        &count) ||
      parse_settings(max_n, rel_tol, count, &s))
    return NULL;
  const cpk_problem *p = prob->p;
  if (p->kind != CPK_KIND_LCP && p->kind != CPK_KIND_AFFINE_MCP)
    return ext_raise(CPK_EUNSUP, "check: the checks are for LCPs and affine MCPs, not %s problems "
                                 "(check a contact system with a model instead)",
                     cpk_problem_kind_name(p->kind));
  prob->busy++; /* no update while the checks read it */
  PyObject *out = run_checks(matrix_only ? matrix_checks : problem_checks, p, NULL, &s);
  prob->busy--;
  return out;
}

/* check_contact(system, model or None, max_n, rel_tol, count_solutions) -> report dict. */
PyObject *ext_check_contact(PyObject *self, PyObject *args)
{
  ext_system *sys;
  const char *model;
  Py_ssize_t max_n;
  double rel_tol;
  int count;
  cpk_check_settings s;
  if (!PyArg_ParseTuple(args, "O!zndp", &ext_system_type, &sys, &model, &max_n, &rel_tol, &count) ||
      parse_settings(max_n, rel_tol, count, &s))
    return NULL;
  return run_checks(contact_checks, sys->s, model, &s);
}
