/* t_bench.c: tests of the benchmark harness: status accounting, a lying solver caught, crash and hang isolation, resume after truncation and after a kill, CSV/JSON schema, profiles, FCLIB merit, plots. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cpkit/contact.h>
#include "families.h"
#include "harness.h"
#include "testlib.h"

/* ---- solvers that misbehave on purpose (registered only here, through the job's list) ---- */

static long ten(const cpk_problem *p) { return p ? 10 : 10; }

static int dummy_alloc(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  (void)p, (void)s, (void)err;
  *state = calloc(1, 16);
  return *state ? CPK_OK : CPK_ENOMEM;
}

static void dummy_free(void *state) { free(state); }

/* A wrong z, far from any solution, and the claim that it solves the problem. */
static int liar_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                      cpk_result *r)
{
  (void)st, (void)s, (void)mon;
  for (size_t i = 0; i < p->n; i++) r->z[i] = 1000.0 + (double)i;
  r->status = CPK_STATUS_SOLVED;
  r->iterations = 1;
  return CPK_OK;
}

static int crash_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                       cpk_result *r)
{
  (void)st, (void)p, (void)s, (void)mon, (void)r;
  raise(SIGTERM);
  return CPK_OK;
}

/* Never returns and never asks the monitor: only the wall-clock guard can stop it. */
static int hang_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                      cpk_result *r)
{
  (void)st, (void)p, (void)s, (void)mon, (void)r;
  for (;;) pause();
  return CPK_OK;
}

static int giveup_solve(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                        cpk_result *r)
{
  (void)st, (void)p, (void)s, (void)mon;
  r->status = CPK_STATUS_MAX_ITERATIONS;
  r->iterations = 10;
  return CPK_OK;
}

#define AFFINE (CPK_KIND_LCP | CPK_KIND_AFFINE_MCP)
static const cpk_solver_type liar = {.name = "liar",
                                     .description = "wrong z, says solved",
                                     .kinds = AFFINE,
                                     .default_max_iter = ten,
                                     .alloc = dummy_alloc,
                                     .solve = liar_solve,
                                     .free = dummy_free};
static const cpk_solver_type crasher = {.name = "crasher",
                                        .description = "dies",
                                        .kinds = AFFINE,
                                        .default_max_iter = ten,
                                        .alloc = dummy_alloc,
                                        .solve = crash_solve,
                                        .free = dummy_free};
static const cpk_solver_type hanger = {.name = "hanger",
                                       .description = "never returns",
                                       .kinds = AFFINE,
                                       .default_max_iter = ten,
                                       .alloc = dummy_alloc,
                                       .solve = hang_solve,
                                       .free = dummy_free};
static const cpk_solver_type nl_only = {.name = "nl-only",
                                        .description = "nonlinear only",
                                        .kinds = CPK_KIND_NONLINEAR_MCP,
                                        .default_max_iter = ten,
                                        .alloc = dummy_alloc,
                                        .solve = giveup_solve,
                                        .free = dummy_free};

/* ---- helpers ---------------------------------------------------------------------------- */

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
  static char buf[8][256]; /* a few names alive at once */
  static int which;
  which = (which + 1) % 8;
  snprintf(buf[which], sizeof buf[which], "%s/%s", tmpdir, name);
  return buf[which];
}

