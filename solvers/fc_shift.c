/* fc_shift.c: W + rho I on a pattern fixed for good, for the friction-cone solvers that shift W (fcprox). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "fc_shift.h"
#include "resolve.h"

void fc_shift_free(fc_shift *S)
{
  if (!S) return;
  cpk_csc_free(S->J);
  cpk_csc_free(S->P);
  free(S->pos);
  free(S);
}

/* P's pattern: J's entries and the diagonal; pos maps both into P's values. */
static int build_pattern(fc_shift *S)
{
  size_t nj = (size_t)S->J->p[S->n];
  if (nj > SIZE_MAX - S->n) return CPK_EOVERFLOW;
  size_t nt = nj + S->n;
  cpk_int *ti = cpk_alloc_array(nt, sizeof *ti), *tj = cpk_alloc_array(nt, sizeof *tj);
  int rc = (!ti || !tj) ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    for (size_t j = 0; j < S->n; j++) {
      for (cpk_int k = S->J->p[j]; k < S->J->p[j + 1]; k++) {
        ti[k] = S->J->i[k];
        tj[k] = (cpk_int)j;
      }
      ti[nj + j] = tj[nj + j] = (cpk_int)j;
    }
    rc = cpk_csc_pattern((cpk_int)S->n, (cpk_int)S->n, nt, ti, tj, &S->P, &S->pos);
  }
  free(ti);
  free(tj);
  return rc;
}

int fc_shift_alloc(const cpk_problem *p, fc_shift **out)
{
  fc_shift *S = calloc(1, sizeof *S);
  *out = NULL;
  if (!S) return CPK_ENOMEM;
  S->n = p->n;
  int rc = resolve_affine_jacobian(p, &S->J);
  if (!rc) rc = build_pattern(S);
  if (rc) {
    fc_shift_free(S);
    return rc;
  }
  fc_shift_fill(S, 0.0);
  *out = S;
  return CPK_OK;
}

void fc_shift_refresh(fc_shift *S, const cpk_problem *p) { resolve_refresh_jacobian(S->J, p); }

void fc_shift_fill(fc_shift *S, double rho)
{
  size_t nj = (size_t)S->J->p[S->n];
  memset(S->P->x, 0, (size_t)S->P->p[S->n] * sizeof *S->P->x);
  for (size_t k = 0; k < nj; k++) S->P->x[S->pos[k]] += S->J->x[k];
  for (size_t j = 0; j < S->n; j++) S->P->x[S->pos[nj + j]] += rho;
}

double fc_shift_diag_max(const fc_shift *S)
{
  double d = 0.0;
  for (size_t j = 0; j < S->n; j++)
    for (cpk_int k = S->J->p[j]; k < S->J->p[j + 1]; k++)
      if ((size_t)S->J->i[k] == j && S->J->x[k] > d) d = S->J->x[k];
  return d > 0.0 && isfinite(d) ? d : 1.0;
}
