/* compile_update.c: compiling a system again into the problem and map of an earlier compile when its structure is unchanged: values written in place, the Jacobian pattern kept (the time-stepper's path). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

/*
 * A time-stepper compiles the same contacts step after step with new values
 * (normals, lever arms, inertia, gaps). The costly part of a compile is
 * recording and sorting the Jacobian pattern and building a new problem;
 * here the new system is laid out in a fresh map (cheap: linear in the
 * unknowns), checked to have the old one's unknowns and pattern, and its
 * values are written into the old problem through cpk_problem_update_*
 * (so a bound solver sees the change counters move). The old map then takes
 * the new map's contents, so a nonlinear problem's params stay valid.
 * The Jacobian's entries are emitted structurally (compiler.c: never skipped on
 * a value that happens to be zero), so the same structure emits exactly the
 * recorded entries; a cone W' whose new entries are a subset of the old
 * pattern keeps it, with zeros stored where the new values have none (written
 * straight into the problem's values, no new problem built).
 */

#define MISMATCH CPK_EUNSUP

static int same_unknowns(const cpk_varmap *A, const cpk_varmap *B)
{
  if (A->model != B->model || A->mixed != B->mixed || A->affine != B->affine ||
      A->cone != B->cone || A->cone_dim != B->cone_dim || A->n != B->n || A->nv != B->nv ||
      A->nc != B->nc || A->nvars != B->nvars || A->sysform != B->sysform ||
      (A->h > 0) != (B->h > 0))
    return 0;
  for (size_t c = 0; c < A->nc; c++)
    if (A->cc[c].first != B->cc[c].first || A->cc[c].m != B->cc[c].m) return 0;
  for (size_t k = 0; k < A->nvars; k++)
    if (A->vars[k].role != B->vars[k].role || A->vars[k].index != B->vars[k].index ||
        A->gidx[k] != B->gidx[k])
      return 0;
  return 1;
}

static int same_csc_pattern(const cpk_csc *A, const cpk_csc *B)
{
  if (A->m != B->m || A->n != B->n || A->p[A->n] != B->p[B->n]) return 0;
  return memcmp(A->p, B->p, ((size_t)A->n + 1) * sizeof *A->p) == 0 &&
         memcmp(A->i, B->i, (size_t)A->p[A->n] * sizeof *A->i) == 0;
}

static int same_array(const void *a, const void *b, size_t n, size_t size)
{
  return n == 0 || memcmp(a, b, n * size) == 0;
}

/* 1 when the chain rule of A emits the same entries in the same order as B's (the
 * unknowns already agree): which unknowns apply an impulse, the wrenches' rows and M's
 * pattern (mixed), the blocks of the contact operator (reduced); the models' rows mark
 * their dependences structurally. The distributed model's influence blocks are not
 * compared: its updates check every entry instead. */
static int same_structure(const cpk_varmap *A, const cpk_varmap *B)
{
  if (A->influence || B->influence || A->has_B != B->has_B) return 0;
  for (size_t k = 0; k < A->nvars; k++)
    if (cvm_var_acts(&A->vars[k]) != cvm_var_acts(&B->vars[k])) return 0;
  if (A->mixed && !(same_array(A->wptr, B->wptr, A->nc + 1, sizeof *A->wptr) &&
                    same_array(A->wrow, B->wrow, A->wptr[A->nc], sizeof *A->wrow) &&
                    same_csc_pattern(A->M, B->M)))
    return 0;
  return !A->has_B || (same_array(A->B.ptr, B->B.ptr, A->nc + 1, sizeof *A->B.ptr) &&
                       same_array(A->B.col, B->B.col, A->B.ptr[A->nc], sizeof *A->B.col));
}

static int same_values(const double *a, const double *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!(a[i] == b[i])) return 0;
  return 1;
}

/* New bounds into p (an LCP must stay one); untouched when equal, so rev.bounds moves
 * only on a real change. */
