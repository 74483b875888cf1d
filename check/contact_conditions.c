/* contact_conditions.c: seed 000 Theorem 1 on a contact system (rank of J, PD of A, friction bounds, part B) and the Stewart-Trinkle condition. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/check.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "check_internal.h"
/* The part (B) LP is solved densely by Lemke: beyond this size it is left not decided. */
#define CHK_LP_MAX_N 1000

/* Eigenvalues of A restricted to the rows whose diagonal is non-zero (absent wrench columns, e.g. no torsion). */
static int delassus_spectrum(const cpk_csc *A, size_t *kept, double *lmin, double *lmax)
{
  size_t m = (size_t)A->n, k = 0;
  size_t *idx = cpk_alloc_array(m, sizeof *idx);
  if (!idx) return CPK_ENOMEM;
  for (size_t j = 0; j < m; j++)
    for (cpk_int p = A->p[j]; p < A->p[j + 1]; p++)
      if ((size_t)A->i[p] == j && A->x[p] != 0.0) idx[k++] = j;
  *kept = k;
  *lmin = *lmax = 0.0;
  gsl_matrix *B = k ? gsl_matrix_calloc(k, k) : NULL;
  gsl_vector *ev = k ? gsl_vector_alloc(k) : NULL;
  gsl_eigen_symm_workspace *w = k ? gsl_eigen_symm_alloc(k) : NULL;
  int rc = (k && (!B || !ev || !w)) ? CPK_ENOMEM : CPK_OK;
  if (!rc && k) {
    for (size_t b = 0; b < k; b++)
      for (cpk_int p = A->p[idx[b]]; p < A->p[idx[b] + 1]; p++)
        for (size_t a = 0; a < k; a++)
          if ((size_t)A->i[p] == idx[a]) gsl_matrix_set(B, a, b, A->x[p]);
    gsl_eigen_symm(B, ev, w);
    *lmin = gsl_vector_min(ev);
    *lmax = gsl_vector_max(ev);
  }
  gsl_matrix_free(B);
  gsl_vector_free(ev);
  gsl_eigen_symm_free(w);
  free(idx);
  return rc;
}

static int theorem1(const cpk_contact_system *sys, const cpk_check_settings *s,
                    cpk_check_report *r, cpk_error *err)
{
  size_t m = 4 * sys->nc, kept;
  cpk_csc *A = NULL;
  double *b = cpk_alloc_array(m, sizeof *b), lmin, lmax;
  if (!b) return cpk_error_set(err, CPK_ENOMEM, "check: out of memory");
  int rc = cpk_contact_system_delassus(sys, &A, b, err);
  if (!rc) rc = delassus_spectrum(A, &kept, &lmin, &lmax);
  if (rc) {
    free(b);
    cpk_csc_free(A);
    return err && err->code ? rc : cpk_error_set(err, rc, "check: out of memory");
  }
  double tol = 1e-10 * fmax(lmax, 1e-300);
  int pd = kept > 0 && lmin > tol;
  rc |= cpk_check_report_add(r, "jacobian_rank", pd ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
                             "full column rank of J: %zu wrench columns, %s", kept,
                             pd ? "independent" : "dependent (A = J'M^-1 J is singular)");
  rc |= cpk_check_report_add(r, "delassus_pd", pd ? CPK_VERDICT_HOLDS : CPK_VERDICT_FAILS,
                             "A = J'M^-1 J positive definite: eigenvalues in [%.6g, %.6g]", lmin,
                             lmax);
  if (pd)
    rc |= cpk_check_report_add(r, "theorem1_a", CPK_VERDICT_HOLDS,
                               "Theorem 1 (A) of seed 000 applies: a solution exists for friction "
                               "below a bound, unique when the rolling contacts' mu are small too");
  else
    rc |= cpk_check_report_add(r, "theorem1_a", CPK_VERDICT_NOT_DECIDED,
                               "Theorem 1 (A) of seed 000 does not apply: A is singular (dependent "
                               "contact wrenches); existence is not guaranteed by it");
  if (!rc && sys->h == 0) rc = chk_theorem1_a(sys, A, b, pd, s, r);
  else if (!rc && pd)
    rc = cpk_check_report_add(r, "friction_bound", CPK_VERDICT_NOT_DECIDED,
                              "Theorem 1 is stated at the acceleration level (h = 0); this system "
                              "has h = %g (for the polyhedral model see the Stewart-Trinkle line)",
                              sys->h);
  free(b);
  cpk_csc_free(A);
  return rc ? cpk_error_set(err, CPK_ENOMEM, "check: out of memory") : CPK_OK;
}

int cpk_check_contact(const cpk_contact_system *sys, const char *model, const cpk_check_settings *s,
                      cpk_check_report *r, cpk_error *err)
{
  if (!sys || !r) return cpk_error_set(err, CPK_EINVAL, "check: NULL system or report");
  cpk_check_settings def;
  if (!s) {
    cpk_check_settings_default(&def);
    s = &def;
  }
  double t0 = cpk_wtime();
  int rc = CPK_OK;
  if (sys->form == CPK_SYSTEM_BODY && sys->nc > 0) rc = theorem1(sys, s, r, err);
  if (!rc && model && sys->h > 0 && strcmp(model, "polyhedral") == 0 &&
      chk_stewart_trinkle(sys, r))
    rc = cpk_error_set(err, CPK_ENOMEM, "check: out of memory");
  if (rc || !model) return rc;
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  rc = cpk_compile(sys, model, NULL, &p, &map, err);
  if (!rc && p->kind != CPK_KIND_NONLINEAR_MCP) rc = cpk_check_problem(p, s, r, err);
  else if (!rc)
    rc = cpk_check_report_add(r, "model", CPK_VERDICT_NOT_DECIDED,
                              "model %s gives a nonlinear problem: no matrix classes to check",
                              model);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  r->time_s = cpk_wtime() - t0;
  return rc;
}
