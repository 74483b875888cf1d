/* resolve_testlib.h: helpers of the re-solve tests: an independent natural residual, a small friction-cone problem. */
#ifndef CPK_TESTS_RESOLVE_TESTLIB_H
#define CPK_TESTS_RESOLVE_TESTLIB_H
#include <cpkit/problem.h>

/* max_i |z_i - mid(l_i, u_i, z_i - w_i)|, w = Mz + q entry by entry (affine problems). */
double resolve_natural_residual(const cpk_problem *p, const double *z);
/* 3 contacts (dim 3), W = I + B B^T / 9 dense (B fixed), normals approaching, mu 0.3, 0.5, 0.8. */
cpk_problem *resolve_small_cone(void);
#endif
