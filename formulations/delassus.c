/* delassus.c: the contact-space operator A = J^T M^-1 J by 4x4 contact blocks (M factored by mass_factor.c), the free contact velocity, and the public CSC form. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/linsys.h>
#include <cpkit/util.h>
#include "compiled.h"

/* Growing list of blocks generated column by column. */
typedef struct blist {
  size_t n, cap;
  size_t *bi, *bj;
  double *val;
} blist;

static int blist_push(blist *L, size_t i, size_t j, double **val)
{
  if (L->n == L->cap) {
    size_t c = L->cap ? 2 * L->cap : 64;
    size_t *bi = cpk_alloc_array(c, sizeof *bi), *bj = cpk_alloc_array(c, sizeof *bj);
    double *v = cpk_alloc_array(c, 16 * sizeof *v);
    if (!bi || !bj || !v) {
      free(bi);
      free(bj);
      free(v);
      return CPK_ENOMEM;
    }
    if (L->n) {
      memcpy(bi, L->bi, L->n * sizeof *bi);
      memcpy(bj, L->bj, L->n * sizeof *bj);
      memcpy(v, L->val, 16 * L->n * sizeof *v);
    }
    free(L->bi);
    free(L->bj);
    free(L->val);
    L->bi = bi;
    L->bj = bj;
    L->val = v;
    L->cap = c;
  }
  L->bi[L->n] = i;
  L->bj[L->n] = j;
  *val = L->val + 16 * L->n;
  memset(*val, 0, 16 * sizeof **val);
  L->n++;
  return CPK_OK;
}

/* The block list of an earlier build (its arrays, or an empty list), and a list handed
 * to B for the next build. */
static blist blist_take(cvm_blockop *old)
{
  blist L = {0, old->lcap, old->lbi, old->lbj, old->lval};
  old->lbi = old->lbj = NULL;
  old->lval = NULL;
  old->lcap = 0;
  return L;
}

static void blist_keep(blist *L, cvm_blockop *B)
{
  B->lbi = L->bi;
  B->lbj = L->bj;
  B->lval = L->val;
  B->lcap = L->cap;
}

/* Sort the blocks into block-row CSR (stable, so columns stay in generation order); old's
 * arrays when they have the sizes; next: nc + 1 scratch. */
static int blist_to_op(blist *L, size_t nc, cvm_blockop *B, cvm_blockop *old, size_t *next)
{
  size_t old_nb = old->ptr ? old->ptr[old->nc] : 0;
  B->nc = nc;
  B->ptr = cvm_reuse((void **)&old->ptr, old->nc + 1, nc + 1, sizeof *B->ptr, 1);
  B->col = cvm_reuse((void **)&old->col, old_nb, L->n, sizeof *B->col, 0);
  B->val = cvm_reuse((void **)&old->val, old_nb, L->n, 16 * sizeof *B->val, 0);
  if (!B->ptr || !B->col || !B->val) return CPK_ENOMEM;
  for (size_t k = 0; k < L->n; k++) B->ptr[L->bi[k] + 1]++;
  for (size_t c = 0; c < nc; c++) B->ptr[c + 1] += B->ptr[c];
  memcpy(next, B->ptr, (nc + 1) * sizeof *next);
  for (size_t k = 0; k < L->n; k++) {
    size_t d = next[L->bi[k]]++;
    B->col[d] = L->bj[k];
    memcpy(B->val + 16 * d, L->val + 16 * k, 16 * sizeof *B->val);
  }
  return CPK_OK;
}

/* Body form, one column contact j: X = M^-1 J_j (4 dense columns), then A_ij = J_i^T X. */
typedef struct body_work {
  const cpk_contact_system *s;
  const cvm_mass *F;
  double *X;             /* 4 nv, zero between columns */
  size_t *rows;          /* nonzero rows of X */
  size_t *adj_ptr, *adj; /* contacts touching each coordinate */
  size_t *mark, *list;
  size_t *bmark, *blocks; /* blocks of M touched by a column (block-diagonal M) */
  size_t *next;           /* nc + 1: blist_to_op's */
  const cvm_blockop *in;  /* an earlier operator whose blocks are written over, or NULL */
  size_t found;           /* blocks of `in` written so far */
  int miss;               /* a block `in` does not have: its pattern differs */
} body_work;

