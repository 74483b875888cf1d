/* solve_file.c: the smallest useful cpkit program: read a problem file, solve it with Lemke, print z. */
#include <stdio.h>
#include <cpkit/cpkit.h>

int main(int argc, char **argv)
{
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  cpk_error err;
  if (argc != 2) {
    fprintf(stderr, "usage: %s PROBLEM.cpk\n", argv[0]);
    return 2;
  }
  if (cpk_problem_read_file(argv[1], &p, &err)) {
    fprintf(stderr, "%s\n", err.message); /* file:line: what is wrong */
    return 1;
  }
  int rc = cpk_result_alloc(p->n, &r);
  if (!rc) rc = cpk_solve(p, "lemke", NULL, r, &err); /* NULL settings: defaults */
  if (rc) {
    fprintf(stderr, "%s\n", rc == CPK_ENOMEM ? cpk_strerror(rc) : err.message);
  } else {
    printf("%s after %ld pivots, residual %.3g\n", cpk_status_name(r->status), r->iterations,
           r->residual);
    for (size_t i = 0; i < p->n; i++) printf("z[%zu] = %.17g\n", i + 1, r->z[i]);
  }
  cpk_result_free(r);
  cpk_problem_free(p);
  return rc ? 1 : 0;
}
