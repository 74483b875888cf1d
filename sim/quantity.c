/* quantity.c: named quantities of a world after its last step ("ball.w[2]", "ball.fn", "energy"), for checks and plots. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rotation.h"
#include "world.h"

/* Sums over the contacts of body b in the last step. The name is decided once and the
 * tangent frame built only for ft: a scene's checks ask every step. */
static double contact_sum(const cpk_world *w, size_t b, const char *what)
{
  enum { CONTACTS, FN, MR, DELTA, FT, MODE } q = !strcmp(what, "contacts") ? CONTACTS
                                               : !strcmp(what, "fn")       ? FN
                                               : !strcmp(what, "mr")       ? MR
                                               : !strcmp(what, "delta")    ? DELTA
                                               : !strcmp(what, "ft")       ? FT
                                                                           : MODE;
  double s = 0, ft[3] = {0, 0, 0}, h = w->settings.h;
  int first_mode = -1;
  for (size_t c = 0; c < w->ncontacts; c++) {
    const cpk_sim_contact *k = &w->contacts[c];
    if (k->body[0] != b && k->body[1] != b) continue;
    if (first_mode < 0) first_mode = k->mode;
    if (q == CONTACTS) s += 1;
    else if (q == FN) s += k->P[0] / h;
    else if (q == MR) s += k->P[3] / h;
    else if (q == DELTA) s = fmax(s, k->delta[0]);
    if (q != FT) continue;
    double t[3], o[3], side = k->body[0] == b ? 1.0 : -1.0; /* body[1] takes the reaction */
    sim_tangent(k->normal, t);
    sim_vcross(k->normal, t, o);
    for (int i = 0; i < 3; i++) ft[i] += side * (k->P[1] * t[i] + k->P[2] * o[i]) / h;
  }
  if (q == FT) return sim_vnorm(ft);
  if (q == MODE) return first_mode < 0 ? 0 : first_mode;
  return s;
}

/* "x[1]" -> 'x', 1; returns 0 when it is not of that form. Parsed by hand, not with
 * sscanf (a scene's checks ask every step; sscanf was 40 % of this file's time on the
 * tripod): the same forms as "%c[%d]" (strtol skips blanks and takes a sign as %d does). */
static int indexed(const char *q, char *which, int *i)
{
  char *end;
  if (!q[0] || q[1] != '[') return 0;
  long v = strtol(q + 2, &end, 10);
  if (end == q + 2 || end[0] != ']' || end[1] != '\0' || v < INT_MIN || v > INT_MAX) return 0;
  *which = q[0];
  *i = (int)v;
  return 1;
}

static int body_quantity(const cpk_world *w, size_t b, const char *q, double *value)
{
  const cpk_body *B = &w->bodies[b];
  static const char *const sums[] = {"contacts", "fn", "ft", "mr", "mode", "delta"};
  char which;
  int i;
  if (!indexed(q, &which, &i)) { /* the names: none has '[' second, as "x[2]" has */
    if (!strcmp(q, "speed")) return *value = sim_vnorm(B->v), 1;
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++)
      if (!strcmp(q, sums[k])) return *value = contact_sum(w, b, q), 1;
    return 0;
  }
  if (i < 0 || i > (which == 'q' ? 3 : 2)) return 0;
  switch (which) {
  case 'x': *value = B->x[i]; return 1;
  case 'v': *value = B->v[i]; return 1;
  case 'w': *value = B->w[i]; return 1;
  case 'q': *value = B->q[i]; return 1;
  default: return 0;
  }
}

int cpk_world_quantity(const cpk_world *w, const char *name, double *value, cpk_error *err)
{
  if (!strcmp(name, "energy")) return *value = cpk_world_energy(w), CPK_OK;
  if (!strcmp(name, "time")) return *value = w->time, CPK_OK;
  const char *dot = strchr(name, '.');
  size_t len = dot ? (size_t)(dot - name) : 0;
  for (size_t b = 0; dot && b < w->nbodies; b++)
    if (strlen(w->bodies[b].name) == len && !strncmp(w->bodies[b].name, name, len)) {
      if (body_quantity(w, b, dot + 1, value)) return CPK_OK;
      return cpk_error_set(err, CPK_ENOTFOUND,
                           "quantity '%s': unknown (x[i], v[i], w[i], q[i], speed, contacts, "
                           "fn, ft, mr, mode, delta)", name);
    }
  return cpk_error_set(err, CPK_ENOTFOUND,
                       "quantity '%s': expected BODY.QUANTITY with a body of the scene, "
                       "'energy' or 'time'", name);
}
