/* settings_table.h: solver settings by name for the Python extension (settings_table.c, over the library's cpk_settings_find). */
#ifndef CPKIT_PYTHON_SETTINGS_TABLE_H
#define CPKIT_PYTHON_SETTINGS_TABLE_H
#include <stddef.h>
#include "ext.h"

/** Store value (a Python number) in s; -1 (Python error possibly set) for a wrong type or range. */
int ext_setting_apply(const cpk_setting_desc *e, PyObject *value, cpk_settings *s);
#endif
