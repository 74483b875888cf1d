/* newton_scaling.c: benchmark of bdnewton/fbnewton on growing sparse contact NCPs, and Newton against Lemke on the LCP families. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "families.h"
#include "isolate.h"
#include "mcp_problems.h"

typedef struct row {
  size_t n, nnz;
  long iterations, fevals, factorizations, symbolic;
  double time_s, factor_s, build_s, residual, peak_mb;
  int status;
} row;

enum { FAM_CHAIN, FAM_PD_DENSE, FAM_DELASSUS, FAM_MURTY, FAM_KKT };

static const char *usage =
    "usage: newton_scaling [--chain N,N,...] [--dense N,N,...] [--delassus N,N,...]\n"
    "                      [--murty N,N,...] [--kkt N,N,...] [--seed S] [--linsys NAME,...]\n"
    "  --chain     unknowns of the contact-chain NCP (7 per particle; default\n"
    "              1001,10003,100002,300006), solved by bdnewton and fbnewton\n"
    "  --dense     sizes of dense random PD LCPs (default 100,200,400)\n"
    "  --delassus  contact counts of sparse Delassus LCPs (default 1000,4000)\n"
    "  --murty     sizes of Murty's LCP (default 12,16)\n"
    "  --kkt       contact counts of the contact KKT affine MCP (default 2000,5000)\n"
    "  the LCP families are solved by lemke, bdnewton and fbnewton. Their contacts join\n"
    "  random bodies, so the LU of the whole pattern fills in: --delassus 16000 or\n"
    "  --kkt 20000 take minutes per Newton solve (see doc/solvers.md).\n"
    "  --linsys    run every family once per linear-solver backend (dense, lapack, umfpack;\n"
    "              default: the automatic choice), so backends compare in one run\n"
    "Each instance runs in its own process, so peak memory (max RSS) is per instance.\n";

static int make_problem(int family, size_t n, unsigned long seed, cpk_mcp_data **data,
                        cpk_problem **p, double **z0)
{
  int rc;
  *z0 = NULL;
  switch (family) {
  case FAM_CHAIN:
    rc = cpk_mcp_contact_chain(n / 7 > 0 ? n / 7 : 1, seed, data, p);
    if (!rc && !(*z0 = malloc((*p)->n * sizeof **z0))) rc = CPK_ENOMEM;
    if (!rc) cpk_mcp_contact_chain_start(*data, *z0);
    return rc;
  case FAM_PD_DENSE: return cpk_family_random_pd(n, seed, CPK_FAMILY_DENSE, p, NULL);
  case FAM_DELASSUS: return cpk_family_delassus(n, n / 2 + 1, seed, p);
  case FAM_MURTY: return cpk_family_murty(n, p);
  default: return cpk_family_contact_kkt(n / 2 + 1, n, seed, p);
  }
}

static double stat(const cpk_result *r, const char *name)
{
  double v = 0.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

typedef struct job_args {
  int family;
  size_t n;
  const char *solver;
  unsigned long seed;
  const char *linsys; /* backend name, NULL for the automatic choice */
} job_args;

/* Runs in a child process (bench/isolate.c): build, solve, measure. */
static void solve_job(const void *vargs, void *vrow)
{
  const job_args *args = vargs;
  row *out = vrow;
  *out = (row){args->n, 0, 0, 0, 0, 0, 0, 0, 0, INFINITY, 0, -1};
  cpk_mcp_data *data = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  double *z0 = NULL, t0 = cpk_wtime();
  cpk_settings s;
  cpk_settings_default(&s);
  if (strcmp(args->solver, "lemke") == 0) s.max_iter = 1L << 26;
  s.linsys = args->linsys ? cpk_linsys_find(args->linsys) : NULL;
  if (!make_problem(args->family, args->n, args->seed, &data, &p, &z0) && !cpk_result_alloc(p->n, &r)) {
    out->build_s = cpk_wtime() - t0;
    s.z0 = z0;
    out->n = p->n;
    out->nnz = p->kind == CPK_KIND_NONLINEAR_MCP ? (size_t)p->jac_pattern->p[p->n]
                                                : cpk_matrix_nnz(p->M);
    if (!cpk_solve(p, args->solver, &s, r, NULL)) {
      out->iterations = r->iterations;
      out->fevals = (long)stat(r, "function_evaluations");
      out->factorizations = (long)stat(r, "factorizations");
      out->symbolic = (long)stat(r, "symbolic_analyses");
      out->factor_s = stat(r, "factor_time_s");
      out->time_s = r->time_s;
      out->residual = r->residual;
      out->status = (int)r->status;
    }
  }
}

