/* mcp_problems.h: nonlinear MCP/NCP test problems (MCPLIB and others) with exact Jacobians, and contact NCPs with the quadratic friction law. */
#ifndef CPK_BENCH_MCP_PROBLEMS_H
#define CPK_BENCH_MCP_PROBLEMS_H
#include <stddef.h>
#include <cpkit/problem.h>

/*
 * Small problems from their published definitions, as C functions with exact
 * (hand-derived) Jacobians. Each comes with its standard starting points,
 * the solutions known for it, and what is known about monotonicity (the ipm
 * solver's potential-reduction method needs a monotone F):
 *
 *   name       n  source                                            monotone
 *   kojshin    4  Kojima & Shindo (1986), MCPLIB kojshin             no (witness below)
 *   josephy    4  Josephy (1979) after Kojima, MCPLIB josephy        no
 *   mathiesen  4  Mathiesen (1987) Walrasian equilibrium, NCP in     no
 *                 (y, p1, p2, p3); solutions form the ray
 *                 (3, 6t, t, 5t), t > 0 (prices are homogeneous)
 *   mathinum   3  the same with good 2 as numeraire (p2 = 1):        no
 *                 unique solution (3, 6, 5)
 *   nash      10  Murphy, Sherali & Soyster (1982) / Harker (1988)   unknown
 *                 Nash-Cournot oligopoly, MCPLIB nash (10 firms)
 *   cournot5   5  the 5-firm Nash-Cournot example of Murphy,         unknown
 *                 Sherali & Soyster (gamma = 1.1)
 *   billups    1  Billups (1995), MCPLIB billups: a local minimum    no
 *                 of every merit function that is not a solution
 *   obstacle  16  ours: discretised 1-D obstacle problem with a      strongly
 *                 cubic term between two obstacles (box bounds)
 *
 * Non-monotone witnesses (a monotone F has a positive semidefinite symmetric
 * part of F' everywhere): kojshin and josephy have F'(0) with the principal
 * block on {1, 2} equal to [0 0; 1 0], symmetric part [0 .5; .5 0],
 * indefinite; billups has F'(x) = 2(x - 1) < 0 for x < 1; mathiesen and
 * mathinum have, on {p1, p3}, dF_p1/dp3 = -2.7/p1, dF_p3/dp1 = 0 and
 * dF_p3/dp3 = 0, so that block's symmetric part [a b; b 0] with
 * b = -1.35/p1 != 0 is indefinite at every point.
 * obstacle: F(u) = A u + u^3 - f with A the SPD second-difference matrix, so
 * (F(x) - F(y))'(x - y) >= lambda_min(A) |x - y|^2.
 */

#define CPK_MCP_MAX_N 20

typedef enum cpk_mcp_monotonicity {
  CPK_MCP_NOT_MONOTONE = 0,      /**< a witness is given in `notes` */
  CPK_MCP_MONOTONE_UNKNOWN = 1,  /**< neither proved nor disproved here */
  CPK_MCP_STRONGLY_MONOTONE = 2  /**< proved in `notes` */
} cpk_mcp_monotonicity;

/** One small test problem. All arrays are static data. */
typedef struct cpk_mcp_info {
  const char *name;
  const char *source;          /**< where the definition comes from */
  const char *notes;           /**< solutions, degeneracy, monotonicity witness, known difficulties */
  size_t n;                    /**< <= CPK_MCP_MAX_N */
  int monotonicity;            /**< cpk_mcp_monotonicity */
  const double *lower, *upper; /**< bounds (n each); NULL means 0 and +inf (an NCP) */
  size_t nstarts;
  const double *starts;        /**< nstarts x n, row-major: the standard starting points */
  size_t nsolutions;
  const double *solutions;     /**< nsolutions x n, row-major, known to solution_tol (inf-norm) */
  double solution_tol;
  cpk_function F;              /**< returns non-zero outside F's domain */
  void (*jacobian_dense)(const double *z, double *J); /**< F'(z), row-major n x n */
} cpk_mcp_info;

/** Number of small problems, the i-th (NULL when out of range), and lookup by name. */
size_t cpk_mcp_count(void);
const cpk_mcp_info *cpk_mcp_at(size_t i);
const cpk_mcp_info *cpk_mcp_find(const char *name);

/**
 * Build the nonlinear MCP of `info` (dense Jacobian pattern, explicit zeros
 * kept). `info` must outlive the problem (it is the callbacks' params).
 */
int cpk_mcp_problem(const cpk_mcp_info *info, cpk_problem **out);

