/* sim_report.h: what `cpkit simulate` and `cpkit demo` share: options, running a scene with its outputs, the checks table. */
#ifndef CPKIT_TOOLS_SIM_REPORT_H
#define CPKIT_TOOLS_SIM_REPORT_H
#include <stdio.h>
#include "cli.h"

enum { CLI_EXIT_CHECKS = 3 }; /* --strict: a check failed */

typedef struct sim_options {
  const char *scene_path, *model, *solver, *fallback, *csv_path, *contacts_path, *plot_path;
  cpk_compile_options directions;
  int directions_set, json, strict, quiet, physics_continue, no_physics_finish;
  double step, duration; /* 0 = the scene's */
  long implicit;         /* -1 = the scene's */
  const char *sets[CLI_MAX_SETS]; /* --set assignments for the scene's solver settings */
  int nsets;
} sim_options;

/* 1 if `path` ends in .svg or .png (else a usage error is printed). */
int sim_plot_path_ok(const cli_command *cmd, const char *path);
/* Apply the overrides of o to the scene's settings. */
void sim_apply_overrides(cpk_scene *scene, const sim_options *o);
/* Run one scene with the outputs of o, print the report; returns the exit status. */
int sim_run_scene(cpk_scene *scene, const sim_options *o);
/* Same with the report written to out. */
int sim_run_scene_to(cpk_scene *scene, const sim_options *o, FILE *out);
/* Rows of the checks table (no header) for one scene; returns the number of failed checks. */
int sim_print_checks(FILE *f, cpk_scene *scene, const char *experiment);
/* Header of the checks table. */
void sim_print_checks_header(FILE *f);

#endif