/* Rows of X = M^-1 J_j that can be non-zero, J_j written into X: every row after a full
 * solve (sparse LU), or the rows of the diagonal blocks J_j touches. */
static int body_solve(body_work *w, size_t j, size_t *nrows)
{
  const cpk_contact_system *s = w->s;
  size_t nv = s->nv, nb = 0;
  for (int a = 0; a < 4; a++)
    for (size_t k = s->wptr[j]; k < s->wptr[j + 1]; k++)
      w->X[a * nv + (size_t)s->wrow[k]] = s->wval[4 * k + a];
  if (w->F->ls) {
    for (int a = 0; a < 4; a++) {
      int rc = cpk_linsys_solve(w->F->ls, w->X + a * nv, 0);
      if (rc) return rc;
    }
    for (size_t r = 0; r < nv; r++) w->rows[r] = r;
    *nrows = nv;
    return CPK_OK;
  }
  for (size_t k = s->wptr[j]; k < s->wptr[j + 1]; k++) {
    size_t b = w->F->block[s->wrow[k]];
    if (w->bmark[b] != j + 1) {
      w->bmark[b] = j + 1;
      w->blocks[nb++] = b;
    }
  }
  *nrows = 0;
  for (size_t t = 0; t < nb; t++) {
    for (int a = 0; a < 4; a++) cvm_mass_solve_block(w->F, w->blocks[t], w->X + a * nv);
    for (size_t r = w->F->start[w->blocks[t]]; r < w->F->start[w->blocks[t] + 1]; r++)
      w->rows[(*nrows)++] = r;
  }
  return CPK_OK;
}

/* blk = J_i^T X (blk zero on entry): the 16 sums kept in locals, added in the order of the
 * rows as before (same rounding), so the compiler need not reload blk after every store
 * (it cannot know that blk aliases neither J nor X); a third of a tripod step's compile. */
static void block_product(const body_work *w, size_t i, double *blk)
{
  const cpk_contact_system *s = w->s;
  size_t nv = s->nv;
  double acc[16] = {0};
  for (size_t k = s->wptr[i]; k < s->wptr[i + 1]; k++) {
    size_t r = (size_t)s->wrow[k];
    const double *wv = s->wval + 4 * k;
    double x[4] = {w->X[r], w->X[nv + r], w->X[2 * nv + r], w->X[3 * nv + r]};
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) acc[4 * a + b] += wv[a] * x[b];
  }
  memcpy(blk, acc, sizeof acc);
}

/* Block (i, j) of the earlier operator w->in: its rows hold their blocks by increasing
 * column, as a build generates them (columns in turn); NULL when it has none. */
static double *block_in_place(const body_work *w, size_t i, size_t j)
{
  const cvm_blockop *in = w->in;
  for (size_t d = in->ptr[i]; d < in->ptr[i + 1]; d++)
    if (in->col[d] == j) return in->val + 16 * d;
  return NULL;
}

/* The list entry of block (i, j) written over in place: a build's list holds its blocks
 * in generation order, so the k-th block generated again is entry k (the cone form reads
 * the list: cone_form.c); NULL when the entry is another block. */
static double *list_in_place(const body_work *w, const blist *L, size_t i, size_t j)
{
  size_t k = w->found;
  if (k >= w->in->ptr[w->in->nc] || k >= L->cap || L->bi[k] != i || L->bj[k] != j) return NULL;
  return L->val + 16 * k;
}

/* Column j of A: blocks pushed on L, or (w->in set) written over w->in's blocks and L's
 * entries, which a build made in this order. */
