/* sim_report.c: running a scene for the CLI: overrides, CSV outputs, progress bar, gnuplot plot, text and JSON reports with the checks. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "harness.h"
#include "sim_report.h"

int sim_plot_path_ok(const cli_command *cmd, const char *path)
{
  size_t n = strlen(path);
  if (n > 4 && (!strcmp(path + n - 4, ".svg") || !strcmp(path + n - 4, ".png"))) return 1;
  cli_usage_error(cmd, "--plot: '%s' must end in .svg or .png", path);
  return 0;
}

void sim_apply_overrides(cpk_scene *scene, const sim_options *o)
{
  cpk_sim_settings *S = cpk_scene_settings(scene);
  if (o->model) snprintf(S->model, sizeof S->model, "%s", o->model);
  if (o->solver) snprintf(S->solver, sizeof S->solver, "%s", o->solver);
  if (o->fallback) snprintf(S->fallback, sizeof S->fallback, "%s", o->fallback);
  if (o->directions_set) S->compile.directions = o->directions.directions;
  if (o->step > 0) S->h = o->step;
  if (o->duration > 0) cpk_scene_set_duration(scene, o->duration);
  if (o->implicit >= 0) S->implicit_iterations = (int)o->implicit;
  if (o->physics_continue) S->physics_continue = 1;
  if (o->no_physics_finish) S->physics_finish = 0;
  for (int k = 0; k < o->nsets; k++) /* checked when parsed; their ranges by cpk_world_alloc */
    (void)cpk_settings_parse(&S->solve, o->sets[k], NULL);
}

/* State of a run for the per-step callback. */
typedef struct run_state {
  FILE *csv, *contacts;
  int progress, io_error;
  double t0, t_end, last_draw, wall0;
  size_t max_contacts;
  long iterations, fallbacks;
  long finishes;              /* answers replaced by the finishing phase */
  long finish_errors;         /* finishing attempts ended by an error (the step went on) */
  char finish_message[200];   /* the first of them */
  long physics_failures;      /* solves whose answer failed the physical check */
  char physics_message[200];  /* the first of them */
} run_state;

static void draw_progress(run_state *R, double t)
{
  if (!R->progress) return; /* before the clock: -q runs read it for nothing every step */
  double now = cpk_wtime();
  if (now - R->wall0 < 1.0 || now - R->last_draw < 0.1) return;
  int filled = (int)(40 * (t - R->t0) / (R->t_end - R->t0));
  fprintf(stderr, "\r[%-40.*s] %3.0f%% t = %g", filled < 0 ? 0 : filled > 40 ? 40 : filled,
          "########################################", 100 * (t - R->t0) / (R->t_end - R->t0), t);
  R->last_draw = now;
}

static int on_step(const cpk_world *w, const cpk_sim_step_info *info, void *data)
{
  run_state *R = data;
  if (info->ncontacts > R->max_contacts) R->max_contacts = info->ncontacts;
  R->iterations += info->iterations;
  R->fallbacks += info->fallbacks;
  R->finishes += info->finishes;
  if (info->finish_errors && !R->finish_errors)
    memcpy(R->finish_message, info->finish_message, sizeof R->finish_message);
  R->finish_errors += info->finish_errors;
  if (info->physics_failures && !R->physics_failures)
    memcpy(R->physics_message, info->physics_message, sizeof R->physics_message);
  R->physics_failures += info->physics_failures;
  if (R->csv && cpk_world_csv_row(w, info, R->csv)) R->io_error = 1;
  if (R->contacts && cpk_world_contacts_csv_rows(w, R->contacts)) R->io_error = 1;
  draw_progress(R, info->time);
  return R->io_error;
}

/* gnuplot script next to the plot: velocities and contact forces of every dynamic body. */
/* 1 when text can stand inside a quoted gnuplot string: gnuplot expands
 * backquotes (a shell command) and quotes would end the string. */
static int script_safe(const char *text)
{
  return strpbrk(text, "'\"`\\\n$") == NULL;
}

/* The directory of path into dir ("." without a '/', "/" for the root); 0 when too long. */
static int dir_of(const char *path, char *dir, size_t size)
{
  const char *slash = strrchr(path, '/');
  size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
  if (len >= size) return 0;
  memcpy(dir, slash ? path : ".", len);
  dir[len] = 0;
  return 1;
}

/*
 * Two panels against time in SI units (the scenes' gravity is 9.81 m/s^2). The contact columns
 * are the step's impulses divided by h, one value for the whole step ending at the row's time:
 * drawn with fsteps, constant over that step, not as a line between step ends.
 */
