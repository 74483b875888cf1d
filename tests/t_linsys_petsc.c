/* t_linsys_petsc.c: the petsc linsys backends alone, and every --linsys solver with petsc (and petsc-gmres) against umfpack. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#define N 40

/*
 * Open MPI, initialised by the first petsc instance and finalised at exit, keeps
 * allocations made then, most from modules it dlopens, whose stacks end in
 * "<unknown module>" that no suppression can name: under LeakSanitizer the first
 * instance is made, and the exit runs, with leak tracking off. Every allocation
 * in between (the tests', the backends') is checked.
 */
static void leak_tracking(int on)
{
#ifdef __SANITIZE_ADDRESS__
  if (on) __lsan_enable();
  else __lsan_disable();
#else
  (void)on;
#endif
}

static void init_petsc_untracked(void)
{
  cpk_linsys *L = NULL;
  leak_tracking(0);
  cpk_linsys_alloc(cpk_linsys_petsc, 1, &L);
  leak_tracking(1);
  cpk_linsys_free(L);
}

/* Sparse M = B + B^T + d I (B random with ~3 entries a column), SPD when d is large. */
static cpk_matrix *random_sparse(size_t n, double d, int symmetric, unsigned long *seed)
{
  size_t cap = 8 * n, nnz = 0;
  cpk_int *ti = malloc(cap * sizeof *ti), *tj = malloc(cap * sizeof *tj);
  double *tx = malloc(cap * sizeof *tx);
  cpk_matrix *M = NULL;
  for (size_t j = 0; ti && tj && tx && j < n; j++) {
    ti[nnz] = tj[nnz] = (cpk_int)j, tx[nnz++] = d;
    for (int k = 0; k < 3; k++) {
      *seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
      size_t i = (size_t)(*seed >> 33) % n;
      double v = (double)((*seed >> 13) % 1000) / 1000.0 - 0.5;
      ti[nnz] = (cpk_int)i, tj[nnz] = (cpk_int)j, tx[nnz++] = v;
      ti[nnz] = (cpk_int)j, tj[nnz] = (cpk_int)i, tx[nnz++] = symmetric ? v : 0.3 * v;
    }
  }
  if (ti && tj && tx) cpk_matrix_from_triplets(n, n, nnz, ti, tj, tx, &M);
  free(ti);
  free(tj);
  free(tx);
  return M;
}

static double max_residual(const cpk_csc *A, const double *x, const double *b, int trans)
{
  double y[N], e = 0;
  cpk_csc_mv(A, x, y, trans);
  for (size_t i = 0; i < (size_t)A->n; i++) e = fmax(e, fabs(y[i] - b[i]));
  return e;
}

