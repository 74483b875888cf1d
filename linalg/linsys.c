/* linsys.c: the generic linear-solver instance over a cpk_linsys_type backend. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cpkit/linsys.h>
#include <cpkit/parallel.h>
#include "linsys_refine.h"
#include "linsys_rows.h"

struct cpk_linsys {
  const cpk_linsys_type *type;
  void *state;
};

const cpk_linsys_type *cpk_linsys_find(const char *name)
{
  const cpk_linsys_type *all[] = {cpk_linsys_dense, cpk_linsys_umfpack, cpk_linsys_lapack,
                                  cpk_linsys_petsc, cpk_linsys_petsc_cg, cpk_linsys_petsc_gmres};
  for (size_t k = 0; name && k < sizeof all / sizeof all[0]; k++) /* NULL: not built */
    if (all[k] && strcmp(all[k]->name, name) == 0) return all[k];
  return NULL;
}

int cpk_linsys_is_distributed(const cpk_linsys_type *T)
{
  return T && (T == cpk_linsys_petsc || T == cpk_linsys_petsc_cg || T == cpk_linsys_petsc_gmres);
}

int cpk_linsys_alloc(const cpk_linsys_type *T, size_t n, cpk_linsys **out)
{
  *out = NULL;
  if (!T) return CPK_EINVAL;
  cpk_linsys *L = calloc(1, sizeof *L);
  /* a distributed backend's ranks agree before its collective alloc: one rank out of
   * memory here would return while the others wait in the agreement inside T->alloc */
  int rc = cpk_linsys_is_distributed(T) ? cpk_mpi_agree(L ? CPK_OK : CPK_ENOMEM)
                                        : (L ? CPK_OK : CPK_ENOMEM);
  if (rc) {
    free(L);
    return rc;
  }
  L->type = T;
  rc = T->alloc(&L->state, n);
  if (rc) {
    free(L);
    return rc;
  }
  *out = L;
  return CPK_OK;
}

int cpk_linsys_factor(cpk_linsys *L, const cpk_csc *A) { return L->type->factor(L->state, A); }

int cpk_linsys_factor_unchecked(cpk_linsys *L, const cpk_csc *A)
{
  if (!L->type->factor_unchecked) return L->type->factor(L->state, A);
  return L->type->factor_unchecked(L->state, A);
}

int cpk_linsys_factor_rows(cpk_linsys *L, size_t row0, size_t row1, const cpk_int *rowptr,
                           const cpk_int *col, const double *val)
{
  if (!cpk_linsys_is_distributed(L->type)) return CPK_EUNSUP;
  return petsc_factor_rows(L->state, row0, row1, rowptr, col, val);
}

int cpk_linsys_solve(cpk_linsys *L, double *x, int transpose)
{
  return L->type->solve(L->state, x, transpose);
}

int cpk_linsys_replace_column(cpk_linsys *L, size_t j, const double *col, const double *Ainv_col)
{
  if (!L->type->replace_column) return CPK_EUNSUP;
  return L->type->replace_column(L->state, j, col, Ainv_col);
}

void cpk_linsys_get_stats(const cpk_linsys *L, cpk_linsys_stats *st)
{
  memset(st, 0, sizeof *st);
  L->type->stats(L->state, st);
}

const char *cpk_linsys_name(const cpk_linsys *L) { return L->type->name; }

void cpk_linsys_free(cpk_linsys *L)
{
  if (!L) return;
  if (L->state) L->type->free(L->state);
  free(L);
}

int linsys_solve_scaled_refined(cpk_linsys *L, const cpk_csc *Kt, const double *sc, size_t n,
                                double *x, double *b, double *r)
{
  for (size_t i = 0; i < n; i++) x[i] = b[i] = sc[i] * x[i];
  int rc = cpk_linsys_solve(L, x, 0);
  if (rc) return rc;
  cpk_csc_mv(Kt, x, r, 0); /* one step of iterative refinement on the scaled system */
  for (size_t i = 0; i < n; i++) r[i] = b[i] - r[i];
  if ((rc = cpk_linsys_solve(L, r, 0))) return rc;
  for (size_t i = 0; i < n; i++) {
    x[i] = sc[i] * (x[i] + r[i]);
    if (!isfinite(x[i])) return CPK_ESINGULAR;
  }
  return CPK_OK;
}
