/* cpkMLCPSolver.h: a btMLCPSolverInterface for Bullet's btMLCPSolver that solves each MLCP exactly with a cpkit solver. */
#ifndef CPK_BULLET_MLCP_SOLVER_H
#define CPK_BULLET_MLCP_SOLVER_H
#include <vector>
#include <BulletDynamics/MLCPSolvers/btMLCPSolverInterface.h>
#include <cpkit/cpkit.h>

/**
 * Default tolerance when btScalar is float (Debian's build): A and b arrive rounded to
 * about 6e-8 relative, and x leaves rounded the same way, so the default 1e-8 asks more
 * than the data hold; Lemke's final bases on degenerate stacks then stop near 1e-6.
 */
#define CPK_BULLET_FLOAT_TOL 1e-6

/**
 * cpkit behind Bullet's MLCP seam. Bullet's convention (ODE's): find x with
 * w = A x - b, lo_i <= x_i <= hi_i complementary to w, and for a row with
 * limitDependency[i] = j >= 0 the box -|hi_i| x_j <= x_i <= |hi_i| x_j (friction).
 * The adapter hands cpkit M = A, q = -b, the plain bounds (|v| >= 1e18 is infinite) and
 * the friction-index rows (cpk_problem_set_friction_index, c_i = |hi_i|), which every
 * cpkit solver takes exactly. The problem, the solver and its result are kept between
 * calls while the size and the limitDependency pattern are unchanged (values go in
 * through cpk_problem_update_*), and each solve is warm-started from the basis of the
 * call before last (btMLCPSolver with split impulse alternates two problems per step).
 * A call with b = 0 and 0 in every box is answered x = 0 at once (zeros()): the split-impulse
 * solve of a step without penetration. A solve that fails is tried cold with another covering vector (retries()),
 * then by fbnewton from the best iterate (polished()), then cold as first set up (colds()):
 * all exact cpkit solves.
 * A solve that does not end `solved` returns false: btMLCPSolver then falls back to
 * its sequential-impulse solver (getNumFallbacks()); failures() counts them here.
 * Bullet's btScalar may be float (Debian's build) or double: both work.
 */
class cpkMLCPSolver : public btMLCPSolverInterface
{
public:
  /**
   * solver: a registered cpkit solver name ("lemke" by default); s: settings, or NULL for
   * cpkit's defaults with tol = CPK_BULLET_FLOAT_TOL when btScalar is float.
   */
  explicit cpkMLCPSolver(const char *solver = "lemke", const cpk_settings *s = NULL);
  virtual ~cpkMLCPSolver();

  virtual bool solveMLCP(const btMatrixXu &A, const btVectorXu &b, btVectorXu &x,
                         const btVectorXu &lo, const btVectorXu &hi,
                         const btAlignedObjectArray<int> &limitDependency, int numIterations,
                         bool useSparsity = true);

  long calls() const { return m_calls; }         /**< solveMLCP calls with n > 0 */
  long failures() const { return m_failures; }   /**< calls that returned false */
  long zeros() const { return m_zero; }          /**< calls answered x = 0 without a solve (b = 0) */
  long colds() const { return m_cold; }          /**< solves tried cold as first set up, after the others failed */
  long retries() const { return m_retries; }     /**< solves tried with the other covering vector */
  long polished() const { return m_polished; }   /**< solves finished by fbnewton from the pivoting's iterate */
  long rebuilds() const { return m_rebuilds; }   /**< problem and solver built anew */
  long iterations() const { return m_iterations; } /**< total pivots / iterations of all attempts */
  double maxResidual() const { return m_maxResidual; } /**< largest natural residual of a solved call */
  const char *lastMessage() const { return m_message; } /**< why the last failure failed */

private:
  cpkMLCPSolver(const cpkMLCPSolver &);
  cpkMLCPSolver &operator=(const cpkMLCPSolver &);
  bool convert(const btMatrixXu &A, const btVectorXu &b, const btVectorXu &lo,
               const btVectorXu &hi, const btAlignedObjectArray<int> &dep);
  bool rebuild();
  bool update();
  int retry(cpk_error *err);
  bool zeroSolves(int n) const;
  int attempt(cpk_solver *solver, const double *z0, const int *basis0, cpk_error *err);
  void fail(const char *what);

  const cpk_solver_type *m_type;
  cpk_settings m_settings;
  cpk_problem *m_problem;
  cpk_solver *m_solver, *m_retrySolver, *m_polishSolver;
  cpk_result *m_result;
  size_t m_n;
  std::vector<double> m_z0, m_cover, m_a, m_q, m_lo, m_hi, m_coef, m_seenA, m_seenLo, m_seenHi, m_seenCoef;
  std::vector<int> m_findex, m_seenFindex, m_basis[2];
  bool m_haveBasis[2]; /* per parity of the call: see solveMLCP */
  long m_calls, m_failures, m_zero, m_cold, m_retries, m_polished, m_rebuilds, m_iterations;
  double m_maxResidual;
  char m_message[256];
};
#endif
