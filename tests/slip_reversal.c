/* slip_reversal.c: the slip-reversal friction-cone problem shared by the cone tests (see slip_reversal.h). */
#include <stddef.h>
#include <cpkit/matrix.h>
#include "slip_reversal.h"

const double slip_reversal_q[3] = {-0.16741697847476605, 0.0072842628314330358, 0.0};
const double slip_reversal_z0[3] = {0.16741532384251032, 0.050224590809494624, 0.0};

cpk_problem *slip_reversal_problem(void)
{
  static const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double mu = 0.3;
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (!cpk_matrix_from_dense_array(3, 3, W, 3, 0, &M))
    cpk_problem_alloc_friction_cone(M, slip_reversal_q, 3, &mu, &p);
  cpk_matrix_free(M);
  return p;
}
