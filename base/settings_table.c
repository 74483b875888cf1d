/* settings_table.c: the numbers of cpk_settings that can be set by name (the CLI's --set, the Python package's keywords), and the parser of "SOLVER.NAME=VALUE". */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/settings.h>

#define FIELD(f) offsetof(cpk_settings, f)
#define D CPK_SETTING_DOUBLE
#define L CPK_SETTING_LONG
#define I CPK_SETTING_INT
#define Z CPK_SETTING_SIZE

/* Grouped by solver; a field two solvers read (newton.*, omega) has a row for each. */
static const cpk_setting_desc table[] = {
    {NULL, "tol", FIELD(tol), D},
    {NULL, "max_iter", FIELD(max_iter), L},
    {NULL, "time_limit", FIELD(time_limit), D},
    {NULL, "verbose", FIELD(verbose), I},
    {NULL, "resolve_warm", FIELD(resolve.warm), I},
    {"lemke", "pivot_tol", FIELD(lemke.pivot_tol), D},
    {"lemke", "refactor_interval", FIELD(lemke.refactor_interval), L},
    {"enum", "max_n", FIELD(enumeration.max_n), Z},
    {"pgs", "omega", FIELD(pgs.omega), D},
    {"bdnewton", "nonmonotone", FIELD(newton.nonmonotone), I},
    {"bdnewton", "proximal", FIELD(newton.proximal), D},
    {"bdnewton", "watchdog", FIELD(newton.watchdog), I},
    {"bdnewton", "restarts", FIELD(newton.restarts), I},
    {"bdnewton", "crash", FIELD(newton.crash), I},
    {"fbnewton", "nonmonotone", FIELD(newton.nonmonotone), I},
    {"fbnewton", "fb_lambda", FIELD(newton.fb_lambda), D},
    {"fbnewton", "proximal", FIELD(newton.proximal), D},
    {"fbnewton", "watchdog", FIELD(newton.watchdog), I},
    {"fbnewton", "restarts", FIELD(newton.restarts), I},
    {"fbnewton", "crash", FIELD(newton.crash), I},
    {"ipm", "method", FIELD(ipm.method), I},
    {"ipm", "crossover", FIELD(ipm.crossover), I},
    {"nsgs", "omega", FIELD(nsgs.omega), D},
    {"nsgs", "local_tol", FIELD(nsgs.local_tol), D},
    {"nsgs", "local_max_iter", FIELD(nsgs.local_max_iter), L},
    {"nsgs", "polish", FIELD(nsgs.polish), I},
    {"nsgs", "handoff", FIELD(nsgs.handoff), D},
    {"fcipm", "step_fraction", FIELD(fcipm.step_fraction), D},
    {"fcipm", "refresh_ratio", FIELD(fcipm.refresh_ratio), D},
    {"fcipm", "linearize", FIELD(fcipm.linearize), I},
    {"fcipm", "finish", FIELD(fcipm.finish), I},
    {"nsn", "rho", FIELD(nsn.rho), I},
    {"nsn", "nonmonotone", FIELD(nsn.nonmonotone), I},
    {"nsn", "restart", FIELD(nsn.restart), I},
    {"nsn", "restart_sweeps", FIELD(nsn.restart_sweeps), L},
    {"fcprox", "sigma", FIELD(fcprox.sigma), D},
    {"fcprox", "inner_max_iter", FIELD(fcprox.inner_max_iter), L},
};

#define NTABLE (sizeof table / sizeof table[0])

size_t cpk_settings_count(void) { return NTABLE; }

const cpk_setting_desc *cpk_settings_at(size_t i) { return i < NTABLE ? &table[i] : NULL; }

const cpk_setting_desc *cpk_settings_find(const char *solver, const char *name)
{
  for (size_t k = 0; k < NTABLE; k++)
    if ((!table[k].solver || (solver && !strcmp(table[k].solver, solver))) &&
        !strcmp(table[k].name, name))
      return &table[k];
  return NULL;
}

/* The names solver (NULL: the common ones) has, comma-separated, into buf. */
static const char *names_of(const char *solver, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < NTABLE && used < size; k++) {
    int mine = solver ? table[k].solver && !strcmp(table[k].solver, solver) : !table[k].solver;
    if (!mine) continue;
    int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", table[k].name);
    used += w > 0 ? (size_t)w : 0;
  }
  return buf;
}

