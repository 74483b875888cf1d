/* json_locate.c: the line of a value inside JSON text, found by path (jansson keeps no positions), for `file:line:` messages. */
#include <string.h>
#include "json_locate.h"

static const char *skip_ws(const char *p, long *line)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
    if (*p == '\n') (*line)++;
    p++;
  }
  return p;
}

/* p at the opening quote; returns the position after the closing one. */
static const char *skip_string(const char *p)
{
  for (p++; *p && *p != '"'; p++)
    if (*p == '\\' && p[1]) p++;
  return *p ? p + 1 : p;
}

static const char *skip_value(const char *p, long *line, int depth);

/* Members of an object or elements of an array: p after the opening bracket. */
static const char *skip_items(const char *p, long *line, char close, int depth)
{
  for (;;) {
    p = skip_ws(p, line);
    if (!*p || *p == close) return *p ? p + 1 : p;
    if (close == '}') {
      if (*p != '"') return p + strlen(p); /* not JSON: give up quietly */
      p = skip_ws(skip_string(p), line);
      if (*p == ':') p++;
    }
    p = skip_ws(skip_value(p, line, depth + 1), line);
    if (*p == ',') p++;
  }
}

static const char *skip_value(const char *p, long *line, int depth)
{
  p = skip_ws(p, line);
  if (depth > 200) return p + strlen(p);
  if (*p == '{') return skip_items(p + 1, line, '}', depth);
  if (*p == '[') return skip_items(p + 1, line, ']', depth);
  if (*p == '"') return skip_string(p);
  while (*p && !strchr(",]} \t\r\n", *p)) p++;
  return p;
}

static int key_is(const char *p, const char *key)
{
  size_t n = strlen(key);
  return strncmp(p + 1, key, n) == 0 && p[1 + n] == '"';
}

/* Descend into member `key` (object) or element `index` (array); NULL when absent. */
static const char *step(const char *p, long *line, const cpk_json_seg *s)
{
  p = skip_ws(p, line);
  if (s->key && *p == '{') {
    p++;
    for (;;) {
      p = skip_ws(p, line);
      if (*p != '"') return NULL;
      int match = key_is(p, s->key);
      p = skip_ws(skip_string(p), line);
      if (*p != ':') return NULL;
      p = skip_ws(p + 1, line);
      if (match) return p;
      p = skip_ws(skip_value(p, line, 1), line);
      if (*p != ',') return NULL;
      p++;
    }
  }
  if (!s->key && *p == '[') {
    p++;
    for (size_t i = 0;; i++) {
      p = skip_ws(p, line);
      if (!*p || *p == ']') return NULL;
      if (i == s->index) return p;
      p = skip_ws(skip_value(p, line, 1), line);
      if (*p != ',') return NULL;
      p++;
    }
  }
  return NULL;
}

long cpk_json_locate(const char *text, const cpk_json_seg *path, int depth)
{
  long line = 1;
  const char *p = text;
  for (int d = 0; p && d < depth; d++) {
    long save = line;
    const char *q = step(p, &line, &path[d]);
    if (!q) return save; /* the deepest value that exists */
    p = q;
  }
  if (p) skip_ws(p, &line);
  return line;
}
