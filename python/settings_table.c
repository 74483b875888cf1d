/* settings_table.c: the solver settings the Python package sets by name: which solver each belongs to and where it lives in cpk_settings. */
#define NO_IMPORT_ARRAY
#include <stddef.h>
#include <limits.h>
#include <string.h>
#include "ext.h"
#include "settings_table.h"

#define FIELD(f) offsetof(cpk_settings, f)

/* solver NULL: taken by every solver. Names are those of the fields, without the sub-struct. */
static const ext_setting table[] = {
    {NULL, "tol", FIELD(tol), EXT_DOUBLE},
    {NULL, "max_iter", FIELD(max_iter), EXT_LONG},
    {NULL, "time_limit", FIELD(time_limit), EXT_DOUBLE},
    {NULL, "verbose", FIELD(verbose), EXT_INT},
    {NULL, "resolve_warm", FIELD(resolve.warm), EXT_INT},
    {"lemke", "pivot_tol", FIELD(lemke.pivot_tol), EXT_DOUBLE},
    {"lemke", "refactor_interval", FIELD(lemke.refactor_interval), EXT_LONG},
    {"enum", "max_n", FIELD(enumeration.max_n), EXT_SIZE},
    {"pgs", "omega", FIELD(pgs.omega), EXT_DOUBLE},
    {"bdnewton", "nonmonotone", FIELD(newton.nonmonotone), EXT_INT},
    {"fbnewton", "nonmonotone", FIELD(newton.nonmonotone), EXT_INT},
    {"fbnewton", "fb_lambda", FIELD(newton.fb_lambda), EXT_DOUBLE},
    {"ipm", "method", FIELD(ipm.method), EXT_INT},
    {"ipm", "crossover", FIELD(ipm.crossover), EXT_INT},
    {"nsgs", "omega", FIELD(nsgs.omega), EXT_DOUBLE},
    {"nsgs", "local_tol", FIELD(nsgs.local_tol), EXT_DOUBLE},
    {"nsgs", "local_max_iter", FIELD(nsgs.local_max_iter), EXT_LONG},
    {"nsgs", "polish", FIELD(nsgs.polish), EXT_INT},
    {"nsgs", "handoff", FIELD(nsgs.handoff), EXT_DOUBLE},
    {"fcipm", "step_fraction", FIELD(fcipm.step_fraction), EXT_DOUBLE},
    {"fcipm", "refresh_ratio", FIELD(fcipm.refresh_ratio), EXT_DOUBLE},
    {"fcipm", "linearize", FIELD(fcipm.linearize), EXT_INT},
    {"fcipm", "finish", FIELD(fcipm.finish), EXT_INT},
    {"nsn", "rho", FIELD(nsn.rho), EXT_INT},
    {"nsn", "nonmonotone", FIELD(nsn.nonmonotone), EXT_INT},
    {"nsn", "restart", FIELD(nsn.restart), EXT_INT},
    {"nsn", "restart_sweeps", FIELD(nsn.restart_sweeps), EXT_LONG},
};

static int applies(const ext_setting *e, const char *solver)
{
  return !e->solver || strcmp(e->solver, solver) == 0;
}

const ext_setting *ext_setting_find(const char *solver, const char *name)
{
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
    if (applies(&table[k], solver) && strcmp(table[k].name, name) == 0) return &table[k];
  return NULL;
}

/* Integers must be integers (a bool is one); an int field must not overflow. */
static int set_integer(const ext_setting *e, PyObject *value, cpk_settings *s)
{
  long v = PyLong_AsLong(value);
  if (v == -1 && PyErr_Occurred()) return -1;
  char *at = (char *)s + e->offset;
  if (e->type == EXT_LONG) {
    memcpy(at, &v, sizeof v);
  } else if (e->type == EXT_SIZE) {
    if (v < 0) return -1;
    size_t z = (size_t)v;
    memcpy(at, &z, sizeof z);
  } else {
    if (v < INT_MIN || v > INT_MAX) return -1;
    int i = (int)v;
    memcpy(at, &i, sizeof i);
  }
  return 0;
}

int ext_setting_apply(const ext_setting *e, PyObject *value, cpk_settings *s)
{
  if (e->type == EXT_DOUBLE) {
    if (!PyFloat_Check(value) && !PyLong_Check(value)) return -1;
    double d = PyFloat_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    memcpy((char *)s + e->offset, &d, sizeof d);
    return 0;
  }
  if (!PyLong_Check(value)) return -1;
  return set_integer(e, value, s);
}

PyObject *ext_settings_names(PyObject *self, PyObject *solver)
{
  const char *name = PyUnicode_AsUTF8(solver);
  PyObject *list = name ? PyList_New(0) : NULL;
  for (size_t k = 0; list && k < sizeof table / sizeof table[0]; k++) {
    if (!applies(&table[k], name)) continue;
    PyObject *s = PyUnicode_FromString(table[k].name);
    if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}
