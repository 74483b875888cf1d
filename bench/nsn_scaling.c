/* nsn_scaling.c: nsn on the largest generated scenes (cone form from the Delassus operator): time per Newton iteration against one UMFPACK factorization of its Newton matrix. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "scenes.h"

static const char *usage =
    "usage: nsn_scaling [--bodies STACK,PILE,WALL,PLATE] [--max-iter N] [--time-limit S]\n"
    "                   [--rho K] [--nonmonotone M] [--verbose 0|1|2] [--linsys NAME]\n"
    "                   [--write DIR]\n"
    "  builds each scene (h 0.01, mu 0.5, seed 1; default bodies 2560,3375,900,4096: the\n"
    "  largest scenes-large instances), takes its Delassus operator's (n, t, o) rows and\n"
    "  columns as the cone problem's W, q = b with psi/h on the normal entries, solves it\n"
    "  with nsn (UMFPACK) and prints time per iteration against the mean factorization time.\n"
    "  --write DIR writes each cone problem to DIR/SCENE-bBODIES.cpk instead of solving it\n"
    "  (for `cpkit solve`, e.g. under mpirun with --linsys petsc).\n";

/* W and q of the cone problem: the (n, t, o) part of the 4-per-contact Delassus operator. */
static int cone_problem(const cpk_contact_system *s, cpk_problem **out, cpk_error *err)
{
  size_t n4 = 4 * s->nc, n3 = 3 * s->nc;
  cpk_csc *A = NULL, *W = NULL;
  cpk_matrix *Wm = NULL;
  double *b = malloc((n4 ? n4 : 1) * sizeof *b), *q = malloc((n3 ? n3 : 1) * sizeof *q);
  double *mu = malloc((s->nc ? s->nc : 1) * sizeof *mu);
  int rc = (!b || !q || !mu) ? CPK_ENOMEM : cpk_contact_system_delassus(s, &A, b, err);
  if (!rc) rc = cpk_csc_alloc((cpk_int)n3, (cpk_int)n3, A->p[n4], &W);
  if (!rc) {
    cpk_int k3 = 0, j3 = 0;
    for (size_t j = 0; j < n4; j++) {
      if (j % 4 == 3) continue;
      W->p[j3++] = k3;
      for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
        if (A->i[k] % 4 == 3) continue;
        W->i[k3] = (A->i[k] / 4) * 3 + A->i[k] % 4;
        W->x[k3++] = A->x[k];
      }
    }
    W->p[n3] = k3;
    for (size_t c = 0; c < s->nc; c++) {
      for (int a = 0; a < 3; a++) q[3 * c + a] = b[4 * c + a];
      q[3 * c] += s->contacts[c].psi / s->h;
      mu[c] = s->contacts[c].mu;
    }
    rc = cpk_matrix_from_csc(W, &Wm);
  }
  if (!rc) rc = cpk_problem_alloc_friction_cone(Wm, q, 3, mu, out);
  cpk_csc_free(A);
  cpk_csc_free(W);
  cpk_matrix_free(Wm);
  free(b);
  free(q);
  free(mu);
  return rc;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = NAN;
  cpk_result_get_stat(r, name, &v);
  return v;
}

/* Where --write puts the problems (NULL: solve them). */
static const char *write_dir;

static int write_problem(const cpk_problem *p, cpk_bench_scene_kind kind, size_t bodies, cpk_error *err)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s-b%zu.cpk", write_dir, cpk_bench_scene_name(kind), bodies);
  int rc = cpk_problem_write_file(p, path, err);
  if (!rc) printf("%s: %zu contacts, n %zu, nnz(W) %zu\n", path, p->nc, p->n, cpk_matrix_nnz(p->M));
  return rc;
}