static int body_column(body_work *w, size_t j, blist *L)
{
  const cpk_contact_system *s = w->s;
  size_t nv = s->nv, nrows = 0, nlist = 0, nz = 0;
  int rc = body_solve(w, j, &nrows);
  if (rc) return rc;
  for (size_t k = 0; k < nrows; k++) {
    size_t r = w->rows[k];
    if (w->X[r] != 0 || w->X[nv + r] != 0 || w->X[2 * nv + r] != 0 || w->X[3 * nv + r] != 0)
      w->rows[nz++] = r;
  }
  for (size_t k = 0; k < nz; k++)
    for (size_t e = w->adj_ptr[w->rows[k]]; e < w->adj_ptr[w->rows[k] + 1]; e++)
      if (w->mark[w->adj[e]] != j + 1) {
        w->mark[w->adj[e]] = j + 1;
        w->list[nlist++] = w->adj[e];
      }
  for (size_t l = 0; l < nlist && !rc && !w->miss; l++) {
    size_t i = w->list[l];
    double *blk = NULL, *lv = NULL;
    if (w->in) {
      blk = block_in_place(w, i, j);
      if (!blk || !(lv = list_in_place(w, L, i, j))) blk = NULL, w->miss = 1;
    } else if (blist_push(L, i, j, &blk)) {
      rc = CPK_ENOMEM;
    }
    if (blk) block_product(w, i, blk);
    if (lv) memcpy(lv, blk, 16 * sizeof *blk);
    w->found += blk != NULL;
  }
  if (w->F->ls) /* X back to zero for the next column */
    memset(w->X, 0, 4 * nv * sizeof *w->X);
  else
    for (size_t k = 0; k < nrows; k++)
      for (int a = 0; a < 4; a++) w->X[a * nv + w->rows[k]] = 0.0;
  return rc;
}

/* Contacts touching each generalized coordinate (CSR of the transpose of the row lists);
 * next: nv + 1 scratch. */
static void body_adjacency(body_work *w, size_t *next)
{
  const cpk_contact_system *s = w->s;
  size_t nnz = s->wptr[s->nc];
  for (size_t k = 0; k < nnz; k++) w->adj_ptr[s->wrow[k] + 1]++;
  for (size_t r = 0; r < s->nv; r++) w->adj_ptr[r + 1] += w->adj_ptr[r];
  memcpy(next, w->adj_ptr, (s->nv + 1) * sizeof *next);
  for (size_t c = 0; c < s->nc; c++)
    for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++) w->adj[next[s->wrow[k]]++] = c;
}

/* The index arrays of w in one zeroed block (rows, marks, lists, adjacency and the
 * adjacency's scratch, carved in turn, then blist_to_op's next), and X (4 nv, zero); old's
 * when they have the sizes (the stepper builds the operator every step), kept in B. */
static int body_work_alloc(body_work *w, cvm_blockop *B, cvm_blockop *old)
{
  const cpk_contact_system *s = w->s;
  size_t nv1 = s->nv + 1, nc1 = s->nc + 1, nnz = s->wptr[s->nc], total;
  if (cpk_size_mul(nv1, 5, &total) || total > SIZE_MAX - 3 * nc1 - nnz) return CPK_EOVERFLOW;
  total += 3 * nc1 + nnz;
  size_t *blk = cvm_reuse((void **)&old->scratch, old->nscratch, total, sizeof *blk, 1);
  w->X = cvm_reuse((void **)&old->X, 4 * old->nv, 4 * s->nv, sizeof *w->X, 1);
  B->scratch = blk;
  B->nscratch = blk ? total : 0;
  B->X = w->X;
  B->nv = s->nv;
  if (!blk || !w->X) return CPK_ENOMEM;
  w->rows = blk;
  w->bmark = w->rows + nv1;
  w->blocks = w->bmark + nv1;
  w->adj_ptr = w->blocks + nv1;
  w->mark = w->adj_ptr + nv1;
  w->list = w->mark + nc1;
  w->adj = w->list + nc1;
  w->next = w->adj + nnz + nv1;
  body_adjacency(w, w->adj + nnz); /* the nv + 1 after: scratch */
  return CPK_OK;
}

