/* families.h: problem generators (classic hard LCPs, random classes, contact) for tests/bench. */
#ifndef CPK_BENCH_FAMILIES_H
#define CPK_BENCH_FAMILIES_H
#include <stddef.h>
#include <cpkit/problem.h>

/*
 * Every generator returns a new problem through `out` (free it with
 * cpk_problem_free) and an error code: CPK_EINVAL for impossible sizes,
 * CPK_EOVERFLOW / CPK_ENOMEM when the sizes do not fit. Random generators
 * draw from GSL's mt19937 generator seeded with `seed`: the same seed gives
 * the same problem on every platform GSL supports.
 *
 * "Known solution" families use the construction of SCS's random cone
 * problems: draw v ~ N(0,1)^n, set z* = max(v, 0), w* = max(-v, 0) and
 * q = w* - M z*, so (z*, w*) is complementary by construction whatever M is.
 */

/** Storage of the generated M for the families that offer both. */
#define CPK_FAMILY_DENSE 0
#define CPK_FAMILY_SPARSE 1

/**
 * Murty's exponential example for Lemke's method: K. G. Murty, "Computational
 * complexity of complementary pivot methods", Mathematical Programming Study 7
 * (1978) 61-73; also Murty, "Linear Complementarity, Linear and Nonlinear
 * Programming" (1988), ch. 6.
 *
 *   M(n) lower triangular, m_ii = 1, m_ij = 2 for i > j, m_ij = 0 for i < j;
 *   q(n)_i = -(2^n + 2^(n-1) + ... + 2^(n-i+1))    (i = 1..n), e.g. n = 3:
 *   M = [1 0 0; 2 1 0; 2 2 1],  q = (-8, -12, -14).
 *
 * M is a P-matrix (triangular, unit diagonal), so the solution is unique:
 * z* = (2^n, 0, ..., 0) with w* = (0, 2^n + 2^(n-1), ...) > 0 after the first
 * entry (see cpk_family_murty_solution). Dense M; 1 <= n <= 52 keeps q exact.
 */
int cpk_family_murty(size_t n, cpk_problem **out);
/** Writes Murty's unique solution z* = 2^n e_1 into z (length n). */
void cpk_family_murty_solution(size_t n, double *z);
/**
 * Pivots Lemke's method with covering vector e needs on cpk_family_murty(n):
 * 2^n, counting the pivot that brings the artificial variable z0 in and the one
 * that drives it out (the problem is nondegenerate, so no tie-breaking rule is
 * involved). Murty's chapter 6 states the 2^n count; it was re-checked here
 * with an exact rational-arithmetic Lemke for n = 1..9. -1 if 2^n overflows a long.
 */
long cpk_family_murty_pivots(size_t n);

/**
 * Fathi's example: Y. Fathi, "Computational complexity of LCPs associated
 * with positive definite symmetric matrices", Mathematical Programming 17
 * (1979) 335-344:
 *
 *   M = L L^T with L = Murty's M(n) above (lower triangular, 1 on the
 *   diagonal, 2 below), q = -e.
 *
 * M is symmetric positive definite; the unique solution is z* = e_1
 * (M e_1 = (1, 2, ..., 2), so w* = (0, 1, ..., 1)). Dense M.
 */
int cpk_family_fathi(size_t n, cpk_problem **out);
/** Writes Fathi's unique solution z* = e_1 into z (length n). */
void cpk_family_fathi_solution(size_t n, double *z);
/**
 * Pivots Lemke's method with covering vector e needs on cpk_family_fathi(n):
 * 2^n, counted as for Murty's problem. The first ratio test is a complete tie
 * (q = -e = -d): the count assumes the standard lexicographic rule, i.e. the
 * perturbation q + (eps, eps^2, ..., eps^n), which makes w_n leave first; a
 * rule that lets w_1 leave first ends in 2 pivots. Fathi's paper proves the
 * exponential growth for this class; the exact 2^n was checked here with an
 * exact rational-arithmetic lexicographic Lemke for n = 1..9 (and in
 * tests/t_families.c for n <= 8). Later ratio tests tie as well (e.g. 10 of the
 * 16 pivots at n = 4), so a lexicographic test over B^-1's columns in another
 * order than that of the original w columns follows another, shorter path: the
 * count is a property of this path, not a bound. -1 on overflow.
 */
