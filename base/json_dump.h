/* json_dump.h: internal (not installed): JSON text that is whole or absent, never silently shortened. */
#ifndef CPK_BASE_JSON_DUMP_H
#define CPK_BASE_JSON_DUMP_H
#include <stdio.h>
#include <jansson.h>

/*
 * The JSON text of j (malloc'd, NUL-terminated), or NULL when it cannot be
 * made whole. jansson's json_dumps and json_dumpf ignore a failed write of an
 * object key and return the text without it; this measures the text first
 * and writes it into one block, where a write cannot fail.
 */
char *cpk_json_dumps(const json_t *j, size_t flags);
/* Write the JSON text of j to f: CPK_OK, CPK_ENOMEM or CPK_EIO (a short write). */
int cpk_json_dumpf(const json_t *j, FILE *f, size_t flags);

#endif
