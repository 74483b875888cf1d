/* nsn_rows_matrix.c: nsn-rows's Newton matrix on this rank's rows: the pattern of each local contact's rows (the union of its rows of W and its diagonal block), rho, Phi and the per-contact Jacobian blocks, and H = A + B W assembled row by row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "nsn_rows.h"

/* Contact c's (local) sorted union of the columns of its d rows of W and of its diagonal block, into list; its length. */
static size_t contact_columns(const cpk_fc_rows *R, size_t c, cpk_int *list, cpk_int *mark, cpk_int stamp)
{
  size_t d = R->cone_dim, len = 0, g = R->c0 + c;
  for (size_t a = 0; a < d; a++) {
    cpk_int j = (cpk_int)(g * d + a);
    if (mark[j] != stamp) mark[j] = stamp, list[len++] = j;
  }
  for (size_t i = c * d; i < (c + 1) * d; i++)
    for (cpk_int k = R->rowptr[i]; k < R->rowptr[i + 1]; k++)
      if (mark[R->col[k]] != stamp) mark[R->col[k]] = stamp, list[len++] = R->col[k];
  return len;
}

static int cmp_int(const void *a, const void *b)
{
  cpk_int x = *(const cpk_int *)a, y = *(const cpk_int *)b;
  return (x > y) - (x < y);
}

int nsn_rows_pattern(nsn_rows_state *S)
{
  const cpk_fc_rows *R = S->R;
  size_t d = R->cone_dim, ncl = R->c1 - R->c0, m = R->row1 - R->row0, total = 0;
  cpk_int *mark = cpk_alloc_array(R->n ? R->n : 1, sizeof *mark), *list = NULL;
  S->hp = cpk_alloc_array(m + 1, sizeof *S->hp);
  if (!mark || !S->hp) goto fail;
  for (size_t j = 0; j < R->n; j++) mark[j] = -1;
  size_t longest = 0;
  for (size_t c = 0; c < ncl; c++) { /* a contact's list holds at most its entries + d columns */
    size_t e = (size_t)(R->rowptr[(c + 1) * d] - R->rowptr[c * d]) + d;
    if (e > longest) longest = e;
  }
  if (!(list = cpk_alloc_array(longest ? longest : 1, sizeof *list))) goto fail;
  S->hp[0] = 0;
  for (size_t c = 0; c < ncl; c++) {
    size_t len = contact_columns(R, c, list, mark, (cpk_int)c);
    for (size_t a = 0; a < d; a++) S->hp[c * d + a + 1] = (cpk_int)(total += len);
  }
  S->hc = cpk_alloc_array(total ? total : 1, sizeof *S->hc);
  S->hx = cpk_alloc_array(total ? total : 1, sizeof *S->hx);
  S->hdiag = cpk_alloc_array(m ? m : 1, sizeof *S->hdiag);
  if (!S->hc || !S->hx || !S->hdiag) goto fail;
  for (size_t j = 0; j < R->n; j++) mark[j] = -1;
  for (size_t c = 0; c < ncl; c++) {
    size_t len = contact_columns(R, c, list, mark, (cpk_int)c);
    qsort(list, len, sizeof *list, cmp_int);
    cpk_int pos = 0, j0 = (cpk_int)((R->c0 + c) * d);
    while (list[pos] < j0) pos++; /* the diagonal block's d columns are consecutive in the list */
    for (size_t a = 0; a < d; a++) {
      memcpy(S->hc + S->hp[c * d + a], list, len * sizeof *list);
      S->hdiag[c * d + a] = S->hp[c * d + a] + pos + (cpk_int)a;
    }
  }
  free(mark);
  free(list);
  return CPK_OK;
fail:
  free(mark);
  free(list);
  return CPK_ENOMEM;
}

void nsn_rows_choose_rho(nsn_rows_state *S, int policy)
{
  const cpk_fc_rows *R = S->R;
  size_t d = R->cone_dim, ncl = R->c1 - R->c0;
  double blk[CPK_CONE_DIM_MAX * CPK_CONE_DIM_MAX], sum[4] = {0, 0, 0, 0};
  for (size_t c = 0; c < ncl; c++) {
    double *rho = S->rho + 2 * c;
    if (policy == CPK_NSN_RHO_UNIT) {
      rho[0] = rho[1] = 1.0;
      continue;
    }
    size_t g = R->c0 + c;
    memset(blk, 0, sizeof blk);
    for (size_t a = 0; a < d; a++)
      for (cpk_int k = R->rowptr[c * d + a]; k < R->rowptr[c * d + a + 1]; k++)
        if ((size_t)R->col[k] / d == g) blk[a * d + (size_t)R->col[k] % d] = R->val[k];
    nsn_contact_rho(blk, d, policy, rho);
  }
  /* unusable scales (a zero or non-finite block) take the mean of the usable ones over all ranks, else 1 */
  for (size_t c = 0; c < ncl; c++)
    for (size_t w = 0; w < 2; w++)
      if (isfinite(S->rho[2 * c + w]) && S->rho[2 * c + w] > 0.0) sum[w] += S->rho[2 * c + w], sum[2 + w]++;
  (void)cpk_mpi_reduce(sum, 4, CPK_MPI_SUM); /* a failure leaves the local means: still usable scales */
  for (size_t c = 0; c < ncl; c++)
    for (size_t w = 0; w < 2; w++)
      if (!(isfinite(S->rho[2 * c + w]) && S->rho[2 * c + w] > 0.0))
        S->rho[2 * c + w] = sum[2 + w] > 0 ? sum[w] / sum[2 + w] : 1.0;
}

double nsn_rows_phi(const nsn_rows_state *S, const double *r, const double *u, double *phi, int jacobian)
{
  const cpk_fc_rows *R = S->R;
  size_t d = R->cone_dim, dd = d * d;
  double sum = 0.0;
  for (size_t c = 0; c < R->c1 - R->c0; c++)
    sum += nsn_contact_phi(d, R->mu[c], S->rho + 2 * c, r + R->row0 + c * d, u + c * d, phi + c * d,
                           jacobian ? S->Ablk + c * dd : NULL, jacobian ? S->Bblk + c * dd : NULL);
  return sum;
}

void nsn_rows_assemble(nsn_rows_state *S)
{
  const cpk_fc_rows *R = S->R;
  size_t d = R->cone_dim, dd = d * d;
  memset(S->hx, 0, (size_t)S->hp[R->row1 - R->row0] * sizeof *S->hx);
  for (size_t c = 0; c < R->c1 - R->c0; c++) {
    const double *A = S->Ablk + c * dd, *B = S->Bblk + c * dd;
    cpk_int h0 = S->hp[c * d], len = S->hp[c * d + 1] - h0;
    const cpk_int *cols = S->hc + h0;
    for (size_t b = 0; b < d; b++) { /* (B W)(a, j) += B[a][b] W(c d + b, j): both lists ascend */
      cpk_int pos = 0;
      for (cpk_int k = R->rowptr[c * d + b]; k < R->rowptr[c * d + b + 1]; k++) {
        while (cols[pos] < R->col[k]) pos++;
        for (size_t a = 0; a < d; a++) S->hx[h0 + (cpk_int)a * len + pos] += B[a * d + b] * R->val[k];
      }
    }
    cpk_int pos = 0, j0 = (cpk_int)((R->c0 + c) * d);
    while (cols[pos] < j0) pos++; /* the diagonal block's d columns are consecutive in the list */
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++) S->hx[h0 + (cpk_int)a * len + pos + (cpk_int)b] += A[a * d + b];
  }
}