long cpk_family_fathi_pivots(size_t n);

/**
 * Random nonsymmetric positive definite LCP with a known solution:
 * M = B B^T / n + S + delta I (B Gaussian, S skew-symmetric, delta = 0.1), so
 * x^T M x >= delta |x|^2. Dense: B full n-by-n, S entries N(0, 1/n). Sparse:
 * B with 3 N(0, 1) entries per column (B B^T not divided by n) and S with 2
 * random pairs per row, N(0, 1), about 14 n triplets, assembled through
 * cpk_matrix_from_triplets (never densified). zstar (may be NULL) receives z*.
 */
int cpk_family_random_pd(size_t n, unsigned long seed, int storage, cpk_problem **out,
                         double *zstar);

/**
 * Random P-matrix LCP whose M is NOT positive definite (n >= 2), known solution.
 * M = P T P^T with T upper triangular, diagonal in [1, 2], entries above the
 * diagonal in [-3, 3] and T_12 = +-6, and P a random permutation. Why P: a
 * principal submatrix of P T P^T is a symmetric permutation of a principal
 * submatrix of T, which is triangular with positive diagonal, so every
 * principal minor is a product of diagonal entries of T, > 0. Why not PD: the
 * symmetric part of the 2x2 block on indices {1, 2} of T is
 * [t11 3; 3 t22] (in absolute value), whose determinant t11 t22 - 9 <= 4 - 9 < 0.
 */
int cpk_family_random_p(size_t n, unsigned long seed, cpk_problem **out, double *zstar);

/**
 * Random symmetric PSD LCP M = B B^T with B n-by-rank (rank <= n), dense.
 * feasible = 1: known solution z* (SCS construction), written to zstar_or_y.
 * feasible = 0 (needs rank < n): infeasible by construction. A vector y >= 0,
 * y != 0 (entries in [0.5, 1.5]) is drawn first and the columns of B are made
 * orthogonal to it, so B^T y = 0 and M y = 0; q is drawn and shifted along y
 * so that q^T y = -1. Certificate: y >= 0, M^T y = 0 <= 0, q^T y < 0. If z >= 0
 * had w = Mz + q >= 0, then 0 <= y^T w = (M^T y)^T z + q^T y <= q^T y < 0,
 * a contradiction: the LCP has no feasible point, hence no solution.
 * zstar_or_y (may be NULL) receives y in that case.
 */
int cpk_family_random_psd(size_t n, size_t rank, unsigned long seed, int feasible,
                          cpk_problem **out, double *zstar_or_y);

/**
 * Small-integer degenerate LCP: M = D + S + u u^T with D diagonal in {1, 2},
 * S skew-symmetric with entries in {-1, 0, 1}, u in {-1, 0, 1}^n (so
 * off-diagonal entries lie in -2..2), and q_i in {-1, 0}. M is positive
 * definite (x^T M x >= |x|^2), so a unique solution exists, but the many equal
 * ratios and zero entries of q make naive pivoting tie and cycle. Dense.
 */
int cpk_family_degenerate(size_t n, unsigned long seed, cpk_problem **out);

/**
 * Same matrix class with a known degenerate solution: each index is at random
 * z*_i in {1, 2} (w*_i = 0), w*_i in {1, 2} (z*_i = 0), or z*_i = w*_i = 0
 * (at least one such index); q = w* - M z* is integer. zstar may be NULL.
 */
int cpk_family_known_degenerate(size_t n, unsigned long seed, cpk_problem **out, double *zstar);

