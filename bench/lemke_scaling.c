/* lemke_scaling.c: benchmark of Lemke's cost per pivot and memory on dense P-matrix and sparse Delassus LCPs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "families.h"
#include "isolate.h"

typedef struct row {
  size_t n, nnz;
  long pivots, factorizations;
  double time_s, residual, peak_mb;
  int status;
} row;

static const char *usage =
    "usage: lemke_scaling [--dense N,N,...] [--sparse N,N,...] [--triangular N,N,...] [--seed S]\n"
    "                     [--circulant N,N,...]\n"
    "                     [--linsys NAME,NAME,...] [--refactor K]\n"
    "  --dense   sizes of dense random positive definite (so P-matrix) LCPs (default 100,200,400,800)\n"
    "  --triangular  sizes of dense triangular P-matrix LCPs, condition ~4^n (default none)\n"
    "  --circulant  sizes of the tie-heavy circulant LCP (planted integer solution), each run\n"
    "            as is and with q perturbed by 1e-3 (default none)\n"
    "  --sparse  contact counts of sparse Delassus LCPs (default 1000,4000,16000)\n"
    "  --linsys  run every family once per linear-solver backend (dense, lapack, umfpack;\n"
    "            default: the automatic choice), so backends compare in one run\n"
    "  --refactor  Lemke's refactorization interval (default: the setting's default)\n"
    "Each instance runs in its own process so peak memory is per instance.\n";

/*
 * family 0: dense PD (hence P) matrices; 1: sparse Delassus; 2: dense triangular P (ill-conditioned);
 * 3, 4: the circulant LCP with tied ratios, and with q perturbed.
 */
static int make_problem(int family, size_t n, unsigned long seed, cpk_problem **p)
{
  if (family == 3 || family == 4) return cpk_family_circulant(n, family == 4 ? 1e-3 : 0.0, p, NULL);
  if (family == 1) return cpk_family_delassus(n, n / 2 + 1, seed, p);
  if (family == 2) return cpk_family_random_p(n, seed, p, NULL);
  return cpk_family_random_pd(n, seed, CPK_FAMILY_DENSE, p, NULL);
}

typedef struct job_args {
  int family;
  size_t n;
  unsigned long seed;
  const char *linsys; /* backend name, NULL for the automatic choice */
  long refactor;      /* 0 for the default */
} job_args;

/* Runs in a child process (bench/isolate.c): build, solve, measure. */
static void lemke_job(const void *vargs, void *vrow)
{
  const job_args *args = vargs;
  row *out = vrow;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_settings s;
  *out = (row){args->n, 0, 0, 0, 0, INFINITY, 0, -1};
  cpk_settings_default(&s);
  s.max_iter = 100 * (long)args->n + 1000;
  s.linsys = args->linsys ? cpk_linsys_find(args->linsys) : NULL;
  if (args->refactor > 0) s.lemke.refactor_interval = args->refactor;
  if (!make_problem(args->family, args->n, args->seed, &p) && !cpk_result_alloc(p->n, &r) &&
      !cpk_solve(p, "lemke", &s, r, NULL)) {
    double v = 0;
    out->nnz = cpk_matrix_nnz(p->M);
    cpk_result_get_stat(r, "pivots", &v);
    out->pivots = (long)v;
    cpk_result_get_stat(r, "factorizations", &v);
    out->factorizations = (long)v;
    out->time_s = r->time_s;
    out->residual = r->residual;
    out->status = (int)r->status;
  }
}