/* The value text as the field's type: a double into *d, an integer into *l. */
static int parse_value(const cpk_setting_desc *e, const char *text, double *d, long *l)
{
  char *end;
  errno = 0;
  if (!*text || isspace((unsigned char)*text)) return CPK_EINVAL; /* strto* would skip it */
  if (e->type == CPK_SETTING_DOUBLE) {
    *d = strtod(text, &end);
    return end == text || *end || *d != *d ? CPK_EINVAL : CPK_OK; /* empty, trailing text, NaN */
  }
  *l = strtol(text, &end, 10);
  if (end == text || *end || errno == ERANGE) return CPK_EINVAL;
  if (e->type == CPK_SETTING_INT && (*l < INT_MIN || *l > INT_MAX)) return CPK_EINVAL;
  return e->type == CPK_SETTING_SIZE && *l < 0 ? CPK_EINVAL : CPK_OK;
}

static void store(const cpk_setting_desc *e, double d, long l, cpk_settings *s)
{
  char *at = (char *)s + e->offset;
  int i = (int)l;
  size_t z = (size_t)l;
  switch (e->type) {
  case CPK_SETTING_DOUBLE: memcpy(at, &d, sizeof d); break;
  case CPK_SETTING_LONG: memcpy(at, &l, sizeof l); break;
  case CPK_SETTING_INT: memcpy(at, &i, sizeof i); break;
  case CPK_SETTING_SIZE: memcpy(at, &z, sizeof z); break;
  }
}

/* The row for "SOLVER.NAME" or "NAME" (key, length n), or NULL with err set. */
static const cpk_setting_desc *find_key(const char *key, size_t n, cpk_error *err)
{
  char buf[64], names[512];
  if (n == 0 || n >= sizeof buf) {
    cpk_error_set(err, CPK_EINVAL, "setting name '%.*s' empty or too long", (int)n, key);
    return NULL;
  }
  memcpy(buf, key, n);
  buf[n] = '\0';
  char *dot = strchr(buf, '.');
  const char *solver = dot ? buf : NULL, *name = dot ? dot + 1 : buf;
  if (dot) *dot = '\0';
  if (solver && !names_of(solver, names, sizeof names)[0]) {
    cpk_error_set(err, CPK_EINVAL, "'%s' in '%.*s': no solver of that name has settings of its own",
                  solver, (int)n, key);
    return NULL;
  }
  const cpk_setting_desc *e = cpk_settings_find(solver, name);
  if (e && (e->solver != NULL) == (solver != NULL)) return e;
  if (solver)
    cpk_error_set(err, CPK_EINVAL, "unknown setting '%s.%s' (%s has: %s%s%s%s)", solver, name,
                  solver, names, e ? "; common ones go without a solver: " : "", e ? name : "",
                  e ? "=..." : "");
  else
    cpk_error_set(err, CPK_EINVAL, "unknown setting '%s' (common ones: %s; a solver's own: "
                  "SOLVER.NAME, see cpkit solvers --settings)", name,
                  names_of(NULL, names, sizeof names));
  return NULL;
}

int cpk_settings_parse(cpk_settings *s, const char *assignment, cpk_error *err)
{
  const char *eq = assignment ? strchr(assignment, '=') : NULL;
  if (!eq)
    return cpk_error_set(err, CPK_EINVAL, "setting '%s': expected NAME=VALUE or SOLVER.NAME=VALUE",
                         assignment ? assignment : "(null)");
  const cpk_setting_desc *e = find_key(assignment, (size_t)(eq - assignment), err);
  if (!e) return CPK_EINVAL;
  double d = 0.0;
  long l = 0;
  if (parse_value(e, eq + 1, &d, &l))
    return cpk_error_set(err, CPK_EINVAL, "setting '%s': '%s' is not %s", assignment, eq + 1,
                         e->type == CPK_SETTING_DOUBLE ? "a number" : e->type == CPK_SETTING_SIZE
                         ? "a whole number >= 0" : "a whole number in range");
  store(e, d, l, s);
  return CPK_OK;
}