/**
 * Random box-constrained affine MCP with a known solution. M as in
 * cpk_family_random_pd (dense). Bounds cycle through the four kinds: free
 * (l = -inf, u = +inf), [0, +inf), (-inf, u], and [l, u] with l < u finite.
 * Each variable is then placed at random at a bound (with F*_i of the right
 * strict sign) or strictly inside (F*_i = 0; free variables always), and
 * q = F* - M z*. zstar may be NULL.
 */
int cpk_family_random_box_mcp(size_t n, unsigned long seed, cpk_problem **out, double *zstar);

/**
 * Frictionless multi-body contact LCP in local (Delassus) form, sparse.
 * nbodies rigid bodies, 6 dof each, diagonal mass matrix (mass in [1, 10],
 * principal inertias mass * [0.05, 0.2]). Each contact joins two random bodies
 * (or one body and the ground, 1 in 5, and always when nbodies = 1) with a
 * random unit normal n and lever arms r in [-0.5, 0.5]^3: its Jacobian row is
 * [n, r_a x n] on body a and [-n, -(r_b x n)] on body b. W = J M^-1 J^T is
 * assembled sparsely: one triplet per pair of contacts sharing a body, so
 * nnz(W) = sum over bodies of deg(b)^2, linear in ncontacts when
 * ncontacts / nbodies is fixed. Then W += eps I, eps = 1e-6 * mean diag(W),
 * so W is symmetric positive definite. q = J v + gap / h with v ~ N(0, 1) per
 * dof, gap in [0, 0.01], h = 0.01; contacts with J v < -gap/h approach (q < 0),
 * and at least one contact is made to approach.
 */
int cpk_family_delassus(size_t ncontacts, size_t nbodies, unsigned long seed, cpk_problem **out);

/**
 * The same kind of scene before eliminating velocities: the affine MCP of one
 * velocity-level time step in the unknowns (v, p_n), v = 6 * nbodies free
 * velocities, p_n >= 0 normal impulses:
 *
 *   F(v, p_n) = [ Mass  -J^T ] [ v  ]  +  [ -Mass v_prev - h f_ext ]
 *               [ J     eps I ] [ p_n ]     [  gap / h               ]
 *
 * The first block row is the momentum balance Mass v = Mass v_prev + h f_ext
 * + J^T p_n (an equation, v free); the second is 0 <= p_n _|_ J v + gap/h >= 0
 * (no penetration at the end of the step). f_ext is gravity (0, 0, -9.81 m,
 * 0, 0, 0) per body. eps = 1e-6 * mean diag(J Mass^-1 J^T) is a small contact
 * compliance (ODE's CFM) that makes the reduced problem positive definite, so
 * a solution always exists and p_n is unique. Sparse (CSC).
 */
int cpk_family_contact_kkt(size_t nbodies, size_t ncontacts, unsigned long seed, cpk_problem **out);

/**
 * Box-friction variant: unknowns (v, p_n, p_t), two tangential impulses per
 * contact along an orthonormal tangent pair of the normal, bounded in
 * [-mu c, mu c] with c = m_a * 9.81 * h (the weight impulse of the first body
 * over one step), the "box friction" of game engines. Extra rows
 * F_t = J_t v + eps p_t, so p_t = -mu c when the contact slides forward along
 * t (F_t > 0), +mu c when it slides backward, and J_t v = -eps p_t inside.
 * Layout: v (6 nbodies), p_n (ncontacts), p_t (2 ncontacts, contact-major).
 */
int cpk_family_contact_kkt_box(size_t nbodies, size_t ncontacts, double mu, unsigned long seed,
                               cpk_problem **out);

