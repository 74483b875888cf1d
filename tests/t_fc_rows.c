/* t_fc_rows.c: one rank's rows of a friction-cone problem (cpkit/rows.h), with 1 rank or under mpirun with 2 (t_petsc_fc_rows_2ranks.sh): the file reader equals the cut of the replicated problem, the blocks cover the contacts once, and the residual and merit reduced over the ranks equal the replicated cpk_fc_residual_merit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cpkit/cpkit.h>
#include "cone_pile.h"
#include "testlib.h"

/* Every rank's flag agreed (rank 0 reports for all: the others' stdout is silenced). */
static int all_ok(int ok) { return cpk_mpi_all(ok); }

/* 1 when a and b hold the same rows bit for bit (values, columns, q, mu, |q|^2). */
static int same_rows(const cpk_fc_rows *a, const cpk_fc_rows *b)
{
  size_t m = a->row1 - a->row0;
  if (a->c0 != b->c0 || a->c1 != b->c1 || a->n != b->n || a->cone_dim != b->cone_dim) return 0;
  if (memcmp(a->rowptr, b->rowptr, (m + 1) * sizeof *a->rowptr)) return 0;
  size_t k = (size_t)a->rowptr[m];
  return !memcmp(a->col, b->col, k * sizeof *a->col) && !memcmp(a->val, b->val, k * sizeof *a->val) &&
         !memcmp(a->q, b->q, m * sizeof *a->q) && !memcmp(a->mu, b->mu, (a->c1 - a->c0) * sizeof *a->mu) &&
         a->q_norm2 == b->q_norm2;
}

/* The ranks' blocks are contiguous, in rank order, and cover the contacts once; the entries too. */
static int blocks_cover(const cpk_fc_rows *R, int size)
{
  double *b = calloc(2 * (size_t)size + 1, sizeof *b);
  if (!b) return 0;
  b[2 * R->rank] = (double)R->c0;
  b[2 * R->rank + 1] = (double)R->c1;
  b[2 * size] = (double)R->rowptr[R->row1 - R->row0];
  int ok = cpk_mpi_reduce(b, 2 * (size_t)size + 1, CPK_MPI_SUM) == CPK_OK && b[0] == 0.0 &&
           b[2 * size - 1] == (double)R->nc;
  for (int k = 0; ok && k + 1 < size; k++) ok = b[2 * k + 1] == b[2 * k + 2] && b[2 * k] <= b[2 * k + 1];
  /* a file without duplicate entries: the local rows' entries add up to W's */
  ok = ok && b[2 * size] == (double)R->nnz;
  free(b);
  return ok;
}

/* Equal with 1 rank; within 1e-12 relative with more (the merit's sum in another order). */
static int close_to(double a, double b, int size)
{
  if (size == 1) return a == b || (isinf(a) && isinf(b));
  return fabs(a - b) <= 1e-12 * fabs(b);
}

/* The reduced residual and merit at r against the replicated ones. */
static void check_at(const cpk_fc_rows *R, const cpk_problem *p, const double *r, const char *what,
                     const char *name, int size)
{
  double *u = malloc(p->n * sizeof *u), res = NAN, merit = NAN, mres = NAN, mm = NAN;
  int ok = u && cpk_problem_eval(p, r, u) == CPK_OK;
  if (ok) mres = cpk_fc_residual_merit(p, r, u, &mm);
  int rc = cpk_fc_rows_residual_merit(R, r, NULL, &res, &merit);
  ok = all_ok(ok && rc == CPK_OK && close_to(res, mres, size) && close_to(merit, mm, size));
  t_ok(ok, "%s, %s: residual %.17g and merit %.17g on %d rank(s) = replicated %.17g, %.17g", name, what,
       res, merit, size, mres, mm);
  free(u);
}

/* The problem in path (replicated) and this rank's rows of it, read and cut, compared. */
static void check_file(const char *path, const char *name, int rank, int size)
{
  cpk_problem *p = NULL;
  cpk_fc_rows *R = NULL, *C = NULL;
  cpk_error err;
  int ok = !cpk_problem_read_any(path, &p, &err) && !cpk_fc_rows_read(path, rank, size, &R, &err) &&
           !cpk_fc_rows_from_problem(p, rank, size, &C);
  if (!ok) t_diag("%s: %s", name, err.message);
  t_ok(all_ok(ok), "%s: read replicated, read by rows and cut", name);
  if (!all_ok(ok)) goto done;
  t_ok(all_ok(same_rows(R, C)), "%s: the rows read equal the rows cut (contacts %zu..%zu of %zu)", name,
       R->c0, R->c1, R->nc);
  t_ok(blocks_cover(R, size), "%s: the blocks cover the %zu contacts once, and W's %zu entries", name,
       R->nc, R->nnz);
  double *r = calloc(p->n, sizeof *r);
  if (!r) goto done;
  check_at(R, p, r, "r = 0", name, size);
  for (size_t i = 0; i < p->n; i++) r[i] = (i % p->cone_dim == 0 ? 1.0 : 0.3) * sin(1.3 * (double)i + 0.2);
  check_at(R, p, r, "r = sin", name, size);
  cpk_result *res = NULL;
  if (!cpk_result_alloc(p->n, &res) && !cpk_solve(p, "nsn", NULL, res, NULL)) /* a (near) solution */
    check_at(R, p, res->z, "nsn's answer", name, size);
  else
    t_ok(0, "%s: nsn ran", name);
  cpk_result_free(res);
  free(r);
done:
  cpk_fc_rows_free(R);
  cpk_fc_rows_free(C);
  cpk_problem_free(p);
}

