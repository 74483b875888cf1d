/* cpkMLCPSolver.cpp: Bullet's MLCP (A x - b, lo, hi, limitDependency) turned into a cpkit problem with friction-index rows, kept across calls. */
#include <cmath>
#include <cstdio>
#include <cstring>
#include "cpkMLCPSolver.h"

/* Bullet writes "no bound" as a huge finite number (SIMD_INFINITY is FLT_MAX or DBL_MAX). */
static double bound_value(btScalar v)
{
  double d = (double)v;
  if (d >= 1e18) return INFINITY;
  if (d <= -1e18) return -INFINITY;
  return d;
}

cpkMLCPSolver::cpkMLCPSolver(const char *solver, const cpk_settings *s)
    : m_type(cpk_solver_find(solver)), m_problem(NULL), m_solver(NULL), m_retrySolver(NULL), m_polishSolver(NULL), m_result(NULL), m_n(0),
      m_calls(0), m_failures(0), m_zero(0), m_cold(0), m_retries(0), m_polished(0), m_rebuilds(0), m_iterations(0),
      m_maxResidual(0.0)
{
  cpk_init();
  if (s) m_settings = *s;
  else cpk_settings_default(&m_settings);
  if (!s && sizeof(btScalar) < sizeof(double)) m_settings.tol = CPK_BULLET_FLOAT_TOL;
  m_settings.z0 = NULL; /* the adapter owns the warm start */
  m_settings.basis0 = NULL;
  m_message[0] = '\0';
  m_haveBasis[0] = m_haveBasis[1] = false;
}

cpkMLCPSolver::~cpkMLCPSolver()
{
  cpk_solver_free(m_retrySolver);
  cpk_solver_free(m_polishSolver);
  cpk_solver_free(m_solver);
  cpk_problem_free(m_problem);
  cpk_result_free(m_result);
}

void cpkMLCPSolver::fail(const char *what)
{
  m_failures++;
  m_haveBasis[m_calls % 2] = false;
  if (what != m_message) snprintf(m_message, sizeof m_message, "%.200s", what);
}

/* Bullet's data in cpkit's terms: M = A row-major, q = -b, bounds, friction-index rows. */
bool cpkMLCPSolver::convert(const btMatrixXu &A, const btVectorXu &b, const btVectorXu &lo,
                            const btVectorXu &hi, const btAlignedObjectArray<int> &dep)
{
  size_t n = (size_t)A.rows();
  if (A.cols() != A.rows() || b.size() != A.rows() || lo.size() != A.rows() ||
      hi.size() != A.rows() || dep.size() != A.rows())
    return false;
  m_a.resize(n * n);
  m_q.resize(n), m_lo.resize(n), m_hi.resize(n), m_coef.resize(n), m_findex.resize(n);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) m_a[i * n + j] = (double)A((int)i, (int)j);
    m_q[i] = -(double)b[(int)i];
    m_findex[i] = dep[(int)i] >= 0 ? dep[(int)i] : -1;
    m_coef[i] = m_findex[i] >= 0 ? std::fabs((double)hi[(int)i]) : 0.0;
    /* a friction row's own bounds are ignored by cpkit; keep them valid */
    m_lo[i] = m_findex[i] >= 0 ? -INFINITY : bound_value(lo[(int)i]);
    m_hi[i] = m_findex[i] >= 0 ? INFINITY : bound_value(hi[(int)i]);
  }
  return true;
}

bool cpkMLCPSolver::rebuild()
{
  cpk_solver_free(m_retrySolver);
  cpk_solver_free(m_polishSolver);
  m_retrySolver = m_polishSolver = NULL;
  cpk_solver_free(m_solver);
  cpk_problem_free(m_problem);
  m_solver = NULL;
  m_problem = NULL;
  m_haveBasis[0] = m_haveBasis[1] = false;
  m_rebuilds++;
  cpk_matrix *M = NULL;
  cpk_error err;
  err.message[0] = '\0';
  int rc = cpk_matrix_from_dense_array(m_n, m_n, m_a.data(), m_n, 0, &M);
  if (!rc) rc = cpk_problem_alloc_affine_mcp(M, m_q.data(), m_lo.data(), m_hi.data(), &m_problem);
  cpk_matrix_free(M);
  if (!rc) rc = cpk_problem_set_friction_index(m_problem, m_findex.data(), m_coef.data());
  if (!rc) rc = cpk_result_resize(m_result, m_n);
  if (!rc) rc = cpk_solver_alloc(m_type, m_problem, &m_settings, &m_solver, &err);
  if (rc) {
    snprintf(m_message, sizeof m_message, "cannot set up the problem: %.200s",
             err.message[0] ? err.message : cpk_strerror(rc));
    return false;
  }
  m_seenA = m_a;
  m_seenFindex = m_findex;
  m_seenLo = m_lo, m_seenHi = m_hi, m_seenCoef = m_coef;
  return true;
}

/* b = 0 with 0 inside every box: x = 0 is a solution (w = 0), no solve needed. */
bool cpkMLCPSolver::zeroSolves(int n) const
{
  for (int i = 0; i < n; i++)
    if (m_q[i] != 0.0 || !(m_lo[i] <= 0.0 && m_hi[i] >= 0.0)) return false;
  return true;
}