static int run_scene(cpk_bench_scene_kind kind, size_t bodies, const cpk_settings *st)
{
  cpk_bench_scene_options o;
  cpk_contact_system *sys = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_bench_scene_options_default(&o);
  o.bodies = bodies;
  o.h = 1e-2;
  o.mu = 0.5;
  o.seed = 1;
  int rc = cpk_bench_scene_generate(kind, &o, &sys, NULL, &err);
  if (!rc) rc = cone_problem(sys, &p, &err);
  if (!rc && write_dir) {
    rc = write_problem(p, kind, bodies, &err);
    if (rc) fprintf(stderr, "%s b%zu: %s\n", cpk_bench_scene_name(kind), bodies, err.message);
    cpk_problem_free(p);
    cpk_contact_system_free(sys);
    return rc;
  }
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  if (!rc) rc = cpk_solve(p, "nsn", st, r, &err);
  if (rc) {
    fprintf(stderr, "%s b%zu: %s\n", cpk_bench_scene_name(kind), bodies, err.message);
  } else {
    double nf = stat(r, "factorizations"), tf = stat(r, "factor_time_s") / nf;
    double it = r->iterations > 0 ? r->time_s / (double)r->iterations : NAN;
    printf("%-6s %6zu %7zu %9zu %-15s %5ld %9.3e %8.3f %5.0f %9.4f %9.4f %6.2f\n",
           cpk_bench_scene_name(kind), bodies, p->nc, cpk_matrix_nnz(p->M),
           cpk_status_name(r->status), r->iterations, cpk_fc_merit(p, r->z, r->w), r->time_s, nf,
           tf, it, it / tf);
    fflush(stdout);
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_contact_system_free(sys);
  return rc;
}

int main(int argc, char **argv)
{
  size_t bodies[CPK_SCENE_COUNT] = {2560, 3375, 900, 4096};
  cpk_settings st;
  cpk_settings_default(&st);
  st.linsys = cpk_linsys_umfpack;
  st.time_limit = 600;
  for (int a = 1; a < argc; a += 2) {
    if (a + 1 >= argc) {
      fputs(usage, stderr);
      return 2;
    }
    if (!strcmp(argv[a], "--bodies")) {
      char *s = argv[a + 1];
      for (int k = 0; k < CPK_SCENE_COUNT && *s; k++) {
        bodies[k] = strtoul(s, &s, 10);
        if (*s == ',') s++;
      }
    } else if (!strcmp(argv[a], "--max-iter")) {
      st.max_iter = atol(argv[a + 1]);
    } else if (!strcmp(argv[a], "--rho")) {
      st.nsn.rho = atoi(argv[a + 1]);
    } else if (!strcmp(argv[a], "--nonmonotone")) {
      st.nsn.nonmonotone = atoi(argv[a + 1]);
    } else if (!strcmp(argv[a], "--verbose")) {
      st.verbose = atoi(argv[a + 1]);
    } else if (!strcmp(argv[a], "--time-limit")) {
      st.time_limit = atof(argv[a + 1]);
    } else if (!strcmp(argv[a], "--write")) {
      write_dir = argv[a + 1];
    } else if (!strcmp(argv[a], "--linsys") && cpk_linsys_find(argv[a + 1])) {
      st.linsys = cpk_linsys_find(argv[a + 1]);
    } else {
      fputs(usage, stderr);
      return 2;
    }
  }
  if (cpk_mpi_rank() != 0 && !freopen("/dev/null", "w", stdout)) return 1; /* rank 0 reports */
  if (!write_dir) printf("%-6s %6s %7s %9s %-15s %5s %9s %8s %5s %9s %9s %6s\n", "scene", "bodies", "nc",
         "nnz(W)", "status", "iter", "fclib_mer", "time_s", "fact", "fact_s", "iter_s", "ratio");
  int failed = 0;
  for (int k = 0; k < CPK_SCENE_COUNT; k++)
    if (bodies[k] > 0) failed |= run_scene((cpk_bench_scene_kind)k, bodies[k], &st) != 0;
  return failed;
}
