/* cli_names.c: the one "unknown NAME" usage error of every subcommand: the valid names and the closest one. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* Optimal string alignment distance (Levenshtein plus adjacent swaps), capped for long words. */
static size_t edit_distance(const char *a, const char *b)
{
  enum { MAXLEN = 63 };
  size_t n = strlen(a), m = strlen(b);
  if (n > MAXLEN || m > MAXLEN) return (size_t)-1;
  size_t d[MAXLEN + 1][MAXLEN + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = i;
  for (size_t j = 0; j <= m; j++) d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

const char *cli_closest_name(const char *name, const char *const *valid, size_t nvalid)
{
  const char *best = NULL;
  size_t best_d = (size_t)-1, len = strlen(name);
  for (size_t k = 0; k < nvalid; k++) {
    size_t d = edit_distance(name, valid[k]);
    /* A prefix ("poly" for "polyhedral") is as good as one typo. */
    if (len >= 3 && strncmp(name, valid[k], len) == 0 && d > 1) d = 1;
    if (d < best_d) {
      best_d = d;
      best = valid[k];
    }
  }
  /* Beyond a third of the word, the "closest" name is a guess, not a typo. */
  size_t limit = len / 3 > 2 ? len / 3 : 2;
  return best_d <= limit ? best : NULL;
}

int cli_unknown_name(const cli_command *cmd, const char *what, const char *name,
                     const char *const *valid, size_t nvalid)
{
  char list[512] = "";
  size_t used = 0;
  for (size_t k = 0; k < nvalid && used < sizeof list; k++) {
    int wrote = snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", valid[k]);
    if (wrote < 0) break;
    used += (size_t)wrote;
  }
  const char *guess = cli_closest_name(name, valid, nvalid);
  if (guess)
    return cli_usage_error(cmd, "unknown %s '%s'; did you mean '%s'? (valid: %s)", what, name, guess,
                           list);
  return cli_usage_error(cmd, "unknown %s '%s' (valid: %s)", what, name, list);
}

int cli_unknown_solver(const cli_command *cmd, const char *name)
{
  const char *names[64];
  size_t n = 0;
  for (size_t k = 0; k < cpk_solver_count() && n < sizeof names / sizeof names[0]; k++)
    names[n++] = cpk_solver_at(k)->name;
  return cli_unknown_name(cmd, "solver", name, names, n);
}

int cli_find_linsys(const cli_command *cmd, const char *name, const cpk_linsys_type **out)
{
  *out = cpk_linsys_find(name);
  if (*out) return CLI_CONTINUE;
  const char *valid[6] = {cpk_linsys_lapack->name, cpk_linsys_dense->name, cpk_linsys_umfpack->name};
  size_t nvalid = 3;
  if (cpk_linsys_petsc) valid[nvalid++] = cpk_linsys_petsc->name; /* NULL without PETSc */
  if (cpk_linsys_petsc_cg) valid[nvalid++] = cpk_linsys_petsc_cg->name;
  if (cpk_linsys_petsc_gmres) valid[nvalid++] = cpk_linsys_petsc_gmres->name;
  return cli_unknown_name(cmd, "linear solver", name, valid, nvalid);
}

int cli_unknown_model(const cli_command *cmd, const char *name, const char *extra)
{
  const char *names[CPK_MODEL_COUNT + 1];
  size_t n = 0;
  for (int m = 0; m < CPK_MODEL_COUNT; m++)
    if (cpk_contact_model_name((cpk_contact_model)m)) names[n++] = cpk_contact_model_name((cpk_contact_model)m);
  if (extra) names[n++] = extra;
  return cli_unknown_name(cmd, "model", name, names, n);
}
