/* traces.h: time-stepping traces for the benchmark: sampled steps of the experiment scenes, each the problem `cpkit simulate` solves at that step with the warm start it gives. */
#ifndef CPK_BENCH_TRACES_H
#define CPK_BENCH_TRACES_H
#include <stddef.h>
#include "harness.h"

/*
 * A trace instance is step k of a scene file (doc/simulate.md): the scene's
 * world stepped k times with cpk_world_step, exactly as `cpkit simulate` does
 * (its model, solver, settings and warm starts), then the problem of step k
 * from cpk_world_next_problem. instance.path is the scene file, param is k,
 * size the number of contacts at step k.
 *
 * Two variants of every instance:
 * - warm, family "warm/SCENE": z0 is the start point the stepper gives the
 *   solver (the previous step's impulses of the persisting contacts);
 * - cold, family "cold/SCENE": z0 = NULL, what the solver gets when the
 *   scene runs with "warm_start": false.
 * SCENE is the file name without ".scene.json" and without a leading "seed"
 * (so "warm/000-spin-polyhedral"; cut to fit the family field). Names are
 * "trace-LABEL[-MODEL]-kNNNN" and "trace-cold-LABEL[-MODEL]-kNNNN", LABEL the
 * file name without ".scene.json"; MODEL is added when LABEL does not say it.
 *
 * The steps are chosen when the suite is made: the scene is simulated once
 * to its duration, and up to CPK_TRACE_SAMPLES of the steps that have
 * contacts are taken, evenly spread over them (first and last included).
 */

#define CPK_TRACE_SAMPLES 12

/* 1 if `family` is a trace family ("warm/..." or "cold/..."). */
int cpk_bench_family_is_trace(const char *family);

/* 1 if `name` is a trace suite: "traces", "traces-cold" or a path ending in ".scene.json". */
int cpk_bench_is_trace_suite(const char *name);

/*
 * The directory of the example scenes: $CPK_EXAMPLES_DIR when set and not
 * empty, else the source tree's examples/ the library was built from
 * (CPK_EXAMPLES_SRCDIR), else NULL.
 */
const char *cpk_bench_examples_dir(void);

/*
 * Add the instances of a trace suite (cpk_bench_is_trace_suite): "traces"
 * (warm) or "traces-cold" over the experiment scenes of the examples
 * directory, or the warm traces of one scene file. Each scene is simulated
 * once here. Errors name the scene file and what failed (a missing file, a
 * scene error, a step whose solve failed).
 */
int cpk_bench_trace_suite_add(cpk_bench_suite *s, const char *name, cpk_error *err);

/*
 * Add up to `samples` steps with contacts of the scene file `path`, warm
 * (warm = 1) or cold, labelled with `suite`.
 */
int cpk_bench_trace_scene_add(cpk_bench_suite *s, const char *path, int warm, size_t samples,
                              const char *suite, cpk_error *err);

/*
 * Build a trace instance: read the scene, step its world param times, and
 * take the next problem: out->problem, out->z0 (NULL for the cold variant),
 * out->ctx = its cpk_varmap (freed by out->ctx_free), out->size = contacts.
 * The problem is named after the instance.
 */
int cpk_bench_build_trace(const cpk_bench_instance *inst, cpk_bench_built *out, cpk_error *err);

#endif
