/* fc_rows_read.c: one rank's rows of a friction-cone problem read from a file (cpk_fc_rows_read): a problem text file scanned twice, keeping only the local rows; an FCLIB file read whole and cut. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/fclib.h>
#include <cpkit/io.h>
#include <cpkit/rows.h>
#include <cpkit/util.h>
#include "fc_rows_build.h"

/* The two passes' state: the first counts each row's entries, the second keeps the local rows'. */
typedef struct scan_state {
  int pass;          /* 1 or 2 */
  int rank, size;
  int not_cone;      /* the file holds another kind of problem */
  size_t n, dim, nnz;
  size_t *row_nnz;   /* pass 1: n counters */
  cpk_fc_rows *R;    /* pass 2 */
  cpk_int *next;     /* pass 2: each local row's next free place */
} scan_state;

static int on_begin(void *ctx, cpk_problem_kind kind, size_t n, size_t dim)
{
  scan_state *S = ctx;
  if (kind != CPK_KIND_FRICTION_CONE || dim == 0 || n % dim) {
    S->not_cone = 1;
    return CPK_EINVAL;
  }
  if (S->pass == 2) return n == S->n && dim == S->dim ? CPK_OK : CPK_EIO; /* the file changed */
  S->n = n;
  S->dim = dim;
  S->row_nnz = cpk_alloc_array(n ? n : 1, sizeof *S->row_nnz);
  if (!S->row_nnz) return CPK_ENOMEM;
  memset(S->row_nnz, 0, (n ? n : 1) * sizeof *S->row_nnz);
  return CPK_OK;
}

static int on_entry(void *ctx, size_t i, size_t j, double x)
{
  scan_state *S = ctx;
  if (S->pass == 1) {
    S->row_nnz[i]++;
    S->nnz++;
    return CPK_OK;
  }
  cpk_fc_rows *R = S->R;
  if (i < R->row0 || i >= R->row1) return CPK_OK;
  size_t l = i - R->row0;
  if (S->next[l] >= R->rowptr[l + 1]) return CPK_EIO; /* more than the first pass counted */
  R->col[S->next[l]] = (cpk_int)j;
  R->val[S->next[l]++] = x;
  return CPK_OK;
}

static int on_end(void *ctx, const double *q, const double *mu)
{
  scan_state *S = ctx;
  cpk_fc_rows *R = S->R;
  if (S->pass == 1) return CPK_OK;
  for (size_t l = 0; l < R->row1 - R->row0; l++)
    if (S->next[l] != R->rowptr[l + 1]) return CPK_EIO; /* fewer than counted */
  memcpy(R->q, q + R->row0, (R->row1 - R->row0) * sizeof *q);
  memcpy(R->mu, mu + R->c0, (R->c1 - R->c0) * sizeof *mu);
  for (size_t i = 0; i < R->n; i++) R->q_norm2 += q[i] * q[i];
  return CPK_OK;
}

/* Row l's entries sorted by column (insertion: a file in CSC order gives them sorted already). */
static void sort_row(cpk_int *col, double *val, size_t len)
{
  for (size_t a = 1; a < len; a++) {
    cpk_int c = col[a];
    double x = val[a];
    size_t b = a;
    for (; b > 0 && col[b - 1] > c; b--) {
      col[b] = col[b - 1];
      val[b] = val[b - 1];
    }
    col[b] = c;
    val[b] = x;
  }
}

/* Each row sorted by column and its duplicates summed, the entries packed; CPK_EPARSE when a sum is not finite. */
static int pack_rows(cpk_fc_rows *R)
{
  cpk_int out = 0, start = 0;
  for (size_t l = 0; l < R->row1 - R->row0; l++) {
    cpk_int end = R->rowptr[l + 1];
    sort_row(R->col + start, R->val + start, (size_t)(end - start));
    for (cpk_int k = start; k < end; k++) {
      if (out > R->rowptr[l] && R->col[out - 1] == R->col[k]) {
        R->val[out - 1] += R->val[k];
        continue;
      }
      R->col[out] = R->col[k];
      R->val[out++] = R->val[k];
    }
    start = end;
    R->rowptr[l + 1] = out;
  }
  for (cpk_int k = 0; k < out; k++)
    if (!isfinite(R->val[k])) return CPK_EPARSE;
  return CPK_OK;
}

/* After the first pass: the split and the object, its places counted; the counters freed. */
static int prepare_second_pass(scan_state *S)
{
  size_t nc = S->n / S->dim, c0, c1;
  size_t *per_contact = cpk_alloc_array(nc ? nc : 1, sizeof *per_contact);
  if (!per_contact) return CPK_ENOMEM;
  fc_rows_contact_nnz(S->row_nnz, nc, S->dim, per_contact);
  fc_rows_split(per_contact, nc, S->rank, S->size, &c0, &c1);
  free(per_contact);
  int rc = fc_rows_new(S->n, S->dim, c0, c1, S->row_nnz + c0 * S->dim, &S->R);
  free(S->row_nnz);
  S->row_nnz = NULL;
  if (rc) return rc;
  S->R->nnz = S->nnz;
  S->R->rank = S->rank;
  S->R->size = S->size;
  size_t m = S->R->row1 - S->R->row0;
  if (!(S->next = cpk_alloc_array(m ? m : 1, sizeof *S->next))) return CPK_ENOMEM;
  memcpy(S->next, S->R->rowptr, m * sizeof *S->next);
  S->pass = 2;
  return CPK_OK;
}

static int read_text(const char *path, scan_state *S, cpk_error *err)
{
  cpk_problem_scan scan = {on_begin, on_entry, on_end, S};
  int rc = cpk_problem_scan_file(path, &scan, err);
  if (!rc && (rc = prepare_second_pass(S))) return cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc));
  if (!rc) rc = cpk_problem_scan_file(path, &scan, err);
  if (!rc && (rc = pack_rows(S->R)))
    return cpk_error_set(err, rc, "%s: M: duplicate entries sum to a value that is not finite", path);
  if (rc && S->not_cone) return cpk_error_set(err, CPK_EINVAL, "%s: not a friction-cone problem", path);
  if (rc == CPK_EIO && S->pass == 2 && !S->not_cone)
    return cpk_error_set(err, rc, "%s: the file changed between the two passes", path);
  return rc;
}

static int read_fclib(const char *path, int rank, int size, cpk_fc_rows **out, cpk_error *err)
{
  cpk_problem *p = NULL;
  int rc = cpk_problem_read_fclib(path, &p, err);
  if (!rc && (rc = cpk_fc_rows_from_problem(p, rank, size, out)))
    cpk_error_set(err, rc, "%s: %s", path,
                  rc == CPK_EINVAL ? "not a friction-cone problem" : cpk_strerror(rc));
  cpk_problem_free(p);
  return rc;
}

int cpk_fc_rows_read(const char *path, int rank, int size, cpk_fc_rows **out, cpk_error *err)
{
  cpk_error_clear(err);
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  if (!path || size < 1 || rank < 0 || rank >= size)
    return cpk_error_set(err, CPK_EINVAL, "no path, or rank %d outside 0..%d", rank, size - 1);
  if (cpk_file_is_hdf5(path)) return read_fclib(path, rank, size, out, err);
  scan_state S = {.pass = 1, .rank = rank, .size = size};
  int rc = read_text(path, &S, err);
  free(S.row_nnz);
  free(S.next);
  if (rc) cpk_fc_rows_free(S.R);
  else *out = S.R;
  return rc;
}