static int write_plot(const cpk_world *w, const char *scene_name, const char *csv, const char *plot)
{
  char dir[4096], gp[4200], abs_csv[4096];
  const char *slash = strrchr(plot, '/'), *base = slash ? slash + 1 : plot;
  if (!dir_of(plot, dir, sizeof dir) || strlen(plot) + 4 >= sizeof gp)
    return cli_error("--plot: path too long");
  snprintf(gp, sizeof gp, "%.*s.gp", (int)(strlen(plot) - 4), plot);
  if (!realpath(csv, abs_csv)) return cli_error("%s: cannot resolve the path", csv);
  for (size_t b = 0; b < cpk_world_nbodies(w); b++)
    if (!script_safe(cpk_world_body(w, b)->name)) return cli_error("--plot: a body name has quotes");
  if (!script_safe(scene_name)) scene_name = "";
  if (!script_safe(base) || !script_safe(abs_csv))
    return cli_error("--plot: the plot and trajectory paths may not contain quotes, '`', '\\' or '$'");
  FILE *f = fopen(gp, "w");
  if (!f) return cli_error("%s: cannot write", gp);
  int png = !strcmp(plot + strlen(plot) - 4, ".png");
  fprintf(f, "set datafile separator ','\nset terminal %s size 900,760 noenhanced\n",
          png ? "pngcairo" : "svg dynamic");
  fprintf(f, "set output '%s'\nset multiplot layout 2,1 title 'scene: %s'\n", base,
          scene_name[0] ? scene_name : "(unnamed)");
  fprintf(f, "set xlabel 'time t (s)'\nset key outside\n");
  const char *groups[2][6] = {{"vx", "vy", "vz", "wx", "wy", "wz"}, {"fn", "ft", "mr", NULL}};
  const char *titles[2] = {"velocities: linear v (m/s), angular w (rad/s)",
                           "contact impulses per step P/h: forces fn, ft (N), moment mr (N m)"};
  const char *ylabels[2] = {"v (m/s), w (rad/s)", "P/h (N; mr: N m)"};
  const char *styles[2] = {"lines", "fsteps"};
  for (int g = 0; g < 2; g++) {
    fprintf(f, "set title '%s'\nset ylabel '%s'\nplot for [c in \"", titles[g], ylabels[g]);
    for (size_t b = 0; b < cpk_world_nbodies(w); b++) {
      const cpk_body *B = cpk_world_body(w, b);
      for (int k = 0; k < 6 && groups[g][k] && B->kind == CPK_BODY_DYNAMIC; k++)
        fprintf(f, "%s.%s ", B->name, groups[g][k]);
    }
    fprintf(f, "\"] '%s' using 1:(column(c)) with %s title c\n", abs_csv, styles[g]);
  }
  fputs("unset multiplot\n", f);
  if (fclose(f)) return cli_error("%s: write error", gp);
  if (!cpk_bench_have_gnuplot()) return cli_error("--plot: gnuplot not found (script left in %s)", gp);
  const char *gbase = strrchr(gp, '/') ? strrchr(gp, '/') + 1 : gp;
  return cpk_bench_gnuplot_script(dir, gbase) ? cli_error("%s: gnuplot failed (its messages: %s.log)", gp, gp)
                                             : CLI_EXIT_OK;
}

/* 1 when path can be written: its directory is writable and, if it exists, so is
 * the file. Asked of every output before any is opened, so a bad path never
 * leaves another output truncated. */
static int writable(const char *path)
{
  char dir[4096];
  return dir_of(path, dir, sizeof dir) && access(dir, W_OK) == 0 &&
         (access(path, F_OK) != 0 || access(path, W_OK) == 0);
}

static FILE *open_csv(const char *path, int *status)
{
  FILE *f = path ? fopen(path, "w") : NULL;
  if (path && !f) *status = cli_error("%s: cannot write", path);
  return f;
}

int sim_print_checks(FILE *f, cpk_scene *scene, const char *experiment)
{
  int failed = 0;
  for (size_t c = 0; c < cpk_scene_nchecks(scene); c++) {
    const cpk_scene_check *k = cpk_scene_check_get(scene, c);
    fprintf(f, "%-32.32s %-44.44s %12.6g ", experiment, k->label, k->expected);
    if (k->measured_valid)
      fprintf(f, "%12.6g %10.3g %9.3g %s\n", k->measured, fabs(k->measured - k->expected), k->tol,
              k->passed ? "ok" : "FAIL");
    else
      fprintf(f, "%12s %10s %9.3g %s\n", "-", "-", k->tol, "FAIL (not measured)");
    failed += !k->passed;
  }
  return failed;
}

void sim_print_checks_header(FILE *f)
{
  fprintf(f, "%-32s %-44s %12s %12s %10s %9s %s\n", "experiment", "quantity", "expected",
          "simulated", "error", "tol", "");
}

