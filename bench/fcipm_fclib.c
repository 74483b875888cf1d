/* fcipm_fclib.c: runs the fcipm solver on FCLIB local files and prints FCLIB's merit, the cone residual, status and time per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>

/* FCLIB local file -> cone problem (the reader gives a local-form contact system). */
static cpk_problem *load(const char *path)
{
  cpk_contact_system *cs = NULL;
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  cpk_error err;
  if (cpk_contact_system_read_fclib(path, &cs, &err)) {
    fprintf(stderr, "%s: %s\n", path, err.message);
    return NULL;
  }
  double *mu = malloc((cs->nc ? cs->nc : 1) * sizeof *mu);
  for (size_t c = 0; mu && c < cs->nc; c++) mu[c] = cs->contacts[c].mu;
  if (mu && !cpk_matrix_from_csc(cs->W, &W)) cpk_problem_alloc_friction_cone(W, cs->q, cs->dim, mu, &p);
  cpk_matrix_free(W);
  free(mu);
  cpk_contact_system_free(cs);
  return p;
}

static void run(const char *path, const cpk_settings *s)
{
  cpk_problem *p = load(path);
  cpk_result *r = NULL;
  cpk_error err;
  if (!p || cpk_result_alloc(p->n, &r)) {
    cpk_problem_free(p);
    return;
  }
  double t0 = cpk_wtime();
  int rc = cpk_solve(p, "fcipm", s, r, &err);
  double t = cpk_wtime() - t0, outer = 0, fact = 0, ft = 0;
  cpk_result_get_stat(r, "factor_time_s", &ft);
  cpk_result_get_stat(r, "outer_iterations", &outer);
  cpk_result_get_stat(r, "factorizations", &fact);
  const char *base = strrchr(path, '/');
  if (rc)
    printf("%-45s error %s\n", base ? base + 1 : path, err.message);
  else
    printf("%-45s nc %5zu  %-14s merit %9.2e  res %9.2e  inner %4ld outer %4.0f fact %4.0f  %8.4f s"
           " (factor %.4f s)  %s\n",
           base ? base + 1 : path, p->nc, cpk_status_name(r->status), cpk_fc_merit(p, r->z, r->w),
           r->residual, r->iterations, outer, fact, t, ft, r->message);
  cpk_result_free(r);
  cpk_problem_free(p);
}

int main(int argc, char **argv)
{
  cpk_settings s;
  cpk_settings_default(&s);
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--tol")) s.tol = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--refresh")) s.fcipm.refresh_ratio = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--max-iter")) s.max_iter = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--verbose")) s.verbose = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--linearize")) s.fcipm.linearize = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--step")) s.fcipm.step_fraction = atof(argv[i + 1]);
    else break;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: fcipm_fclib [--tol X] [--refresh R] [--max-iter N] [--step F] [--linearize 0|1] [--verbose V] FILE.hdf5...\n");
    return 2;
  }
  for (; i < argc; i++) run(argv[i], &s);
  return 0;
}
