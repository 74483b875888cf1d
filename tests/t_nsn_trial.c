/* t_nsn_trial.c: nsn keeps the accepted line-search trial's u = u + t W dir: long, badly scaled cold solves still claim only answers that check independently, and fail honestly. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "testlib.h"

/* W = D (J J^T + eps I) D, q = D q0: nc contacts of 3 on nb bodies, each contact's rows scaled
 * by D = 10^[-3, 3] (as a contact between a light and a heavy body), mu in [0.1, 1.5]. */
static cpk_problem *scaled_problem(gsl_rng *g, size_t nc, size_t nb, double eps)
{
  size_t n = 3 * nc, m = 6 * nb;
  double *J = calloc(n * m, sizeof *J), *q = malloc(n * sizeof *q), *mu = malloc(nc * sizeof *mu);
  double *D = malloc(n * sizeof *D);
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  if (J && q && mu && D && !cpk_matrix_alloc_dense(n, n, &W)) {
    for (size_t c = 0; c < nc; c++) {
      size_t b1 = gsl_rng_uniform_int(g, nb), b2 = gsl_rng_uniform_int(g, nb);
      double dc = pow(10.0, 6.0 * gsl_rng_uniform(g) - 3.0);
      for (size_t a = 0; a < 3; a++) {
        D[3 * c + a] = dc;
        for (size_t k = 0; k < 6; k++) {
          J[(3 * c + a) * m + 6 * b1 + k] += gsl_rng_uniform(g) - 0.5;
          if (b2 != b1) J[(3 * c + a) * m + 6 * b2 + k] += gsl_rng_uniform(g) - 0.5;
        }
      }
      mu[c] = 0.1 + 1.4 * gsl_rng_uniform(g);
    }
    for (size_t i = 0; i < n; i++) {
      q[i] = D[i] * (2.0 * gsl_rng_uniform(g) - (i % 3 == 0 ? 1.5 : 1.0));
      for (size_t j = 0; j < n; j++) {
        double s = i == j ? eps : 0.0;
        for (size_t k = 0; k < m; k++) s += J[i * m + k] * J[j * m + k];
        gsl_matrix_set(W->dense, i, j, D[i] * s * D[j]);
      }
    }
    cpk_problem_alloc_friction_cone(W, q, 3, mu, &p);
  }
  cpk_matrix_free(W);
  free(J);
  free(q);
  free(mu);
  free(D);
  return p;
}

int main(void)
{
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, t_seed());
  int total = 40, solved = 0, checked = 0, long_solves = 0, honest = 1;
  for (int k = 0; k < total; k++) {
    size_t nc = 4 + (size_t)(k % 6) * 3, nb = nc / 2 + 1 + (size_t)(k % 3); /* W of full rank */
    cpk_problem *p = scaled_problem(g, nc, nb, k % 2 ? 1e-6 : 1e-10);
    cpk_result *r = NULL;
    cpk_error err;
    if (!p || cpk_result_alloc(p->n, &r) || cpk_solve(p, "nsn", NULL, r, &err)) {
      t_ok(0, "problem %d: set-up or call failed", k);
      cpk_result_free(r);
      cpk_problem_free(p);
      continue;
    }
    if (r->status == CPK_STATUS_SOLVED) {
      solved++;
      long_solves += r->iterations > 8; /* beyond nsn's refresh of u (U_REFRESH) */
      checked += t_is_fc_solution(p, r->z, 1e-6 * cpk_problem_tolerance(p, 1.0));
    } else {
      honest &= !(r->residual <= r->tolerance);
      t_diag("problem %d (%zu contacts): %s, %s", k, nc, cpk_status_name(r->status), r->message);
    }
    cpk_result_free(r);
    cpk_problem_free(p);
  }
  t_ok(solved >= total - 2, "badly scaled cold solves: %d of %d solved", solved, total);
  t_ok(checked == solved, "every answer claimed solved passes the independent Coulomb check (%d)",
       checked);
  t_ok(long_solves > 0, "%d solves ran past the refresh of u (> 8 iterations)", long_solves);
  t_ok(honest, "an unsolved status comes with a residual above the tolerance");
  gsl_rng_free(g);
  return t_done();
}