static void report_text(FILE *f, cpk_scene *scene, const cpk_world *w, const run_state *R,
                        long steps, double wall, const char *failure)
{
  const cpk_sim_settings *S = cpk_world_settings(w);
  fprintf(f, "scene: %s\n", cpk_scene_name(scene)[0] ? cpk_scene_name(scene) : "(unnamed)");
  if (cpk_scene_description(scene)[0]) fprintf(f, "  %s\n", cpk_scene_description(scene));
  fprintf(f, "model %s, solver %s, h = %g, %s geometry\n", S->model,
          S->solver[0] ? S->solver : "automatic", S->h,
          S->implicit_iterations ? "implicit" : "explicit");
  fprintf(f, "%ld steps to t = %g in %.3g s (%.3g ms per step), %ld solver iterations, at most %zu "
             "contacts\n",
          steps, cpk_world_time(w), wall, steps ? 1e3 * wall / (double)steps : 0.0, R->iterations,
          R->max_contacts);
  if (R->fallbacks)
    fprintf(f, "%ld solves finished by the fallback solver %s\n", R->fallbacks,
            S->fallback[0] ? S->fallback
            : cpk_compile_form_for_solver(S->model, "nsgs", S->compile.form) == CPK_FORM_CONE
                ? "(the default, fcipm)"
                : "(the default, ipm)");
  if (R->finishes)
    fprintf(f, "%ld answers replaced by the finishing phase (they failed the physical check or "
               "stopped short; --no-physics-finish)\n", R->finishes);
  if (R->finish_errors)
    fprintf(f, "%ld finishing attempts failed with an error, the steps went on without them "
               "(first: %s)\n", R->finish_errors, R->finish_message);
  if (R->physics_failures)
    fprintf(f, "%ld solves failed the physical check (first: %s)\n", R->physics_failures,
            R->physics_message);
  if (failure) fprintf(f, "stopped: %s\n", failure);
  for (size_t b = 0; b < cpk_world_nbodies(w); b++) {
    const cpk_body *B = cpk_world_body(w, b);
    if (B->kind != CPK_BODY_DYNAMIC) continue;
    fprintf(f, "  %-12s x = (%.6g, %.6g, %.6g)  v = (%.6g, %.6g, %.6g)  w = (%.6g, %.6g, %.6g)\n",
            B->name, B->x[0], B->x[1], B->x[2], B->v[0], B->v[1], B->v[2], B->w[0], B->w[1],
            B->w[2]);
  }
  if (!cpk_scene_nchecks(scene)) return;
  fputs("checks:\n", f);
  sim_print_checks_header(f);
  int failed = sim_print_checks(f, scene, cpk_scene_name(scene));
  fprintf(f, "%zu checks, %d failed\n", cpk_scene_nchecks(scene), failed);
}

/* A JSON number, or null for a non-finite value (JSON has no NaN or infinity). */
static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *jvec3(const double v[3])
{
  json_t *a = json_array();
  for (int i = 0; i < 3; i++) json_array_append_new(a, jnum(v[i]));
  return a;
}

static void report_json(FILE *f, cpk_scene *scene, const cpk_world *w, const run_state *R,
                        long steps, double wall, const char *failure)
{
  const cpk_sim_settings *S = cpk_world_settings(w);
  json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:f, s:I, s:I, s:s}", "scene",
                        cpk_scene_name(scene), "model", S->model, "solver",
                        S->solver[0] ? S->solver : "automatic", "step", S->h, "time",
                        cpk_world_time(w), "steps", (json_int_t)steps, "wall_time_s", wall,
                        "iterations", (json_int_t)R->iterations, "max_contacts",
                        (json_int_t)R->max_contacts, "status", failure ? "failed" : "completed");
  json_t *checks = json_array();
  if (failure) json_object_set_new(o, "error", json_string(failure));
  json_object_set_new(o, "fallbacks", json_integer(R->fallbacks));
  json_object_set_new(o, "finishes", json_integer(R->finishes));
  json_object_set_new(o, "finish_errors", json_integer(R->finish_errors));
  if (R->finish_errors) json_object_set_new(o, "finish_message", json_string(R->finish_message));
  json_object_set_new(o, "physics_failures", json_integer(R->physics_failures));
  if (R->physics_failures)
    json_object_set_new(o, "physics_message", json_string(R->physics_message));
  for (size_t c = 0; c < cpk_scene_nchecks(scene); c++) {
    const cpk_scene_check *k = cpk_scene_check_get(scene, c);
    json_t *j = json_pack("{s:s, s:s, s:f, s:f, s:b}", "label", k->label, "quantity",
                          k->quantity, "expected", k->expected, "tol", k->tol, "passed",
                          k->passed);
    json_object_set_new(j, "measured", k->measured_valid ? jnum(k->measured) : json_null());
    json_array_append_new(checks, j);
  }
  json_object_set_new(o, "checks", checks);
  json_t *bodies = json_array();
  for (size_t b = 0; b < cpk_world_nbodies(w); b++) {
    const cpk_body *B = cpk_world_body(w, b);
    if (B->kind != CPK_BODY_DYNAMIC) continue;
    json_array_append_new(bodies, json_pack("{s:s, s:o, s:o, s:o}", "name", B->name, "x",
                                            jvec3(B->x), "v", jvec3(B->v), "w", jvec3(B->w)));
  }
  json_object_set_new(o, "bodies", bodies);
  json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
  fputc('\n', f);
  json_decref(o);
}