/* b = J^T vstar + drift with vstar = v + h M^-1 k (h > 0) or M^-1 k (h = 0). */
static int body_free_velocity(body_work *w, cvm_blockop *B, cvm_blockop *old)
{
  const cpk_contact_system *s = w->s;
  B->vstar = cvm_reuse((void **)&old->vstar, old->vstar ? old->nv : 0, s->nv, sizeof *B->vstar, 0);
  if (!B->vstar) return CPK_ENOMEM;
  memcpy(B->vstar, s->k, s->nv * sizeof *s->k);
  int rc = cvm_mass_apply(w->F, B->vstar);
  if (rc) return rc;
  for (size_t r = 0; r < s->nv; r++)
    B->vstar[r] = s->h > 0 ? s->v[r] + s->h * B->vstar[r] : B->vstar[r];
  for (size_t c = 0; c < s->nc; c++)
    for (int a = 0; a < 4; a++) {
      double sum = s->contacts[c].drift[a];
      for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
        sum += s->wval[4 * k + a] * B->vstar[s->wrow[k]];
      B->b[4 * c + a] = sum;
    }
  return CPK_OK;
}

/*
 * The blocks written over old's (the stepper's steps: same contacts, same pattern), which
 * skips the block list and its sort into rows. The pattern follows the values (a row of
 * M^-1 J_j that is exactly zero adds no block), so it is compared as it is made: 1 when
 * the blocks are exactly old's and B took old's arrays; 0 after a block old does not have,
 * or fewer blocks than old's, with the column marks cleared for a build from the start.
 */
static int columns_in_place(body_work *w, cvm_blockop *B, cvm_blockop *old, blist *L, int *rc)
{
  const cpk_contact_system *s = w->s;
  if (!old->ptr || !old->col || !old->val || old->nc != s->nc) return 0;
  w->in = old;
  for (size_t j = 0; !*rc && !w->miss && j < s->nc; j++) *rc = body_column(w, j, L);
  w->in = NULL;
  if (!*rc && !w->miss && w->found == old->ptr[old->nc]) {
    B->nc = s->nc;
    B->ptr = old->ptr;
    B->col = old->col;
    B->val = old->val;
    old->ptr = old->col = NULL;
    old->val = NULL;
    return 1;
  }
  w->miss = 0;
  memset(w->bmark, 0, (s->nv + 1) * sizeof *w->bmark); /* the columns' marks, as new */
  memset(w->mark, 0, (s->nc + 1) * sizeof *w->mark);
  return 0;
}

static int build_body(const cpk_contact_system *s, const cvm_mass *F, cvm_blockop *B,
                      cvm_blockop *old, cpk_error *err)
{
  body_work w = {0};
  blist L = blist_take(old);
  cvm_mass *own = NULL;
  w.s = s;
  int rc = F ? CPK_OK : cvm_mass_factor(s->M, &own);
  w.F = F ? F : own;
  if (!rc) rc = body_work_alloc(&w, B, old);
  if (!rc) rc = body_free_velocity(&w, B, old);
  if (!rc && !columns_in_place(&w, B, old, &L, &rc) && !rc) {
    for (size_t j = 0; !rc && j < s->nc; j++) rc = body_column(&w, j, &L);
    if (!rc) rc = blist_to_op(&L, s->nc, B, old, w.next);
  }
  blist_keep(&L, B); /* with the index block and X: freed with B */
  cvm_mass_free(own);
  if (rc == CPK_ESINGULAR) return cpk_error_set(err, rc, "the mass matrix M is singular");
  if (rc) return cpk_error_set(err, rc, "computing J^T M^-1 J: %s", cpk_strerror(rc));
  return CPK_OK;
}

