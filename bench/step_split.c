/* step_split.c: where a time step's wall time goes (finding contacts, compiling, solving) on a scene file or on a generated pile of spheres, with the compiled problem kept across steps or rebuilt each step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cpkit/cpkit.h>
#include "sphere_pile.h"

/*
 * usage: step_split SCENE [--duration T] [--model M] [--solver S] [--fallback S] [--no-reuse]
 *                   [--linsys NAME] [--dense] [--positions FILE] [--verbose 0|1|2] [--max-iter N]
 *        step_split --pile N [--layers 1|2] [--steps K] [--model M] [--solver S] [--no-reuse]
 * The pile: N unit-mass spheres of radius 0.5 on a fixed plane, a square layer
 * 2.2 radii apart and a second layer in its hollows, each upper sphere
 * touching four below (about 2.3 N contacts), mu = 0.5, h = 1e-3; --layers 1: one
 * layer of touching spheres (about 3 N contacts, no load between them).
 * Prints steps, contacts, compiles, the first step's wall time (new contacts: compile
 * and the warm-start prediction) and the others' per step with its split, then the
 * process CPU time of all steps (the machine may be shared: wall time then includes
 * waiting) with the split scaled to it, and solver iterations and fallbacks per step.
 */

typedef struct totals {
  long steps, compiles;
  size_t max_contacts;
  double first; /* wall time of the first step (new contacts: compile, warm-start prediction) */
  double first_cpu;                     /* its process CPU time */
  long first_iterations, first_fallbacks, first_finishes; /* of the first step */
  double wall, detect, compile, solver; /* of the other steps */
  double cpu;                           /* process CPU time of all steps */
  double next_cpu;                      /* of the other steps */
  long iterations, fallbacks;           /* of the other steps */
} totals;

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* After the first step, tells perf to start recording (perf record --control
 * fifo:FIFO -D -1): a profile of the later steps only. */
static void perf_enable(const char *fifo)
{
  FILE *f = fifo ? fopen(fifo, "w") : NULL;
  if (f) {
    fputs("enable\n", f);
    fclose(f);
  }
}

static int run(cpk_world *w, long steps, double duration, const char *perf_ctl, totals *t)
{
  cpk_sim_step_info info;
  cpk_error err = {0};
  double h = cpk_world_settings(w)->h, c0 = cpu_seconds();
  for (long k = 0; steps ? k < steps : cpk_world_time(w) < duration - 0.5 * h; k++) {
    int rc = cpk_world_step(w, &info, &err);
    if (rc) {
      fprintf(stderr, "step %ld: %s\n", k, err.message);
      return rc;
    }
    t->compiles += info.compiles;
    if (k == 0) {
      t->first = info.solve_time_s;
      t->first_cpu = cpu_seconds() - c0;
      t->first_iterations = info.iterations;
      t->first_fallbacks = info.fallbacks;
      t->first_finishes = info.finishes;
      perf_enable(perf_ctl);
      c0 = cpu_seconds() - t->first_cpu; /* the hand-shake is not the steps' time */
      continue;
    }
    t->steps++;
    t->wall += info.solve_time_s;
    t->detect += info.detect_time_s;
    t->compile += info.compile_time_s;
    t->solver += info.solver_time_s;
    t->iterations += info.iterations;
    t->fallbacks += info.fallbacks;
    if (info.ncontacts > t->max_contacts) t->max_contacts = info.ncontacts;
  }
  t->cpu = cpu_seconds() - c0;
  t->next_cpu = t->cpu - t->first_cpu;
  return 0;
}

static void report(const char *what, const cpk_world *w, const totals *t)
{
  double per = t->steps ? 1e3 / (double)t->steps : 0;
  const cpk_body *b = cpk_world_nbodies(w) > 1 ? cpk_world_body(w, 1) : NULL;
  printf("%s: bodies %zu, steps 1 + %ld, contacts <= %zu, compiles %ld, first step %.3f s\n",
         what, cpk_world_nbodies(w), t->steps, t->max_contacts, t->compiles, t->first);
  printf("  first step: CPU %.3f s, solver iterations %ld, fallbacks %ld, finishes %ld\n",
         t->first_cpu, t->first_iterations, t->first_fallbacks, t->first_finishes);
  printf("  next steps: wall %.3f s = %.4f ms/step: detect %.4f, compile %.4f, solver %.4f, "
         "other %.4f\n",
         t->wall, t->wall * per, t->detect * per, t->compile * per, t->solver * per,
         (t->wall - t->detect - t->compile - t->solver) * per);
  double f = t->wall > 0 ? t->cpu / (t->wall + t->first) : 0; /* CPU per wall second */
  printf("  all steps: CPU %.3f s; next steps scaled to CPU: %.4f ms/step: detect %.4f, "
         "compile %.4f, solver %.4f, other %.4f\n",
         t->cpu, f * t->wall * per, f * t->detect * per, f * t->compile * per, f * t->solver * per,
         f * (t->wall - t->detect - t->compile - t->solver) * per);
  printf("  next steps: CPU %.3f s = %.4f ms/step\n", t->next_cpu, t->next_cpu * per);
  printf("  solver iterations %.2f per step, fallbacks %ld\n", (double)t->iterations * per / 1e3,
         t->fallbacks);
  if (b) printf("  body 1 at (%.10f, %.10f, %.10f)\n", b->x[0], b->x[1], b->x[2]);
}

