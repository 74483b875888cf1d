/* findex.h: the solve driver's hook for friction-index rows (their exact encoding, solvers/findex.c). */
#ifndef CPK_SOLVERS_FINDEX_H
#define CPK_SOLVERS_FINDEX_H
#include <cpkit/solver.h>

/**
 * Bind solver type T to problem p: for a problem without friction-index rows, or a solver
 * that reads them natively (pgs), *impl = T and T->alloc runs on p. Otherwise p is encoded
 * as an affine MCP without them (doc/solvers.md, "Friction-index rows"), T is bound to the
 * encoding, and *impl is a type whose solve refreshes the encoding from p's change counters,
 * runs T and maps z, basis, ray and solutions back to p's variables.
 */
int cpk_findex_bind(const cpk_solver_type *T, const cpk_problem *p, const cpk_settings *s,
                    const cpk_solver_type **impl, void **state, cpk_error *err);

/** 1 if T reads friction-index rows itself (no encoding). */
int cpk_findex_native(const cpk_solver_type *T);
#endif
