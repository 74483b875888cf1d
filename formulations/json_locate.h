/* json_locate.h: internal to formulations/: line of a value in JSON text by path. */
#ifndef CPK_FORMULATIONS_JSON_LOCATE_H
#define CPK_FORMULATIONS_JSON_LOCATE_H
#include <stddef.h>

/* One step of a path: a member key, or (key NULL) an array index. */
typedef struct cvm_json_seg {
  const char *key;
  size_t index;
} cvm_json_seg;

/* 1-based line where the value at `path` starts (or the deepest existing parent's line). */
long cvm_json_locate(const char *text, const cvm_json_seg *path, int depth);

#endif
