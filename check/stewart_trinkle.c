/* stewart_trinkle.c: the sign condition that makes Stewart-Trinkle's polyhedral LCP solvable by Lemke. */
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

/* ---- Stewart-Trinkle: the velocity-level polyhedral LCP ------------------------------------ */

/*
 * The polyhedral LCP matrix is copositive (z'Mz = c'Ac + mu c_n'sigma >= 0), and a z >= 0 with
 * z'Mz = 0 has Jc = 0, so q'z = (J'v + drift + psi/h)'c = sum psi_i c_in / h + drift'c. With
 * every gap >= 0 and no drift this is >= 0: Lemke's method ends with a solution.
 */
int chk_stewart_trinkle(const cpk_contact_system *sys, cpk_check_report *r)
{
  if (sys->form != CPK_SYSTEM_BODY)
    return cpk_check_report_add(r, "stewart_trinkle", CPK_VERDICT_NOT_DECIDED,
                                "Stewart-Trinkle sign condition: a local-form system gives q "
                                "directly, not as J'v, so the argument does not apply");
  for (size_t c = 0; c < sys->nc; c++) {
    const cpk_contact_params *p = &sys->contacts[c];
    if (p->psi < 0)
      return cpk_check_report_add(r, "stewart_trinkle", CPK_VERDICT_NOT_DECIDED,
                                  "Stewart-Trinkle: contact %zu (1-based) penetrates (gap psi = %.6g < 0), "
                                  "so the sign condition q'z >= 0 on SOL(0, M) and with it "
                                  "Lemke's success are no longer guaranteed", c + 1, p->psi);
    for (int a = 0; a < 4; a++)
      if (p->drift[a] != 0)
        return cpk_check_report_add(r, "stewart_trinkle", CPK_VERDICT_NOT_DECIDED,
                                    "Stewart-Trinkle: contact %zu (1-based) has a drift (driven surface) "
                                    "velocity, so the sign condition on q is not guaranteed", c + 1);
  }
  return cpk_check_report_add(r, "stewart_trinkle", CPK_VERDICT_HOLDS,
                              "Stewart-Trinkle: the polyhedral LCP is copositive and no contact "
                              "penetrates (every gap >= 0): Lemke's method finds a solution");
}