/*
 * ---- The quadratic friction-cone NCP of seed 004, eq. (9) -------------------
 *
 * One velocity-level time step of a block (translation only, one contact at
 * the centre of its base) on the plane z = 0, with impulses p = h lambda:
 * unknowns (v_x, v_y, v_z, p_n, p_t, p_o, sigma), W_n = e_z, W_t = e_x,
 * W_o = e_y, and
 *
 *   F_v     = m v - m v0 - h f_ext - (p_t, p_o, p_n)        v free
 *   F_n     = v_z + gap / h                        0 <= p_n   _|_ F_n >= 0
 *   F_t     = mu p_n v_x + p_t sigma               p_t free   (F_t = 0)
 *   F_o     = mu p_n v_y + p_o sigma               p_o free   (F_o = 0)
 *   F_sigma = mu^2 p_n^2 - p_t^2 - p_o^2          0 <= sigma _|_ F_sigma >= 0
 *
 * with f_ext = (push_x, push_y, -m g) (the gap is linearised as in the seed,
 * psi(q+) ~ psi + h v_z, divided by h). Not monotone: the (p_t, sigma) block
 * of F' is [sigma p_t; -2 p_t 0], whose symmetric part is indefinite when
 * p_t != 0.
 *
 * Hand-derived answer when the block stays in contact (p_n > 0):
 * v_z = -gap/h, p_n = m (g h - gap/h - v0_z). Let a = m v0_t + h push_t (the
 * tangential momentum the friction impulse must absorb to stop the block).
 * Sticking when |a| < mu p_n: v_t = 0, p_f = -a, sigma = 0. Sliding when
 * |a| > mu p_n: p_f = -mu p_n a/|a|, v_t = (|a| - mu p_n)/m a/|a|,
 * sigma = |v_t| (maximum dissipation: friction opposes the sliding velocity
 * and lies on the cone). Both are checked against F in tests/t_mcp_problems.c.
 */
typedef struct cpk_mcp_block {
  double mass, mu, h, gravity;
  double v0[3];   /**< velocity at the start of the step */
  double push[2]; /**< applied horizontal force */
  double gap;     /**< distance to the plane at the start of the step, >= 0 */
} cpk_mcp_block;

/**
 * The data of bench/families.h's block (mass, mu, h, g): sliding = 1 gives
 * v0 = (CPK_BLOCK_SPEED, 0, 0) and no push; sliding = 0 a block at rest
 * pushed by (3, 1) N, below the friction limit.
 */
void cpk_mcp_block_default(cpk_mcp_block *b, int sliding);
/**
 * The NCP above (n = 7). *data receives the callbacks' params (a copy of b):
 * free it with cpk_mcp_data_free after the problem.
 */
typedef struct cpk_mcp_data cpk_mcp_data;
int cpk_mcp_block_on_plane(const cpk_mcp_block *b, cpk_mcp_data **data, cpk_problem **out);
/**
 * The hand-derived solution into z (length 7), and *sliding = 0/1.
 * CPK_EINVAL when the block leaves the plane (p_n = 0: sigma is then not
 * unique) or sits exactly on the stick/slip boundary.
 */
int cpk_mcp_block_solution(const cpk_mcp_block *b, double *z, int *sliding);
/** The hot start a time-stepper would use: v = v0, p_n = m g h, the rest 0. */
void cpk_mcp_block_start(const cpk_mcp_block *b, double *z);

/*
 * ---- A sparse contact-like NCP family of any size -------------------------------
 *
 * N particles on the plane z = 0 in a row, neighbours joined by springs of
 * stiffness k = 1000 N/m in all three directions (implicit: M + h^2 K),
 * each with the contact NCP above (7 unknowns per particle, n = 7 N):
 * masses in [1, 2] kg, mu in [0.2, 0.6], initial horizontal velocities
 * N(0, 0.05^2) m/s and pushes in [-5, 5] N, so some particles stick and
 * some slide, h = 0.01 s. All particles touch the plane; the vertical
 * problem has the unique answer p_n = m g h (v_z = 0), and the tangential one
 * is unique by maximum dissipation with a positive definite M + h^2 K.
 * F' has 24 entries per particle (18 local, 6 spring couplings), nnz ~ 24 N.
 * Not monotone (same witness as the block).
 */
/** Build the family member with N particles; *data holds the callbacks' params (free after the problem). */
int cpk_mcp_contact_chain(size_t nparticles, unsigned long seed, cpk_mcp_data **data,
                          cpk_problem **out);
/** Hot start: v = v0, p_n = m g h, p_t = p_o = sigma = 0. */
void cpk_mcp_contact_chain_start(const cpk_mcp_data *data, double *z);
/** The exact normal impulses m_i g h (length N). */
void cpk_mcp_contact_chain_normal(const cpk_mcp_data *data, double *pn);
void cpk_mcp_data_free(cpk_mcp_data *data);
#endif