static void print_row(const char *solver, const row *r)
{
  double per = r->iterations > 0 ? r->time_s / (double)r->iterations : NAN;
  double frac = r->time_s > 0 ? r->factor_s / r->time_s : NAN;
  printf("%-9s %8zu %9zu %5ld %5ld %5ld %4ld %9.3f %10.4f %9.3f %5.0f%% %9.3f %8.1f %-14s %8.1e\n",
         solver, r->n, r->nnz, r->iterations, r->fevals, r->factorizations, r->symbolic, r->time_s,
         per, r->factor_s, 100.0 * frac, r->time_s - r->factor_s, r->peak_mb,
         cpk_status_name((cpk_status)r->status), r->residual);
  fflush(stdout);
}

static void run_family(const char *title, int family, const char *list,
                       const char *const *solvers, size_t nsolvers, unsigned long seed,
                       const char *linsys)
{
  printf("\n%s, linsys %s\n%-9s %8s %9s %5s %5s %5s %4s %9s %10s %9s %6s %9s %8s %-14s %8s\n",
         title, linsys ? linsys : "automatic", "solver",
         "n", "nnz", "iter", "F", "fact", "sym", "time_s", "s_per_iter", "factor_s", "share",
         "other_s", "peak_MB", "status", "residual");
  for (size_t v = 0; v < nsolvers; v++) {
    double xs[64], per[64];
    size_t m = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); copy && tok && m < 64;
         tok = strtok_r(NULL, ",", &save)) {
      row r;
      size_t n = strtoul(tok, NULL, 10);
      job_args args = {family, n, solvers[v], seed, linsys};
      if (n == 0 || cpk_bench_isolated(solve_job, &args, &r, sizeof r, &r.peak_mb)) {
        printf("%-9s %8s  failed to run\n", solvers[v], tok);
        continue;
      }
      print_row(solvers[v], &r);
      if (r.iterations > 0) xs[m] = (double)r.n, per[m++] = r.time_s / (double)r.iterations;
    }
    if (m >= 2)
      printf("%-9s fitted slope of time per iteration against n (log-log): %.2f\n", solvers[v],
             cpk_bench_loglog_slope(xs, per, m));
    free(copy);
  }
}

int main(int argc, char **argv)
{
  const char *chain = "1001,10003,100002,300006", *dense = "100,200,400";
  const char *delassus = "1000,4000", *murty = "12,16", *kkt = "2000,5000", *linsys = "";
  unsigned long seed = 1;
  for (int a = 1; a < argc; a++) {
    const char **opt = strcmp(argv[a], "--chain") == 0      ? &chain
                       : strcmp(argv[a], "--dense") == 0    ? &dense
                       : strcmp(argv[a], "--delassus") == 0 ? &delassus
                       : strcmp(argv[a], "--murty") == 0    ? &murty
                       : strcmp(argv[a], "--kkt") == 0      ? &kkt
                       : strcmp(argv[a], "--linsys") == 0   ? &linsys
                                                            : NULL;
    if (opt && a + 1 < argc) *opt = argv[++a];
    else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) seed = strtoul(argv[++a], NULL, 10);
    else {
      fputs(usage, strcmp(argv[a], "--help") == 0 ? stdout : stderr);
      return strcmp(argv[a], "--help") == 0 ? 0 : 2;
    }
  }
  static const char *const newton[] = {"bdnewton", "fbnewton"};
  static const char *const all[] = {"lemke", "bdnewton", "fbnewton"};
  printf("newton_scaling: cpkit %s, seed %lu\n", cpk_version(), seed);
  printf("columns: F = F evaluations, fact = factorizations, sym = symbolic analyses,\n"
         "share = factorization time / solve time, other_s = solve time outside factorizations\n");
  char *names = strdup(linsys), *save = NULL, *ls = names ? strtok_r(names, ",", &save) : NULL;
  do {
    if (ls && !cpk_linsys_find(ls)) {
      printf("unknown linsys backend %s\n", ls);
      continue;
    }
    if (*chain)
      run_family("contact-chain NCP (quadratic friction cone, seed 004 eq. (9)), hot start",
                 FAM_CHAIN, chain, newton, 2, seed, ls);
    if (*dense) run_family("dense random PD LCP", FAM_PD_DENSE, dense, all, 3, seed, ls);
    if (*delassus)
      run_family("sparse Delassus LCP, n = contacts", FAM_DELASSUS, delassus, all, 3, seed, ls);
    if (*kkt)
      run_family("contact KKT affine MCP (free velocities), by contacts", FAM_KKT, kkt, all, 3,
                 seed, ls);
    if (*murty) run_family("Murty's LCP (2^n Lemke pivots)", FAM_MURTY, murty, all, 3, seed, ls);
  } while (ls && (ls = strtok_r(NULL, ",", &save)));
  free(names);
  return 0;
}