/* Data of the block-on-plane scene (SI units). */
#define CPK_BLOCK_MASS 2.0   /**< kg */
#define CPK_BLOCK_HALF_X 0.2 /**< half extents of the box, m */
#define CPK_BLOCK_HALF_Y 0.15
#define CPK_BLOCK_HALF_Z 0.1
#define CPK_BLOCK_GRAVITY 9.81 /**< m/s^2, along -z */
#define CPK_BLOCK_MU 0.3
#define CPK_BLOCK_STEP 0.01 /**< h, s */
#define CPK_BLOCK_SPEED 1.0 /**< initial sliding velocity along +x, m/s */

/**
 * Stewart-Trinkle velocity-level LCP (seed 004 eq. (15), friction cone
 * replaced by d directions as in seed 000 eq. (5)) for a box resting on the
 * plane z = 0 with its 4 bottom corners in contact (gap 0), sliding along +x at
 * CPK_BLOCK_SPEED, under gravity, with velocities eliminated:
 * v+ = v + M^-1 (W_n p_n + W_t p_t + h k). Unknowns (4 + 4d + 4):
 * p_n[i] (normal impulses), p_t[i,j] (impulse along direction j of contact i,
 * directions at angles 2 pi (j-1)/d in the plane), sigma[i] (sliding speed):
 *
 *   [ W_n' M^-1 W_n   W_n' M^-1 W_t   0 ] [p_n]   [ W_n' v* + psi/h ]
 *   [ W_t' M^-1 W_n   W_t' M^-1 W_t   E ] [p_t] + [ W_t' v*         ]
 *   [ U               -E'             0 ] [sig]   [ 0               ]
 *
 * with v* = v + h M^-1 k, U = mu I, E = blockdiag(e_d). Dense. Variable names
 * "p_n[1]", "p_t[1,3]", "sigma[1]" (1-based). Requires d >= 1.
 */
int cpk_family_block_on_plane_lcp(size_t d, cpk_problem **out);

/**
 * One exact solution of cpk_family_block_on_plane_lcp(d) for even d (the
 * direction -x is then direction d/2 + 1): total normal impulse N = m g h,
 * split so that the angular impulse of friction about y is balanced,
 * p_n = N/4 (1 + mu c/a) at the front corners (x = +a) and N/4 (1 - mu c/a)
 * at the back; p_t = mu p_n along -x only; sigma = v_x+ = v_x - mu g h.
 * Not unique: 4 contacts hold 3 dof, so p_n + t (1, -1, -1, 1), with the
 * per-contact friction p_t[i, d/2+1] = mu p_n[i] following, solves too for
 * |t| <= N/4 (1 - mu c/a). Invariant over all these solutions (compare these,
 * not z): the totals sum p_n = m g h and sum p_t = mu m g h, friction only
 * along -x, and sigma. CPK_EINVAL for odd d.
 */
int cpk_family_block_on_plane_solution(size_t d, double *z);

/**
 * The circulant LCP M = 4I - S - S' (S the cyclic shift, CSC, 3 entries a
 * row; positive definite) with the planted integer solution z*_i = 1 on even
 * i, w*_i = 1 on odd i: q holds only -4 and 3, so Lemke's ratio tests tie
 * almost everywhere. perturb != 0 adds perturb * (a fixed sequence in
 * [0, 1)) to q: the same data without ties (z* is then only close). Even
 * n >= 4 (CPK_EINVAL otherwise). zstar (length n, or NULL) receives z*.
 */
int cpk_family_circulant(size_t n, double perturb, cpk_problem **out, double *zstar);

/**
 * Lower-triangular integer P-matrix LCP: M unit lower triangular (dense) with
 * entries in {-3, ..., 3} below the diagonal, a planted complementary z*, w*
 * in {0, 1, 2}, q = w* - M z* (integers). Unique solution, found exactly by
 * forward substitution; Lemke's bases are ill-conditioned (about 4^n).
 * zstar (length n, or NULL) receives z*.
 */
int cpk_family_int_triangular(size_t n, unsigned long seed, cpk_problem **out, double *zstar);

#endif