/* Plain and transposed solves, a column replacement, a singular matrix, reuse of the pattern. */
static void test_backend(const cpk_linsys_type *T, int symmetric, unsigned long *seed)
{
  cpk_matrix *M = random_sparse(N, 4.0, symmetric, seed);
  cpk_csc *A = NULL;
  cpk_linsys *L = NULL;
  double b[N], x[N], col[N];
  for (size_t i = 0; i < N; i++) b[i] = sin((double)i + 1.0), col[i] = cos(3.0 * (double)i);
  int ok = M && !cpk_matrix_to_csc(M, &A) && !cpk_linsys_alloc(T, N, &L) && !cpk_linsys_factor(L, A);
  memcpy(x, b, sizeof x);
  ok = ok && !cpk_linsys_solve(L, x, 0);
  t_ok(ok && max_residual(A, x, b, 0) < 1e-9, "%s: A x = b, residual %g", T->name,
       ok ? max_residual(A, x, b, 0) : NAN);
  memcpy(x, b, sizeof x);
  ok = ok && !cpk_linsys_solve(L, x, 1);
  t_ok(ok && max_residual(A, x, b, 1) < 1e-9, "%s: A^T x = b", T->name);
  for (size_t k = 0; ok && k < 2; k++) { /* refactor with new values, same pattern */
    for (cpk_int e = 0; e < A->p[A->n]; e++) A->x[e] *= 1.5;
    memcpy(x, b, sizeof x);
    ok = !cpk_linsys_factor(L, A) && !cpk_linsys_solve(L, x, 0) && max_residual(A, x, b, 0) < 1e-9;
  }
  cpk_linsys_stats st;
  if (L) cpk_linsys_get_stats(L, &st);
  t_ok(ok && st.factorizations == 3 && st.symbolic == 1, "%s: refactor reuses the pattern", T->name);
  if (!symmetric) { /* column 5 <- col: check against the explicitly replaced matrix */
    ok = ok && !cpk_linsys_replace_column(L, 5, col, NULL);
    for (cpk_int e = A->p[5]; ok && e < A->p[6]; e++) A->x[e] = col[A->i[e]];
    cpk_csc *A2 = NULL;
    cpk_matrix *M2 = NULL;
    memcpy(x, b, sizeof x);
    /* col is dense: rebuild column 5 densely through a dense copy of A */
    double *Ad = calloc(N * N, sizeof *Ad);
    for (size_t j = 0; Ad && j < N; j++)
      for (cpk_int e = A->p[j]; e < A->p[j + 1]; e++) Ad[j * N + (size_t)A->i[e]] = A->x[e];
    for (size_t i = 0; Ad && i < N; i++) Ad[5 * N + i] = col[i];
    ok = ok && Ad && !cpk_matrix_from_dense_array(N, N, Ad, N, 1, &M2) &&
         !cpk_matrix_to_csc(M2, &A2) && !cpk_linsys_solve(L, x, 0);
    t_ok(ok && max_residual(A2, x, b, 0) < 1e-8, "%s: solve after a column replacement", T->name);
    free(Ad);
    cpk_csc_free(A2);
    cpk_matrix_free(M2);
    size_t nnz = (size_t)A->p[A->n];
    double *saved = malloc(nnz * sizeof *saved);
    for (size_t e = 0; saved && e < nnz; e++) saved[e] = A->x[e], A->x[e] = 0.0; /* singular */
    t_ok(saved && cpk_linsys_factor(L, A) == CPK_ESINGULAR, "%s: a zero matrix is singular", T->name);
    /* PETSc's MUMPS refuses a numeric factorization after a failed one on the same analysis */
    for (size_t e = 0; saved && e < nnz; e++) A->x[e] = saved[e];
    memcpy(x, b, sizeof x);
    ok = saved && !cpk_linsys_factor(L, A) && !cpk_linsys_solve(L, x, 0);
    t_ok(ok && max_residual(A, x, b, 0) < 1e-9, "%s: the same pattern factors after a singular one",
         T->name);
    free(saved);
  }
  cpk_linsys_free(L);
  cpk_csc_free(A);
  cpk_matrix_free(M);
}

/* A backend forwarding to `inner` and counting factorizations: proof the solver used it. */
static const cpk_linsys_type *inner;
static long inner_factors;
static int c_alloc(void **st, size_t n) { return inner->alloc(st, n); }
static int c_factor(void *st, const cpk_csc *A) { return inner_factors++, inner->factor(st, A); }
static int c_solve(void *st, double *x, int t) { return inner->solve(st, x, t); }
static int c_replace(void *st, size_t j, const double *c, const double *a)
{
  return inner->replace_column(st, j, c, a);
}
static void c_stats(const void *st, cpk_linsys_stats *out) { inner->stats(st, out); }
static void c_free(void *st) { inner->free(st); }
static const cpk_linsys_type counted = {"petsc-counted", c_alloc, c_factor, c_solve,
                                        c_replace,       c_stats, c_free, NULL};