static int update_bounds(cpk_problem *p, const double *lo, const double *hi)
{
  int lcp = 1;
  for (size_t i = 0; i < p->n; i++) lcp &= lo[i] == 0.0 && hi[i] == INFINITY;
  if (p->kind == CPK_KIND_LCP) return lcp ? CPK_OK : MISMATCH;
  if (p->kind == CPK_KIND_AFFINE_MCP && lcp) return MISMATCH; /* a new compile gives an LCP */
  if (same_values(lo, p->lower, p->n) && same_values(hi, p->upper, p->n)) return CPK_OK;
  return cpk_problem_update_bounds(p, lo, hi) ? MISMATCH : CPK_OK;
}

/* M's values from the Jacobian x on C's pattern: CSC in place, or dense (row-major). */
static int update_matrix(cpk_problem *p, const cpk_varmap *C, const double *x)
{
  const cpk_csc *P = C->pattern;
  if (p->M->format == CPK_MATRIX_CSC) return cpk_problem_update_matrix_values(p, x);
  double *d = cpk_calloc_array(C->n * C->n, sizeof *d); /* n^2 was allocated by the compile */
  if (!d) return CPK_ENOMEM;
  for (cpk_int j = 0; j < P->n; j++)
    for (cpk_int k = P->p[j]; k < P->p[j + 1]; k++) d[(size_t)P->i[k] * C->n + (size_t)j] = x[k];
  int rc = cpk_problem_update_matrix_values(p, d);
  free(d);
  return rc;
}

/* The nonlinear rows' scales (cvm_row_scales) of the new values, as a compile sets
 * them: the Newton methods' merits read them at every solve. work: n doubles. */
static int update_row_scale(const cpk_varmap *C, cpk_problem *p, double *work)
{
  cvm_row_scales(C, work);
  return cpk_problem_set_row_scale(p, work) == CPK_EINVAL ? CPK_EBADFUNC : CPK_OK;
}

/* T's update arrays, at least n doubles (NULL: out of memory); T keeps them. */
static double *update_work(cpk_varmap *T, size_t n)
{
  if (T->upd_cap < n) {
    double *w = cpk_alloc_array(n, sizeof *w);
    if (!w) return NULL;
    free(T->upd);
    T->upd = w;
    T->upd_cap = n;
  }
  return T->upd;
}

/* The box MCP forms: C (new layout) borrows T's pattern to check and evaluate; the values,
 * q (or the row scales) and the bounds go into T's update arrays. */
static int update_mcp(cpk_varmap *C, cpk_varmap *T, cpk_problem *p)
{
  if (p->n != C->n || !T->pattern) return MISMATCH;
  if (C->affine ? (p->kind != CPK_KIND_LCP && p->kind != CPK_KIND_AFFINE_MCP) ||
                      (p->M->format == CPK_MATRIX_CSC && !same_csc_pattern(p->M->csc, T->pattern))
                : p->kind != CPK_KIND_NONLINEAR_MCP || p->params != T)
    return MISMATCH;
  C->pattern = T->pattern;
  C->pos = T->pos;
  C->ntrip = T->ntrip;
  size_t nx = (size_t)C->pattern->p[C->pattern->n] + 1, n4;
  double *x = cpk_size_mul(C->n, 4, &n4) || n4 > SIZE_MAX - nx ? NULL : update_work(T, nx + n4);
  double *q = x ? x + nx : NULL, *lo = q ? q + C->n : NULL, *hi = lo ? lo + C->n : NULL;
  double *z = hi ? hi + C->n : NULL;
  int rc = x ? cvm_pattern_values(C, q, x, z, !same_structure(C, T)) : CPK_ENOMEM;
  if (!rc) cvm_bounds_into(C, lo, hi);
  if (!rc) rc = update_bounds(p, lo, hi);
  if (!rc && C->affine) rc = update_matrix(p, C, x);
  if (!rc && C->affine) rc = cpk_problem_update_q(p, q) ? CPK_EBADFUNC : CPK_OK;
  if (!rc && !C->affine) rc = update_row_scale(C, p, q);
  if (rc) { /* T keeps its pattern */
    C->pattern = NULL;
    C->pos = NULL;
  } else {
    T->pattern = NULL;
    T->pos = NULL;
  }
  return rc;
}

