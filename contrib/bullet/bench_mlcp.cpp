/* bench_mlcp.cpp: time per step, drift and failed solves of cpkit behind btMLCPSolver against btDantzigSolver and btSolveProjectedGaussSeidel, in one run. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btSolveProjectedGaussSeidel.h>
#include "cpkMLCPSolver.h"
#include "scenes.h"

/*
 * Usage: bench_mlcp [steps] [cpkit solver ...]  (defaults: 300, lemke).
 * Scene: 6 unit boxes stacked, each offset 0.15 m, one fixed step of 1/60 s per frame.
 * Reported per solver: wall time per step (the whole stepSimulation, collision included),
 * the process's CPU time per step (on a loaded machine the steadier figure: a 2-core
 * machine shared by many processes inflates wall times several times, unevenly),
 * drift (largest displacement of a box from its start), fallbacks of btMLCPSolver to its
 * sequential-impulse solver, and for cpkit the failed solves, rebuilds and pivots per call.
 */
static double cpu_seconds()
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run(const char *name, btMLCPSolverInterface *mlcp, cpkMLCPSolver *cpk, int steps,
                const char *scene)
{
  Scene s(mlcp);
  if (!strcmp(scene, "stack")) build_stack(s, 6, 0.15);
  else build_chain(s, 6);
  double t0 = cpk_wtime(), c0 = cpu_seconds();
  s.step(steps);
  double per = (cpk_wtime() - t0) / steps, cpu = (cpu_seconds() - c0) / steps;
  printf("%-6s %-16s %10.4f %10.4f %10.5f %9d", scene, name, per * 1e3, cpu * 1e3,
         !strcmp(scene, "stack") ? s.drift() : chain_error(s), s.solver.getNumFallbacks());
  if (cpk)
    printf(" %7ld %7ld %8ld %9.1f %9.2g %5ld %7ld %8ld %6ld", cpk->calls(), cpk->failures(),
           cpk->rebuilds(), cpk->calls() ? (double)cpk->iterations() / (double)cpk->calls() : 0.0,
           cpk->maxResidual(), cpk->colds(), cpk->retries(), cpk->polished(), cpk->zeros());
  printf("\n");
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 300;
  if (steps <= 0) steps = 300;
  printf("# %d steps of 1/60 s; btScalar is %s\n", steps,
         sizeof(btScalar) == sizeof(double) ? "double" : "float");
  printf("%-6s %-16s %10s %10s %10s %9s %7s %7s %8s %9s %9s %5s %7s %8s %6s\n", "scene", "solver",
         "ms/step", "cpu_ms", "drift_m", "fallbacks", "calls", "failed", "rebuilds", "piv/call", "max_res",
         "cold", "retried", "polished", "x=0");
  const char *scenes[] = {"stack", "chain"};
  for (int sc = 0; sc < 2; sc++) {
    btDantzigSolver dantzig;
    run("bt-dantzig", &dantzig, NULL, steps, scenes[sc]);
    btSolveProjectedGaussSeidel pgs;
    run("bt-pgs", &pgs, NULL, steps, scenes[sc]);
    int nsolvers = argc > 2 ? argc - 2 : 1;
    for (int k = 0; k < nsolvers; k++) {
      const char *solver = argc > 2 ? argv[2 + k] : "lemke";
      cpkMLCPSolver cpk(solver);
      char label[64];
      snprintf(label, sizeof label, "cpkit-%s", solver);
      run(label, &cpk, &cpk, steps, scenes[sc]);
    }
  }
  return 0;
}
