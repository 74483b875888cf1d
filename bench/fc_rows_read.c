/* fc_rows_read.c: the memory and time of reading a friction-cone problem by rows (cpk_fc_rows_read, each rank its block of contacts) against the replicated reader, and the residual at r = 0 both ways (doc/petsc.md, seventh step). */
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

/* This rank's rows only, the residual and merit reduced over the ranks. */
static int by_rows(const char *path, int rank, int size)
{
  cpk_fc_rows *R = NULL;
  cpk_error err;
  double t0 = now();
  if (cpk_fc_rows_read(path, rank, size, &R, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  double t1 = now(), *r = calloc(R->n, sizeof *r), res = 0, merit = 0;
  int rc = !r || cpk_fc_rows_residual_merit(R, r, NULL, &res, &merit);
  printf("rank %d of %d rows: contacts %zu..%zu of %zu, local nnz %lld of %zu, read %.2f s, residual "
         "%.17g, merit %.17g\n",
         rank, size, R->c0, R->c1, R->nc, (long long)R->rowptr[R->row1 - R->row0], R->nnz, t1 - t0, res,
         merit);
  free(r);
  cpk_fc_rows_free(R);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc < 2 || (argc == 3 && strcmp(argv[2], "--replicated"))) {
    fprintf(stderr, "usage: fc_rows_read FILE [--replicated]\n");
    return 2;
  }
  cpk_init();
  int rank = cpk_mpi_rank(), size = cpk_mpi_size();
  return argc == 3 ? replicated(argv[1], rank) : by_rows(argv[1], rank, size);
}
