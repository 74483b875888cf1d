/* t_bullet_scene.cpp: cpkit behind btMLCPSolver in real Bullet scenes (6-box stack, hinge chain), and one hand-solved MLCP. */
#include <cmath>
#include <cstdio>
#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include "cpkMLCPSolver.h"
#include "scenes.h"

static int tests, failed;

static void ok(bool cond, const char *what)
{
  tests++;
  if (!cond) failed++;
  printf("%s %d - %s\n", cond ? "ok" : "not ok", tests, what);
}

/* A = I, b = (1, 2): x_0 = 1 (normal), x_1 wants 2 but its box is +-0.5 x_0: x = (1, 0.5). */
static void test_hand(void)
{
  btMatrixXu A(2, 2);
  A.setZero();
  A.setElem(0, 0, 1);
  A.setElem(1, 1, 1);
  btVectorXu b(2), lo(2), hi(2), x(2), xd(2);
  b[0] = 1, b[1] = 2, lo[0] = 0, hi[0] = SIMD_INFINITY, lo[1] = -0.5, hi[1] = 0.5;
  x.setZero(), xd.setZero();
  btAlignedObjectArray<int> dep;
  dep.push_back(-1);
  dep.push_back(0);
  cpkMLCPSolver cpk;
  btDantzigSolver dantzig;
  bool r = cpk.solveMLCP(A, b, x, lo, hi, dep, 10);
  bool rd = dantzig.solveMLCP(A, b, xd, lo, hi, dep, 10);
  ok(r && std::fabs(x[0] - 1) < 1e-6 && std::fabs(x[1] - 0.5) < 1e-6,
     "hand MLCP: x = (1, 0.5), friction at the box +0.5 x_0");
  ok(rd && std::fabs(x[0] - xd[0]) < 1e-5 && std::fabs(x[1] - xd[1]) < 1e-5,
     "hand MLCP: btDantzigSolver agrees (same sign convention)");
  b[0] = -1; /* separating: x_0 = 0, the box closes, x_1 = 0 */
  r = cpk.solveMLCP(A, b, x, lo, hi, dep, 10);
  ok(r && std::fabs(x[0]) < 1e-9 && std::fabs(x[1]) < 1e-9 && cpk.rebuilds() == 1,
     "hand MLCP re-solved in place: separating contact, no friction, no rebuild");
}

static void test_stack(void)
{
  cpkMLCPSolver cpk("lemke");
  Scene s(&cpk);
  build_stack(s, 6, 0.15);
  s.step(300);
  char what[512];
  snprintf(what, sizeof what,
           "6-box stack, 300 steps: stable (drift %.4f m < 0.05, top box at y = %.3f), %ld calls, "
           "%ld rebuilds", s.drift(), (double)s.bodies.back()->getCenterOfMassPosition().y(),
           cpk.calls(), cpk.rebuilds());
  ok(!s.exploded(20) && s.drift() < 0.05 && s.bodies.back()->getCenterOfMassPosition().y() > 5.3,
     what);
  snprintf(what, sizeof what,
           "6-box stack: never fell back (adapter failures %ld, fallbacks %d; %ld retried, %ld "
           "polished, largest residual %.2g%s%.200s)",
           cpk.failures(), s.solver.getNumFallbacks(), cpk.retries(), cpk.polished(),
           cpk.maxResidual(), cpk.failures() ? ": " : "", cpk.lastMessage());
  ok(cpk.calls() >= 300 && cpk.failures() == 0 && s.solver.getNumFallbacks() == 0, what);
}

/* Bullet's joint error under Baumgarte stabilization is the reference: Dantzig's run, same scene. */
static double dantzig_chain_error(void)
{
  btDantzigSolver dantzig;
  Scene s(&dantzig);
  build_chain(s, 6);
  s.step(300);
  return chain_error(s);
}

static void test_chain(void)
{
  double ref = dantzig_chain_error();
  cpkMLCPSolver cpk("lemke");
  Scene s(&cpk);
  build_chain(s, 6);
  s.step(300);
  char what[512];
  snprintf(what, sizeof what,
           "hinge chain (6 links), 300 steps: stable, joint error %.3g m <= 1.2 x btDantzigSolver's "
           "%.3g m + 1 mm", chain_error(s), ref);
  ok(!s.exploded(50) && chain_error(s) <= 1.2 * ref + 1e-3, what);
  double lowest = 5;
  for (size_t k = 0; k < s.bodies.size(); k++)
    lowest = std::fmin(lowest, (double)s.bodies[k]->getCenterOfMassPosition().y());
  snprintf(what, sizeof what, "hinge chain swung down (lowest link at y = %.2f < 4)", lowest);
  ok(lowest < 4, what);
  snprintf(what, sizeof what, "hinge chain: never fell back (%ld calls, failures %ld, fallbacks %d)",
           cpk.calls(), cpk.failures(), s.solver.getNumFallbacks());
  ok(cpk.calls() >= 300 && cpk.failures() == 0 && s.solver.getNumFallbacks() == 0, what);
}

int main()
{
  test_hand();
  test_stack();
  test_chain();
  printf("1..%d\n", tests);
  if (failed) printf("# %d of %d failed\n", failed, tests);
  return failed != 0;
}
