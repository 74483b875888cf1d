/* json_reader.h: internal (not installed): reading JSON files with `file:line: path: what` messages (jansson keeps no positions; json_locate finds the line). */
#ifndef CPK_BASE_JSON_READER_H
#define CPK_BASE_JSON_READER_H
#include <stddef.h>
#include <jansson.h>
#include <cpkit/errors.h>
#include "json_locate.h"

#define CPK_JR_MAX_DEPTH 8

/* Where the reader is in the document, for messages. */
typedef struct cpk_jr {
  const char *path, *text; /* file name for messages, and its whole text */
  cpk_error *err;
  cpk_json_seg stack[CPK_JR_MAX_DEPTH];
  int depth;
} cpk_jr;

void cpk_jr_push_key(cpk_jr *r, const char *key);
void cpk_jr_push_index(cpk_jr *r, size_t i);
void cpk_jr_pop(cpk_jr *r);
/* CPK_EPARSE with `path:line: where: what`. */
int cpk_jr_fail(cpk_jr *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cpk_jr_nomem(cpk_jr *r);
/* A library call's plain message (in r->err) placed at the current path. */
int cpk_jr_relay(cpk_jr *r, int rc);
/* Refuse keys of obj not in the NULL-terminated list. */
int cpk_jr_check_keys(cpk_jr *r, json_t *obj, const char *const *allowed);
int cpk_jr_number(cpk_jr *r, json_t *v, double *out);
/* Optional (or required) number member; *out unchanged when absent. */
int cpk_jr_get_number(cpk_jr *r, json_t *obj, const char *key, double *out, int required);
/* Array of numbers (want = 0: any length >= 1); *out malloc'd. */
int cpk_jr_vector(cpk_jr *r, json_t *a, size_t want, double **out, size_t *len);
/* Optional vector member of exactly n numbers copied into dst (unchanged when absent). */
int cpk_jr_get_fixed(cpk_jr *r, json_t *obj, const char *key, size_t n, double *dst);
/* Optional string member; *out (pointing into obj) unchanged when absent. */
int cpk_jr_get_string(cpk_jr *r, json_t *obj, const char *key, const char **out, int required);
/* Read a whole file into a NUL-terminated malloc'd string. */
int cpk_jr_slurp(const char *path, char **text, cpk_error *err);
/* Parse text (duplicate keys refused) with syntax errors as `name:line: what`. */
int cpk_jr_parse(const char *text, const char *name, json_t **root, cpk_error *err);

#endif
