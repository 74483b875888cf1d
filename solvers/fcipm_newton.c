/* fcipm_newton.c: the friction-cone interior point's Newton system K = M + W^{-2} on a fixed pattern, and its predictor-corrector step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "fcipm.h"
#include "linsys_refine.h"

/* Relative diagonal shifts tried, in turn, when K is numerically singular. */
static const double reg_shifts[] = {0.0, 1e-12, 1e-9, 1e-6};

/* Triplets of M = D W D on the reduced unknowns (fmap: full -> reduced or -1). */
static size_t m_triplets(fcipm_state *S, const cpk_csc *W, const long *fmap, cpk_int *ti,
                         cpk_int *tj)
{
  size_t k = 0;
  for (cpk_int j = 0; j < W->n; j++) {
    if (fmap[j] < 0) continue;
    for (cpk_int t = W->p[j]; t < W->p[j + 1]; t++) {
      long i = fmap[W->i[t]];
      if (i < 0) continue;
      if (ti) {
        ti[k] = i;
        tj[k] = fmap[j];
      }
      if (S->mval) S->mval[k] = S->rscale[i] * W->x[t] * S->rscale[fmap[j]];
      k++;
    }
  }
  return k;
}

/* Triplets of the cones' dense diagonal blocks, cone after cone, row-major. */
static void block_triplets(const fcipm_state *S, cpk_int *ti, cpk_int *tj)
{
  size_t k = 0;
  for (size_t c = 0; c < S->nc; c++)
    for (size_t a = 0; a < S->csize[c]; a++)
      for (size_t b = 0; b < S->csize[c]; b++, k++) {
        ti[k] = (cpk_int)(S->cstart[c] + a);
        tj[k] = (cpk_int)(S->cstart[c] + b);
      }
}

/*
 * Linearized De Saxce term: d s_c = mu_c g_c . d u_T,c with g_c = u_T / |u_T|
 * adds to the normal row of contact c the tangential rows of W D, i.e.
 * g_c,t (M_tj / mu_c) mu_c = g_c,t M_tj: one triplet per entry of M in a
 * tangential row, on the contact's normal row (lsrc: which M triplet).
 */
static size_t linear_triplets(fcipm_state *S, size_t dim, cpk_int *ti, cpk_int *tj)
{
  size_t l = 0, at = S->nm + S->nblk; /* appended after M's and the blocks' triplets */
  for (size_t k = 0; k < S->nm; k++) {
    size_t full = S->ridx[ti[k]];
    if (full % dim == 0) continue;
    ti[at + l] = (cpk_int)S->cstart[full / dim];
    tj[at + l] = tj[k];
    S->lsrc[l++] = k;
  }
  S->nl = l;
  return l;
}

static int reduced_map(const fcipm_state *S, long **fmap)
{
  *fmap = cpk_alloc_array(S->n, sizeof **fmap);
  if (!*fmap) return CPK_ENOMEM;
  for (size_t i = 0; i < S->n; i++) (*fmap)[i] = -1;
  for (size_t k = 0; k < S->nr; k++) (*fmap)[S->ridx[k]] = (long)k;
  return CPK_OK;
}

int fcipm_build_system(fcipm_state *S, const cpk_problem *p)
{
  /* a dense W keeps every entry in the pattern: an update may make any of them non-zero */
  const cpk_csc *W = p->M->format == CPK_MATRIX_CSC ? p->M->csc : NULL;
  cpk_int *ti = NULL, *tj = NULL;
  int rc = W ? CPK_OK : resolve_affine_jacobian(p, &S->wfix);
  if (!rc) rc = reduced_map(S, &S->fmap);
  if (rc) goto done;
  if (!W) W = S->wfix;
  S->nm = m_triplets(S, W, S->fmap, NULL, NULL);
  S->nblk = 0;
  for (size_t c = 0; c < S->nc; c++) S->nblk += S->csize[c] * S->csize[c];
  size_t total = S->nm + S->nblk;
  S->mval = cpk_alloc_array(S->nm ? S->nm : 1, sizeof *S->mval);
  S->lsrc = cpk_alloc_array(S->nm ? S->nm : 1, sizeof *S->lsrc);
  S->mrow = cpk_alloc_array(S->nm ? S->nm : 1, sizeof *S->mrow);
  /* nm <= nnz(W), an existing allocation: 2 nm + nblk cannot wrap, and the byte count is checked */
  ti = cpk_alloc_array(2 * S->nm + S->nblk, sizeof *ti);
  tj = cpk_alloc_array(2 * S->nm + S->nblk, sizeof *tj);
  if (!S->mval || !S->lsrc || !S->mrow || !ti || !tj) {
    rc = CPK_ENOMEM;
    goto done;
  }
  m_triplets(S, W, S->fmap, ti, tj);
  memcpy(S->mrow, ti, S->nm * sizeof *ti);
  block_triplets(S, ti + S->nm, tj + S->nm);
  total += S->linearize ? linear_triplets(S, p->cone_dim, ti, tj) : 0;
  rc = cpk_csc_pattern((cpk_int)S->nr, (cpk_int)S->nr, total, ti, tj, &S->K, &S->mpos);
done:
  free(ti);
  free(tj);
  return rc;
}