/* Every body's position, one line each, to compare runs (e.g. before and after a change). */
static int write_positions(const char *path, const cpk_world *w)
{
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  for (size_t i = 0; i < cpk_world_nbodies(w); i++) {
    const cpk_body *b = cpk_world_body(w, i);
    fprintf(f, "%.17g %.17g %.17g\n", b->x[0], b->x[1], b->x[2]);
  }
  return fclose(f) != 0;
}

int main(int argc, char **argv)
{
  const char *scene_path = NULL, *model = NULL, *solver = NULL, *fallback = NULL, *linsys = NULL;
  const char *positions = NULL, *perf_ctl = NULL;
  size_t pile = 0;
  long steps = 10;
  double duration = 0;
  int reuse = 1, layers = 2, dense = 0, verbose = 0;
  long max_iter = 0;
  cpk_init();
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--pile") && v) pile = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--steps") && v) steps = atol(argv[++i]);
    else if (!strcmp(argv[i], "--duration") && v) duration = atof(argv[++i]);
    else if (!strcmp(argv[i], "--model") && v) model = argv[++i];
    else if (!strcmp(argv[i], "--solver") && v) solver = argv[++i];
    else if (!strcmp(argv[i], "--layers") && v) layers = atoi(argv[++i]) == 1 ? 1 : 2;
    else if (!strcmp(argv[i], "--fallback") && v) fallback = argv[++i];
    else if (!strcmp(argv[i], "--linsys") && v) linsys = argv[++i];
    else if (!strcmp(argv[i], "--positions") && v) positions = argv[++i];
    else if (!strcmp(argv[i], "--perf-ctl") && v) perf_ctl = argv[++i];
    else if (!strcmp(argv[i], "--verbose") && v) verbose = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-iter") && v) max_iter = atol(argv[++i]);
    else if (!strcmp(argv[i], "--dense")) dense = 1;
    else if (!strcmp(argv[i], "--no-reuse")) reuse = 0;
    else if (argv[i][0] != '-' && !scene_path) scene_path = argv[i];
    else {
      fprintf(stderr, "usage: step_split SCENE [--duration T] | --pile N [--layers 1|2] [--steps K]; "
                      "[--model M] [--solver S] [--fallback S] [--linsys NAME] [--dense] "
                      "[--no-reuse] [--positions FILE] [--verbose 0|1|2] [--max-iter N] "
                      "[--perf-ctl FIFO]\n");
      return 2;
    }
  }
  cpk_error err = {0};
  cpk_scene *scene = NULL;
  cpk_world *w = NULL;
  cpk_sim_settings set;
  cpk_sim_settings_default(&set);
  if (scene_path && cpk_scene_read_file(scene_path, &scene, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  if (scene) set = *cpk_scene_settings(scene);
  if (model) snprintf(set.model, sizeof set.model, "%s", model);
  if (solver) snprintf(set.solver, sizeof set.solver, "%s", solver);
  if (!scene && !model) snprintf(set.model, sizeof set.model, "point-coulomb");
  if (fallback) snprintf(set.fallback, sizeof set.fallback, "%s", fallback);
  if (linsys && !(set.solve.linsys = cpk_linsys_find(linsys))) {
    fprintf(stderr, "unknown linear solver '%s'\n", linsys);
    cpk_scene_free(scene);
    return 2;
  }
  set.compile.dense |= dense;
  set.reuse = reuse;
  set.timings = 1; /* the split below is made of them */
  set.solve.verbose = verbose;
  if (max_iter > 0) set.solve.max_iter = max_iter;
  int rc;
  if (scene) {
    *cpk_scene_settings(scene) = set;
    if (duration <= 0) duration = cpk_scene_duration(scene);
    rc = cpk_scene_world(scene, &w, &err);
  } else {
    rc = cpk_world_alloc(&set, &w, &err);
    if (!rc) rc = cpk_bench_sphere_pile(w, pile, layers);
  }
  totals t = {0};
  if (!rc) rc = run(w, scene ? 0 : steps, duration, perf_ctl, &t);
  if (!rc) report(scene ? cpk_scene_name(scene) : "pile", w, &t);
  if (!rc && positions && write_positions(positions, w)) {
    fprintf(stderr, "cannot write %s\n", positions);
    rc = 1;
  }
  else if (err.message[0]) fprintf(stderr, "%s\n", err.message);
  cpk_world_free(w);
  cpk_scene_free(scene);
  return rc ? 1 : 0;
}
