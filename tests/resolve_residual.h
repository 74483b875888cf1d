/* resolve_residual.h: the natural residual of a box MCP with w = Mz + q computed by the test's own loop (not the library's). */
#ifndef CPK_TESTS_RESOLVE_RESIDUAL_H
#define CPK_TESTS_RESOLVE_RESIDUAL_H
#include <cpkit/problem.h>

/* max_i |z_i - mid(l_i, u_i, z_i - w_i)|, w = Mz + q entry by entry (affine problems). */
double resolve_natural_residual(const cpk_problem *p, const double *z);
#endif
