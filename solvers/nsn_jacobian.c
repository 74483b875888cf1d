/* nsn_jacobian.c: the Alart-Curnier function of the cone problem, its generalized Jacobian per contact, the Newton matrix H = A + B W on a fixed block pattern, and the per-contact rho. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "nsn.h"

/* ---- the block pattern ------------------------------------------------------ */

static int cmp_index(const void *a, const void *b)
{
  cpk_int x = *(const cpk_int *)a, y = *(const cpk_int *)b;
  return (x > y) - (x < y);
}

/* Block rows touched by block column C (its own block included), sorted, into list; returns how many. */
static size_t block_rows(const nsn_state *S, size_t C, cpk_int *mark, cpk_int *list)
{
  const cpk_csc *W = S->W;
  size_t len = 0, d = S->d;
  mark[C] = (cpk_int)C;
  list[len++] = (cpk_int)C;
  for (size_t j = C * d; j < (C + 1) * d; j++)
    for (cpk_int k = W->p[j]; k < W->p[j + 1]; k++) {
      cpk_int R = W->i[k] / (cpk_int)d;
      if (mark[R] != (cpk_int)C) {
        mark[R] = (cpk_int)C;
        list[len++] = R;
      }
    }
  qsort(list, len, sizeof *list, cmp_index);
  return len;
}

/* Count H's entries (overflow-checked). */
static int count_pattern(const nsn_state *S, cpk_int *mark, cpk_int *list, cpk_int *nnz)
{
  size_t total = 0, dd = S->d * S->d, blk;
  for (size_t C = 0; C < S->nc; C++) mark[C] = -1;
  for (size_t C = 0; C < S->nc; C++) {
    if (cpk_size_mul(block_rows(S, C, mark, list), dd, &blk) || total > SIZE_MAX - blk ||
        total + blk > (size_t)INT64_MAX)
      return CPK_EOVERFLOW;
    total += blk;
  }
  *nnz = (cpk_int)total;
  return CPK_OK;
}

/* Fill H's pattern and the maps, block column by block column. */
static void fill_pattern(nsn_state *S, cpk_int *mark, cpk_int *list, cpk_int *slot)
{
  cpk_csc *H = S->H;
  size_t d = S->d;
  cpk_int pos = 0;
  for (size_t C = 0; C < S->nc; C++) mark[C] = -1;
  for (size_t C = 0; C < S->nc; C++) {
    size_t len = block_rows(S, C, mark, list);
    for (size_t m = 0; m < len; m++) slot[list[m]] = (cpk_int)m;
    for (size_t j = C * d; j < (C + 1) * d; j++) {
      H->p[j] = pos;
      for (size_t m = 0; m < len; m++)
        for (size_t b = 0; b < d; b++) H->i[pos++] = list[m] * (cpk_int)d + (cpk_int)b;
      S->dpos[j] = H->p[j] + slot[C] * (cpk_int)d;
      S->diag[j] = S->dpos[j] + (cpk_int)(j % d);
    }
  }
  H->p[S->n] = pos;
}

int nsn_build_pattern(nsn_state *S)
{
  cpk_int nnz = 0;
  cpk_int *mark = cpk_alloc_array(S->nc, sizeof *mark);
  cpk_int *list = cpk_alloc_array(S->nc, sizeof *list);
  cpk_int *slot = cpk_alloc_array(S->nc, sizeof *slot);
  int rc = (!mark || !list || !slot) ? CPK_ENOMEM : count_pattern(S, mark, list, &nnz);
  if (!rc) rc = cpk_csc_alloc((cpk_int)S->n, (cpk_int)S->n, nnz, &S->H);
  if (!rc) {
    S->dpos = cpk_alloc_array(S->n, sizeof *S->dpos);
    S->diag = cpk_alloc_array(S->n, sizeof *S->diag);
    if (!S->dpos || !S->diag) rc = CPK_ENOMEM;
  }
  if (!rc) {
    fill_pattern(S, mark, list, slot);
    memset(S->H->x, 0, (size_t)nnz * sizeof *S->H->x);
    rc = cpk_csc_check(S->H);
  }
  free(mark);
  free(list);
  free(slot);
  return rc;
}

/* ---- rho ------------------------------------------------------------------------ */

/* The diagonal block of contact c (d*d, row-major). */
static void diagonal_block(const nsn_state *S, size_t c, double *blk)
{
  const cpk_csc *W = S->W;
  size_t d = S->d;
  size_t lo = c * d; /* the block's rows are lo .. lo + d - 1: a range test, no division */
  memset(blk, 0, d * d * sizeof *blk);
  for (size_t j = lo; j < lo + d; j++)
    for (cpk_int k = W->p[j]; k < W->p[j + 1]; k++) {
      size_t i = (size_t)W->i[k];
      if (i >= lo && i < lo + d) blk[(i - lo) * d + (j - lo)] = W->x[k];
    }
}

