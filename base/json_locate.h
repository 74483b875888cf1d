/* json_locate.h: internal (not installed): line of a value in JSON text by path, for the JSON readers of every module. */
#ifndef CPK_BASE_JSON_LOCATE_H
#define CPK_BASE_JSON_LOCATE_H
#include <stddef.h>

/* One step of a path: a member key, or (key NULL) an array index. */
typedef struct cpk_json_seg {
  const char *key;
  size_t index;
} cpk_json_seg;

/* 1-based line where the value at `path` starts (or the deepest existing parent's line). */
long cpk_json_locate(const char *text, const cpk_json_seg *path, int depth);

#endif
