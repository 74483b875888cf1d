/* fc_rows.c: one rank's rows of a friction-cone problem (cpkit/rows.h): the split balanced by nonzeros, the copy from a replicated problem, the local product and the residual and merit reduced over the ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/rows.h>
#include <cpkit/util.h>
#include "fc_rows_build.h"

void fc_rows_split(const size_t *contact_nnz, size_t nc, int rank, int size, size_t *c0, size_t *c1)
{
  double total = 0.0;
  for (size_t c = 0; c < nc; c++) total += (double)contact_nnz[c];
  if (total == 0.0) { /* no entries: as many contacts each */
    cpk_mpi_block(nc, 1, rank, size, c0, c1);
    return;
  }
  /* rank k starts at the first contact whose preceding nonzeros reach k/size of them */
  double lo = total * rank / size, hi = total * (rank + 1) / size, before = 0.0;
  size_t c = 0;
  while (c < nc && before < lo) before += (double)contact_nnz[c++];
  *c0 = c;
  while (c < nc && before < hi) before += (double)contact_nnz[c++];
  *c1 = rank == size - 1 ? nc : c;
}

void fc_rows_contact_nnz(const size_t *row_nnz, size_t nc, size_t dim, size_t *contact_nnz)
{
  for (size_t c = 0; c < nc; c++) {
    size_t s = 0;
    for (size_t k = 0; k < dim; k++) s += row_nnz[c * dim + k];
    contact_nnz[c] = s;
  }
}

int fc_rows_new(size_t n, size_t dim, size_t c0, size_t c1, const size_t *row_nnz, cpk_fc_rows **out)
{
  cpk_fc_rows *R = calloc(1, sizeof *R);
  if (!R) return CPK_ENOMEM;
  *out = R;
  R->n = n;
  R->cone_dim = dim;
  R->nc = n / dim;
  R->c0 = c0;
  R->c1 = c1;
  R->row0 = c0 * dim;
  R->row1 = c1 * dim;
  size_t m = R->row1 - R->row0, k = 0;
  R->rowptr = cpk_alloc_array(m + 1, sizeof *R->rowptr);
  R->q = cpk_alloc_array(m ? m : 1, sizeof *R->q);
  R->mu = cpk_alloc_array(c1 > c0 ? c1 - c0 : 1, sizeof *R->mu);
  if (!R->rowptr || !R->q || !R->mu) return CPK_ENOMEM;
  R->rowptr[0] = 0;
  for (size_t i = 0; i < m; i++) R->rowptr[i + 1] = (cpk_int)(k += row_nnz[i]);
  R->col = cpk_alloc_array(k ? k : 1, sizeof *R->col);
  R->val = cpk_alloc_array(k ? k : 1, sizeof *R->val);
  return R->col && R->val ? CPK_OK : CPK_ENOMEM;
}

void cpk_fc_rows_free(cpk_fc_rows *R)
{
  if (!R) return;
  free(R->rowptr);
  free(R->col);
  free(R->val);
  free(R->q);
  free(R->mu);
  free(R);
}

/* Entries per row of W (n values, zeros of a dense W not counted). */
static size_t *problem_row_nnz(const cpk_problem *p)
{
  size_t n = p->n, *cnt = cpk_alloc_array(n ? n : 1, sizeof *cnt);
  if (!cnt) return NULL;
  memset(cnt, 0, (n ? n : 1) * sizeof *cnt);
  const cpk_csc *A = p->M->csc;
  if (p->M->format == CPK_MATRIX_CSC) {
    for (cpk_int k = 0; k < A->p[A->n]; k++) cnt[A->i[k]]++;
    return cnt;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) cnt[i] += gsl_matrix_get(p->M->dense, i, j) != 0.0;
  return cnt;
}