/* A z from T and from umfpack, each checked as a solution; the solution is unique (M positive definite). */
static void test_lcp_solver(const char *solver, const cpk_linsys_type *T, unsigned long *seed)
{
  cpk_matrix *M = random_sparse(N, 4.0, 1, seed);
  double q[N];
  for (size_t i = 0; i < N; i++) q[i] = sin(2.0 * (double)i) - 0.2;
  cpk_problem *p = NULL;
  cpk_result *r0 = NULL, *r1 = NULL;
  cpk_error err;
  cpk_settings s;
  cpk_settings_default(&s);
  int ok = M && !cpk_problem_alloc_lcp(M, q, &p) && !cpk_result_alloc(N, &r0) && !cpk_result_alloc(N, &r1);
  s.linsys = cpk_linsys_umfpack;
  ok = ok && !cpk_solve(p, solver, &s, r0, &err);
  inner = T, inner_factors = 0, s.linsys = &counted;
  ok = ok && !cpk_solve(p, solver, &s, r1, &err);
  double d = 0;
  for (size_t i = 0; ok && i < N; i++) d = fmax(d, fabs(r0->z[i] - r1->z[i]));
  t_ok(ok && inner_factors > 0 && t_is_mcp_solution(p, r0->z, 1e-7) &&
           t_is_mcp_solution(p, r1->z, 1e-7) && d < 1e-6,
       "%s --linsys %s: a solution (%ld factorizations), max |z - z_umfpack| = %g", solver,
       T->name, inner_factors, ok ? d : NAN);
  cpk_result_free(r0);
  cpk_result_free(r1);
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

/* Friction-cone solvers: both answers pass the independent check (r need not be unique). */
static void test_fc_solver(const char *solver, const cpk_linsys_type *T)
{
  cpk_problem *p = t_fclib_problem("data/fclib/OneObject-i1028-138.hdf5");
  if (!p) {
    t_ok(1, "# SKIP no HDF5");
    return;
  }
  cpk_result *r0 = NULL, *r1 = NULL;
  cpk_error err;
  cpk_settings s;
  cpk_settings_default(&s);
  int ok = !cpk_result_alloc(p->n, &r0) && !cpk_result_alloc(p->n, &r1);
  s.linsys = cpk_linsys_umfpack;
  ok = ok && !cpk_solve(p, solver, &s, r0, &err);
  inner = T, inner_factors = 0, s.linsys = &counted;
  ok = ok && !cpk_solve(p, solver, &s, r1, &err);
  double tol = 1e-6 * cpk_problem_tolerance(p, 1.0);
  t_ok(ok && inner_factors > 0 && t_is_fc_solution(p, r0->z, tol) && t_is_fc_solution(p, r1->z, tol),
       "%s --linsys %s: both solve the FCLIB problem (%ld factorizations; iterations %ld vs umfpack %ld)",
       solver, T->name, inner_factors, ok ? r1->iterations : -1L, ok ? r0->iterations : -1L);
  cpk_result_free(r0);
  cpk_result_free(r1);
  cpk_problem_free(p);
}

int main(void)
{
  unsigned long seed = t_seed();
  if (!cpk_linsys_petsc) {
    t_ok(cpk_linsys_find("petsc") == NULL, "# SKIP built without PETSc: find(\"petsc\") is NULL");
    return t_done();
  }
  init_petsc_untracked();
  t_ok(cpk_linsys_find("petsc") == cpk_linsys_petsc && cpk_linsys_find("petsc-cg") == cpk_linsys_petsc_cg,
       "find petsc, petsc-cg");
  t_ok(cpk_linsys_find("petsc-gmres") == cpk_linsys_petsc_gmres && cpk_linsys_petsc_gmres, "find petsc-gmres");
  t_ok(cpk_linsys_is_distributed(cpk_linsys_petsc) && cpk_linsys_is_distributed(cpk_linsys_petsc_cg) &&
           cpk_linsys_is_distributed(cpk_linsys_petsc_gmres) && !cpk_linsys_is_distributed(cpk_linsys_umfpack),
       "the three petsc backends are distributed, umfpack is not");
  test_backend(cpk_linsys_petsc, 0, &seed);
  test_backend(cpk_linsys_petsc, 1, &seed);
  test_backend(cpk_linsys_petsc_cg, 1, &seed);
  test_backend(cpk_linsys_petsc_cg, 0, &seed); /* not symmetric: CG fails, LU takes over */
  test_backend(cpk_linsys_petsc_gmres, 0, &seed); /* ILU(0) meets the zero matrix's zero pivot */
  test_backend(cpk_linsys_petsc_gmres, 1, &seed);
  const char *lcp[] = {"lemke", "bdnewton", "fbnewton", "ipm"};
  for (size_t k = 0; k < sizeof lcp / sizeof lcp[0]; k++) test_lcp_solver(lcp[k], cpk_linsys_petsc, &seed);
  test_lcp_solver("ipm", cpk_linsys_petsc_cg, &seed);
  for (size_t k = 0; k < sizeof lcp / sizeof lcp[0]; k++)
    test_lcp_solver(lcp[k], cpk_linsys_petsc_gmres, &seed);
  test_fc_solver("nsn", cpk_linsys_petsc);
  test_fc_solver("fcipm", cpk_linsys_petsc);
  test_fc_solver("nsn", cpk_linsys_petsc_gmres);
  test_fc_solver("fcipm", cpk_linsys_petsc_gmres);
  int rc = t_done();
  leak_tracking(0); /* MPI_Finalize runs at exit */
  return rc;
}