void fcipm_refresh_system(fcipm_state *S, const cpk_problem *p)
{
  if (S->wfix) resolve_refresh_jacobian(S->wfix, p);
  m_triplets(S, S->wfix ? S->wfix : p->M->csc, S->fmap, NULL, NULL);
}

/*
 * K~ = C K C with C = diag(1 / sqrt(K_jj)): near the solution the blocks
 * W^{-2} span many orders of magnitude (interior contacts -> 0, inactive ones
 * -> infinity) and the symmetric scaling keeps the backends from calling a
 * well-posed K singular. The scale comes from the diagonal of M + W^{-2},
 * positive (M_jj >= 0 is checked at alloc, W^{-2} is positive definite),
 * before the linearized De Saxce rows, of any sign, are added.
 */
static void assemble(fcipm_state *S, double shift)
{
  cpk_csc *K = S->K;
  size_t nr = S->nr, k = S->nm;
  memset(K->x, 0, (size_t)K->p[nr] * sizeof *K->x);
  for (size_t t = 0; t < S->nm; t++) K->x[S->mpos[t]] += S->mval[t];
  for (size_t c = 0; c < S->nc; c++) {
    size_t d = S->csize[c];
    for (size_t e = 0; e < d * d; e++, k++) K->x[S->mpos[k]] += S->w2inv[c * FCIPM_BLK + e];
  }
  for (cpk_int j = 0; j < (cpk_int)nr; j++)
    for (cpk_int t = K->p[j]; t < K->p[j + 1]; t++)
      if (K->i[t] == j) {
        double kj = K->x[t];
        S->sc[j] = 1.0 / sqrt(kj > 0.0 && isfinite(kj) ? kj : 1.0);
        K->x[t] += shift * fabs(kj);
      }
  for (size_t l = 0; S->linearize && l < S->nl; l++, k++) {
    size_t src = S->lsrc[l];
    K->x[S->mpos[k]] += S->g[S->ridx[S->mrow[src]]] * S->mval[src];
  }
  for (cpk_int j = 0; j < (cpk_int)nr; j++)
    for (cpk_int t = K->p[j]; t < K->p[j + 1]; t++) K->x[t] *= S->sc[K->i[t]] * S->sc[j];
}

int fcipm_factor(fcipm_state *S)
{
  int rc = CPK_ESINGULAR;
  for (size_t k = 0; rc == CPK_ESINGULAR && k < sizeof reg_shifts / sizeof reg_shifts[0]; k++) {
    assemble(S, reg_shifts[k]);
    rc = cpk_linsys_factor(S->ls, S->K);
    S->factorizations++;
    if (k > 0) S->regularizations++;
  }
  return rc;
}

/* x <- K^{-1} x through the scaled factors, with one step of iterative refinement. */
static int solve_k(fcipm_state *S, double *x)
{
  return linsys_solve_scaled_refined(S->ls, S->K, S->sc, S->nr, x, S->work, S->res);
}

int fcipm_direction(fcipm_state *S, const double *t, double *dx, double *dy)
{
  double tmp[FCIPM_CMAX];
  for (size_t c = 0; c < S->nc; c++) {
    size_t o = S->cstart[c], d = S->csize[c];
    fcipm_block_mv(d, S->winv + c * FCIPM_BLK, t + o, tmp);
    for (size_t k = 0; k < d; k++) dx[o + k] = S->rp[o + k] + tmp[k];
  }
  int rc = solve_k(S, dx);
  if (rc) return rc;
  for (size_t c = 0; c < S->nc; c++) {
    size_t o = S->cstart[c], d = S->csize[c];
    const double *wi = S->winv + c * FCIPM_BLK;
    fcipm_block_mv(d, wi, dx + o, tmp);
    for (size_t k = 0; k < d; k++) tmp[k] = t[o + k] - tmp[k];
    fcipm_block_mv(d, wi, tmp, dy + o);
  }
  return CPK_OK;
}

