/* solve_file.c: read a cpkit problem file, solve it with Lemke's method, print z. */
#include <stdio.h>
#include <cpkit/cpkit.h>

int main(int argc, char **argv)
{
  cpk_problem *p = NULL;
  cpk_solver *s = NULL;
  cpk_result *r = NULL;
  cpk_settings set;
  cpk_error err;
  int rc;

  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  cpk_init();                                      /* GSL's aborting error handler off */
  cpk_error_clear(&err);
  rc = cpk_problem_read_file(argv[1], &p, &err);   /* err.message: "file:line: ..." */
  if (!rc) rc = cpk_result_alloc(p->n, &r);
  if (!rc) {
    cpk_settings_default(&set);                    /* always start from the defaults */
    set.tol = 1e-10;
    rc = cpk_solver_alloc(cpk_solver_lemke, p, &set, &s, &err);
  }
  if (!rc) rc = cpk_solver_solve(s, r, &err);
  if (rc) {
    fprintf(stderr, "%s\n", err.message[0] ? err.message : cpk_strerror(rc));
  } else {
    printf("%s: %ld pivots, residual %.3g (tolerance %.3g)\n", cpk_status_name(r->status),
           r->iterations, r->residual, r->tolerance);
    for (size_t i = 0; i < r->n; i++)
      printf("z[%zu] = %.17g   w[%zu] = %.17g\n", i, r->z[i], i, r->w[i]);
  }
  cpk_solver_free(s);    /* every *_free accepts NULL */
  cpk_result_free(r);
  cpk_problem_free(p);
  return rc ? 1 : 0;
}
