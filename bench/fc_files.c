/* fc_files.c: benchmark of the friction-cone solvers on FCLIB local files: FCLIB merit reached, status and time per file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>

static const char *usage =
    "usage: fc_files [--solver NAME] [--tol X] [--max-iter N] [--time-limit S] [--rho K]\n"
    "                [--repeat N] FILE.hdf5...\n"
    "  solves each FCLIB local file's cone problem from r = 0 (default solver nsn, tol 1e-10)\n"
    "  and prints status, iterations, FCLIB merit, cone residual and the best time of N runs.\n";

/* The file's cone problem (W, q, mu as stored). */
static int load(const char *path, cpk_problem **p)
{
  cpk_contact_system *s = NULL;
  cpk_matrix *W = NULL;
  cpk_error err;
  double *mu = NULL;
  *p = NULL;
  int rc = cpk_contact_system_read_fclib(path, &s, &err);
  if (rc) {
    fprintf(stderr, "%s\n", err.message);
    return rc;
  }
  mu = malloc((s->nc ? s->nc : 1) * sizeof *mu);
  rc = mu ? CPK_OK : CPK_ENOMEM;
  for (size_t c = 0; mu && c < s->nc; c++) mu[c] = s->contacts[c].mu;
  if (!rc) rc = cpk_matrix_from_csc(s->W, &W);
  if (!rc) rc = cpk_problem_alloc_friction_cone(W, s->q, s->dim, mu, p);
  cpk_matrix_free(W);
  free(mu);
  cpk_contact_system_free(s);
  return rc;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

static const char *base_name(const char *path)
{
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int run_file(const char *path, const char *solver, const cpk_settings *st, int repeat,
                    double *total)
{
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  int rc = load(path, &p);
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  double best = INFINITY;
  for (int k = 0; !rc && k < repeat; k++) {
    rc = cpk_solve(p, solver, st, r, &err);
    if (rc) fprintf(stderr, "%s: %s\n", path, err.message);
    else best = fmin(best, r->time_s);
  }
  if (!rc) {
    printf("%-44s %5zu %-15s %5ld %10.3e %10.3e %9.4f %5.0f %4.0f %s\n", base_name(path), p->nc,
           cpk_status_name(r->status), r->iterations, cpk_fc_merit(p, r->z, r->w), r->residual,
           best, stat(r, "factorizations"), stat(r, "restarts"), r->message);
    *total += best;
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  return rc;
}

int main(int argc, char **argv)
{
  cpk_settings st;
  const char *solver = "nsn";
  int repeat = 1, first = 1, failed = 0;
  cpk_settings_default(&st);
  st.tol = 1e-10;
  for (; first < argc && argv[first][0] == '-'; first += 2) {
    if (first + 1 >= argc) break;
    const char *o = argv[first], *v = argv[first + 1];
    if (!strcmp(o, "--solver")) solver = v;
    else if (!strcmp(o, "--tol")) st.tol = atof(v);
    else if (!strcmp(o, "--max-iter")) st.max_iter = atol(v);
    else if (!strcmp(o, "--time-limit")) st.time_limit = atof(v);
    else if (!strcmp(o, "--rho")) st.nsn.rho = atoi(v);
    else if (!strcmp(o, "--verbose")) st.verbose = atoi(v);
    else if (!strcmp(o, "--nonmonotone")) st.nsn.nonmonotone = atoi(v);
    else if (!strcmp(o, "--repeat")) repeat = atoi(v) > 0 ? atoi(v) : 1;
    else break;
  }
  if (first >= argc) {
    fputs(usage, stderr);
    return 2;
  }
  double total = 0.0;
  printf("%-44s %5s %-15s %5s %10s %10s %9s %5s %4s\n", "file", "nc", "status", "iter",
         "fclib_mer", "residual", "time_s", "fact", "rst");
  for (int i = first; i < argc; i++) failed |= run_file(argv[i], solver, &st, repeat, &total) != 0;
  printf("total time %.4f s\n", total);
  return failed;
}
