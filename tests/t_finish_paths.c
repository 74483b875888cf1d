/* t_finish_paths.c: the stepper's finishing phase and the physical check's fallback on seed 003's tilted ellipsoid (elliptic-torsional): an answer solved on the finishing problem starts at the tightened round, every attempt's iterations are counted, an error of a finishing attempt (or of the check's fallback) is counted and falls back to the step's own paths, a step that fails all the same names it in its error, and running out of memory fails the step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"
#include "tilted_scene.h"

/* Steps (0-based, the step taken after that many) of the scene on this commit whose
 * answers fail the physical check (measured: `finishes` or `physics_failures`). */
#define STEP_EXACT 1778   /* bdnewton, exact_scales = 1: solved, fails the check */
#define STEP_DEFAULT 1771 /* bdnewton (and ipm), default scales: solved, fails the check */
#define STEP_IPM_FB 1772  /* ipm, physics_finish = 0: its fallback bdnewton stops unsolved */

/* ---- a linear solver that watches the solvers' allocations ------------------------ */

/* Every solve that factors allocates one instance (the Newton methods): counting the
 * allocations counts the solves. An armed failure makes the next allocation fail: a hard
 * error of that solve, not memory. Halving instances return half of every solution: a
 * Newton method on them converges linearly, halving its residual a step, so its one
 * step from a start that passes the tolerance is kept and leaves it near the start. */
static struct spy {
  long allocs;
  int fail_next_alloc; /* 1: the next alloc returns fail_code */
  int fail_all;        /* 1: the failure stays armed (every later alloc fails) */
  int fail_code;       /* CPK_ELINSYS (world_at), or CPK_ENOMEM */
  int halve;           /* 1: the instances allocated from now on halve their solutions */
} spy;

typedef struct spy_state {
  void *inner;
  size_t n;
  int halve;
} spy_state;

static int spy_alloc(void **state, size_t n)
{
  spy_state *s;
  spy.allocs++;
  if (spy.fail_next_alloc) {
    spy.fail_next_alloc = spy.fail_all;
    return spy.fail_code;
  }
  if (!(s = calloc(1, sizeof *s))) return CPK_ENOMEM;
  s->n = n;
  s->halve = spy.halve;
  int rc = cpk_linsys_lapack->alloc(&s->inner, n);
  if (rc) free(s);
  else *state = s;
  return rc;
}

static int spy_factor(void *state, const cpk_csc *A)
{
  return cpk_linsys_lapack->factor(((spy_state *)state)->inner, A);
}

static int spy_solve(void *state, double *x, int transpose)
{
  spy_state *s = state;
  int rc = cpk_linsys_lapack->solve(s->inner, x, transpose);
  for (size_t i = 0; !rc && s->halve && i < s->n; i++) x[i] *= 0.5;
  return rc;
}

static int spy_replace(void *state, size_t j, const double *col, const double *Ainv_col)
{
  return cpk_linsys_lapack->replace_column(((spy_state *)state)->inner, j, col, Ainv_col);
}

static void spy_stats(const void *state, cpk_linsys_stats *st)
{
  cpk_linsys_lapack->stats(((const spy_state *)state)->inner, st);
}

static void spy_free(void *state)
{
  spy_state *s = state;
  if (!s) return;
  cpk_linsys_lapack->free(s->inner);
  free(s);
}

static const cpk_linsys_type spy_type = {"spy", spy_alloc, spy_factor, spy_solve, spy_replace,
                                         spy_stats, spy_free, NULL};

/* ---- the iteration callback: counts, and arms the spy once the step's solve runs ---- */

static struct watch {
  long calls;          /* iterations reported in the step */
  long arm_at;         /* the step's solve's iteration at which to arm (0: never) */
  int arm_fail;        /* 1: arm spy.fail_next_alloc then */
  int arm_halve;       /* 1: set spy.halve then */
  int armed;           /* the arming was done */
  long allocs_at_arm;  /* spy.allocs then */
} watch;

static int on_iteration(const cpk_iteration_info *info, void *data)
{
  (void)data;
  watch.calls++;
  if (watch.arm_at && !watch.armed && info->iteration >= watch.arm_at) {
    watch.armed = 1;
    watch.allocs_at_arm = spy.allocs;
    spy.fail_next_alloc |= watch.arm_fail;
    spy.halve |= watch.arm_halve;
  }
  return 0;
}

/* ---- the scene --------------------------------------------------------------------- */

/* The scene with elliptic-torsional, `solver` and `fallback` ("" none), set up by flags
 * (TILTED_*), through the spy and the callback, stepped `steps` times (NULL when that
 * fails). */