/* A dense W': a new cone problem built as a compile does, its W' copied into p. */
static int update_cone_dense(const cpk_varmap *C, cpk_problem *p)
{
  cpk_problem *fresh = NULL;
  int rc = cvm_cone_emit(C, &C->options, &fresh);
  const cpk_matrix *F = rc ? NULL : fresh->M;
  if (!rc && (F->format != CPK_MATRIX_DENSE || F->m != p->M->m || F->n != p->M->n)) rc = MISMATCH;
  if (!rc) rc = cpk_problem_update_matrix_dense(p, F->dense->data, F->dense->tda, 0);
  cpk_problem_free(fresh);
  return rc;
}

/* The cone form: W' written straight into p's CSC pattern (an entry outside it is a
 * structural change), or through a new problem when W' is dense; then q' and mu. The
 * arrays are T's (the compiled map's), so the stepper's update allocates nothing here. */
static int update_cone(cpk_varmap *C, cpk_varmap *T, cpk_problem *p)
{
  size_t n = C->cone_dim * C->nc;
  if (p->kind != CPK_KIND_FRICTION_CONE || p->n != n || p->nc != C->nc ||
      p->cone_dim != C->cone_dim)
    return MISMATCH;
  int csc = p->M->format == CPK_MATRIX_CSC;
  size_t nnz = csc ? cpk_matrix_nnz(p->M) : 0, nq = n + C->nc + 1; /* q', mu (n, nc: small) */
  double *w = nnz > SIZE_MAX - nq ? NULL : update_work(T, nnz + nq);
  double *x = csc && w ? w : NULL, *q = w ? w + nnz : NULL, *mu = q ? q + n : NULL;
  int rc = w ? CPK_OK : CPK_ENOMEM;
  if (!rc && csc) {
    rc = cvm_cone_scatter(C, p->M->csc, x) == CPK_EUNSUP ? MISMATCH : CPK_OK;
    if (!rc) rc = cpk_problem_update_matrix_values(p, x);
  } else if (!rc) {
    rc = update_cone_dense(C, p);
  }
  if (!rc) cvm_cone_vector(C, q, mu);
  if (!rc) rc = cpk_problem_update_q(p, q);
  if (!rc && !same_values(p->mu, mu, p->nc)) rc = cpk_problem_update_mu(p, mu);
  return rc == CPK_EINVAL ? CPK_EBADFUNC : rc;
}

int cpk_compile_update(const cpk_contact_system *s, cpk_problem *problem, cpk_varmap *map,
                       cpk_error *err)
{
  if (!s || !problem || !map) return cpk_error_set(err, CPK_EINVAL, "no system, problem or map");
  int rc = cpk_contact_system_validate(s, err);
  return rc ? rc : cpk_compile_update_unchecked(s, problem, map, err);
}

int cpk_compile_update_unchecked(const cpk_contact_system *s, cpk_problem *problem,
                               cpk_varmap *map, cpk_error *err)
{
  if (!s || !problem || !map) return cpk_error_set(err, CPK_EINVAL, "no system, problem or map");
  int rc;
  /* the layout the last update replaced is laid out again in its own arrays */
  cpk_varmap *C = map->spare, old;
  map->spare = NULL;
  if (!C) C = cvm_varmap_new(map->model, &map->options, map->setup, map->rows);
  if (!C) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  cvm_varmap_recycle(C, &old);
  rc = cvm_compile_layout(C, s, &old, err);
  cvm_varmap_release(&old);
  if (!rc && !same_unknowns(C, map)) rc = MISMATCH;
  if (!rc) rc = C->cone ? update_cone(C, map, problem) : update_mcp(C, map, problem);
  if (!rc) {
    cpk_varmap tmp = *map; /* the map keeps its address (a nonlinear problem's params) */
    *map = *C;
    *C = tmp;
    map->upd = C->upd; /* and its update arrays */
    map->upd_cap = C->upd_cap;
    C->upd = NULL;
    C->upd_cap = 0;
    if (!map->cone && !map->affine) cpk_problem_touch_params(problem);
    map->spare = C; /* the replaced layout, for the next update */
    C = NULL;
  }
  cpk_varmap_free(C);
  if (rc == MISMATCH)
    return cpk_error_set(err, rc, "the system's structure differs from the compiled one");
  if (rc && err && !err->message[0]) cpk_error_set(err, rc, "updating: %s", cpk_strerror(rc));
  return rc;
}
