/* t_fcipm_resolve.c: fcipm re-solves after q, W-value and mu updates (mu alone in place, a contact's mu to 0 and back), dense and sparse W: each answer checked as a friction-cone solution and against a fresh solver's. */
#include <math.h>
#include <stdio.h>
#include "testlib.h"

enum { NC = 3, N = 9 };

/* W = I + A A^T / 9 with the blocks coupling contacts 0 and 2 cut (zero entries in the sparse form). */
static void make_w(double *w)
{
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) {
      double v = i == j ? 1.0 : 0.0;
      for (size_t k = 0; k < N; k++) v += sin((double)(i * N + k + 1)) * sin((double)(j * N + k + 1)) / 9.0;
      w[i * N + j] = (i / 3 == 0 && j / 3 == 2) || (i / 3 == 2 && j / 3 == 0) ? 0.0 : v;
    }
}

/* The block-cut W is not PSD in general: add its row sums' excess to the diagonal. */
static void make_monotone(double *w)
{
  for (size_t i = 0; i < N; i++) {
    double off = 0.0;
    for (size_t j = 0; j < N; j++) off += i == j ? 0.0 : fabs(w[i * N + j]);
    if (w[i * N + i] < off) w[i * N + i] = off + 0.1;
  }
}

static cpk_matrix *storage(const double *w, int sparse)
{
  cpk_int ti[N * N], tj[N * N];
  double tx[N * N];
  size_t nnz = 0;
  cpk_matrix *M = NULL;
  if (!sparse) return cpk_matrix_from_dense_array(N, N, w, N, 0, &M) ? NULL : M;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++)
      if (w[i * N + j] != 0.0) ti[nnz] = (cpk_int)i, tj[nnz] = (cpk_int)j, tx[nnz++] = w[i * N + j];
  return cpk_matrix_from_triplets(N, N, nnz, ti, tj, tx, &M) ? NULL : M;
}

/* The bound solver's answer holds, and so does a fresh solver's on the same data. */
static void check(const cpk_problem *p, cpk_solver *s, cpk_result *r, cpk_result *fresh,
                  const char *what)
{
  int rc = cpk_solver_solve(s, r, NULL), frc = cpk_solve(p, "fcipm", NULL, fresh, NULL);
  double diff = 0.0;
  for (size_t i = 0; i < N; i++) diff = fmax(diff, fabs(r->z[i] - fresh->z[i]));
  t_ok(!rc && !frc && r->status == CPK_STATUS_SOLVED && t_is_fc_solution(p, r->z, 1e-6) &&
           diff < 1e-5,
       "%s: re-solve solved (%s), a friction-cone solution, %.2g from a fresh solver's", what,
       cpk_status_name(r->status), diff);
}

static void run(int sparse)
{
  double w[N * N], q[N], mu[NC] = {0.3, 0.5, 0.8};
  const char *form = sparse ? "sparse W" : "dense W";
  char what[96];
  make_w(w);
  make_monotone(w);
  for (size_t i = 0; i < N; i++) q[i] = i % 3 == 0 ? -1.0 + 0.2 * (double)i / 3.0 : 0.4 * cos((double)i);
  cpk_matrix *M = storage(w, sparse);
  cpk_problem *p = NULL;
  cpk_solver *s = NULL;
  cpk_result *r = NULL, *fresh = NULL;
  int rc = M ? cpk_problem_alloc_friction_cone(M, q, 3, mu, &p) : CPK_ENOMEM;
  if (!rc) rc = cpk_result_alloc(N, &r) || cpk_result_alloc(N, &fresh);
  if (!rc) rc = cpk_solver_alloc(cpk_solver_fcipm, p, NULL, &s, NULL);
  t_ok(!rc, "%s: problem and solver", form);
  if (rc) goto done;
  snprintf(what, sizeof what, "%s, first solve", form);
  check(p, s, r, fresh, what);
  for (size_t i = 0; i < N; i++) q[i] *= i % 2 ? 1.3 : 0.8;
  rc = cpk_problem_update_q(p, q);
  snprintf(what, sizeof what, "%s, new q", form);
  if (!rc) check(p, s, r, fresh, what);
  for (size_t i = 0; i < N * N; i++) w[i] *= i % (N + 1) == 0 ? 1.2 : 0.9;
  if (sparse) { /* the same pattern with the new values, in CSC order */
    cpk_matrix *M2 = storage(w, 1);
    rc = M2 ? cpk_problem_update_matrix_values(p, M2->csc->x) : CPK_ENOMEM;
    cpk_matrix_free(M2);
  } else {
    rc = cpk_problem_update_matrix_dense(p, w, N, 0);
  }
  snprintf(what, sizeof what, "%s, new W values", form);
  if (!rc) check(p, s, r, fresh, what);
  mu[2] = 0.4; /* mu alone, no contact to or from 0: refreshed in place, same layout */
  rc = cpk_problem_update_mu(p, mu);
  snprintf(what, sizeof what, "%s, mu_2 = 0.4 in place", form);
  if (!rc) check(p, s, r, fresh, what);
  mu[1] = 0.0; /* contact 1 loses its tangential unknowns: the workspace is laid out again */
  rc = cpk_problem_update_mu(p, mu);
  snprintf(what, sizeof what, "%s, mu_1 = 0", form);
  if (!rc) check(p, s, r, fresh, what);
  mu[1] = 0.6;
  mu[2] = 0.2;
  rc = cpk_problem_update_mu(p, mu);
  snprintf(what, sizeof what, "%s, mu_1 = 0.6, mu_2 = 0.2", form);
  if (!rc) check(p, s, r, fresh, what);
  t_ok(!rc, "%s: every update taken", form);
done:
  cpk_solver_free(s);
  cpk_result_free(r);
  cpk_result_free(fresh);
  cpk_problem_free(p);
  cpk_matrix_free(M);
}

int main(void)
{
  cpk_init();
  run(0);
  run(1);
  return t_done();
}
