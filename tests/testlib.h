/* testlib.h: TAP test helpers (ok, near, independent LCP/MCP solution checks). */
#ifndef CPK_TESTLIB_H
#define CPK_TESTLIB_H
#include <stddef.h>
#include <cpkit/cpkit.h>

/** Record one test; prints "ok N - ..." or "not ok N - ...". Returns cond. */
int t_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** |x - expected| <= tol (absolute). */
int t_near(double x, double expected, double tol, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Print a TAP comment line. */
void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Print the plan and return the exit status (0 if all passed). */
int t_done(void);
/** Path of a file in tests/ (uses CPK_TEST_SRCDIR); static buffer. */
const char *t_srcpath(const char *rel);
/** Seed for random tests: CPK_TEST_SEED or a fixed default. */
unsigned long t_seed(void);

/**
 * Independent check that z solves the box MCP p to absolute tolerance tol:
 * recomputes w = F(z) with its own loop (not cpk_natural_residual) and checks
 * bounds, sign conditions and complementarity. Returns 1 if it does.
 */
int t_is_mcp_solution(const cpk_problem *p, const double *z, double tol);

/**
 * Independent check that r solves the friction-cone problem p to absolute
 * tolerance tol: recomputes u = W r + q entry by entry and checks, per contact,
 * |r_T| <= mu r_n, the modified velocity in the dual cone, orthogonality, and
 * for a sliding contact friction opposite to the slip (maximum dissipation).
 * O(n^2): for small and medium problems. Prints what fails. Returns 1 if it holds.
 */
int t_is_fc_solution(const cpk_problem *p, const double *r, double tol);

/**
 * The friction-cone problem of the FCLIB local file tests/REL (W, q, mu; 3D).
 * NULL (with a diagnostic) when cpkit was built without HDF5 or the file
 * cannot be read; the caller then skips.
 */
cpk_problem *t_fclib_problem(const char *rel);

/**
 * The seed 004 tripod (examples/seed004-tripod.scene.json) as a world with the scene's
 * settings but `model`, `solver` and `timings`; *sc gets the scene (free both). NULL when
 * it cannot be made.
 */
cpk_world *t_tripod_world(const char *model, const char *solver, int timings, cpk_scene **sc);
#endif