static void run_family(const char *name, int family, const char *list, const job_args *opts)
{
  double xs[64], per_pivot[64], mem[64], nnzs[64];
  size_t m = 0;
  char *copy = strdup(list), *save = NULL;
  printf("\n%s, linsys %s\n%8s %10s %8s %6s %10s %14s %10s %-10s %9s\n", name,
         opts->linsys ? opts->linsys : "automatic", "n", "nnz", "pivots", "facts",
         "time_s", "us_per_pivot", "peak_MB", "status", "residual");
  for (char *tok = strtok_r(copy, ",", &save); tok && m < 64; tok = strtok_r(NULL, ",", &save)) {
    row r;
    size_t n = strtoul(tok, NULL, 10);
    job_args args = *opts;
    args.family = family, args.n = n;
    if (n == 0 || cpk_bench_isolated(lemke_job, &args, &r, sizeof r, &r.peak_mb)) {
      printf("%8s  failed to run\n", tok);
      continue;
    }
    double us = r.pivots > 0 ? 1e6 * r.time_s / (double)r.pivots : NAN;
    printf("%8zu %10zu %8ld %6ld %10.3f %14.1f %10.1f %-10s %9.1e\n", r.n, r.nnz, r.pivots,
           r.factorizations, r.time_s, us, r.peak_mb, cpk_status_name((cpk_status)r.status), r.residual);
    fflush(stdout);
    if (r.pivots > 0) {
      xs[m] = (double)n, per_pivot[m] = us, mem[m] = r.peak_mb, nnzs[m++] = (double)r.nnz;
    }
  }
  printf("fitted slopes (log-log vs n): time per pivot %.2f, peak memory %.2f, nnz %.2f\n",
         cpk_bench_loglog_slope(xs, per_pivot, m), cpk_bench_loglog_slope(xs, mem, m), cpk_bench_loglog_slope(xs, nnzs, m));
  free(copy);
}

/* Every family once per backend of the comma list (or once with the automatic choice). */
static void run_all(const char *dense, const char *sparse, const char *tri, const char *circ,
                    const char *linsys, job_args *opts)
{
  char *copy = strdup(linsys), *save = NULL, *name = copy ? strtok_r(copy, ",", &save) : NULL;
  do {
    opts->linsys = name;
    if (name && !cpk_linsys_find(name)) {
      printf("unknown linsys backend %s\n", name);
      continue;
    }
    if (*dense) run_family("dense random PD (P-matrix) LCP", 0, dense, opts);
    if (*sparse) run_family("sparse Delassus LCP, n = contacts", 1, sparse, opts);
    if (*tri) run_family("dense triangular P-matrix LCP, ill-conditioned", 2, tri, opts);
    if (*circ) run_family("circulant LCP, planted integer solution (tied ratios)", 3, circ, opts);
    if (*circ) run_family("circulant LCP, q perturbed by 1e-3 (no ties)", 4, circ, opts);
  } while (name && (name = strtok_r(NULL, ",", &save)));
  free(copy);
}

int main(int argc, char **argv)
{
  const char *dense = "100,200,400,800", *sparse = "1000,4000,16000", *tri = "", *circ = "", *linsys = "";
  job_args opts = {0, 0, 1, NULL, 0};
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--dense") == 0 && a + 1 < argc) dense = argv[++a];
    else if (strcmp(argv[a], "--sparse") == 0 && a + 1 < argc) sparse = argv[++a];
    else if (strcmp(argv[a], "--triangular") == 0 && a + 1 < argc) tri = argv[++a];
    else if (strcmp(argv[a], "--circulant") == 0 && a + 1 < argc) circ = argv[++a];
    else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc)
      opts.seed = strtoul(argv[++a], NULL, 10);
    else if (strcmp(argv[a], "--linsys") == 0 && a + 1 < argc) linsys = argv[++a];
    else if (strcmp(argv[a], "--refactor") == 0 && a + 1 < argc) opts.refactor = atol(argv[++a]);
    else {
      fputs(usage, strcmp(argv[a], "--help") == 0 ? stdout : stderr);
      return strcmp(argv[a], "--help") == 0 ? 0 : 2;
    }
  }
  printf("lemke_scaling: cpkit %s, seed %lu\n", cpk_version(), opts.seed);
  run_all(dense, sparse, tri, circ, linsys, &opts);
  return 0;
}
