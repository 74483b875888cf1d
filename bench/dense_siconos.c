/* dense_siconos.c: lemke, bdnewton, fbnewton against Siconos Numerics' Lemke and NewtonFB on dense SPD LCPs, CPU time in one process. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <cpkit/cpkit.h>
#ifdef HAVE_SICONOS
#include <siconos/numerics/LCP_Solvers.h>
#include <siconos/numerics/LinearComplementarityProblem.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/SolverOptions.h>
#include <siconos/numerics/lcp_cst.h>
#endif

static const char *usage =
    "usage: dense_siconos [--sizes N,N,...] [--seed S] [--linsys NAME]\n"
    "  random dense SPD LCPs M = B B^T + 0.1 I (B Gaussian n-by-n), q uniform in [-n, n];\n"
    "  cpkit's lemke, bdnewton and fbnewton (linsys NAME, default automatic) against\n"
    "  Siconos' Lemke and NewtonFB (when configure found Siconos Numerics) on the same\n"
    "  problem in this process. Times are CPU times of the process (a loaded machine\n"
    "  inflates wall times); OPENBLAS_NUM_THREADS=1 keeps both single-threaded.\n"
    "  default sizes 100,300,1000\n";

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One method's outcome: work units (pivots or iterations), CPU seconds, the solution. */
typedef struct outcome {
  long units;
  double cpu_s;
  int ok;
  double dz; /* max |z - z of cpkit's lemke| */
} outcome;

static double max_diff(const double *a, const double *b, size_t n)
{
  double d = 0.0;
  for (size_t i = 0; i < n; i++) d = fabs(a[i] - b[i]) > d ? fabs(a[i] - b[i]) : d;
  return d;
}

/* The instance as a cpkit problem, with M also column-major (Siconos' dense storage) and q. */
static int make_lcp(size_t n, unsigned long seed, double *Mcol, double *q, cpk_matrix **Mc,
                    cpk_problem **p)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_matrix *B = gsl_matrix_alloc(n, n), *M = gsl_matrix_alloc(n, n);
  int rc = (r && B && M) ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    gsl_rng_set(r, seed);
    for (size_t k = 0; k < n * n; k++) B->data[k] = gsl_ran_gaussian(r, 1.0);
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, B, B, 0.0, M);
    for (size_t i = 0; i < n; i++) gsl_matrix_set(M, i, i, gsl_matrix_get(M, i, i) + 0.1);
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i < n; i++) Mcol[i + j * n] = gsl_matrix_get(M, i, j);
    for (size_t i = 0; i < n; i++) q[i] = (2.0 * gsl_rng_uniform(r) - 1.0) * (double)n;
    rc = cpk_matrix_from_gsl(M, Mc);
  }
  if (!rc) rc = cpk_problem_alloc_lcp(*Mc, q, p);
  gsl_matrix_free(M);
  gsl_matrix_free(B);
  gsl_rng_free(r);
  return rc;
}

static outcome run_cpkit(const cpk_problem *p, const char *solver, const char *linsys, double *z)
{
  outcome o = {0, 0.0, 0, 0.0};
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.max_iter = 100 * (long)p->n + 1000;
  s.linsys = linsys ? cpk_linsys_find(linsys) : NULL;
  if (cpk_result_alloc(p->n, &r)) return o;
  double t0 = cpu_seconds();
  int rc = cpk_solve(p, solver, &s, r, NULL);
  o.cpu_s = cpu_seconds() - t0;
  double pivots = 0.0;
  int lemke = strcmp(solver, "lemke") == 0;
  if (lemke) cpk_result_get_stat(r, "pivots", &pivots);
  o.units = lemke ? (long)pivots : r->iterations;
  o.ok = rc == CPK_OK && r->status == CPK_STATUS_SOLVED;
  memcpy(z, r->z, p->n * sizeof *z);
  cpk_result_free(r);
  return o;
}

