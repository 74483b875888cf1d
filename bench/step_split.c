/* step_split.c: where a time step's wall time goes (finding contacts, compiling, solving) on a scene file or on a generated pile of spheres, with the compiled problem kept across steps or rebuilt each step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <cpkit/cpkit.h>

/*
 * usage: step_split SCENE [--duration T] [--model M] [--solver S] [--fallback S] [--no-reuse]
 *                   [--linsys NAME] [--dense]
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
  double wall, detect, compile, solver; /* of the other steps */
  double cpu;                           /* process CPU time of all steps */
  long iterations, fallbacks;           /* of the other steps */
} totals;

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int add_sphere(cpk_world *w, double x, double y, double z)
{
  cpk_body b;
  cpk_body_default(&b);
  b.shape.size[0] = 0.5;
  for (int i = 0; i < 3; i++) b.inertia[i] = 0.4 * 0.25;
  b.x[0] = x;
  b.x[1] = y;
  b.x[2] = z;
  return cpk_world_add_body(w, &b, NULL, NULL);
}

/* Layer 0 a x a on the plane z = 0, layer 1 in its hollows, until N spheres; with one
 * layer, N spheres side by side and touching. */
static int build_pile(cpk_world *w, size_t n, int layers)
{
  cpk_body ground;
  cpk_body_default(&ground);
  ground.kind = CPK_BODY_FIXED;
  ground.shape.kind = CPK_SHAPE_PLANE;
  int rc = cpk_world_add_body(w, &ground, NULL, NULL);
  double r = 0.5, s = (layers == 1 ? 2.0 : 2.2) * r, z1 = r + sqrt(4 * r * r - 2 * (s / 2) * (s / 2));
  size_t a = (size_t)ceil(sqrt(layers == 1 ? (double)n : (double)n / 2 + 1)) + 1, placed = 0;
  for (size_t k = 0; !rc && k < a * a && placed < n; k++, placed++)
    rc = add_sphere(w, s * (double)(k % a), s * (double)(k / a), r);
  for (size_t k = 0; !rc && k < (a - 1) * (a - 1) && placed < n; k++, placed++)
    rc = add_sphere(w, s * ((double)(k % (a - 1)) + 0.5), s * ((double)(k / (a - 1)) + 0.5), z1);
  cpk_contact_params m;
  cpk_contact_params_default(&m);
  m.mu = 0.5;
  if (!rc) rc = cpk_world_set_default_material(w, &m, NULL);
  return rc;
}

static int run(cpk_world *w, long steps, double duration, totals *t)
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
  return 0;
}

static void report(const char *what, const cpk_world *w, const totals *t)
{
  double per = t->steps ? 1e3 / (double)t->steps : 0;
  const cpk_body *b = cpk_world_nbodies(w) > 1 ? cpk_world_body(w, 1) : NULL;
  printf("%s: bodies %zu, steps 1 + %ld, contacts <= %zu, compiles %ld, first step %.3f s\n",
         what, cpk_world_nbodies(w), t->steps, t->max_contacts, t->compiles, t->first);
  printf("  next steps: wall %.3f s = %.4f ms/step: detect %.4f, compile %.4f, solver %.4f, "
         "other %.4f\n",
         t->wall, t->wall * per, t->detect * per, t->compile * per, t->solver * per,
         (t->wall - t->detect - t->compile - t->solver) * per);
  double f = t->wall > 0 ? t->cpu / (t->wall + t->first) : 0; /* CPU per wall second */
  printf("  all steps: CPU %.3f s; next steps scaled to CPU: %.4f ms/step: detect %.4f, "
         "compile %.4f, solver %.4f, other %.4f\n",
         t->cpu, f * t->wall * per, f * t->detect * per, f * t->compile * per, f * t->solver * per,
         f * (t->wall - t->detect - t->compile - t->solver) * per);
  printf("  solver iterations %.2f per step, fallbacks %ld\n", (double)t->iterations * per / 1e3,
         t->fallbacks);
  if (b) printf("  body 1 at (%.10f, %.10f, %.10f)\n", b->x[0], b->x[1], b->x[2]);
}

int main(int argc, char **argv)
{
  const char *scene_path = NULL, *model = NULL, *solver = NULL, *fallback = NULL, *linsys = NULL;
  size_t pile = 0;
  long steps = 10;
  double duration = 0;
  int reuse = 1, layers = 2, dense = 0;
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
    else if (!strcmp(argv[i], "--dense")) dense = 1;
    else if (!strcmp(argv[i], "--no-reuse")) reuse = 0;
    else if (argv[i][0] != '-' && !scene_path) scene_path = argv[i];
    else {
      fprintf(stderr, "usage: step_split SCENE [--duration T] | --pile N [--layers 1|2] [--steps K]; "
                      "[--model M] [--solver S] [--fallback S] [--linsys NAME] [--dense] "
                      "[--no-reuse]\n");
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
  int rc;
  if (scene) {
    *cpk_scene_settings(scene) = set;
    if (duration <= 0) duration = cpk_scene_duration(scene);
    rc = cpk_scene_world(scene, &w, &err);
  } else {
    rc = cpk_world_alloc(&set, &w, &err);
    if (!rc) rc = build_pile(w, pile, layers);
  }
  totals t = {0};
  if (!rc) rc = run(w, scene ? 0 : steps, duration, &t);
  if (!rc) report(scene ? cpk_scene_name(scene) : "pile", w, &t);
  else if (err.message[0]) fprintf(stderr, "%s\n", err.message);
  cpk_world_free(w);
  cpk_scene_free(scene);
  return rc ? 1 : 0;
}