/* ||S||_2 of the symmetric 2x2 [a b; b c]: its eigenvalues are (a+c)/2 +- hypot((a-c)/2, b). */
static double sym_norm2(double a, double b, double c)
{
  return fabs(0.5 * (a + c)) + hypot(0.5 * (a - c), b);
}

/* ||sym(B)||_2 of the m-by-m trailing part of a d*d block starting at (off, off): in closed form
 * for m = 2 (the default policy's tangent block, every step of a re-solve: power iteration took
 * up to 100 sweeps on the near-isotropic blocks of contacts on a plane), else by power iteration. */
static double sym_norm(const double *blk, size_t d, size_t off)
{
  double v[CPK_CONE_DIM_MAX], w[CPK_CONE_DIM_MAX], lam = 0.0;
  size_t m = d - off;
  if (m == 2)
    return sym_norm2(blk[off * d + off], 0.5 * (blk[off * d + off + 1] + blk[(off + 1) * d + off]),
                     blk[(off + 1) * d + off + 1]);
  for (size_t a = 0; a < m; a++) v[a] = 1.0 / (1.0 + (double)a); /* not orthogonal to any axis */
  for (int it = 0; it < 100; it++) {
    double s = 0.0;
    for (size_t a = 0; a < m; a++) {
      w[a] = 0.0;
      for (size_t b = 0; b < m; b++)
        w[a] += 0.5 * (blk[(a + off) * d + b + off] + blk[(b + off) * d + a + off]) * v[b];
      s += w[a] * w[a];
    }
    double prev = lam;
    lam = sqrt(s);
    if (!(lam > 0.0) || !isfinite(lam)) return lam;
    if (fabs(lam - prev) <= 1e-13 * lam) break; /* a step's re-solve calls this every time */
    for (size_t a = 0; a < m; a++) v[a] = w[a] / lam;
  }
  return lam;
}

/* Replace unusable scales (W block zero or not finite) by the mean of the usable ones, else 1. */
static void repair_rho(nsn_state *S, size_t which)
{
  double sum = 0.0;
  size_t good = 0;
  for (size_t c = 0; c < S->nc; c++)
    if (isfinite(S->rho[2 * c + which]) && S->rho[2 * c + which] > 0.0) {
      sum += S->rho[2 * c + which];
      good++;
    }
  double fill = good ? sum / (double)good : 1.0;
  for (size_t c = 0; c < S->nc; c++)
    if (!(isfinite(S->rho[2 * c + which]) && S->rho[2 * c + which] > 0.0))
      S->rho[2 * c + which] = fill;
}

void nsn_contact_rho(const double *blk, size_t d, int policy, double *rho)
{
  if (policy == CPK_NSN_RHO_SPECTRAL) {
    rho[0] = rho[1] = 1.0 / sym_norm(blk, d, 0);
  } else {
    rho[0] = 1.0 / blk[0];
    rho[1] = 1.0 / sym_norm(blk, d, 1);
  }
}

void nsn_choose_rho(nsn_state *S, int policy)
{
  double blk[CPK_CONE_DIM_MAX * CPK_CONE_DIM_MAX];
  for (size_t c = 0; c < S->nc; c++) {
    double *rho = S->rho + 2 * c;
    if (policy == CPK_NSN_RHO_UNIT) {
      rho[0] = rho[1] = 1.0;
      continue;
    }
    diagonal_block(S, c, blk);
    nsn_contact_rho(blk, S->d, policy, rho);
  }
  repair_rho(S, 0);
  repair_rho(S, 1);
}

/* ---- Phi and its generalized Jacobian -------------------------------------------- */

/*
 * One contact: phi (d values) and, when A and B are given, the blocks of an
 * element of the B-subdifferential. Ties (x_n = 0, |x_T| = R) take the
 * branch that keeps A nonsingular where it can: the separated normal row and
 * the sliding tangential rows.
 */
double nsn_contact_phi(size_t d, double mu, const double *rho, const double *r, const double *u,
                       double *phi, double *A, double *B)
{
  double xt[CPK_CONE_DIM_MAX], nrm2 = 0.0, sum;
  double xn = r[0] - rho[0] * u[0], pn = xn > 0.0 ? xn : 0.0, R = mu * pn;
  for (size_t k = 1; k < d; k++) {
    xt[k] = r[k] - rho[1] * u[k];
    nrm2 += xt[k] * xt[k];
  }
  double nrm = sqrt(nrm2);
  int stick = R > 0.0 && nrm <= R;
  double s = stick ? 1.0 : (nrm > 0.0 ? R / nrm : 0.0); /* proj(x_T) = s x_T */
  phi[0] = r[0] - pn;
  sum = phi[0] * phi[0];
  for (size_t k = 1; k < d; k++) {
    phi[k] = r[k] - s * xt[k];
    sum += phi[k] * phi[k];
  }
  if (!A) return sum;
  memset(A, 0, d * d * sizeof *A);
  memset(B, 0, d * d * sizeof *B);
  if (xn > 0.0) B[0] = rho[0];
  else A[0] = 1.0;
  for (size_t k = 1; k < d; k++) {
    if (stick) { /* Phi_T = rho_t u_T */
      B[k * d + k] = rho[1];
      continue;
    }
    /* Phi_T = r_T - R x_T/|x_T|: dR = mu dx_n (x_n > 0), d(x_T/|x_T|) = (I - t t^T)/|x_T| dx_T */
    double tk = nrm > 0.0 ? xt[k] / nrm : 0.0;
    A[k * d + k] = 1.0;
    if (xn > 0.0) {
      A[k * d] = -mu * tk;
      B[k * d] = mu * rho[0] * tk;
    }
    for (size_t l = 1; l < d; l++) {
      double tl = nrm > 0.0 ? xt[l] / nrm : 0.0, m = s * ((k == l) - tk * tl);
      A[k * d + l] -= m;
      B[k * d + l] += rho[1] * m;
    }
  }
  return sum;
}

