/* t_shared_w.c: nsn reads W from the problem (no copy of its own) and the text reader builds a CSC-ordered M in place: re-solves after W's values change, and the same matrix whatever the order of the triplets in the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

#define NC 12
#define N (3 * NC)

/* W: a block tridiagonal SPD matrix in CSC (each contact's 3x3 block, normal couplings to its neighbours). */
static double w_entry(size_t i, size_t j)
{
  size_t a = i / 3, b = j / 3;
  if (a == b) return i == j ? 3.0 + 0.1 * (double)(i % 3) : 0.2 * sin((double)(i + j));
  if ((a + 1 == b || b + 1 == a) && i % 3 == 0 && j % 3 == 0) return -0.5;
  return 0.0;
}

static cpk_problem *cone_problem(void)
{
  cpk_int ti[N * 9], tj[N * 9];
  double tx[N * 9], q[N], mu[NC];
  size_t nnz = 0;
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < N; i++)
      if (w_entry(i, j) != 0.0) ti[nnz] = (cpk_int)i, tj[nnz] = (cpk_int)j, tx[nnz++] = w_entry(i, j);
  for (size_t i = 0; i < N; i++) q[i] = i % 3 == 0 ? -1.0 - 0.3 * sin((double)i) : 0.4 * cos((double)i);
  for (size_t c = 0; c < NC; c++) mu[c] = 0.3 + 0.05 * (double)(c % 4);
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_from_triplets(N, N, nnz, ti, tj, tx, &W) == CPK_OK)
    cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  cpk_matrix_free(W);
  return p;
}

/* W's values changed in the problem after nsn was bound: the re-solve must use them. */
static void test_resolve_after_values(void)
{
  cpk_problem *p = cone_problem(), *fresh = NULL;
  cpk_solver *s = NULL, *s2 = NULL;
  cpk_result *r = NULL, *r2 = NULL;
  cpk_error err;
  if (!t_ok(p && cpk_result_alloc(N, &r) == CPK_OK && cpk_result_alloc(N, &r2) == CPK_OK &&
                cpk_solver_alloc(cpk_solver_nsn, p, NULL, &s, &err) == CPK_OK,
            "nsn bound to a CSC cone problem"))
    goto done;
  t_ok(cpk_solver_solve(s, r, &err) == CPK_OK && t_is_fc_solution(p, r->z, 1e-7),
       "first solve: an answer of the problem (independent check)");
  size_t nnz = (size_t)p->M->csc->p[N];
  double *v = malloc(nnz * sizeof *v);
  if (!v) goto done;
  for (size_t k = 0; k < nnz; k++) v[k] = p->M->csc->x[k] * (k % 3 == 0 ? 2.0 : 0.5);
  cpk_problem_update_matrix_values(p, v);
  free(v);
  t_ok(cpk_solver_solve(s, r, &err) == CPK_OK && r->status == CPK_STATUS_SOLVED &&
           t_is_fc_solution(p, r->z, 1e-7),
       "re-solve after W's values changed: an answer of the updated problem (independent check)");
  /* a new solver on a copy of the updated problem goes through the same iterates */
  double d = INFINITY;
  if (cpk_problem_copy(p, &fresh) == CPK_OK &&
      cpk_solver_alloc(cpk_solver_nsn, fresh, NULL, &s2, &err) == CPK_OK &&
      cpk_solver_solve(s2, r2, &err) == CPK_OK) {
    d = 0.0;
    for (size_t i = 0; i < N; i++) d = fmax(d, fabs(r->z[i] - r2->z[i]));
  }
  t_ok(d <= 1e-12, "re-solve = a new solver on a copy of the updated problem (max |dz| %.3g)", d);
done:
  cpk_solver_free(s);
  cpk_solver_free(s2);
  cpk_result_free(r);
  cpk_result_free(r2);
  cpk_problem_free(p);
  cpk_problem_free(fresh);
}

