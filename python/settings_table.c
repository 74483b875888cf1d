/* settings_table.c: the solver settings the Python package sets by name, from the library's table (cpk_settings_find): storing a Python number in its field. */
#define NO_IMPORT_ARRAY
#include <stddef.h>
#include <limits.h>
#include <string.h>
#include "ext.h"
#include "settings_table.h"

/* The table is the library's (cpk_settings_find, base/settings_table.c): the CLI's --set
 * reads the same one. */
static int applies(const cpk_setting_desc *e, const char *solver)
{
  return !e->solver || strcmp(e->solver, solver) == 0;
}

/* Integers must be integers (a bool is one); an int field must not overflow. */
static int set_integer(const cpk_setting_desc *e, PyObject *value, cpk_settings *s)
{
  long v = PyLong_AsLong(value);
  if (v == -1 && PyErr_Occurred()) return -1;
  char *at = (char *)s + e->offset;
  if (e->type == CPK_SETTING_LONG) {
    memcpy(at, &v, sizeof v);
  } else if (e->type == CPK_SETTING_SIZE) {
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

int ext_setting_apply(const cpk_setting_desc *e, PyObject *value, cpk_settings *s)
{
  if (e->type == CPK_SETTING_DOUBLE) {
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
  for (size_t k = 0; list && k < cpk_settings_count(); k++) {
    const cpk_setting_desc *e = cpk_settings_at(k);
    if (!applies(e, name)) continue;
    PyObject *s = PyUnicode_FromString(e->name);
    if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
    Py_XDECREF(s);
  }
  return list;
}
