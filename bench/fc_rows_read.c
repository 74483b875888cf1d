/* fc_rows_read.c: the memory and time of reading a friction-cone problem by rows (cpk_fc_rows_read, each rank its block of contacts) against the replicated reader, the residual at r = 0 both ways, and nsn-rows's solve on the rows read (doc/petsc.md, seventh step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cpkit/cpkit.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The whole problem on this rank, its residual and merit at r = 0. */
static int replicated(const char *path, int rank)
{
  cpk_problem *p = NULL;
  cpk_error err;
  double t0 = now();
  if (cpk_problem_read_any(path, &p, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  double t1 = now(), *r = calloc(p->n, sizeof *r), *u = malloc(p->n * sizeof *u), merit = 0, res = 0;
  int rc = !r || !u || cpk_problem_eval(p, r, u);
  if (!rc) res = cpk_fc_residual_merit(p, r, u, &merit);
  printf("rank %d replicated: n %zu, nnz %zu, read %.2f s, residual %.17g, merit %.17g\n", rank, p->n,
         p->M->format == CPK_MATRIX_CSC ? (size_t)p->M->csc->p[p->n] : p->n * p->n, t1 - t0, res, merit);
  free(r);
  free(u);
  cpk_problem_free(p);
  return rc;
}

/* nsn-rows on the rows read, with the backend named; rank 0 prints the outcome. */
static int solve_rows(const cpk_fc_rows *R, const char *linsys, int rank)
{
  cpk_settings s;
  cpk_result *res = NULL;
  cpk_error err;
  double sym = 0, fact = 0, t0 = now();
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_find(linsys);
  if (!s.linsys || cpk_result_alloc(R->n, &res)) return 1;
  int rc = cpk_fc_rows_solve_nsn(R, &s, res, &err);
  (void)cpk_result_get_stat(res, "factorizations", &fact);
  (void)cpk_result_get_stat(res, "symbolic_analyses", &sym);
  if (rc) fprintf(stderr, "%s\n", err.message);
  else if (rank == 0)
    printf("nsn-rows --linsys %s: %s, %ld iterations, %g factorizations (%g analyses), residual %.3g, "
           "solve %.2f s\n", linsys, cpk_status_name(res->status), res->iterations, fact, sym, res->residual,
           now() - t0);
  cpk_result_free(res);
  return rc != CPK_OK;
}

/* This rank's rows only, the residual and merit reduced over the ranks; with linsys, solved by nsn-rows. */
static int by_rows(const char *path, int rank, int size, const char *linsys)
{
  cpk_fc_rows *R = NULL;
  cpk_error err;
  double t0 = now();
  int rc0 = cpk_fc_rows_read(path, rank, size, &R, &err);
  if (cpk_mpi_agree(rc0)) { /* a bad row seen by one rank only stops every rank */
    if (rc0) fprintf(stderr, "%s\n", err.message);
    cpk_fc_rows_free(R);
    return 1;
  }
  double t1 = now(), *r = calloc(R->n, sizeof *r), res = 0, merit = 0;
  int rc = !r || cpk_fc_rows_residual_merit(R, r, NULL, &res, &merit);
  printf("rank %d of %d rows: contacts %zu..%zu of %zu, local nnz %lld of %zu, read %.2f s, residual "
         "%.17g, merit %.17g\n",
         rank, size, R->c0, R->c1, R->nc, (long long)R->rowptr[R->row1 - R->row0], R->nnz, t1 - t0, res,
         merit);
  free(r);
  if (!rc && linsys) rc = solve_rows(R, linsys, rank);
  cpk_fc_rows_free(R);
  return rc;
}

int main(int argc, char **argv)
{
  int repl = argc == 3 && !strcmp(argv[2], "--replicated"), solve = argc == 4 && !strcmp(argv[2], "--solve");
  if (argc < 2 || argc > 4 || (argc > 2 && !repl && !solve)) {
    fprintf(stderr, "usage: fc_rows_read FILE [--replicated | --solve LINSYS]\n");
    return 2;
  }
  cpk_init();
  int rank = cpk_mpi_rank(), size = cpk_mpi_size();
  return repl ? replicated(argv[1], rank) : by_rows(argv[1], rank, size, solve ? argv[3] : NULL);
}