static int failed_checks(cpk_scene *scene)
{
  int n = 0;
  for (size_t c = 0; c < cpk_scene_nchecks(scene); c++) n += !cpk_scene_check_get(scene, c)->passed;
  return n;
}

/* Open the outputs, run, close them; *failure receives the step error, if any. */
static int run_with_outputs(cpk_scene *scene, cpk_world *w, const sim_options *o,
                            const char *csv_path, run_state *R, long *steps, cpk_error *err)
{
  int status = CLI_EXIT_OK, rc;
  R->csv = open_csv(csv_path, &status);
  R->contacts = open_csv(o->contacts_path, &status);
  if (status == CLI_EXIT_OK) {
    if (R->csv && (cpk_world_csv_header(w, R->csv) || cpk_world_csv_row(w, NULL, R->csv))) R->io_error = 1;
    if (R->contacts && cpk_world_contacts_csv_header(R->contacts)) R->io_error = 1;
    R->progress = !o->quiet && isatty(STDERR_FILENO);
    R->t0 = cpk_world_time(w);
    R->t_end = R->t0 + cpk_scene_duration(scene);
    R->wall0 = cpk_wtime();
    rc = cpk_scene_run(scene, w, on_step, R, steps, err);
    if (rc && !err->code) cpk_error_set(err, rc, "%s", cpk_strerror(rc)); /* never exit 1 unexplained */
    if (R->progress && cpk_wtime() - R->wall0 >= 1.0) fputs("\r\033[K", stderr);
    status = rc ? CLI_EXIT_INPUT : CLI_EXIT_OK;
  }
  if (R->csv && fclose(R->csv)) R->io_error = 1;
  if (R->contacts && fclose(R->contacts)) R->io_error = 1;
  if (R->io_error) return cli_error("write error on the CSV output");
  return status;
}

int sim_run_scene(cpk_scene *scene, const sim_options *o) { return sim_run_scene_to(scene, o, stdout); }

int sim_run_scene_to(cpk_scene *scene, const sim_options *o, FILE *out)
{
  char csv_auto[4096];
  const char *csv_path = o->csv_path;
  cpk_world *w = NULL;
  cpk_error err = {0, ""};
  run_state R;
  long steps = 0;
  memset(&R, 0, sizeof R);
  sim_apply_overrides(scene, o);
  if (o->plot_path && !csv_path) { /* the plot needs the trajectory: next to it */
    snprintf(csv_auto, sizeof csv_auto, "%.*s.csv", (int)(strlen(o->plot_path) - 4), o->plot_path);
    csv_path = csv_auto;
  }
  const char *outs[3] = {csv_path, o->contacts_path, o->plot_path};
  for (int k = 0; k < 3; k++)
    if (outs[k] && !writable(outs[k])) return cli_error("%s: cannot write", outs[k]);
  int rc = cpk_scene_world(scene, &w, &err);
  if (rc) return cli_file_error(o->scene_path, rc, &err);
  double wall = cpk_wtime();
  int status = run_with_outputs(scene, w, o, csv_path, &R, &steps, &err);
  wall = cpk_wtime() - wall;
  const char *failure = status == CLI_EXIT_INPUT && err.code ? err.message : NULL;
  if (status != CLI_EXIT_OK && !failure) { /* an output could not be written: said already */
    cpk_world_free(w);
    return status;
  }
  if (failure) cli_error("%s: %s", o->scene_path, failure);
  if (o->json) report_json(out, scene, w, &R, steps, wall, failure);
  else report_text(out, scene, w, &R, steps, wall, failure);
  if (status == CLI_EXIT_OK && o->plot_path) status = write_plot(w, cpk_scene_name(scene), csv_path, o->plot_path);
  cpk_world_free(w);
  if (status == CLI_EXIT_OK && o->strict && failed_checks(scene)) status = CLI_EXIT_CHECKS;
  return status;
}
