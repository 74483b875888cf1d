/* directions_spec.c: the text form of the polyhedral direction options ("D" or "E:C:P"), shared by the CLI and the scene files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>

/* One non-negative decimal integer [min, 100000] ending at ':' or the end. */
static const char *field(const char *s, long min, long *v)
{
  char *end;
  if (*s < '0' || *s > '9') return NULL;
  errno = 0;
  *v = strtol(s, &end, 10);
  if (errno || *v < min || *v > 100000 || (*end && *end != ':')) return NULL;
  return end;
}

int cpk_compile_options_set_directions(cpk_compile_options *o, const char *spec, cpk_error *err)
{
  long v[3];
  const char *p = spec ? field(spec, 1, &v[0]) : NULL;
  if (p && *p == '\0') {
    o->directions.kind = CPK_DIRECTIONS_PLANE;
    o->directions.d = (size_t)v[0];
    return CPK_OK;
  }
  for (int k = 1; p && k < 3; k++) p = *p == ':' ? field(p + 1, 0, &v[k]) : NULL;
  if (!p || *p != '\0')
    return cpk_error_set(err, CPK_EINVAL,
                         "directions: expected D (1..100000) or E:C:P (E >= 1), got '%s'",
                         spec ? spec : "(null)");
  o->directions.kind = CPK_DIRECTIONS_ELLIPSOID;
  o->directions.equator = (size_t)v[0];
  o->directions.circles = (size_t)v[1];
  o->directions.per_circle = (size_t)v[2];
  return CPK_OK;
}
