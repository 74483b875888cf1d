/* solution_count.c: the exact number of solutions of a small affine problem, by the enum solver. */
#include <stdlib.h>
#include <string.h>
#include <cpkit/check.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>

static int keep_solutions(const cpk_result *res, cpk_check_report *r)
{
  size_t total;
  if (cpk_size_mul(res->nsolutions, res->n, &total)) return CPK_EOVERFLOW;
  double *s = cpk_alloc_array(total, sizeof *s);
  if (!s) return CPK_ENOMEM;
  if (total) memcpy(s, res->solutions, total * sizeof *s);
  free(r->solutions);
  r->solutions = s;
  r->nsolutions = res->nsolutions;
  r->n = res->n;
  return CPK_OK;
}

static int count_entry(const cpk_result *res, cpk_check_report *r)
{
  const char *nm = "solution_count";
  if (res->status == CPK_STATUS_NO_SOLUTION)
    return cpk_check_report_add(r, nm, CPK_VERDICT_HOLDS,
                                "solution count: none (all complementary index sets enumerated)");
  if (res->status != CPK_STATUS_SOLVED)
    return cpk_check_report_add(r, nm, CPK_VERDICT_NOT_DECIDED, "solution count: not decided (%s)",
                                res->message);
  if (res->nsolutions == 1)
    return cpk_check_report_add(r, nm, CPK_VERDICT_HOLDS, "solution count: exactly one (%s)",
                                res->message);
  return cpk_check_report_add(r, nm, CPK_VERDICT_HOLDS, "solution count: several (%s)",
                              res->message);
}

int cpk_check_solution_count(const cpk_problem *p, const cpk_check_settings *s,
                             cpk_check_report *r, cpk_error *err)
{
  cpk_check_settings def;
  if (!s) {
    cpk_check_settings_default(&def);
    s = &def;
  }
  if (!p || !r) return cpk_error_set(err, CPK_EINVAL, "check: NULL problem or report");
  if (p->kind == CPK_KIND_NONLINEAR_MCP || p->n > s->max_n) {
    int rc = cpk_check_report_add(r, "solution_count", CPK_VERDICT_NOT_DECIDED,
                                  "solution count: not decided (%s)",
                                  p->kind == CPK_KIND_NONLINEAR_MCP ? "nonlinear problem"
                                                                    : "n too large");
    return rc ? cpk_error_set(err, rc, "check: out of memory") : CPK_OK;
  }
  cpk_settings set;
  cpk_settings_default(&set);
  set.enumeration.max_n = s->max_n;
  cpk_result *res = NULL;
  int rc = cpk_result_alloc(p->n, &res);
  if (!rc) rc = cpk_solve(p, "enum", &set, res, err);
  if (!rc) rc = keep_solutions(res, r);
  if (!rc) rc = count_entry(res, r);
  cpk_result_free(res);
  return rc ? (err && err->code ? rc : cpk_error_set(err, rc, "check: solution count failed")) : CPK_OK;
}

int cpk_check_problem(const cpk_problem *p, const cpk_check_settings *s, cpk_check_report *r,
                      cpk_error *err)
{
  if (!p || !r) return cpk_error_set(err, CPK_EINVAL, "check: NULL problem or report");
  if (p->kind == CPK_KIND_NONLINEAR_MCP)
    return cpk_error_set(err, CPK_EUNSUP, "check: nonlinear problems have no matrix to classify");
  int rc = cpk_check_matrix_classes(p->M, s, r, err);
  if (!rc) rc = cpk_check_implications(r, cpk_problem_has_lcp_bounds(p));
  if (rc) return err && err->code ? rc : cpk_error_set(err, rc, "check: out of memory");
  if (!s || s->count_solutions) rc = cpk_check_solution_count(p, s, r, err);
  return rc;
}
