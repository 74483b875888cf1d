/* fc_files.c: one friction-cone solver on FCLIB local files: status, sweeps/iterations, residual, FCLIB merit, time per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>

static const char *usage =
    "usage: fc_files [--solver NAME] [--tol X] [--max-iter N] [--time-limit S] FILE.hdf5...\n"
    "  Solves each FCLIB local file (default solver nsgs, tol 1e-10, max-iter 100000,\n"
    "  time limit 300 s per file) and prints status, iterations, the library's residual,\n"
    "  FCLIB's merit (cpk_fc_merit) and the time; then how many files reach merit 1e-8\n"
    "  and 1e-6 and the total time.\n";

/* An FCLIB local file as a friction-cone problem (NULL with a message on failure). */
static cpk_problem *load(const char *path)
{
  cpk_problem *p = NULL;
  cpk_error err;
  /* A corrupt file can crash libhdf5: read it in a child process first. */
  if (cpk_fclib_probe(path, &err) || cpk_problem_read_fclib(path, &p, &err))
    fprintf(stderr, "%s\n", err.message);
  return p;
}

static int parse_options(int argc, char **argv, const char **solver, cpk_settings *s, int *first)
{
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
    char *end = NULL;
    if (i + 1 >= argc) return -1;
    if (!strcmp(argv[i], "--solver")) *solver = argv[i + 1];
    else if (!strcmp(argv[i], "--tol")) s->tol = strtod(argv[i + 1], &end);
    else if (!strcmp(argv[i], "--max-iter")) s->max_iter = strtol(argv[i + 1], &end, 10);
    else if (!strcmp(argv[i], "--time-limit")) s->time_limit = strtod(argv[i + 1], &end);
    else return -1;
    if (end && *end) return -1;
  }
  *first = i;
  return i < argc ? 0 : -1;
}

int main(int argc, char **argv)
{
  const char *solver = "nsgs";
  cpk_settings s;
  int first, reach8 = 0, reach6 = 0;
  double total = 0.0;
  cpk_settings_default(&s);
  s.tol = 1e-10;
  s.max_iter = 100000;
  s.time_limit = 300;
  if (parse_options(argc, argv, &solver, &s, &first)) {
    fputs(usage, stderr);
    return 2;
  }
  printf("%-44s %5s %-15s %8s %10s %10s %9s\n", "file", "nc", "status", "iter", "residual",
         "merit", "time_s");
  for (int a = first; a < argc; a++) {
    cpk_problem *p = load(argv[a]);
    cpk_result *r = NULL;
    cpk_error err;
    if (!p || cpk_result_alloc(p->n, &r) || cpk_solve(p, solver, &s, r, &err)) {
      if (p && r) fprintf(stderr, "%s: %s\n", argv[a], err.message);
      cpk_result_free(r);
      cpk_problem_free(p);
      continue;
    }
    double merit = cpk_fc_merit(p, r->z, r->w);
    const char *base = strrchr(argv[a], '/');
    printf("%-44s %5zu %-15s %8ld %10.3e %10.3e %9.4f\n", base ? base + 1 : argv[a], p->nc,
           cpk_status_name(r->status), r->iterations, r->residual, merit, r->time_s);
    reach8 += merit <= 1e-8;
    reach6 += merit <= 1e-6;
    total += r->time_s;
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  printf("%s: merit <= 1e-8 on %d, <= 1e-6 on %d of %d files, total %.3f s\n", solver, reach8,
         reach6, argc - first, total);
  return 0;
}