/* The problem's text with W's entries in the order given by perm (NULL: CSC order); split: entry 0 written as two halves. */
static char *problem_text(const cpk_problem *p, const size_t *perm, int split)
{
  const cpk_csc *W = p->M->csc;
  size_t nnz = (size_t)W->p[N], cap = 64 * (nnz + 2 * N) + 256, len = 0;
  char *t = malloc(cap);
  cpk_int *col = malloc(nnz * sizeof *col);
  if (!t || !col) {
    free(t), free(col);
    return NULL;
  }
  for (cpk_int j = 0; j < N; j++)
    for (cpk_int k = W->p[j]; k < W->p[j + 1]; k++) col[k] = j;
  len += (size_t)snprintf(t + len, cap - len, "cpkit-problem 1\ntype friction_cone\nn %d\ndim 3\nM coord %zu\n",
                          N, nnz + (split ? 1 : 0));
  for (size_t m = 0; m < nnz; m++) {
    size_t k = perm ? perm[m] : m;
    double x = W->x[k];
    if (split && k == 0) {
      len += (size_t)snprintf(t + len, cap - len, "%lld %lld %.17g\n", (long long)W->i[k] + 1,
                              (long long)col[k] + 1, x / 2);
      x /= 2;
    }
    len += (size_t)snprintf(t + len, cap - len, "%lld %lld %.17g\n", (long long)W->i[k] + 1,
                            (long long)col[k] + 1, x);
  }
  len += (size_t)snprintf(t + len, cap - len, "q\n");
  for (size_t i = 0; i < N; i++) len += (size_t)snprintf(t + len, cap - len, "%.17g\n", p->q[i]);
  len += (size_t)snprintf(t + len, cap - len, "mu\n");
  for (size_t c = 0; c < NC; c++) len += (size_t)snprintf(t + len, cap - len, "%.17g\n", p->mu[c]);
  snprintf(t + len, cap - len, "end\n");
  free(col);
  return t;
}

/* 1 if A and B hold the same CSC arrays, bit for bit. */
static int same_csc(const cpk_csc *A, const cpk_csc *B)
{
  if (A->m != B->m || A->n != B->n || memcmp(A->p, B->p, ((size_t)A->n + 1) * sizeof *A->p)) return 0;
  size_t nnz = (size_t)A->p[A->n];
  return !memcmp(A->i, B->i, nnz * sizeof *A->i) && !memcmp(A->x, B->x, nnz * sizeof *A->x);
}

static int read_text(const char *text, cpk_problem **out)
{
  cpk_error err;
  *out = NULL;
  return text ? cpk_problem_read_string(text, "t", out, &err) : CPK_ENOMEM;
}

/* The reader's in-place CSC (triplets in CSC order) and its general assembly give one matrix. */
static void test_reader_orders(void)
{
  cpk_problem *p = cone_problem(), *a = NULL, *b = NULL, *c = NULL;
  if (!t_ok(p != NULL, "the cone problem")) return;
  size_t nnz = (size_t)p->M->csc->p[N], *perm = malloc(nnz * sizeof *perm);
  for (size_t m = 0; perm && m < nnz; m++) perm[m] = (m * 7 + 3) % nnz; /* gcd(7, nnz) = 1 checked below */
  char *sorted = problem_text(p, NULL, 0), *shuffled = perm && nnz % 7 ? problem_text(p, perm, 0) : NULL;
  char *dup = problem_text(p, NULL, 1);
  t_ok(read_text(sorted, &a) == CPK_OK && same_csc(a->M->csc, p->M->csc),
       "triplets in CSC order: the CSC built in place is W, bit for bit");
  t_ok(read_text(shuffled, &b) == CPK_OK && same_csc(b->M->csc, p->M->csc),
       "the same triplets shuffled (general assembly): the same CSC");
  /* a repeated (row, column) in CSC order is not CSC: summed by the general assembly */
  t_ok(read_text(dup, &c) == CPK_OK && same_csc(c->M->csc, p->M->csc),
       "entry 0 written as two halves in CSC order: summed, the same CSC");
  cpk_problem_free(c);
  c = NULL;
  /* an index out of range in CSC-ordered triplets is still refused */
  char *bad = sorted ? strstr(sorted, "M coord") : NULL;
  if (bad) {
    bad = strchr(bad, '\n') + 1; /* the first entry's row: 1 (an 'N + 1' would not fit: write 0) */
    bad[0] = '0';
  }
  t_ok(bad && read_text(sorted, &c) != CPK_OK && c == NULL, "row index 0 (1-based) in CSC order: refused");
  free(sorted), free(shuffled), free(dup), free(perm);
  cpk_problem_free(a), cpk_problem_free(b), cpk_problem_free(c), cpk_problem_free(p);
}

int main(void)
{
  test_resolve_after_values();
  test_reader_orders();
  return t_done();
}
