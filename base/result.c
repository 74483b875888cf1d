/* result.c: status names and the cpk_result object. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/result.h>
#include <cpkit/util.h>

static const char *const status_names[CPK_STATUS_COUNT] = {
    "solved", "no_solution", "ray_termination", "max_iterations",
    "time_limit", "stalled", "invalid_input"};

const char *cpk_status_name(cpk_status status)
{
  return (unsigned)status < CPK_STATUS_COUNT ? status_names[status] : "unknown";
}

int cpk_status_from_name(const char *name, cpk_status *status)
{
  for (int k = 0; k < CPK_STATUS_COUNT; k++)
    if (name && strcmp(name, status_names[k]) == 0) {
      *status = (cpk_status)k;
      return CPK_OK;
    }
  return CPK_EINVAL;
}

const char *cpk_var_state_name(int state)
{
  switch (state) {
  case CPK_VAR_AT_LOWER: return "lower";
  case CPK_VAR_AT_UPPER: return "upper";
  case CPK_VAR_BASIC: return "basic";
  }
  return "unknown";
}

int cpk_result_alloc(size_t n, cpk_result **out)
{
  cpk_result *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!r) return CPK_ENOMEM;
  r->n = n;
  r->capacity = n;
  r->z = cpk_calloc_array(n, sizeof *r->z);
  r->w = cpk_calloc_array(n, sizeof *r->w);
  r->ray = cpk_calloc_array(n, sizeof *r->ray);
  r->basis = cpk_calloc_array(n, sizeof *r->basis);
  if (!r->z || !r->w || !r->ray || !r->basis) {
    cpk_result_free(r);
    return CPK_ENOMEM;
  }
  cpk_result_reset(r);
  *out = r;
  return CPK_OK;
}

void cpk_result_free(cpk_result *r)
{
  if (!r) return;
  free(r->z);
  free(r->w);
  free(r->ray);
  free(r->basis);
  free(r->solutions);
  free(r);
}

/* Replace *arr by a zeroed array of n elements; the old one is kept on failure. */
static int regrow(void **arr, size_t n, size_t size)
{
  void *fresh = cpk_calloc_array(n, size);
  if (!fresh) return CPK_ENOMEM;
  free(*arr);
  *arr = fresh;
  return CPK_OK;
}

int cpk_result_resize(cpk_result *r, size_t n)
{
  if (n > r->capacity) {
    if (regrow((void **)&r->z, n, sizeof *r->z) || regrow((void **)&r->w, n, sizeof *r->w) ||
        regrow((void **)&r->ray, n, sizeof *r->ray) ||
        regrow((void **)&r->basis, n, sizeof *r->basis))
      return CPK_ENOMEM; /* arrays already grown stay larger than capacity: still safe */
    r->capacity = n;
  }
  r->n = n;
  cpk_result_reset(r);
  return CPK_OK;
}

void cpk_result_reset(cpk_result *r)
{
  r->status = CPK_STATUS_STALLED;
  r->solver = NULL;
  r->residual = INFINITY;
  r->tolerance = 0.0;
  r->iterations = 0;
  r->time_s = 0.0;
  r->has_basis = 0;
  r->has_ray = 0;
  r->nsolutions = 0;
  r->nstats = 0;
  r->message[0] = '\0';
}

/* Names are mostly the solvers' literals: the same pointer, or a first letter that differs,
 * decides without a call to strcmp (a solver sets ~15 stats on every re-solve, each one
 * compared against those set before it: 1.5% of a tripod cone step went into strcmp). */
static int same_name(const char *a, const char *b)
{
  return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

int cpk_result_set_stat(cpk_result *r, const char *name, double value)
{
  for (size_t k = 0; k < r->nstats; k++)
    if (same_name(r->stats[k].name, name)) {
      r->stats[k].value = value;
      return CPK_OK;
    }
  if (r->nstats == CPK_MAX_STATS) return CPK_ENOMEM;
  r->stats[r->nstats].name = name;
  r->stats[r->nstats++].value = value;
  return CPK_OK;
}

int cpk_result_set_stats(cpk_result *r, const cpk_stat *list, size_t n)
{
  if (r->nstats == 0 && n <= CPK_MAX_STATS) { /* nothing to find: ~15 searches a solve saved */
    if (n > 0) memcpy(r->stats, list, n * sizeof *list);
    r->nstats = n;
    return CPK_OK;
  }
  for (size_t k = 0; k < n; k++) {
    int rc = cpk_result_set_stat(r, list[k].name, list[k].value);
    if (rc) return rc;
  }
  return CPK_OK;
}

int cpk_result_get_stat(const cpk_result *r, const char *name, double *value)
{
  for (size_t k = 0; k < r->nstats; k++)
    if (same_name(r->stats[k].name, name)) {
      *value = r->stats[k].value;
      return CPK_OK;
    }
  return CPK_ENOTFOUND;
}

int cpk_result_add_solution(cpk_result *r, const double *z)
{
  size_t count = r->nsolutions + 1, cells, bytes;
  if (cpk_size_mul(count, r->n ? r->n : 1, &cells) || cpk_size_mul(cells, sizeof(double), &bytes))
    return CPK_EOVERFLOW;
  if (cells > r->solutions_capacity) { /* else the list of an earlier solve has room: no allocation */
    double *grown = realloc(r->solutions, bytes);
    if (!grown) return CPK_ENOMEM;
    r->solutions = grown;
    r->solutions_capacity = cells;
  }
  memcpy(r->solutions + r->nsolutions * r->n, z, r->n * sizeof *z);
  r->nsolutions = count;
  return CPK_OK;
}