static cpk_world *world_at(const char *solver, const char *fallback, int flags, int steps,
                           cpk_scene **sc, cpk_error *err)
{
  cpk_world *w = NULL;
  memset(&spy, 0, sizeof spy);
  spy.fail_code = CPK_ELINSYS;
  memset(&watch, 0, sizeof watch);
  cpk_sim_settings *ss = tilted_scene(solver, fallback, flags, sc, err);
  if (!ss) return NULL;
  ss->solve.linsys = &spy_type;
  ss->solve.callback = on_iteration;
  if (cpk_scene_world(*sc, &w, err)) return NULL;
  for (int k = 0; k < steps; k++)
    if (cpk_world_step(w, NULL, err)) {
      cpk_world_free(w);
      return NULL;
    }
  return w;
}

/* One step with the watch reset, armed at the step solve's iteration arm_at (0: never). */
static int step(cpk_world *w, cpk_sim_step_info *info, long arm_at, int arm_fail,
                int arm_halve, cpk_error *err)
{
  memset(&watch, 0, sizeof watch);
  watch.arm_at = arm_at;
  watch.arm_fail = arm_fail;
  watch.arm_halve = arm_halve;
  return cpk_world_step(w, info, err);
}

/*
 * Review finding 1: with exact scales the finishing runs on the step's own problem, where
 * the answer is solved already. A round at the step's tolerance from it takes one step
 * and stops (the start passes); with a solver that converges linearly (halving linear
 * solves) that step leaves the answer failing the check again: a wasted solve before the
 * tightened round. The rounds start at the tightened one: the step's finishing is one
 * solve, and its answer passes the check.
 */
