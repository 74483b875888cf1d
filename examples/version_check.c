/* version_check.c: an outside program that compares the version macros with the linked library, turns GSL's aborting handler off, and solves a small LCP through a dense GSL matrix. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <cpkit/cpkit.h>

int main(void)
{
  char built[32];
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_matrix *M = NULL;
  cpk_error err;
  double q[2] = {-1, -1};
  gsl_set_error_handler_off(); /* a library caller decides how errors end, not GSL */
  snprintf(built, sizeof built, "%d.%d.%d", CPK_VERSION_MAJOR, CPK_VERSION_MINOR, CPK_VERSION_PATCH);
  if (strcmp(built, CPK_VERSION) || strcmp(cpk_version(), CPK_VERSION)) {
    printf("version mismatch: macros %s, header %s, library %s\n", built, CPK_VERSION, cpk_version());
    return 1;
  }
  cpk_matrix_alloc_dense(2, 2, &M);
  gsl_matrix_set(M->dense, 0, 0, 2);
  gsl_matrix_set(M->dense, 1, 1, 1);
  if (cpk_problem_alloc_lcp(M, q, &p) || cpk_result_alloc(2, &r) || cpk_solve(p, "lemke", NULL, r, &err))
    return 1;
  printf("%s %s z = (%g, %g)\n", CPK_VERSION, cpk_status_name(r->status), r->z[0], r->z[1]);
  int ok = r->status == CPK_STATUS_SOLVED && fabs(r->z[0] - 0.5) < 1e-12 && fabs(r->z[1] - 1.0) < 1e-12;
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_matrix_free(M);
  return ok ? 0 : 1;
}