/* The local rows' entries of p's W into R (columns ascending: a CSC is read column by column). */
static void copy_rows(const cpk_problem *p, cpk_fc_rows *R)
{
  size_t m = R->row1 - R->row0;
  cpk_int *next = R->rowptr; /* each row's next free place, restored below */
  const cpk_csc *A = p->M->csc;
  if (p->M->format == CPK_MATRIX_CSC) {
    for (cpk_int j = 0; j < A->n; j++)
      for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
        size_t i = (size_t)A->i[k];
        if (i < R->row0 || i >= R->row1) continue;
        R->col[next[i - R->row0]] = j;
        R->val[next[i - R->row0]++] = A->x[k];
      }
  } else {
    for (size_t i = R->row0; i < R->row1; i++)
      for (size_t j = 0; j < p->n; j++) {
        double x = gsl_matrix_get(p->M->dense, i, j);
        if (x == 0.0) continue;
        R->col[next[i - R->row0]] = (cpk_int)j;
        R->val[next[i - R->row0]++] = x;
      }
  }
  for (size_t i = m; i > 0; i--) R->rowptr[i] = R->rowptr[i - 1]; /* next[i] was rowptr[i + 1] */
  R->rowptr[0] = 0;
}

int cpk_fc_rows_from_problem(const cpk_problem *p, int rank, int size, cpk_fc_rows **out)
{
  if (!out) return CPK_EINVAL;
  *out = NULL;
  if (!p || p->kind != CPK_KIND_FRICTION_CONE || p->cone_dim == 0 || size < 1 || rank < 0 || rank >= size)
    return CPK_EINVAL;
  size_t d = p->cone_dim, c0, c1, total = 0, *cnt = problem_row_nnz(p);
  size_t *per_contact = cpk_alloc_array(p->nc ? p->nc : 1, sizeof *per_contact);
  if (!cnt || !per_contact) {
    free(cnt);
    free(per_contact);
    return CPK_ENOMEM;
  }
  fc_rows_contact_nnz(cnt, p->nc, d, per_contact);
  fc_rows_split(per_contact, p->nc, rank, size, &c0, &c1);
  free(per_contact);
  for (size_t i = 0; i < p->n; i++) total += cnt[i];
  int rc = fc_rows_new(p->n, d, c0, c1, cnt + c0 * d, out);
  free(cnt);
  if (rc) {
    cpk_fc_rows_free(*out);
    *out = NULL;
    return rc;
  }
  cpk_fc_rows *R = *out;
  R->nnz = total;
  R->rank = rank;
  R->size = size;
  copy_rows(p, R);
  memcpy(R->q, p->q + R->row0, (R->row1 - R->row0) * sizeof *R->q);
  memcpy(R->mu, p->mu + c0, (c1 - c0) * sizeof *R->mu);
  for (size_t i = 0; i < p->n; i++) R->q_norm2 += p->q[i] * p->q[i];
  return CPK_OK;
}

void cpk_fc_rows_velocity(const cpk_fc_rows *R, const double *r, double *u)
{
  for (size_t i = 0; i < R->row1 - R->row0; i++) {
    double s = 0.0; /* the sum in column order, as the replicated CSC product adds it */
    for (cpk_int k = R->rowptr[i]; k < R->rowptr[i + 1]; k++) s += R->val[k] * r[R->col[k]];
    u[i] = s + R->q[i];
  }
}

int cpk_fc_rows_residual_merit(const cpk_fc_rows *R, const double *r, double *u_local, double *res,
                               double *merit)
{
  size_t m = R->row1 - R->row0;
  double *u = u_local ? u_local : cpk_alloc_array(m ? m : 1, sizeof *u);
  double worst[1] = {INFINITY}, sum[1] = {0.0};
  int rc = u ? CPK_OK : CPK_ENOMEM;
  rc = cpk_mpi_agree(rc); /* nobody waits in the reductions for a rank that failed */
  if (!rc) {
    cpk_fc_rows_velocity(R, r, u);
    worst[0] = cpk_fc_residual_contacts(R->cone_dim, R->c1 - R->c0, R->mu, r + R->row0, u, sum);
    if (isnan(sum[0])) sum[0] = INFINITY; /* NaN never wins a reduction */
    rc = cpk_mpi_reduce(worst, 1, CPK_MPI_MAX);
    if (!rc) rc = cpk_mpi_reduce(sum, 1, CPK_MPI_SUM);
  }
  if (!u_local) free(u);
  *res = rc ? INFINITY : worst[0];
  if (merit) *merit = rc ? INFINITY : sqrt(sum[0]) / (1.0 + sqrt(sqrt(R->q_norm2)));
  return rc;
}
