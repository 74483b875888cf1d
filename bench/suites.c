/* suites.c: the named benchmark suites (generated problem families at several sizes and seeds) and how each instance is built. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/util.h>
#include "families.h"
#include "harness.h"
#include "mcp_problems.h"
#include "scenes.h"
#include "traces.h"

/*
 * A suite is a list of rows: one family at up to 8 sizes with seeds
 * 1..nseeds. Sizes are chosen so that `standard` (lcp + contact + mcp) runs
 * every registered solver in a few minutes on two cores, while the contact
 * families still reach 10 000 contacts (the sparse solvers' scale).
 */
typedef struct suite_row {
  const char *suite, *family;
  size_t sizes[8]; /* 0-terminated */
  unsigned nseeds; /* 0: the family is not random (seed 0) */
  size_t param;    /* contact families: contacts per body; block-on-plane: unused */
  double mu;
} suite_row;

static const suite_row rows[] = {
    {"murty", "murty", {8, 12, 16}, 0, 0, 0},
    {"fathi", "fathi", {8, 12, 16}, 0, 0, 0},
    {"random-pd", "random-pd", {50, 100, 200, 400}, 2, 0, 0},
    {"random-p", "random-p", {10, 30, 100}, 2, 0, 0},
    {"random-psd", "random-psd", {16, 50, 100}, 2, 0, 0},
    {"random-psd", "random-psd-infeasible", {16, 50}, 2, 0, 0},
    {"degenerate", "degenerate", {10, 30, 100}, 2, 0, 0},
    {"degenerate", "known-degenerate", {10, 30, 100}, 2, 0, 0},
    {"box-mcp", "box-mcp", {12, 50, 100, 200}, 2, 0, 0},
    {"delassus", "delassus", {100, 300, 1000, 3000}, 2, 4, 0},
    {"delassus", "delassus", {10000}, 1, 4, 0},
    {"contact-kkt", "contact-kkt", {100, 300, 1000, 3000}, 1, 4, 0},
    {"box-friction", "box-friction", {30, 100, 300}, 1, 4, 0.1},
    {"box-friction", "box-friction", {30, 100, 300, 1000}, 1, 4, 0.5},
    {"box-friction", "box-friction", {30, 100, 300}, 1, 4, 1.0},
    {"block-on-plane", "block-on-plane", {4, 8, 16, 32}, 0, 0, CPK_BLOCK_MU},
    {"mcplib", "mcplib", {0}, 0, 0, 0},
    {"contact-ncp", "block-ncp", {1}, 0, 0, CPK_BLOCK_MU},
    {"contact-ncp", "contact-chain", {10, 100, 1000, 10000}, 1, 0, 0},
    /* a few small problems of every kind, for tests and a quick look */
    {"tiny", "murty", {5}, 0, 0, 0},
    {"tiny", "random-pd", {12}, 1, 0, 0},
    {"tiny", "random-psd-infeasible", {8}, 1, 0, 0},
    {"tiny", "degenerate", {8}, 1, 0, 0},
    {"tiny", "box-mcp", {8}, 1, 0, 0},
    {"tiny", "delassus", {12}, 1, 4, 0},
    {"tiny", "block-on-plane", {4}, 0, 0, CPK_BLOCK_MU},
    {"tiny", "block-ncp", {1}, 0, 0, CPK_BLOCK_MU},
    /* contact scenes compiled by every model: the rows are in scenes.c */
    {"scenes", "scenes", {0}, 0, 0, 0},
    {"scenes-large", "scenes-large", {0}, 0, 0, 0},
    {"scenes-standard", "scenes-standard", {0}, 0, 0, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Groups expand to suites (never to other groups). */
static const struct {
  const char *name, *members[8];
} groups[] = {
    {"lcp", {"murty", "fathi", "random-pd", "random-p", "random-psd", "degenerate", "box-mcp"}},
    {"contact", {"delassus", "contact-kkt", "box-friction", "block-on-plane", "scenes-standard"}},
    {"mcp", {"mcplib", "contact-ncp"}},
    {"standard", {"lcp", "contact", "mcp"}},
};
#define NGROUPS (sizeof groups / sizeof groups[0])

static const char *const suite_names[] = {
    "standard",    "lcp",          "contact",        "mcp",        "murty",       "fathi",
    "random-pd",   "random-p",     "random-psd",     "degenerate", "box-mcp",     "delassus",
    "contact-kkt", "box-friction", "block-on-plane", "mcplib",     "contact-ncp", "tiny",
    "scenes",      "scenes-large", "scenes-standard", "traces", "traces-cold", "fclib", NULL};

static const char *const suite_descriptions[] = {
    "lcp + contact + mcp: what `make bench` runs",
    "classic LCPs: murty, fathi, random-pd, random-p, random-psd, degenerate, box-mcp",
    "contact problems: delassus, contact-kkt, box-friction, block-on-plane, scenes-standard",
    "nonlinear MCPs: mcplib, contact-ncp",
    "Murty's exponential example for Lemke, n = 8, 12, 16",
    "Fathi's positive definite example, n = 8, 12, 16",
    "random nonsymmetric positive definite dense LCPs, n = 50 ... 400, 2 seeds",
    "random P-matrix (not PD) LCPs, n = 10, 30, 100, 2 seeds",
    "random PSD LCPs, feasible (n = 16 ... 100) and infeasible (n = 16, 50)",
    "small-integer degenerate LCPs (ties), with and without a known degenerate solution",
    "random affine box MCPs with all four kinds of bounds, n = 12 ... 200",
    "sparse frictionless Delassus LCPs, 100 ... 3000 contacts (2 seeds) and 10 000",
    "velocity-level contact MCPs with free velocities, 100 ... 3000 contacts",
    "box-friction contact MCPs, 30 ... 300 contacts at mu = 0.1, 0.5, 1.0, and 1000 at 0.5",
    "Stewart-Trinkle LCP of a sliding block, d = 4, 8, 16, 32 directions",
    "small nonlinear MCPs from MCPLIB and the literature, every standard start",
    "contact NCPs, quadratic friction cone: block (sticking, sliding), 10 ... 10 000 particles",
    "one small problem of each kind (tests)",
    "contact scenes (stack, pile, wall, plate) x every model (polyhedral d = 4 ... 32) x h x mu",
    "contact scenes up to 10 000+ contacts: point-coulomb, polyhedral d = 8, kelvin-voigt",
    "one small instance per scene: point-coulomb and polyhedral d = 8 (part of standard)",
    "time-stepping traces: up to 12 steps of 7 experiment scenes, the stepper's warm start",
    "the same steps started cold (z0 = NULL): what warm starts buy",
    "FCLIB local files (the tests' samples, or $CPK_FCLIB_DIR) as cone problems and compiled",
};

const char *const *cpk_bench_suite_names(void) { return suite_names; }

const char *cpk_bench_suite_description(size_t i)
{
  return i < sizeof suite_descriptions / sizeof suite_descriptions[0] ? suite_descriptions[i]
                                                                      : NULL;
}

int cpk_bench_suite_push(cpk_bench_suite *s, const cpk_bench_instance *inst)
{
  for (size_t k = 0; k < s->count; k++)
    if (strcmp(s->items[k].name, inst->name) == 0) return CPK_OK;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64, bytes;
    if (cpk_size_mul(cap, sizeof *s->items, &bytes)) return CPK_EOVERFLOW;
    cpk_bench_instance *grown = realloc(s->items, bytes);
    if (!grown) return CPK_ENOMEM;
    s->items = grown;
    s->cap = cap;
  }
  s->items[s->count++] = *inst;
  return CPK_OK;
}

void cpk_bench_suite_clear(cpk_bench_suite *s)
{
  free(s->items);
  s->items = NULL;
  s->count = s->cap = 0;
}

/* Families whose size axis counts contacts (the others count unknowns). */
int cpk_bench_family_is_contact(const char *f)
{
  return strcmp(f, "delassus") == 0 || strcmp(f, "contact-kkt") == 0 ||
         strcmp(f, "box-friction") == 0 || strcmp(f, "block-on-plane") == 0 ||
         strcmp(f, "block-ncp") == 0 || strcmp(f, "contact-chain") == 0 ||
         cpk_bench_family_is_scene(f) || cpk_bench_family_is_trace(f);
}

static int expect_of(const char *family)
{
  if (strcmp(family, "random-psd-infeasible") == 0) return CPK_BENCH_EXPECT_NONE;
  if (strcmp(family, "box-friction") == 0) return CPK_BENCH_EXPECT_UNKNOWN;
  return CPK_BENCH_EXPECT_SOLUTION;
}

/* The instance name says everything that determines the problem. */
static void name_instance(cpk_bench_instance *in)
{
  char mu[32] = "", seed[32] = "";
  const char *axis = strcmp(in->family, "block-on-plane") == 0  ? "d"
                     : strcmp(in->family, "contact-chain") == 0 ? "p"
                     : cpk_bench_family_is_contact(in->family)  ? "c"
                                                                : "n";
  if (strcmp(in->family, "box-friction") == 0) snprintf(mu, sizeof mu, "-mu%.1f", in->mu);
  if (in->seed) snprintf(seed, sizeof seed, "-s%lu", in->seed);
  if (strcmp(in->family, "block-ncp") == 0)
    snprintf(in->name, sizeof in->name, "block-ncp-%s", in->param ? "sliding" : "sticking");
  else
    snprintf(in->name, sizeof in->name, "%s-%s%zu%s%s", in->family, axis, in->size, mu, seed);
}

/* MCPLIB problems: one instance per problem and standard start. */
static int add_mcplib(cpk_bench_suite *s, const char *suite)
{
  for (size_t i = 0; i < cpk_mcp_count(); i++) {
    const cpk_mcp_info *info = cpk_mcp_at(i);
    for (size_t k = 0; k < info->nstarts; k++) {
      cpk_bench_instance in;
      memset(&in, 0, sizeof in);
      snprintf(in.suite, sizeof in.suite, "%s", suite);
      snprintf(in.family, sizeof in.family, "mcplib");
      snprintf(in.name, sizeof in.name, "mcplib-%s-x%zu", info->name, k + 1);
      in.size = info->n;
      in.param = i * 64 + k; /* problem and start */
      in.expect = info->nsolutions > 0 ? CPK_BENCH_EXPECT_SOLUTION : CPK_BENCH_EXPECT_UNKNOWN;
      int rc = cpk_bench_suite_push(s, &in);
      if (rc) return rc;
    }
  }
  return CPK_OK;
}

static int add_row(cpk_bench_suite *s, const suite_row *r, const char *suite)
{
  if (strcmp(r->family, "mcplib") == 0) return add_mcplib(s, suite);
  if (strncmp(r->family, "scenes", 6) == 0) return cpk_bench_scene_suite_add(s, r->family, suite);
  for (size_t k = 0; k < 8 && r->sizes[k]; k++)
    for (unsigned seed = r->nseeds ? 1 : 0; seed <= r->nseeds; seed++) {
      unsigned variants = strcmp(r->family, "block-ncp") == 0 ? 2 : 1;
      for (unsigned v = 0; v < variants; v++) {
        cpk_bench_instance in;
        memset(&in, 0, sizeof in);
        snprintf(in.suite, sizeof in.suite, "%s", suite);
        snprintf(in.family, sizeof in.family, "%s", r->family);
        in.size = r->sizes[k];
        in.seed = seed;
        in.param = variants > 1 ? v : r->param;
        in.mu = r->mu;
        in.expect = expect_of(r->family);
        name_instance(&in);
        int rc = cpk_bench_suite_push(s, &in);
        if (rc) return rc;
      }
    }
  return CPK_OK;
}

static int add_named(cpk_bench_suite *s, const char *name, const char *label)
{
  int found = 0;
  for (size_t k = 0; k < NROWS; k++)
    if (strcmp(rows[k].suite, name) == 0) {
      int rc = add_row(s, &rows[k], label);
      if (rc) return rc;
      found = 1;
    }
  return found ? CPK_OK : CPK_ENOTFOUND;
}

/* A group's members are labelled with the top-level group they came through. */
static int add_group(cpk_bench_suite *s, size_t g, const char *label, int depth)
{
  for (size_t k = 0; k < 8 && groups[g].members[k]; k++) {
    const char *m = groups[g].members[k];
    int rc = CPK_ENOTFOUND;
    for (size_t h = 0; h < NGROUPS && depth < 2; h++)
      if (strcmp(groups[h].name, m) == 0) rc = add_group(s, h, m, depth + 1);
    if (rc == CPK_ENOTFOUND) rc = add_named(s, m, label);
    if (rc) return rc;
  }
  return CPK_OK;
}

int cpk_bench_suite_add(cpk_bench_suite *s, const char *name, cpk_error *err)
{
  struct stat st;
  int rc = CPK_ENOTFOUND;
  cpk_error_clear(err);
  if (cpk_bench_is_trace_suite(name)) return cpk_bench_trace_suite_add(s, name, err);
  if (strcmp(name, "fclib") == 0) return cpk_bench_suite_add_path(s, cpk_bench_fclib_dir(), err);
  for (size_t g = 0; g < NGROUPS && rc == CPK_ENOTFOUND; g++)
    if (strcmp(groups[g].name, name) == 0) rc = add_group(s, g, name, 0);
  if (rc == CPK_ENOTFOUND) rc = add_named(s, name, name);
  if (rc == CPK_ENOTFOUND && stat(name, &st) == 0) return cpk_bench_suite_add_path(s, name, err);
  if (rc == CPK_ENOTFOUND)
    return cpk_error_set(err, rc, "unknown suite '%s' (not a suite name, file or directory)", name);
  return rc ? cpk_error_set(err, rc, "suite '%s': %s", name, cpk_strerror(rc)) : CPK_OK;
}
