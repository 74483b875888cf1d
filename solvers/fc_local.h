/* fc_local.h: private interface of the exact one-contact friction-cone solver, shared by nsgs and the other cone solvers. */
#ifndef CPK_SOLVERS_FC_LOCAL_H
#define CPK_SOLVERS_FC_LOCAL_H
#include <stddef.h>

/* What fc_local_solve achieved. */
typedef enum fc_local_status {
  FC_LOCAL_SOLVED = 0,  /* the contact's natural map is at most tol at the returned r */
  FC_LOCAL_INACCURATE,  /* every method tried; r is the best point found, above tol */
  FC_LOCAL_DEGENERATE   /* W_nn is zero (or not positive) and q_n < 0: no reaction can
                           help, so the contact is given up and r is left unchanged */
} fc_local_status;

/*
 * Solve the one-contact problem u = W r + q, r in K_mu, u + mu |u_T| e_n in K_mu*,
 * r . (u + mu |u_T| e_n) = 0, for W a dim x dim block (row-major, dim 2..4, any
 * W with W_nn > 0; symmetry not assumed) and mu >= 0. On entry r holds a start
 * (the previous value, used by the Newton phase); on return the answer or the best
 * point found. tol is the absolute target on |e|_2 (cpk_cone_natural_map), max_iter
 * the Newton iterations per start (the projection fallback gets 20 times as many).
 * *residual receives |e|_2 at the returned r.
 *
 * The cases in order: separation (q_n >= 0: r = 0), mu = 0 (normal only),
 * sticking (W r = -q inside the cone), sliding (damped Newton on the Alart-Curnier
 * function from several starts; for dim 2 and 3 a search over slip directions,
 * which does not depend on W's conditioning; then a projection fixed point with
 * rho = 1/|W|_F followed by Newton again). The best point by the natural map is
 * kept; a point counts as converged at tol or at the round-off level of its
 * natural map (a few eps (|r| + |u|)).
 */
fc_local_status fc_local_solve(size_t dim, double mu, const double *W, const double *q, double *r,
                               double tol, long max_iter, double *residual);

/*
 * Solve A x = b (d x d, row-major, d = 2 .. 4) by the adjugate over the determinant,
 * without allocating. Returns 1 without touching x when A is numerically singular:
 * for d = 2, 3 |det| at most 1e-12 times the product of the row norms (Hadamard's
 * bound); for d = 4 1/cond_1(A) = |det| / (||A||_1 ||adj A||_1) at most 1e-12, so a
 * block of cond ~1e4 (ones(4) + 1e-4 I) is solved. Here for the tests (t_fc_local).
 */
int fc_local_small_solve(size_t d, const double *A, const double *b, double *x);
#endif
