/* physics_mlcp.h: the dense boxed MLCP a physics engine passes at its solver seam (contacts with box friction), for re-solve tests and benches. */
#ifndef CPK_BENCH_PHYSICS_MLCP_H
#define CPK_BENCH_PHYSICS_MLCP_H
#include <stddef.h>
#include <cpkit/problem.h>

/**
 * ncontacts contacts among nbodies rigid bodies (6 dof, diagonal mass in [1, 5] kg, principal
 * inertias mass * [0.05, 0.2]), each between a random body and the ground or another body, with a
 * random unit normal, an orthonormal tangent pair and lever arms in [-0.5, 0.5]^3. Unknowns
 * (p_n, p_t1, p_t2) per contact (n = 3 ncontacts, contact-major), Delassus matrix
 * A = J Mass^-1 J^T + cfm I (cfm = 1e-3 * mean diag A: symmetric positive definite, as ODE/Bullet
 * regularize), q = J v (v ~ N(0, 1) per dof, the normals shifted to approach), bounds
 * 0 <= p_n and |p_t| <= 0.3 (fixed friction boxes). Dense M. The affine MCP's solution is unique.
 */
int cpk_physics_mlcp(size_t ncontacts, size_t nbodies, unsigned long seed, cpk_problem **out);
#endif
