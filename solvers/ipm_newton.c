/* ipm_newton.c: the interior-point Newton system, reduced to K = J + D on a fixed pattern, and step rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "ipm.h"
#include "linsys_refine.h"

/* Relative diagonal shifts tried, in turn, when K is numerically singular. */
static const double reg_shifts[] = {0.0, 1e-12, 1e-9, 1e-6};

static double slack_l(const cpk_problem *p, const double *z, size_t i) { return z[i] - p->lower[i]; }
static double slack_u(const cpk_problem *p, const double *z, size_t i) { return p->upper[i] - z[i]; }

/* 1 if column j of J holds a diagonal entry; its position in *k. */
static int has_diagonal(const cpk_csc *J, cpk_int j, cpk_int *k)
{
  for (cpk_int t = J->p[j]; t < J->p[j + 1]; t++)
    if (J->i[t] == j) {
      *k = t;
      return 1;
    }
  return 0;
}

/* K's pattern is J's plus the diagonal, fixed for the whole solve so factorizations reuse one symbolic analysis. */
int ipm_build_pattern(ipm_state *S)
{
  const cpk_csc *J = S->J;
  cpk_int n = (cpk_int)S->n, extra = 0, k;
  for (cpk_int j = 0; j < n; j++) extra += !has_diagonal(J, j, &k);
  int rc = cpk_csc_alloc(n, n, J->p[n] + extra, &S->K);
  if (rc) return rc;
  S->jmap = cpk_alloc_array((size_t)J->p[n], sizeof *S->jmap);
  S->dpos = cpk_alloc_array(S->n, sizeof *S->dpos);
  if (!S->jmap || !S->dpos) return CPK_ENOMEM;
  cpk_csc *K = S->K;
  cpk_int pos = 0;
  for (cpk_int j = 0; j < n; j++) {
    int placed = 0;
    K->p[j] = pos;
    for (cpk_int t = J->p[j]; t < J->p[j + 1]; t++) {
      cpk_int row = J->i[t];
      if (!placed && row >= j) { /* the diagonal goes in its sorted place */
        S->dpos[j] = pos;
        placed = 1;
        if (row != j) K->i[pos++] = j;
      }
      S->jmap[t] = pos;
      K->i[pos++] = row;
    }
    if (!placed) {
      S->dpos[j] = pos;
      K->i[pos++] = j;
    }
  }
  K->p[n] = pos;
  return cpk_csc_check(K);
}

double ipm_mu(const ipm_state *S, const cpk_problem *p, const double *z, const double *wl,
              const double *wu)
{
  double sum = 0.0;
  if (S->m == 0) return 0.0;
  for (size_t i = 0; i < S->n; i++) {
    if (IPM_HAS_L(S->type[i])) sum += slack_l(p, z, i) * wl[i];
    if (IPM_HAS_U(S->type[i])) sum += slack_u(p, z, i) * wu[i];
  }
  return sum / (double)S->m;
}

void ipm_barrier_diagonal(ipm_state *S, const cpk_problem *p)
{
  for (size_t i = 0; i < S->n; i++) {
    double d = 0.0;
    if (IPM_HAS_L(S->type[i])) d += S->wl[i] / slack_l(p, S->z, i);
    if (IPM_HAS_U(S->type[i])) d += S->wu[i] / slack_u(p, S->z, i);
    S->D[i] = d;
  }
}

/*
 * K~ = C K C with C = diag(1/sqrt(c_j)), c_j the larger of J's column size and
 * D_j: near the solution D spans many orders of magnitude (w/s -> 0 or inf),
 * and without this symmetric scaling the backends would call K singular.
 */
static void assemble(ipm_state *S, const double *D, double shift)
{
  const cpk_csc *J = S->J;
  cpk_csc *K = S->K;
  size_t n = S->n;
  memset(K->x, 0, (size_t)K->p[n] * sizeof *K->x);
  for (size_t j = 0; j < n; j++) {
    double cmax = 0.0;
    for (cpk_int t = J->p[j]; t < J->p[j + 1]; t++) {
      cmax = fmax(cmax, fabs(J->x[t]));
      if (!S->pinned[J->i[t]]) K->x[S->jmap[t]] = J->x[t];
    }
    double c = S->pinned[j] ? 1.0 : fmax(cmax, D[j]);
    if (!(c > 0.0 && isfinite(c))) c = 1.0; /* an empty column: scale 1, and a shift still regularizes it */
    S->sc[j] = 1.0 / sqrt(c);
    if (S->pinned[j]) K->x[S->dpos[j]] = 1.0;
    else K->x[S->dpos[j]] += D[j] + shift * c;
  }
  for (size_t j = 0; j < n; j++)
    for (cpk_int t = K->p[j]; t < K->p[j + 1]; t++) K->x[t] *= S->sc[K->i[t]] * S->sc[j];
}

