/* resolve.c: change tracking for re-solves: the counters a solver saw, and which solvers refresh themselves. */
#include <string.h>
#include <cpkit/util.h>
#include "resolve.h"

void resolve_seen_set(resolve_seen *seen, const cpk_problem *p)
{
  seen->q = p->rev.q;
  seen->bounds = p->rev.bounds;
  seen->values = p->rev.values;
  seen->mu = p->rev.mu;
  seen->params = p->rev.params;
}

unsigned resolve_changed(const resolve_seen *seen, const cpk_problem *p)
{
  return (seen->q != p->rev.q ? RESOLVE_Q : 0u) | (seen->bounds != p->rev.bounds ? RESOLVE_BOUNDS : 0u) |
         (seen->values != p->rev.values ? RESOLVE_VALUES : 0u) |
         (seen->mu != p->rev.mu ? RESOLVE_MU : 0u) |
         (seen->params != p->rev.params ? RESOLVE_PARAMS : 0u);
}

/*
 * These solvers compare p->rev with what they saw at every solve and refresh
 * only what changed, without allocating, with two exceptions: fcipm builds its
 * workspace again when a contact's mu goes to or from 0 (its cone's size, hence
 * the system's layout, changes), and nsgs makes nsn's workspace at its first
 * finish (nsn_finish.c), kept after that (fcipm too). The others cache problem data in
 * `alloc` (diagonal blocks, scalings, copies of M), so the driver rebuilds
 * their state when anything changed: correct, though it allocates.
 */
int resolve_refreshes_itself(const cpk_solver_type *T)
{
  return T == cpk_solver_lemke || T == cpk_solver_pgs || T == cpk_solver_bdnewton ||
         T == cpk_solver_fbnewton || T == cpk_solver_ipm || T == cpk_solver_nsgs ||
         T == cpk_solver_nsn || T == cpk_solver_enum || T == cpk_solver_fcipm;
}

/*
 * J = M for affine problems. A dense M gets its full pattern (explicit zeros
 * kept): an update may make any entry non-zero, and the pattern (A's, the
 * symbolic analysis, bdnewton's fallback system, ipm's K) must not change after alloc.
 * The dense LU holds n^2 entries anyway.
 */
int resolve_affine_jacobian(const cpk_problem *p, cpk_csc **out)
{
  const cpk_matrix *M = p->M;
  size_t n = p->n, nn;
  if (M->format == CPK_MATRIX_CSC) return cpk_csc_copy(M->csc, out);
  if (cpk_size_mul(n, n, &nn) || nn > (size_t)INT64_MAX) return CPK_EOVERFLOW;
  int rc = cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)nn, out);
  if (rc) return rc;
  cpk_csc *J = *out;
  for (size_t j = 0; j <= n; j++) J->p[j] = (cpk_int)(j * n);
  for (size_t k = 0; k < nn; k++) J->i[k] = (cpk_int)(k % (n ? n : 1));
  resolve_refresh_jacobian(J, p);
  return CPK_OK;
}

void resolve_refresh_jacobian(cpk_csc *J, const cpk_problem *p)
{
  const cpk_matrix *M = p->M;
  size_t n = p->n;
  if (M->format == CPK_MATRIX_CSC) {
    memcpy(J->x, M->csc->x, (size_t)M->csc->p[n] * sizeof *J->x);
    return;
  }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) J->x[j * n + i] = gsl_matrix_get(M->dense, i, j);
}