/* A pile of spheres compiled in the cone form and written to a file of this rank's own. */
static int write_pile(const char *path)
{
  cpk_problem *p = t_cone_pile(150);
  int ok = p && !cpk_problem_write_file(p, path, NULL);
  cpk_problem_free(p);
  return ok;
}

/* A text file with duplicate entries (they sum) in no particular order, and one that is not a cone problem. */
static void check_text_edges(const char *dir, int rank, int size)
{
  char dup[512], lcp[512];
  snprintf(dup, sizeof dup, "%s/t_fc_rows_dup.%d.cpk", dir, rank);
  snprintf(lcp, sizeof lcp, "%s/t_fc_rows_lcp.%d.cpk", dir, rank);
  FILE *f = fopen(dup, "w"), *g = fopen(lcp, "w");
  if (f) fputs("cpkit-problem 1\ntype friction_cone\nn 6\ndim 3\nM coord 9\n4 4 2\n1 1 1.5\n2 2 1\n"
               "3 3 1\n1 1 0.5\n5 5 1\n6 6 1\n1 4 0.5\n4 1 0.5\nq\n-1 0.2 0 -2 1.5 0\nmu\n0.5 0.3\nend\n", f);
  if (g) fputs("cpkit-problem 1\ntype lcp\nn 2\nM coord 2\n1 1 1\n2 2 1\nq\n-1 1\nend\n", g);
  if (f) fclose(f);
  if (g) fclose(g);
  cpk_fc_rows *R = NULL;
  cpk_error err;
  int rc = cpk_fc_rows_read(lcp, rank, size, &R, &err);
  t_ok(all_ok(rc == CPK_EINVAL && !R), "an LCP file is refused (%s)", err.message);
  cpk_problem *p = NULL;
  double r[6] = {1, 0.1, -0.2, 0.5, 0.1, 0.1}, res = 0, merit = 0, u[6], mm;
  int ok = !cpk_problem_read_file(dup, &p, NULL) && !cpk_fc_rows_read(dup, rank, size, &R, NULL) &&
           !cpk_problem_eval(p, r, u);
  ok = ok && !cpk_fc_rows_residual_merit(R, r, NULL, &res, &merit);
  double mres = ok ? cpk_fc_residual_merit(p, r, u, &mm) : 0;
  /* rows sorted, duplicates summed: row 1 is (1, 1) = 2, (1, 4) = 0.5 */
  int row1 = !R || R->c0 != 0 || (R->rowptr[1] == 2 && R->col[0] == 0 && R->val[0] == 2.0 && R->col[1] == 3);
  t_ok(all_ok(ok && row1 && close_to(res, mres, size) && close_to(merit, mm, size)),
       "duplicates summed, rows sorted: residual %g, merit %g as replicated", res, merit);
  cpk_fc_rows_free(R);
  cpk_problem_free(p);
  remove(dup);
  remove(lcp);
}

int main(void)
{
  cpk_init();
  int rank = cpk_mpi_rank(), size = cpk_mpi_size();
  if (rank != 0 && !freopen("/dev/null", "w", stdout)) return 1;
  const char *src = getenv("CPK_TEST_SRCDIR") ? getenv("CPK_TEST_SRCDIR") : ".";
  const char *files[] = {"data/fclib/FrictionContact3D_1c.hdf5", "data/fclib/NESpheres_30_1.hdf5",
                         "data/fclib/OneObject-i1028-138.hdf5", "data/fclib/Rover1040.hdf5",
                         "data/cone/two-contacts.cpk", "data/cone/box-at-rest-elliptic.cpk",
                         "data/cone/one-contact-dim4.cpk"};
  char path[1024], dir[] = "/tmp/t_fc_rows.XXXXXX";
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    cpk_problem *probe = NULL;
    snprintf(path, sizeof path, "%s/%s", src, files[k]);
    if (strstr(files[k], ".hdf5") && cpk_problem_read_fclib(path, &probe, NULL) == CPK_EUNSUP) continue;
    cpk_problem_free(probe); /* built without HDF5: no FCLIB file */
    check_file(path, files[k], rank, size);
  }
  int made = mkdtemp(dir) != NULL;
  snprintf(path, sizeof path, "%s/pile.cpk", dir);
  t_ok(all_ok(made && write_pile(path)), "a pile of 150 spheres written (%s)", path);
  if (all_ok(made)) check_file(path, "pile of 150 spheres", rank, size);
  if (made) check_text_edges(dir, rank, size);
  remove(path);
  if (made) rmdir(dir);
  return rank == 0 ? t_done() : 0;
}