int ipm_factor(ipm_state *S, const double *D)
{
  int rc = CPK_ESINGULAR;
  for (size_t k = 0; rc == CPK_ESINGULAR && k < sizeof reg_shifts / sizeof reg_shifts[0]; k++) {
    assemble(S, D, reg_shifts[k]);
    rc = cpk_linsys_factor(S->ls, S->K);
    if (k > 0) S->regularizations++;
  }
  return rc;
}

int ipm_solve_reduced(ipm_state *S, double *x)
{
  return linsys_solve_scaled_refined(S->ls, S->K, S->sc, S->n, x, S->tmp, S->res);
}

/*
 * Eliminating dwl = (tl - wl dz)/sl - wl and dwu = (tu + wu dz)/su - wu from
 * J dz - dwl + dwu = -(F - wl + wu) leaves (J + D) dz = -F + tl/sl - tu/su.
 */
int ipm_direction(ipm_state *S, const cpk_problem *p, const double *tl, const double *tu,
                  double *dz, double *dwl, double *dwu)
{
  size_t n = S->n;
  for (size_t i = 0; i < n; i++) {
    int t = S->type[i];
    double b = -S->f[i];
    if (IPM_HAS_L(t)) b += tl[i] / slack_l(p, S->z, i);
    if (IPM_HAS_U(t)) b -= tu[i] / slack_u(p, S->z, i);
    dz[i] = S->pinned[i] ? 0.0 : b;
  }
  int rc = ipm_solve_reduced(S, dz);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++) {
    int t = S->type[i];
    if (S->pinned[i]) dz[i] = 0.0;
    dwl[i] = dwu[i] = 0.0;
    if (IPM_HAS_L(t)) {
      double sl = slack_l(p, S->z, i);
      dwl[i] = (tl[i] - S->wl[i] * dz[i]) / sl - S->wl[i];
    }
    if (IPM_HAS_U(t)) {
      double su = slack_u(p, S->z, i);
      dwu[i] = (tu[i] + S->wu[i] * dz[i]) / su - S->wu[i];
    }
  }
  return CPK_OK;
}

/* Step at which x + alpha dx reaches 0 (INFINITY if it never does). */
static double to_zero(double x, double dx) { return dx < 0.0 ? -x / dx : INFINITY; }

double ipm_max_step(const ipm_state *S, const cpk_problem *p, const double *dz,
                    const double *dwl, const double *dwu)
{
  double a = INFINITY;
  for (size_t i = 0; i < S->n; i++) {
    int t = S->type[i];
    if (IPM_HAS_L(t)) {
      a = fmin(a, to_zero(slack_l(p, S->z, i), dz[i]));
      a = fmin(a, to_zero(S->wl[i], dwl[i]));
    }
    if (IPM_HAS_U(t)) {
      a = fmin(a, to_zero(slack_u(p, S->z, i), -dz[i]));
      a = fmin(a, to_zero(S->wu[i], dwu[i]));
    }
  }
  return a;
}

double ipm_infeasibility(const ipm_state *S, const double *f, const double *wl, const double *wu)
{
  double r = 0.0;
  for (size_t i = 0; i < S->n; i++)
    if (S->type[i] != IPM_FIXED) r = fmax(r, fabs(f[i] - wl[i] + wu[i]));
  return r;
}

int ipm_eval(ipm_state *S, const cpk_problem *p, const double *z, double *f)
{
  S->nf++;
  return cpk_problem_eval(p, z, f);
}

int ipm_jacobian(ipm_state *S, const cpk_problem *p, const double *z)
{
  cpk_csc *J = S->Jown;
  S->nj++;
  if (p->jacobian(z, J, p->params) != 0) return CPK_EBADFUNC;
  for (cpk_int k = 0; k < J->p[J->n]; k++)
    if (!isfinite(J->x[k])) return CPK_EBADFUNC;
  return CPK_OK;
}
