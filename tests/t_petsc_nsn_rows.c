/* t_petsc_nsn_rows.c: the nsn-rows solver (problem and Newton matrix by rows over the ranks), with 1 rank or under mpirun with 2 (t_petsc_nsn_rows_2ranks.sh): on FCLIB files and a generated pile its answer passes the independent t_is_fc_solution and is nsn's within 1e-9 of max |r| where the answer is unique. */
#include <string.h>
#include "mpi_testlib.h"
#include "cone_pile.h"

/* max |a - b| over n values, and max |b|. */
static double max_diff(const double *a, const double *b, size_t n, double *bmax)
{
  double d = 0.0;
  *bmax = 0.0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), *bmax = fmax(*bmax, fabs(b[i]));
  return d;
}

/* nsn-rows with the petsc backend, and nsn (replicated, its default backend) on every rank. */
static void check_problem(const cpk_problem *p, const char *name, int same, int size)
{
  cpk_settings s;
  cpk_result *a = NULL, *b = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.linsys = cpk_linsys_petsc;
  int ok = !cpk_result_alloc(p->n, &a) && !cpk_result_alloc(p->n, &b);
  ok = ok && !cpk_solve(p, "nsn-rows", &s, a, &err);
  cpk_settings_default(&s);
  int ok_nsn = ok && !cpk_solve(p, "nsn", &s, b, &err);
  double tol = cpk_problem_tolerance(p, 1e-8), zmax = 0.0;
  double diff = ok_nsn ? max_diff(a->z, b->z, p->n, &zmax) : INFINITY;
  t_ok(cpk_mpi_all(ok && t_is_fc_solution(p, a->z, 10.0 * tol)),
       "%s, %d rank(s): nsn-rows's answer (%ld iterations, residual %.3g) solves the problem", name,
       size, ok ? a->iterations : -1L, ok ? a->residual : NAN);
  if (same)
    t_ok(cpk_mpi_all(ok_nsn && diff <= 1e-9 * fmax(zmax, 1.0)),
         "%s, %d rank(s): nsn-rows's answer is nsn's (max difference %.3g, max |r| %.3g)", name, size,
         diff, zmax);
  /* the same solve on rows cut beforehand (cpk_fc_rows_solve_nsn: no problem object in the solve) */
  cpk_fc_rows *R = NULL;
  cpk_result *c = NULL;
  s.linsys = cpk_linsys_petsc;
  int okc = ok && !cpk_fc_rows_from_problem(p, cpk_mpi_rank(), size, &R) && !cpk_result_alloc(p->n, &c);
  okc = cpk_mpi_all(okc) && !cpk_fc_rows_solve_nsn(R, &s, c, &err);
  double dc = okc ? max_diff(c->z, a->z, p->n, &zmax) : INFINITY;
  /* 1 rank: the driver's answer bit for bit. More ranks: MUMPS's parallel schedule is not
   * reproducible from run to run (last bits), which on a problem whose answer is not unique
   * can end at another answer: then each must solve it, and equal the driver's where unique. */
  int same_answer = size == 1 ? dc == 0.0 && c->iterations == a->iterations
                              : !same || dc <= 1e-9 * fmax(zmax, 1.0);
  t_ok(cpk_mpi_all(okc && same_answer && t_is_fc_solution(p, c->z, 10.0 * tol)),
       "%s, %d rank(s): cpk_fc_rows_solve_nsn on the rows gives the driver's answer (%s; difference "
       "%.3g)", name, size, size == 1 ? "bit for bit" : "a solution, the same where unique", dc);
  cpk_fc_rows_free(R);
  cpk_result_free(c);
  cpk_result_free(a);
  cpk_result_free(b);
}

/* Refused on every rank alike, before anything collective (a rank that went on alone would
 * wait in a collective for ever): through the driver without a distributed linear solver
 * (its stops are agreed only with one), and cpk_fc_rows_solve_nsn with a result of another n. */
static void refusals(const cpk_problem *p, int size)
{
  cpk_settings s;
  cpk_solver *sv = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  int rc = cpk_solver_alloc(cpk_solver_find("nsn-rows"), p, &s, &sv, &err);
  t_ok(cpk_mpi_all(rc == CPK_EINVAL && strstr(err.message, "distributed linear solver")),
       "%d rank(s): nsn-rows without settings.linsys refused (%s)", size, err.message);
  cpk_solver_free(sv);
  cpk_fc_rows *R = NULL;
  cpk_result *c = NULL;
  int ok = !cpk_fc_rows_from_problem(p, cpk_mpi_rank(), size, &R);
  ok = ok && !cpk_result_alloc(cpk_mpi_rank() == size - 1 ? p->n + 1 : p->n, &c); /* the last rank's is wrong */
  rc = ok ? cpk_fc_rows_solve_nsn(R, &s, c, &err) : CPK_ENOMEM;
  t_ok(cpk_mpi_all(rc == CPK_EINVAL), "%d rank(s): a result of another n on one rank: refused on "
       "every rank, no hang (%s)", size, err.message);
  cpk_fc_rows_free(R);
  cpk_result_free(c);
}

int main(void)
{
  int rank = 0, size = 1;
  int up = t_mpi_start(&rank, &size);
  t_ok(up == CPK_OK && cpk_solver_find("nsn-rows") != NULL, "MPI and PETSc up (%d rank(s)), nsn-rows registered", size);
  /* unique answers (W positive definite on the contacts that carry load) are compared with nsn's */
  struct { const char *file; int same; } files[] = {
      {"data/fclib/FrictionContact3D_1c.hdf5", 1}, {"data/fclib/NESpheres_30_1.hdf5", 0},
      {"data/fclib/Rover1040.hdf5", 1},            {"data/fclib/Rover4396.hdf5", 1},
      {"data/fclib/OneObject-i1028-138.hdf5", 0}};
  for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
    cpk_problem *p = t_fclib_problem(files[k].file);
    if (!cpk_mpi_all(p != NULL)) {
      cpk_problem_free(p); /* built without HDF5 */
      continue;
    }
    check_problem(p, files[k].file, files[k].same, size);
    cpk_problem_free(p);
  }
  cpk_problem *p = t_cone_pile(150);
  t_ok(cpk_mpi_all(p != NULL), "a pile of 150 spheres compiled in the cone form");
  if (cpk_mpi_all(p != NULL)) check_problem(p, "pile of 150 spheres", 0, size);
  if (cpk_mpi_all(p != NULL)) refusals(p, size);
  cpk_problem_free(p);
  return t_mpi_done(rank);
}
