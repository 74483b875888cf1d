/* fc_shift.h: private to the friction-cone solver fcprox (and any other that shifts W): W + rho I on a pattern fixed for good. */
#ifndef CPK_SOLVERS_FC_SHIFT_H
#define CPK_SOLVERS_FC_SHIFT_H
#include <cpkit/problem.h>

/* W (a cone problem's matrix) with its diagonal added to the pattern, for W + rho I. */
typedef struct fc_shift {
  size_t n;
  cpk_csc *J;   /* W on a fixed pattern (resolve_affine_jacobian: every entry of a dense W) */
  cpk_csc *P;   /* W's pattern plus the diagonal; values W + rho I after fc_shift_fill */
  size_t *pos;  /* J entry k goes to P->x[pos[k]]; diagonal j to P->x[pos[nnz(J) + j]] */
} fc_shift;

/* Allocate for p (all allocation here); P's values are W's (rho 0). */
int fc_shift_alloc(const cpk_problem *p, fc_shift **out);
/* J's values <- p's W as it is now (after cpk_problem_update_matrix_values). */
void fc_shift_refresh(fc_shift *S, const cpk_problem *p);
/* P->x <- W + rho I. */
void fc_shift_fill(fc_shift *S, double rho);
/* max_i W_ii, or 1 when the diagonal is not positive: the scale rho is chosen in. */
double fc_shift_diag_max(const fc_shift *S);
/* Free (NULL is a no-op). */
void fc_shift_free(fc_shift *S);
#endif
