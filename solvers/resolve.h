/* resolve.h: private helpers for re-solves: what changed in a problem since a solver last saw it. */
#ifndef CPK_SOLVERS_RESOLVE_H
#define CPK_SOLVERS_RESOLVE_H
#include <cpkit/problem.h>
#include <cpkit/solver.h>

/* Bits of resolve_changed: which of the problem's change counters moved. */
enum {
  RESOLVE_Q = 1,
  RESOLVE_BOUNDS = 2,
  RESOLVE_VALUES = 4,
  RESOLVE_MU = 8,
  RESOLVE_PARAMS = 16,
  RESOLVE_ALL = 31
};

/* A copy of the counters of p->rev (its struct is anonymous in problem.h). */
typedef struct resolve_seen {
  unsigned long q, bounds, values, mu, params;
} resolve_seen;

/* Remember p's counters as seen. */
void resolve_seen_set(resolve_seen *seen, const cpk_problem *p);
/* Bits of what changed in p since `seen` was set (0: nothing). */
unsigned resolve_changed(const resolve_seen *seen, const cpk_problem *p);
/* J = M for an affine problem on a pattern fixed for good (every entry of a dense M). */
int resolve_affine_jacobian(const cpk_problem *p, cpk_csc **out);
/* J's values <- M's (J made by resolve_affine_jacobian for this p). */
void resolve_refresh_jacobian(cpk_csc *J, const cpk_problem *p);
/* 1 if solver T refreshes its own state from p->rev at every solve (the driver need not rebuild it). */
int resolve_refreshes_itself(const cpk_solver_type *T);
#endif