static void remove_tree(const char *dir)
{
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char path[512];
    struct stat st;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      remove_tree(path);
    else
      remove(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

static void push(cpk_bench_suite *s, const char *family, size_t size, unsigned long seed,
                 size_t param, int expect)
{
  cpk_bench_instance in;
  memset(&in, 0, sizeof in);
  snprintf(in.family, sizeof in.family, "%s", family);
  snprintf(in.suite, sizeof in.suite, "test");
  snprintf(in.name, sizeof in.name, "%s-%zu-%lu-%zu", family, size, seed, param);
  in.size = size, in.seed = seed, in.param = param, in.mu = CPK_BLOCK_MU, in.expect = expect;
  cpk_bench_suite_push(s, &in);
}

/* Four affine problems whose answers are known from theory, and one nonlinear problem. */
static void test_suite(cpk_bench_suite *s)
{
  push(s, "murty", 5, 0, 0, CPK_BENCH_EXPECT_SOLUTION);             /* P-matrix */
  push(s, "random-psd-infeasible", 8, 1, 0, CPK_BENCH_EXPECT_NONE); /* certificate y */
  push(s, "degenerate", 8, 1, 0, CPK_BENCH_EXPECT_SOLUTION);        /* PD */
  push(s, "block-on-plane", 4, 0, 0, CPK_BENCH_EXPECT_SOLUTION);    /* zero diagonal */
  push(s, "block-ncp", 1, 0, 1, CPK_BENCH_EXPECT_SOLUTION);         /* nonlinear */
}

static const cpk_bench_record *find(const cpk_bench_record *r, size_t m, const char *family,
                                    const char *solver)
{
  for (size_t k = 0; k < m; k++)
    if (strcmp(r[k].family, family) == 0 && strcmp(r[k].solver, solver) == 0) return &r[k];
  return NULL;
}

static size_t count_lines(const char *path, int *all_complete)
{
  FILE *f = fopen(path, "r");
  size_t m = 0;
  int c, last = '\n';
  while (f && (c = fgetc(f)) != EOF) {
    m += c == '\n';
    last = c;
  }
  if (f) fclose(f);
  *all_complete = last == '\n';
  return m;
}

static void job_init(cpk_bench_job *job, const cpk_bench_suite *s,
                     const cpk_solver_type *const *solvers, size_t ns, const char *output)
{
  memset(job, 0, sizeof *job);
  job->suite = s;
  job->solvers = solvers;
  job->nsolvers = ns;
  cpk_bench_options_default(&job->options);
  job->options.repeat = 1;
  job->options.time_limit = 5.0;
  job->output = output;
}

/* ---- status accounting --------------------------------------------------------------------- */

static int my_success(const cpk_bench_record *r)
{
  if (r->status == CPK_STATUS_SOLVED) return r->expect != CPK_BENCH_EXPECT_NONE;
  return r->status == CPK_STATUS_NO_SOLUTION && r->expect != CPK_BENCH_EXPECT_SOLUTION;
}

static size_t count_status(const cpk_bench_record *r, size_t m, const char *solver, int status)
{
  size_t c = 0;
  for (size_t k = 0; k < m; k++) c += strcmp(r[k].solver, solver) == 0 && r[k].status == status;
  return c;
}

static void check_summary(const cpk_bench_record *r, size_t m)
{
  cpk_bench_solver_summary *S = NULL;
  size_t ns = 0, bad = 0;
  t_ok(cpk_bench_summarize(r, m, &S, &ns) == CPK_OK && ns == 7, "summary has the 7 solvers");
  for (size_t j = 0; j < ns; j++) {
    size_t runs = 0, ok = 0;
    for (size_t k = 0; k < m; k++)
      if (strcmp(r[k].solver, S[j].solver) == 0) runs++, ok += my_success(&r[k]);
    bad += S[j].runs != runs || S[j].solved != ok;
    if (strcmp(S[j].solver, "liar") == 0)
      t_ok(S[j].solved == 0 && S[j].by_status[CPK_BENCH_REJECTED] == 4,
           "the lying solver: 0 successes, 4 failures counted as rejected");
    if (strcmp(S[j].solver, "lemke") == 0)
      t_ok(S[j].solved == 4 && S[j].success_rate == 1.0 && S[j].median_time_s > 0,
           "lemke: 4 of 4 (infeasibility proved counts on the infeasible problem)");
  }
  t_ok(bad == 0, "runs and successes per solver match the records");
  free(S);
}

static void check_outcomes(const cpk_bench_record *r, size_t m)
{
  const cpk_bench_record *x;
  t_ok(count_status(r, m, "liar", CPK_BENCH_REJECTED) == 4, "every lying answer is rejected");
  x = find(r, m, "murty", "liar");
  t_ok(x && x->claimed == CPK_STATUS_SOLVED && x->residual > 1.0 && strstr(x->message, "claimed"),
       "the record keeps the false claim and the residual the parent measured");
  t_ok(count_status(r, m, "crasher", CPK_BENCH_CRASHED) == 4,
       "a dying child is recorded as crashed");
  t_ok(count_status(r, m, "hanger", CPK_STATUS_TIME_LIMIT) == 4,
       "a hung solver is killed: time_limit");
  x = find(r, m, "murty", "hanger");
  t_ok(x && strstr(x->message, "guard") && x->time_s < 3.0,
       "killed by the guard within its allowance");
  x = find(r, m, "block-ncp", "nl-only");
  t_ok(x && x->status == CPK_STATUS_MAX_ITERATIONS && x->iterations == 10,
       "the nonlinear-only solver ran on the nonlinear problem only");
  x = find(r, m, "murty", "lemke");
  t_ok(x && x->status == CPK_STATUS_SOLVED && x->residual <= x->tolerance,
       "lemke solves Murty's P-matrix problem");
  x = find(r, m, "random-psd-infeasible", "lemke");
  t_ok(x && x->status == CPK_STATUS_NO_SOLUTION,
       "lemke proves the infeasible PSD problem infeasible");
  x = find(r, m, "block-on-plane", "pgs");
  t_ok(x && x->status == CPK_BENCH_ERROR, "pgs refuses the zero diagonal of the block LCP: error");
  t_ok(!find(r, m, "block-on-plane", "enum") && find(r, m, "murty", "enum"),
       "enum declines n = 24 (no record) and runs on n = 5");
}

static void test_accounting(cpk_bench_record **out, size_t *nout)
{
  const cpk_solver_type *solvers[] = {cpk_solver_lemke, cpk_solver_pgs, cpk_solver_enum, &liar,
                                      &crasher,         &hanger,        &nl_only};
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_bench_job job;
  cpk_bench_tally tally;
  cpk_bench_record *r = NULL, *back = NULL;
  size_t m = 0, nback = 0;
  int complete = 0;
  test_suite(&s);
  job_init(&job, &s, solvers, 7, tmp_path("acc.csv"));
  job.options.time_limit = 0.3;
  job.options.guard_grace = 0.2;
  int rc = cpk_bench_main(&job, &r, &m, &tally, NULL);
  /* 7 solvers x 5 problems; 6 affine-only solvers skip the nonlinear one, nl-only the 4 affine */
  t_ok(rc == CPK_OK && tally.skipped == 10 && tally.declined == 1 && m == 24 && tally.run == 24,
       "35 pairs: 10 skipped by kind, 1 declined, 24 recorded (rc %d, %zu records)", rc, m);
  check_outcomes(r, m);
  check_summary(r, m);
  t_ok(count_lines(job.output, &complete) == 25 && complete, "the CSV holds a header and 24 lines");
  rc = cpk_bench_read_records(job.output, &back, &nback, NULL);
  int same = rc == CPK_OK && nback == m;
  for (size_t k = 0; same && k < m; k++)
    same = strcmp(back[k].problem, r[k].problem) == 0 && back[k].status == r[k].status &&
           back[k].claimed == r[k].claimed && back[k].iterations == r[k].iterations;
  t_ok(same, "the file reads back to the same records");
  free(back);
  cpk_bench_suite_clear(&s);
  *out = r, *nout = m;
}

/* ---- resume ---------------------------------------------------------------------------------- */

/* Drop the last `drop` lines, then cut the new last line in half (an interrupted write). */
static void cut_file(const char *path, size_t drop)
{
  FILE *f = fopen(path, "r");
  char *text = calloc(1, 1 << 20);
  size_t len = f && text ? fread(text, 1, (1 << 20) - 1, f) : 0;
  if (f) fclose(f);
  size_t end = len;
  for (size_t k = 0; k <= drop && end > 0; k++) {
    end--; /* the newline that ends the line */
    while (end > 0 && text[end - 1] != '\n') end--;
  }
  size_t next = end; /* start of the line to cut in half */
  while (next < len && text[next] != '\n') next++;
  f = fopen(path, "w");
  if (f) fwrite(text, 1, end + (next - end) / 2, f);
  if (f) fclose(f);
  free(text);
}

/* Every (problem, solver) pair at most once, and how many records. */
static int unique_pairs(const char *path, size_t *count)
{
  cpk_bench_record *r = NULL;
  size_t m = 0;
  int ok = cpk_bench_read_records(path, &r, &m, NULL) == CPK_OK;
  for (size_t i = 0; ok && i < m; i++)
    for (size_t j = i + 1; ok && j < m; j++)
      ok = strcmp(r[i].problem, r[j].problem) != 0 || strcmp(r[i].solver, r[j].solver) != 0;
  free(r);
  *count = m;
  return ok;
}

static void test_resume_cut(cpk_bench_format fmt, const char *name)
{
  const cpk_solver_type *solvers[] = {cpk_solver_lemke, cpk_solver_pgs};
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_bench_job job;
  cpk_bench_tally tally;
  cpk_bench_record *r = NULL;
  size_t m = 0, n2 = 0;
  int complete = 0;
  test_suite(&s);
  job_init(&job, &s, solvers, 2, tmp_path(name));
  job.format = fmt;
  int rc = cpk_bench_main(&job, &r, &m, &tally, NULL);
  free(r);
  t_ok(rc == CPK_OK && m == 8, "%s: 8 records (lemke, pgs on 4 affine problems)", name);
  cut_file(job.output, 2); /* 2 whole lines lost, a third cut short */
  t_ok(count_lines(job.output, &complete) == 6 && !complete,
       "%s: header, 5 records and half a line", name);
  job.resume = 1;
  rc = cpk_bench_main(&job, &r, &m, &tally, NULL);
  free(r);
  t_ok(rc == CPK_OK && tally.resumed == 5 && tally.run == 3 && m == 8,
       "%s: resume keeps 5 records and runs the 3 missing pairs (resumed %zu, run %zu)", name,
       tally.resumed, tally.run);
  t_ok(unique_pairs(job.output, &n2) && n2 == 8 && count_lines(job.output, &complete) == 9 &&
           complete,
       "%s: afterwards each pair once, every line complete", name);
  rc = cpk_bench_main(&job, &r, &m, &tally, NULL);
  free(r);
  t_ok(rc == CPK_OK && tally.run == 0 && tally.resumed == 8, "%s: a finished file runs nothing",
       name);
  cpk_bench_suite_clear(&s);
}

/* Kill the whole benchmark while a solver hangs, then resume it. */
static void test_resume_kill(void)
{
  const cpk_solver_type *first[] = {cpk_solver_lemke, &hanger}, *second[] = {cpk_solver_lemke};
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_bench_job job;
  cpk_bench_tally tally;
  cpk_bench_record *r = NULL;
  size_t m = 0, n2 = 0;
  int complete = 0;
  test_suite(&s);
  job_init(&job, &s, first, 2, tmp_path("kill.csv"));
  job.options.time_limit = 60.0;
  pid_t pid = fork();
  if (pid == 0) _exit(cpk_bench_main(&job, &r, &m, &tally, NULL) ? 1 : 0);
  struct timespec tick = {0, 50000000};
  for (int k = 0; k < 400 && count_lines(job.output, &complete) < 2; k++) nanosleep(&tick, NULL);
  nanosleep(&tick, NULL); /* the hanging run has started */
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  t_ok(count_lines(job.output, &complete) == 2 && complete,
       "killed while the second solver hangs: header and lemke's first record");
  job_init(&job, &s, second, 1, tmp_path("kill.csv"));
  job.resume = 1;
  int rc = cpk_bench_main(&job, &r, &m, &tally, NULL);
  free(r);
  t_ok(rc == CPK_OK && tally.resumed == 1 && tally.run == 3, "resume runs lemke's 3 missing pairs");
  t_ok(unique_pairs(job.output, &n2) && n2 == 4,
       "4 lemke records, each once, none of the hung solver");
  cpk_bench_suite_clear(&s);
}

static void test_resume_wrong_file(void)
{
  const cpk_solver_type *solvers[] = {cpk_solver_lemke};
  cpk_bench_suite s = {NULL, 0, 0};
  cpk_bench_job job;
  cpk_bench_record *r = NULL;
  size_t m = 0;
  cpk_error err;
  FILE *f = fopen(tmp_path("other.csv"), "w");
  if (f) fputs("a,b,c\n1,2,3\n", f), fclose(f);
  test_suite(&s);
  job_init(&job, &s, solvers, 1, tmp_path("other.csv"));
  job.resume = 1;
  int rc = cpk_bench_main(&job, &r, &m, NULL, &err);
  t_ok(rc == CPK_EPARSE && strstr(err.message, "header"),
       "resume refuses a file of another schema");
  job.format = CPK_BENCH_JSONL;
  job.output = tmp_path("acc.csv"); /* a CSV file resumed as JSON */
  rc = cpk_bench_main(&job, &r, &m, NULL, &err);
  t_ok(rc == CPK_EINVAL, "resume refuses to mix formats");
  cpk_bench_suite_clear(&s);
}

/* ---- schema ---------------------------------------------------------------------------------- */

/* Written from doc/bench.md, not from the program: changing the schema must fail this test. */
static const char *const schema[] = {
    "problem",   "suite",  "family",  "kind",    "n",       "size",       "nnz",
    "seed",      "solver", "expect",  "status",  "claimed", "iterations", "residual",
    "tolerance", "time_s", "repeats", "peak_mb", "mem_mb",  "merit",      "message"};
#define NSCHEMA (sizeof schema / sizeof schema[0])

static void sample_record(cpk_bench_record *r)
{
  memset(r, 0, sizeof *r);
  snprintf(r->problem, sizeof r->problem, "dir, with \"quotes\"/p.cpk");
  snprintf(r->suite, sizeof r->suite, "files");
  snprintf(r->family, sizeof r->family, "file");
  snprintf(r->kind, sizeof r->kind, "lcp");
  snprintf(r->solver, sizeof r->solver, "lemke");
  snprintf(r->message, sizeof r->message, "a, b \"c\"");
  r->n = 12, r->size = 3, r->nnz = 40, r->seed = 7, r->expect = CPK_BENCH_EXPECT_UNKNOWN;
  r->status = CPK_BENCH_REJECTED, r->claimed = CPK_STATUS_SOLVED, r->iterations = 123;
  r->residual = 2.5e-3, r->tolerance = 1e-8, r->time_s = 0.125, r->repeats = 3;
  r->peak_mb = 12.5, r->mem_mb = 1.25, r->merit = NAN;
}

static int same_record(const cpk_bench_record *a, const cpk_bench_record *b)
{
  return strcmp(a->problem, b->problem) == 0 && strcmp(a->message, b->message) == 0 &&
         strcmp(a->solver, b->solver) == 0 && a->n == b->n && a->size == b->size &&
         a->nnz == b->nnz && a->seed == b->seed && a->expect == b->expect &&
         a->status == b->status && a->claimed == b->claimed && a->iterations == b->iterations &&
         a->residual == b->residual && a->tolerance == b->tolerance && a->time_s == b->time_s &&
         a->repeats == b->repeats && a->peak_mb == b->peak_mb && a->mem_mb == b->mem_mb &&
         isnan(a->merit) == isnan(b->merit);
}

static void test_schema(void)
{
  char expect[512] = "";
  for (size_t k = 0; k < NSCHEMA; k++) strcat(strcat(expect, k ? "," : ""), schema[k]);
  t_ok(strcmp(cpk_bench_csv_header(), expect) == 0, "CSV header is the documented schema");
  char *h = cpk_bench_jsonl_header();
  json_t *o = h ? json_loads(h, 0, NULL) : NULL, *f = json_object_get(o, "fields");
  int ok = json_array_size(f) == NSCHEMA && json_integer_value(json_object_get(o, "version")) == 1;
  for (size_t k = 0; ok && k < NSCHEMA; k++)
    ok = strcmp(json_string_value(json_array_get(f, k)), schema[k]) == 0;
  t_ok(ok, "JSON Lines header names schema version 1 and the same fields");
  json_decref(o);
  free(h);
  cpk_bench_record a, b;
  sample_record(&a);
  char *csv = cpk_bench_record_line(&a, CPK_BENCH_CSV),
       *js = cpk_bench_record_line(&a, CPK_BENCH_JSONL);
  t_ok(csv && cpk_bench_record_parse(csv, CPK_BENCH_CSV, &b) == CPK_OK && same_record(&a, &b),
       "CSV line round trip (quotes and commas in fields)");
  t_ok(js && cpk_bench_record_parse(js, CPK_BENCH_JSONL, &b) == CPK_OK && same_record(&a, &b),
       "JSON line round trip");
  o = js ? json_loads(js, 0, NULL) : NULL;
  ok = json_object_size(o) == NSCHEMA;
  const char *prev = js;
  for (size_t k = 0; ok && k < NSCHEMA; k++) {
    char key[32];
    snprintf(key, sizeof key, "\"%s\":", schema[k]);
    const char *at = strstr(js, key);
    ok = json_object_get(o, schema[k]) && at && at >= prev;
    prev = at;
  }
  t_ok(ok && json_is_null(json_object_get(o, "merit")) &&
           strcmp(json_string_value(json_object_get(o, "status")), "rejected") == 0,
       "JSON record: exactly the schema's keys in order, NaN as null, statuses by name");
  t_ok(cpk_bench_record_parse("a,b,c\n", CPK_BENCH_CSV, &b) == CPK_EPARSE,
       "a short CSV line is refused");
  json_decref(o);
  free(csv);
  free(js);
}

/* ---- the parent's check ------------------------------------------------------------------------
 */

static void test_verify(void)
{
  cpk_problem *p = NULL;
  cpk_bench_record r;
  double z[3], zero[3] = {0, 0, 0};
  cpk_family_murty(3, &p); /* M = [1 0 0; 2 1 0; 2 2 1], q = (-8, -12, -14) */
  cpk_family_murty_solution(3, z);
  memset(&r, 0, sizeof r);
  r.tolerance = 1e-8, r.expect = CPK_BENCH_EXPECT_SOLUTION;
  r.status = r.claimed = CPK_STATUS_SOLVED;
  cpk_bench_verify(p, z, &r);
  t_ok(r.status == CPK_STATUS_SOLVED && r.residual == 0.0,
       "the exact solution passes (residual 0)");
  cpk_bench_verify(p, zero, &r);
  /* z = 0: w = q < 0, mid(0, inf, z - w) = -q, so the residual is max |q_i| = 14 */
  t_ok(r.status == CPK_BENCH_REJECTED && r.residual == 14.0,
       "z = 0 claimed solved: rejected, residual 14");
  r.status = r.claimed = CPK_STATUS_MAX_ITERATIONS;
  cpk_bench_verify(p, zero, &r);
  t_ok(r.status == CPK_STATUS_MAX_ITERATIONS, "an honest failure keeps its status");
  r.status = r.claimed = CPK_STATUS_NO_SOLUTION;
  cpk_bench_verify(p, z, &r);
  t_ok(r.status == CPK_BENCH_REJECTED, "no_solution on a problem with a solution is rejected");
  z[0] = NAN;
  r.status = r.claimed = CPK_STATUS_SOLVED;
  cpk_bench_verify(p, z, &r);
  t_ok(r.status == CPK_BENCH_REJECTED && isinf(r.residual), "a NaN answer is rejected");
  cpk_problem_free(p);
}

/* ---- profiles and fits ----------------------------------------------------------------------- */

static void fake(cpk_bench_record *r, const char *problem, const char *family, size_t size,
                 const char *solver, int status, double t, long it)
{
  memset(r, 0, sizeof *r);
  snprintf(r->problem, sizeof r->problem, "%s", problem);
  snprintf(r->family, sizeof r->family, "%s", family);
  snprintf(r->suite, sizeof r->suite, "synthetic");
  snprintf(r->solver, sizeof r->solver, "%s", solver);
  r->size = size, r->status = status, r->time_s = t, r->iterations = it;
  r->expect = CPK_BENCH_EXPECT_SOLUTION;
}

#define NFAKE 9
static void fake_records(cpk_bench_record *r)
{
  fake(&r[0], "A", "fam", 10, "s1", CPK_STATUS_SOLVED, 1.0, 0);
  fake(&r[1], "A", "fam", 10, "s2", CPK_STATUS_SOLVED, 2.0, 4);
  fake(&r[2], "B", "fam", 20, "s1", CPK_STATUS_SOLVED, 4.0, 8);
  fake(&r[3], "B", "fam", 20, "s2", CPK_STATUS_STALLED, 0.5, 2);
  fake(&r[4], "C", "fam", 40, "s1", CPK_STATUS_SOLVED, 16.0, 8);
  fake(&r[5], "C", "fam", 40, "s2", CPK_BENCH_REJECTED, 0.1, 1);
  fake(&r[6], "D", "other", 1, "s1", CPK_STATUS_MAX_ITERATIONS, 1.0, 1);
  fake(&r[7], "D", "other", 1, "s2", CPK_STATUS_STALLED, 1.0, 1);
  fake(&r[8], "E", "other", 2, "s2", CPK_STATUS_SOLVED, 3.0, 6);
}

static void test_profiles(void)
{
  cpk_bench_record r[NFAKE];
  const char *solvers[] = {"s1", "s2"};
  double *ratio = NULL, a = 0, b = 0;
  size_t np = 0;
  fake_records(r);
  int rc = cpk_bench_profile(r, NFAKE, solvers, 2, CPK_BENCH_TIME, &ratio, &np);
  /* A: s1 1, s2 2; B, C: only s1; D: nobody; E: only s2 (s1 did not run) */
  t_ok(rc == CPK_OK && np == 5 && ratio[0] == 1 && ratio[1] == 1 && ratio[2] == 1 &&
           isinf(ratio[3]) && isinf(ratio[4]) && ratio[5] == 1 && ratio[6] == 2 &&
           isinf(ratio[7]) && isinf(ratio[9]),
       "time profile ratios: s1 {1, 1, 1, inf, inf}, s2 {1, 2, inf, inf, inf}");
  free(ratio);
  rc = cpk_bench_profile(r, NFAKE, solvers, 2, CPK_BENCH_ITERATIONS, &ratio, &np);
  t_ok(rc == CPK_OK && ratio[0] == 1 && ratio[1] == 1 && ratio[2] == 1 && ratio[5] == 1 &&
           ratio[6] == 4,
       "iteration profile: 0 iterations floored to 1, so s2 is 4 times s1 on A");
  free(ratio);
  double x[4] = {1, 2, 4, 8}, y[4] = {3, 12, 48, 192};
  rc = cpk_bench_loglog_fit(x, y, 4, &a, &b);
  t_near(a, 2.0, 1e-12, "log-log slope of 3 x^2 is 2");
  t_near(b, log(3.0), 1e-12, "and its intercept log 3");
  t_ok(cpk_bench_loglog_fit(x, y, 1, &a, &b) == CPK_EINVAL, "one point gives no slope");
}

/* ---- plots --------------------------------------------------------------------------------------
 */

/* The file starts with the len bytes of head. */
static int file_starts(const char *path, const void *head, size_t len)
{
  unsigned char buf[16];
  FILE *f = fopen(path, "rb");
  size_t got = f && len <= sizeof buf ? fread(buf, 1, len, f) : 0;
  if (f) fclose(f);
  return got == len && memcmp(buf, head, len) == 0;
}

/* The text appears in the first 8 KiB of the file. */
static int file_has(const char *path, const char *text)
{
  static char buf[8192];
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[got] = '\0';
  return strstr(buf, text) != NULL;
}

static void test_plots(void)
{
  cpk_bench_record r[NFAKE];
  int plotted = -1;
  fake_records(r);
  setenv("CPK_GNUPLOT", "/nonexistent/gnuplot", 1);
  int rc = cpk_bench_plot(tmp_path("noplot"), r, NFAKE, NULL, 0, &plotted, NULL);
  t_ok(rc == CPK_OK && plotted == 0 &&
           file_starts(tmp_path("noplot/profile-time-all.gp"), "#", 1) &&
           access(tmp_path("noplot/profile-time-all.png"), F_OK) != 0,
       "without gnuplot: no failure, the scripts are written, no PNG");
  unsetenv("CPK_GNUPLOT");
  t_ok(file_has(tmp_path("noplot/scaling-fam.gp"), "slope 2.00"),
       "scaling script: times 1, 4, 16 at sizes 10, 20, 40 fit slope 2.00");
  if (!cpk_bench_have_gnuplot()) {
    t_ok(1, "# SKIP gnuplot not installed");
    return;
  }
  rc = cpk_bench_plot(tmp_path("plots"), r, NFAKE, NULL, 0, &plotted, NULL);
  static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  t_ok(rc == CPK_OK && plotted == 1, "gnuplot ran on every script");
  t_ok(file_starts(tmp_path("plots/profile-time-all.png"), png, 8) &&
           file_starts(tmp_path("plots/profile-iterations-all.png"), png, 8) &&
           file_starts(tmp_path("plots/scaling-fam.png"), png, 8),
       "profiles (time, iterations) and the scaling plot as PNG");
  t_ok(file_has(tmp_path("plots/profile-time-all.svg"), "<svg") &&
           file_has(tmp_path("plots/scaling-fam.svg"), "<svg"),
       "and as SVG");
}

int main(void)
{
  cpk_bench_record *r = NULL;
  size_t m = 0;
  snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/t_bench_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    printf("Bail out! mkdtemp failed\n");
    return 1;
  }
  test_schema();
  test_verify();
  test_profiles();
  test_accounting(&r, &m);
  free(r);
  test_resume_cut(CPK_BENCH_CSV, "cut.csv");
  test_resume_cut(CPK_BENCH_JSONL, "cut.jsonl");
  test_resume_kill();
  test_resume_wrong_file();
  test_plots();
  remove_tree(tmpdir);
  return t_done();
}