#ifdef HAVE_SICONOS
/* Siconos' Lemke (newton = 0) or NewtonFB (newton = 1) on the same data; M is borrowed. */
static outcome run_siconos(size_t n, double *Mcol, double *q, int newton, double *z)
{
  outcome o = {0, 0.0, 0, 0.0};
  NumericsMatrix *NM = NM_create_from_data(NM_DENSE, (int)n, (int)n, Mcol);
  SolverOptions *opt =
      solver_options_create(newton ? SICONOS_LCP_NEWTON_FB_FBLSA : SICONOS_LCP_LEMKE);
  double *w = calloc(n, sizeof *w);
  if (NM && opt && w) {
    LinearComplementarityProblem lcp = {(int)n, NM, q};
    int info = 0;
    opt->iparam[SICONOS_IPARAM_MAX_ITER] = 100 * (int)n + 1000;
    if (newton) opt->dparam[SICONOS_DPARAM_TOL] = 1e-8;
    memset(z, 0, n * sizeof *z);
    double t0 = cpu_seconds();
    if (newton) lcp_newton_FB(&lcp, z, w, &info, opt);
    else lcp_lexicolemke(&lcp, z, w, &info, opt);
    o.cpu_s = cpu_seconds() - t0;
    o.units = opt->iparam[SICONOS_IPARAM_ITER_DONE];
    o.ok = info == 0;
  }
  free(w);
  if (opt) solver_options_delete(opt);
  if (NM) { /* the dense data stay ours */
    NM_clear_not_dense(NM);
    free(NM);
  }
  return o;
}
#endif

static double per_unit(outcome o) { return o.units > 0 ? 1e6 * o.cpu_s / (double)o.units : 0.0; }

static void print_outcome(const char *who, outcome o)
{
  printf("  %-22s %-7s %7ld units %10.4f s CPU %12.1f us/unit  |z - z_lemke| %.1e\n", who,
         o.ok ? "solved" : "FAILED", o.units, o.cpu_s, per_unit(o), o.dz);
}

/* One size: every cpkit method, then each Siconos method with the ratio to cpkit's matching one. */
static void run_size(size_t n, unsigned long seed, const char *linsys)
{
  double *Mcol = malloc(n * n * sizeof *Mcol), *q = malloc(n * sizeof *q);
  double *z = malloc(n * sizeof *z), *zl = malloc(n * sizeof *zl);
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (!Mcol || !q || !z || !zl || make_lcp(n, seed, Mcol, q, &M, &p)) {
    printf("n = %zu: cannot build the instance\n", n);
  } else {
    static const char *const solvers[] = {"lemke", "bdnewton", "fbnewton"};
    outcome c[3];
    printf("n = %zu (linsys %s)\n", n, linsys ? linsys : "automatic");
    for (int k = 0; k < 3; k++) {
      c[k] = run_cpkit(p, solvers[k], linsys, k == 0 ? zl : z);
      c[k].dz = k == 0 ? 0.0 : max_diff(z, zl, n);
      print_outcome(solvers[k], c[k]);
    }
#ifdef HAVE_SICONOS
    outcome sl = run_siconos(n, Mcol, q, 0, z);
    sl.dz = max_diff(z, zl, n);
    outcome sn = run_siconos(n, Mcol, q, 1, z);
    sn.dz = max_diff(z, zl, n);
    print_outcome("Siconos Lemke", sl);
    print_outcome("Siconos NewtonFB", sn);
    printf("  per unit: lemke / Siconos Lemke %.2f, fbnewton / NewtonFB %.2f, "
           "bdnewton / NewtonFB %.2f\n",
           per_unit(c[0]) / per_unit(sl), per_unit(c[2]) / per_unit(sn),
           per_unit(c[1]) / per_unit(sn));
    printf("  total:    lemke / Siconos Lemke %.2f, best Newton / NewtonFB %.2f\n",
           c[0].cpu_s / sl.cpu_s, (c[1].cpu_s < c[2].cpu_s ? c[1].cpu_s : c[2].cpu_s) / sn.cpu_s);
#endif
  }
  cpk_problem_free(p);
  cpk_matrix_free(M);
  free(Mcol);
  free(q);
  free(z);
  free(zl);
}

int main(int argc, char **argv)
{
  const char *sizes = "100,300,1000", *linsys = NULL;
  unsigned long seed = 1;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--sizes") == 0 && a + 1 < argc) sizes = argv[++a];
    else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) seed = strtoul(argv[++a], NULL, 10);
    else if (strcmp(argv[a], "--linsys") == 0 && a + 1 < argc) linsys = argv[++a];
    else {
      fputs(usage, strcmp(argv[a], "--help") == 0 ? stdout : stderr);
      return strcmp(argv[a], "--help") == 0 ? 0 : 2;
    }
  }
  if (linsys && !cpk_linsys_find(linsys)) {
    fprintf(stderr, "dense_siconos: unknown linsys backend %s\n", linsys);
    return 2;
  }
#ifndef HAVE_SICONOS
  puts("dense_siconos: built without Siconos Numerics (configure --with-siconos): cpkit only");
#endif
  char *copy = strdup(sizes), *save = NULL;
  for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
       tok = strtok_r(NULL, ",", &save)) {
    size_t n = strtoul(tok, NULL, 10);
    if (n > 0) run_size(n, seed, linsys);
  }
  free(copy);
  return 0;
}