/* Local form: the blocks of W (dim per contact, padded to 4), b = q padded + drift. */
static int build_local(const cpk_contact_system *s, cvm_blockop *B, cvm_blockop *old,
                       cpk_error *err)
{
  blist L = blist_take(old);
  size_t dim = s->dim, *slot = cpk_alloc_array(2 * s->nc + 1, sizeof *slot);
  int rc = slot ? CPK_OK : CPK_ENOMEM;
  for (size_t i = 0; slot && i < s->nc; i++) slot[i] = (size_t)-1;
  for (size_t j = 0; !rc && j < s->nc; j++) {
    size_t first = L.n;
    for (size_t b = 0; !rc && b < dim; b++) {
      cpk_int col = (cpk_int)(dim * j + b);
      for (cpk_int k = s->W->p[col]; !rc && k < s->W->p[col + 1]; k++) {
        size_t i = (size_t)s->W->i[k] / dim, a = (size_t)s->W->i[k] % dim;
        double *blk;
        if (slot[i] == (size_t)-1 || slot[i] < first) {
          rc = blist_push(&L, i, j, &blk);
          slot[i] = L.n - 1;
        }
        if (!rc) L.val[16 * slot[i] + 4 * a + b] += s->W->x[k];
      }
    }
  }
  for (size_t c = 0; !rc && c < s->nc; c++)
    for (size_t a = 0; a < 4; a++)
      B->b[4 * c + a] = (a < dim ? s->q[dim * c + a] : 0.0) + s->contacts[c].drift[a];
  if (!rc) rc = blist_to_op(&L, s->nc, B, old, slot + s->nc);
  free(slot);
  blist_keep(&L, B);
  if (rc) return cpk_error_set(err, rc, "building the contact operator: %s", cpk_strerror(rc));
  return CPK_OK;
}

int cvm_blockop_build(const cpk_contact_system *s, const cvm_mass *F, cvm_blockop *B,
                      cvm_blockop *old, cpk_error *err)
{
  cvm_blockop none = {0};
  if (!old) old = &none;
  memset(B, 0, sizeof *B);
  B->b = cvm_reuse((void **)&old->b, old->b ? 4 * old->nc : 0, 4 * s->nc, sizeof *B->b, 1);
  int rc = B->b ? CPK_OK : cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (!rc)
    rc = s->form == CPK_SYSTEM_LOCAL ? build_local(s, B, old, err)
                                     : build_body(s, F, B, old, err);
  cvm_blockop_free(old); /* what B did not take */
  if (rc) cvm_blockop_free(B);
  return rc;
}

void cvm_blockop_free(cvm_blockop *B)
{
  free(B->ptr);
  free(B->col);
  free(B->val);
  free(B->b);
  free(B->vstar);
  free(B->lbi);
  free(B->lbj);
  free(B->lval);
  free(B->scratch);
  free(B->X);
  memset(B, 0, sizeof *B);
}

static int blocks_to_csc(const cvm_blockop *B, cpk_csc **A)
{
  size_t nb = B->ptr[B->nc], nnz = 0;
  cpk_int *ti = cpk_alloc_array(16 * nb, sizeof *ti), *tj = cpk_alloc_array(16 * nb, sizeof *tj);
  double *tx = cpk_alloc_array(16 * nb, sizeof *tx);
  int rc = ti && tj && tx ? CPK_OK : CPK_ENOMEM;
  for (size_t c = 0; !rc && c < B->nc; c++)
    for (size_t k = B->ptr[c]; k < B->ptr[c + 1]; k++)
      for (size_t e = 0; e < 16; e++)
        if (B->val[16 * k + e] != 0.0) {
          ti[nnz] = (cpk_int)(4 * c + e / 4);
          tj[nnz] = (cpk_int)(4 * B->col[k] + e % 4);
          tx[nnz++] = B->val[16 * k + e];
        }
  if (!rc)
    rc = cpk_csc_from_triplets((cpk_int)(4 * B->nc), (cpk_int)(4 * B->nc), (cpk_int)nnz, ti, tj, tx,
                               A);
  free(ti);
  free(tj);
  free(tx);
  return rc;
}

int cpk_contact_system_delassus(const cpk_contact_system *s, cpk_csc **A, double *b, cpk_error *err)
{
  cvm_blockop B;
  *A = NULL;
  int rc = cpk_contact_system_validate(s, err);
  if (rc) return rc;
  if (s->nc == 0) return cpk_error_set(err, CPK_EINVAL, "the system has no contacts");
  rc = cvm_blockop_build(s, NULL, &B, NULL, err);
  if (rc) return rc;
  rc = blocks_to_csc(&B, A);
  if (!rc && b) memcpy(b, B.b, 4 * s->nc * sizeof *b);
  cvm_blockop_free(&B);
  if (rc) return cpk_error_set(err, rc, "building A: %s", cpk_strerror(rc));
  return CPK_OK;
}