/* One solve into m_result from the given warm start; every attempt's iterations are counted. */
int cpkMLCPSolver::attempt(cpk_solver *solver, const double *z0, const int *basis0, cpk_error *err)
{
  int rc = cpk_solver_set_warm_start(solver, z0, basis0);
  if (!rc) rc = cpk_solver_solve(solver, m_result, err);
  if (!rc) m_iterations += m_result->iterations;
  return rc;
}

/*
 * Last resort before failing: the same method from a cold start with an uneven covering
 * vector, a different pivoting path (Lemke's degenerate stack problems can cycle
 * numerically on one path and not on another). Its solver is built on first use.
 */
int cpkMLCPSolver::retry(cpk_error *err)
{
  m_retries++;
  if (!m_retrySolver) {
    cpk_settings s = m_settings;
    m_cover.resize(m_n);
    for (size_t i = 0; i < m_n; i++) m_cover[i] = 1.0 + 0.37 * (double)((i * 7) % 11) / 11.0;
    s.lemke.covering = m_cover.data();
    int rc = cpk_solver_alloc(m_type, m_problem, &s, &m_retrySolver, err);
    if (rc) return rc;
  }
  int rc = attempt(m_retrySolver, NULL, NULL, err);
  if (rc || m_result->status == CPK_STATUS_SOLVED) return rc;
  /* then Newton (Fischer-Burmeister) from the best iterate: it converges fast near a solution,
     where an ill-conditioned final basis stopped the pivoting */
  if (!m_polishSolver) {
    cpk_settings s = m_settings;
    rc = cpk_solver_alloc(cpk_solver_fbnewton, m_problem, &s, &m_polishSolver, err);
    if (rc) return rc;
  }
  m_polished++;
  m_z0.assign(m_result->z, m_result->z + m_n);
  return attempt(m_polishSolver, m_z0.data(), NULL, err);
}

/* Same size and pattern: new values in place (M only when it changed: split impulse solves twice with one A). */
bool cpkMLCPSolver::update()
{
  int rc = CPK_OK;
  if (m_a != m_seenA) {
    rc = cpk_problem_update_matrix_dense(m_problem, m_a.data(), m_n, 0);
    m_seenA = m_a;
  }
  if (!rc) rc = cpk_problem_update_q(m_problem, m_q.data());
  if (!rc && (m_lo != m_seenLo || m_hi != m_seenHi || m_coef != m_seenCoef)) {
    rc = cpk_problem_update_bounds(m_problem, m_lo.data(), m_hi.data());
    if (!rc) rc = cpk_problem_update_fcoef(m_problem, m_coef.data());
    m_seenLo = m_lo, m_seenHi = m_hi, m_seenCoef = m_coef;
  }
  if (rc) snprintf(m_message, sizeof m_message, "update refused: %s", cpk_strerror(rc));
  return rc == CPK_OK;
}

bool cpkMLCPSolver::solveMLCP(const btMatrixXu &A, const btVectorXu &b, btVectorXu &x,
                              const btVectorXu &lo, const btVectorXu &hi,
                              const btAlignedObjectArray<int> &limitDependency, int numIterations,
                              bool useSparsity)
{
  (void)numIterations; /* cpkit's methods run to the answer, not a sweep count */
  (void)useSparsity;
  if (A.rows() == 0) return true;
  m_calls++;
  if (!m_type) return fail("unknown cpkit solver"), false;
  if (!m_result && cpk_result_alloc(0, &m_result)) return fail("out of memory"), false;
  if (!convert(A, b, lo, hi, limitDependency)) return fail("inconsistent sizes"), false;
  if (zeroSolves(A.rows())) { /* the split-impulse solve of a step without penetration */
    if (x.size() != A.rows()) x.resize(A.rows());
    for (int i = 0; i < A.rows(); i++) x[i] = 0;
    m_zero++;
    return true;
  }
  bool same = m_problem && m_n == (size_t)A.rows() && m_findex == m_seenFindex;
  m_n = (size_t)A.rows();
  if (!(same ? update() : rebuild())) return fail(m_message), false;
  /* btMLCPSolver with split impulse alternates two problems per step (position, then velocity
     correction) with one A: each is warm-started from the basis of its own kind, two calls back */
  int slot = (int)(m_calls % 2);
  cpk_error err;
  int rc = attempt(m_solver, NULL, m_haveBasis[slot] ? m_basis[slot].data() : NULL, &err);
  /* measured on the 6-box stack: when the warm start fails, a cold start on the same path
     fails too (numerical cycling), one on another path (retry) mostly not */
  if (!rc && m_result->status != CPK_STATUS_SOLVED) rc = retry(&err);
  if (!rc && m_result->status != CPK_STATUS_SOLVED && m_haveBasis[slot]) {
    m_cold++;
    rc = attempt(m_solver, NULL, NULL, &err);
  }
  if (rc || m_result->status != CPK_STATUS_SOLVED) {
    char why[256];
    if (rc) snprintf(why, sizeof why, "%.200s", err.message);
    else snprintf(why, sizeof why, "%s (n = %zu): %.200s", cpk_status_name(m_result->status), m_n,
                  m_result->message);
    return fail(why), false;
  }
  if (m_result->residual > m_maxResidual) m_maxResidual = m_result->residual;
  if (x.size() != A.rows()) x.resize(A.rows());
  for (size_t i = 0; i < m_n; i++) x[(int)i] = (btScalar)m_result->z[i];
  m_haveBasis[slot] = m_result->has_basis != 0;
  if (m_haveBasis[slot]) m_basis[slot].assign(m_result->basis, m_result->basis + m_n);
  return true;
}