double nsn_phi(const nsn_state *S, const cpk_problem *p, const double *r, const double *u,
               double *phi)
{
  double sum = 0.0;
  size_t d = S->d;
  for (size_t c = 0; c < S->nc; c++)
    sum += nsn_contact_phi(d, p->mu[c], S->rho + 2 * c, r + c * d, u + c * d, phi + c * d, NULL, NULL);
  return isfinite(sum) ? 0.5 * sum : INFINITY;
}

void nsn_linearize(nsn_state *S, const cpk_problem *p)
{
  size_t d = S->d, dd = d * d;
  for (size_t c = 0; c < S->nc; c++)
    nsn_contact_phi(d, p->mu[c], S->rho + 2 * c, S->r + c * d, S->u + c * d, S->phit + c * d,
                S->Ablk + c * dd, S->Bblk + c * dd);
}

/* ---- the Newton matrix ------------------------------------------------------------- */

void nsn_assemble(nsn_state *S)
{
  const cpk_csc *W = S->W;
  cpk_csc *H = S->H;
  size_t d = S->d, dd = d * d;
  memset(H->x, 0, (size_t)H->p[S->n] * sizeof *H->x);
  /* W's entries in locals: the stores to H could alias them (reloaded at every product) */
  const cpk_int *Wp = W->p, *Wi = W->i;
  const double *Wx = W->x;
  const cpk_int *Hi = H->i;
  for (size_t j = 0; j < S->n; j++) {
    /*
     * W's rows and H's blocks both ascend in column j: a walk finds each W entry's
     * block in H (a stored map of positions was 8 bytes per entry of W per rank).
     * H's blocks are whole: the block at pos starts at row hrow = R d, and B_R starts at
     * Bblk + R dd = Bblk + hrow d, so the walk needs no division (two per entry of W
     * were a third of this function's instructions).
     */
    cpk_int pos = H->p[j];
    size_t hrow = (size_t)Hi[pos];
    for (cpk_int k = Wp[j]; k < Wp[j + 1];) { /* (B W)(block(i), j) += B_c[:, i%d] W_ij */
      size_t i = (size_t)Wi[k];
      while (i >= hrow + d) {
        pos += (cpk_int)d;
        hrow = (size_t)Hi[pos];
      }
      double *h = H->x + pos;
      if (i == hrow && k + (cpk_int)d <= Wp[j + 1] && (size_t)Wi[k + (cpk_int)d - 1] == hrow + d - 1) {
        /* W's whole block in column j (rows ascend: all d of them): h = B_R w, each row's sum
         * formed in the order the entry-by-entry loop adds it, so the same roundings */
        const double *Br = S->Bblk + hrow * d, *w = Wx + k;
        if (d == 3) { /* every 3D contact without torsion: written out (gcc -O2 keeps the loops) */
          for (size_t b = 0; b < 3; b++)
            h[b] = ((h[b] + Br[3 * b] * w[0]) + Br[3 * b + 1] * w[1]) + Br[3 * b + 2] * w[2];
        } else {
          for (size_t b = 0; b < d; b++) {
            double sum = h[b];
            for (size_t a = 0; a < d; a++) sum += Br[b * d + a] * w[a];
            h[b] = sum;
          }
        }
        k += (cpk_int)d;
        continue;
      }
      const double *Bc = S->Bblk + hrow * d + (i - hrow);
      double wx = Wx[k];
      for (size_t b = 0; b < d; b++) h[b] += Bc[b * d] * wx;
      k++;
    }
    const double *Ac = S->Ablk + (j / d) * dd;
    double *h = H->x + S->dpos[j];
    for (size_t b = 0; b < d; b++) h[b] += Ac[b * d + j % d];
  }
}

void nsn_hmul(const nsn_state *S, const double *x, double *y, int trans)
{
  cpk_matrix H = {CPK_MATRIX_CSC, S->n, S->n, NULL, S->H};
  cpk_matrix_mv(&H, x, y, trans);
}