/* Largest alpha keeping x + alpha dx and y + alpha dy in every cone. */
static double max_step(const fcipm_state *S, const double *dx, const double *dy)
{
  double a = INFINITY;
  for (size_t c = 0; c < S->nc; c++) {
    size_t o = S->cstart[c], d = S->csize[c];
    a = fmin(a, fcipm_max_step(d, S->x + o, dx + o));
    a = fmin(a, fcipm_max_step(d, S->y + o, dy + o));
  }
  return a;
}

static double dot_after(const fcipm_state *S, double alpha, const double *dx, const double *dy)
{
  double s = 0.0;
  for (size_t k = 0; k < S->nr; k++) s += (S->x[k] + alpha * dx[k]) * (S->y[k] + alpha * dy[k]);
  return s;
}

/*
 * A cone whose iterate is within rounding of the boundary (x0 - |x1| below
 * FCIPM_NUDGE x0) is moved that far inside: its scaling would be undefined,
 * and the move changes the point by a relative 1e-13.
 */
#define FCIPM_NUDGE 1e-13
static void nudge(size_t d, double *x)
{
  double t = 0.0;
  for (size_t k = 1; k < d; k++) t += x[k] * x[k];
  t = sqrt(t);
  if (x[0] - t < FCIPM_NUDGE * x[0]) x[0] = t + FCIPM_NUDGE * fmax(x[0], t);
}

/* NT scaling of every cone at the current iterate; the mean complementarity. */
static int scale_all(fcipm_state *S)
{
  double xy = 0.0;
  for (size_t c = 0; c < S->nc; c++) {
    size_t o = S->cstart[c], d = S->csize[c];
    nudge(d, S->x + o);
    nudge(d, S->y + o);
    int rc = fcipm_nt_scaling(d, S->x + o, S->y + o, S->winv + c * FCIPM_BLK,
                              S->w2inv + c * FCIPM_BLK, S->lam + o);
    if (rc) return rc;
  }
  for (size_t k = 0; k < S->nr; k++) xy += S->x[k] * S->y[k];
  S->mu_c = xy / (double)S->nc;
  return CPK_OK;
}

/*
 * Mehrotra's corrector in the scaled space: with dxa~ = W^{-1} dxa and
 * dya~ = -lambda - dxa~ from the predictor, the target of lambda o (dx~ + dy~)
 * is sigma mu e - lambda o lambda - dxa~ o dya~.
 */
static void corrector_targets(fcipm_state *S, double sigma)
{
  double dxt[FCIPM_CMAX], dyt[FCIPM_CMAX], z[FCIPM_CMAX], l2[FCIPM_CMAX], rc[FCIPM_CMAX];
  for (size_t c = 0; c < S->nc; c++) {
    size_t o = S->cstart[c], d = S->csize[c];
    const double *lam = S->lam + o;
    fcipm_block_mv(d, S->winv + c * FCIPM_BLK, S->ax + o, dxt);
    for (size_t k = 0; k < d; k++) dyt[k] = -lam[k] - dxt[k];
    fcipm_jordan(d, dxt, dyt, z);
    fcipm_jordan(d, lam, lam, l2);
    for (size_t k = 0; k < d; k++) rc[k] = -l2[k] - z[k];
    rc[0] += sigma * S->mu_c;
    fcipm_arrow_solve(d, lam, rc, S->t + o);
  }
}

int fcipm_pc_step(fcipm_state *S, double fraction, double floor)
{
  int rc = scale_all(S);
  if (!rc) rc = fcipm_factor(S);
  if (rc) return rc;
  for (size_t k = 0; k < S->nr; k++) S->t[k] = -S->lam[k]; /* affine scaling: target 0 */
  if ((rc = fcipm_direction(S, S->t, S->ax, S->ay))) return rc;
  double aa = fmin(1.0, max_step(S, S->ax, S->ay));
  double xy = S->mu_c * (double)S->nc;
  double rho = xy > 0.0 ? dot_after(S, aa, S->ax, S->ay) / xy : 0.0;
  double sigma = fmin(1.0, fmax(rho * rho * rho, S->mu_c > 0.0 ? floor / S->mu_c : 0.0));
  corrector_targets(S, sigma);
  if ((rc = fcipm_direction(S, S->t, S->dx, S->dy))) return rc;
  double a = fmin(1.0, fraction * max_step(S, S->dx, S->dy));
  for (size_t k = 0; k < S->nr; k++) {
    S->x[k] += a * S->dx[k];
    S->y[k] += a * S->dy[k];
  }
  S->step = a;
  return CPK_OK;
}
