/* json_dump.c: JSON text that is whole or absent (see json_dump.h for why not json_dumps). */
#include <stdlib.h>
#include <string.h>
#include <cpkit/errors.h>
#include "json_dump.h"

char *cpk_json_dumps(const json_t *j, size_t flags)
{
  if (!j) return NULL;
  size_t size = json_dumpb(j, NULL, 0, flags); /* counting only: no write can fail */
  char *text = size > 0 && size < (size_t)-1 ? malloc(size + 1) : NULL;
  if (!text) return NULL;
  if (json_dumpb(j, text, size, flags) != size) {
    free(text);
    return NULL;
  }
  text[size] = '\0';
  return text;
}

int cpk_json_dumpf(const json_t *j, FILE *f, size_t flags)
{
  char *text = cpk_json_dumps(j, flags);
  if (!text) return CPK_ENOMEM;
  size_t len = strlen(text);
  int rc = fwrite(text, 1, len, f) == len ? CPK_OK : CPK_EIO;
  free(text);
  return rc;
}