static void test_solved_answer_starts_tightened(void)
{
  cpk_scene *sc = NULL;
  cpk_error err = {0, ""};
  cpk_sim_step_info info;
  cpk_world *w = world_at("bdnewton", "", TILTED_EXACT, STEP_EXACT, &sc, &err);
  int rc = w ? step(w, &info, 1, 0, 1, &err) : CPK_EINVAL;
  long solves = spy.allocs - watch.allocs_at_arm;
  t_ok(!rc && info.finishes == 1 && info.physics_failures == 0,
       "exact scales, step %d: the solved answer that fails the check is finished (%s)",
       STEP_EXACT, rc ? err.message : "");
  t_ok(!rc && watch.armed && solves == 1,
       "the finishing is one solve, at the tightened tolerance (%ld)", solves);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/*
 * Review finding 2: the check's fallback counts its iterations whether or not its answer
 * is kept. ipm's answer fails the check and, with the finishing off, bdnewton solves the
 * step again and stops unsolved after ~200 iterations: the step's iterations are every
 * attempt's, as many as the callback saw (each solve reports every iteration once, give
 * or take one at its end: t_iteration_totals).
 */
static void test_fallback_iterations_counted(void)
{
  cpk_scene *sc = NULL;
  cpk_error err = {0, ""};
  cpk_sim_step_info info;
  cpk_world *w = world_at("ipm", "bdnewton", TILTED_NO_FINISH | TILTED_CONTINUE, STEP_IPM_FB, &sc,
                          &err);
  int rc = w ? step(w, &info, 0, 0, 0, &err) : CPK_EINVAL;
  t_ok(!rc && info.physics_failures == 1 && info.fallbacks == 0 && watch.calls > 50,
       "ipm, step %d: fails the check, bdnewton's answer is not kept either (%ld iterations "
       "reported; %s)", STEP_IPM_FB, watch.calls, rc ? err.message : "");
  t_ok(!rc && labs(info.iterations - watch.calls) <= 4,
       "the step's iterations are every attempt's: %ld, %ld reported to the callback",
       info.iterations, watch.calls);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/*
 * Review finding 4: an error of a finishing solve (here its linear solver's allocation,
 * CPK_ELINSYS) is that attempt's failure: the step goes on to the check's fallback
 * (fbnewton's answer passes), or under physics_continue takes the answer and counts it,
 * and the error is counted and reported in the step's info.
 */
static void test_finish_error_falls_back(void)
{
  static const struct {
    const char *fallback;
    int flags;
  } cases[2] = {{"fbnewton", 0}, {"", TILTED_CONTINUE}};
  for (int c = 0; c < 2; c++) {
    cpk_scene *sc = NULL;
    cpk_error err = {0, ""};
    cpk_sim_step_info info;
    cpk_world *w = world_at("bdnewton", cases[c].fallback, cases[c].flags, STEP_DEFAULT, &sc, &err);
    int rc = w ? step(w, &info, 1, 1, 0, &err) : CPK_EINVAL;
    t_ok(!rc, "bdnewton, step %d, the finishing solve fails with an error, fallback '%s'%s: the "
         "step is taken (%s)", STEP_DEFAULT, cases[c].fallback,
         cases[c].flags & TILTED_CONTINUE ? ", physics_continue" : "", rc ? err.message : "");
    t_ok(!rc && info.finish_errors == 1 && strstr(info.finish_message, "CPK_ELINSYS") &&
             info.finishes == 0,
         "the error is counted and reported: %d, '%s'", rc ? -1 : info.finish_errors,
         rc ? "" : info.finish_message);
    if (cases[c].flags & TILTED_CONTINUE)
      t_ok(!rc && info.physics_failures == 1, "the step's own answer is taken and counted as "
           "failing the check (%d)", rc ? -1 : info.physics_failures);
    else
      t_ok(!rc && info.fallbacks == 1 && info.physics_failures == 0,
           "the check's fallback solved the step (%d)", rc ? -1 : info.fallbacks);
    cpk_world_free(w);
    cpk_scene_free(sc);
  }
}

/*
 * Review finding F1 (finfix2): with the linear solver failing from the step's solve on,
 * the finishing solve and the check's fallback (fbnewton) both end in CPK_ELINSYS and the
 * step fails the check (CPK_ENOCONV). Both errors are counted, and the step's error, the
 * only thing a run that stops on it reports (cpk_scene_run calls no step callback on a
 * failed step), names the first: the finishing's.
 */
static void test_failed_step_names_finish_error(void)
{
  cpk_scene *sc = NULL;
  cpk_error err = {0, ""};
  cpk_sim_step_info info;
  cpk_world *w = world_at("bdnewton", "fbnewton", 0, STEP_DEFAULT, &sc, &err);
  spy.fail_all = 1;
  int rc = w ? step(w, &info, 1, 1, 0, &err) : CPK_EINVAL;
  t_ok(rc == CPK_ENOCONV && strstr(err.message, "physical check"),
       "bdnewton, step %d, every later linear solver fails: the step fails the check (%s: %s)",
       STEP_DEFAULT, cpk_errname(rc), err.message);
  t_ok(rc == CPK_ENOCONV && strstr(err.message, "; the finishing failed: CPK_ELINSYS: "),
       "the step's error names the finishing's error");
  t_ok(rc == CPK_ENOCONV && info.finish_errors == 2 && strstr(info.finish_message, "CPK_ELINSYS"),
       "the finishing's and the check fallback's errors are counted (%d: %s)", info.finish_errors,
       info.finish_message);
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/*
 * Running out of memory in a finishing solve is the one error that ends the step: it
 * fails with CPK_ENOMEM (the paths it would go on with need memory too), the world not
 * moved.
 */
static void test_finish_out_of_memory(void)
{
  cpk_scene *sc = NULL;
  cpk_error err = {0, ""};
  cpk_sim_step_info info;
  cpk_world *w = world_at("bdnewton", "fbnewton", TILTED_CONTINUE, STEP_DEFAULT, &sc, &err);
  double t = w ? cpk_world_time(w) : -1;
  spy.fail_code = CPK_ENOMEM;
  int rc = w ? step(w, &info, 1, 1, 0, &err) : CPK_EINVAL;
  t_ok(rc == CPK_ENOMEM && info.finish_errors == 0,
       "the finishing solve runs out of memory: the step fails with it (%s: %s)", cpk_errname(rc),
       err.message);
  t_ok(w && cpk_world_time(w) == t, "the world is not moved");
  cpk_world_free(w);
  cpk_scene_free(sc);
}

/*
 * The same for a solve that stopped short (max_iter 5, bdnewton at the landing): when its
 * finishing fails with an error the step fails as the stopped solve does (CPK_ENOCONV,
 * the solve's message), not with the finishing's error; the world is not moved.
 */
static void test_stopped_finish_error(void)
{
  cpk_scene *sc = NULL;
  cpk_error err = {0, ""};
  cpk_sim_step_info info;
  cpk_world *w = world_at("bdnewton", "", TILTED_FEW | TILTED_NO_FINISH, 0, &sc, &err);
  int k = 0, rc = w ? CPK_OK : CPK_EINVAL;
  for (; !rc && k < 10000; k++) rc = cpk_world_step(w, NULL, &err);
  cpk_world_free(w);
  cpk_scene_free(sc);
  int stop = k - 1; /* the step that stopped without the finishing phase */
  t_ok(rc == CPK_ENOCONV && stop > 1000, "max_iter 5, physics_finish = 0: step %d stops short (%s)",
       stop, err.message);
  w = world_at("bdnewton", "", TILTED_FEW, stop, &sc, &err);
  double t = w ? cpk_world_time(w) : -1;
  rc = w ? step(w, &info, TILTED_FEW_ITERATIONS, 1, 0, &err) : CPK_EINVAL; /* after its last */
  t_ok(rc == CPK_ENOCONV && strstr(err.message, "max_iterations") && info.finish_errors == 1,
       "with the finishing failing with an error: the stopped solve's failure (%s: %s), the "
       "error counted (%d)", cpk_errname(rc), err.message, info.finish_errors);
  t_ok(w && cpk_world_time(w) == t, "the world is not moved");
  cpk_world_free(w);
  cpk_scene_free(sc);
}

int main(void)
{
  test_solved_answer_starts_tightened();
  test_fallback_iterations_counted();
  test_finish_error_falls_back();
  test_stopped_finish_error();
  test_failed_step_names_finish_error();
  test_finish_out_of_memory();
  return t_done();
}
