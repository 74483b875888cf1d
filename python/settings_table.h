/* settings_table.h: solver settings by name for the Python extension (settings_table.c). */
#ifndef CPKIT_PYTHON_SETTINGS_TABLE_H
#define CPKIT_PYTHON_SETTINGS_TABLE_H
#include <stddef.h>
#include "ext.h"

typedef enum { EXT_DOUBLE, EXT_LONG, EXT_INT, EXT_SIZE } ext_setting_type;

/** One setting: the solver it belongs to (NULL: all), its name, where it is in cpk_settings. */
typedef struct {
  const char *solver;
  const char *name;
  size_t offset;
  ext_setting_type type;
} ext_setting;

/** The setting `name` of solver `solver`, or NULL when that solver has none. */
const ext_setting *ext_setting_find(const char *solver, const char *name);
/** Store value (a Python number) in s; -1 (Python error possibly set) for a wrong type or range. */
int ext_setting_apply(const ext_setting *e, PyObject *value, cpk_settings *s);
#endif
