/* resolve.c: change tracking for re-solves: the counters a solver saw, and which solvers refresh themselves. */
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
 * only what changed, without allocating. The others cache problem data in
 * `alloc` (diagonal blocks, scalings, copies of M), so the driver rebuilds
 * their state when anything changed: correct, though it allocates.
 */
int resolve_refreshes_itself(const cpk_solver_type *T)
{
  return T == cpk_solver_lemke || T == cpk_solver_pgs || T == cpk_solver_bdnewton ||
         T == cpk_solver_fbnewton;
}
