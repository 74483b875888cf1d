/* contact_scale.c: per-contact scale factors of the nonlinear friction rows (a compliance and a reference velocity), computed once at compile time from the system. */
#include <math.h>
#include "compiled.h"

/*
 * The rows of the NCP friction law (elliptic_torsional.c) are written in
 * impulse and velocity units. Two numbers per contact carry the units:
 *   w  (velocity per impulse): the mean of the n, t, o (and e_r^2 times the r)
 *      diagonal entries of the contact operator A = J^T M^-1 J, so that w * impulse is the velocity
 *      that impulse produces at the contact and gap / w the impulse that
 *      closes a gap velocity;
 *   V  (velocity): the size of the free contact velocity b, the natural speed
 *      of the step, used to turn the products p * U of the slip rows into
 *      impulses.
 * Both only multiply rows by positive constants: the solution set is that of
 * the seeds' rows. In the mixed form A and b are not built; the diagonal of M
 * stands in for M^-1 (exact for the diagonal mass matrices of rigid bodies in
 * principal axes, a scale of the right size otherwise).
 */

/* Diagonal entries (n, t, o, r) of A_cc and the free velocity b_c, reduced form. */
static void reduced_diag(const cpk_varmap *C, size_t c, double d[4], double b[4])
{
  for (int a = 0; a < 4; a++) {
    d[a] = 0.0;
    b[a] = C->B.b[4 * c + a];
  }
  for (size_t k = C->B.ptr[c]; k < C->B.ptr[c + 1]; k++)
    if (C->B.col[k] == c)
      for (int a = 0; a < 4; a++) d[a] = C->B.val[16 * k + 5 * a];
}

/* M_jj of column j (0 when absent). */
static double mass_diag(const cpk_csc *M, cpk_int j)
{
  for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++)
    if (M->i[k] == j) return M->x[k];
  return 0.0;
}

/* Mixed form: A_cc and b_c with diag(M) in place of M (rhs / M_jj is v + h M^-1 k then). */
static void mixed_diag(const cpk_varmap *C, size_t c, double d[4], double b[4])
{
  for (int a = 0; a < 4; a++) {
    d[a] = 0.0;
    b[a] = C->drift[4 * c + a];
  }
  for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++) {
    double m = mass_diag(C->M, C->wrow[k]);
    if (!(m > 0)) continue;
    for (int a = 0; a < 4; a++) {
      double wa = C->wval[4 * k + a];
      d[a] += wa * wa / m;
      b[a] += wa * C->rhs[C->wrow[k]] / m;
    }
  }
}

void cvm_contact_scales(cpk_varmap *C)
{
  double wmax = 0.0, vmax = 0.0;
  for (size_t c = 0; c < C->nc; c++) {
    cvm_contact *cc = &C->cc[c];
    double d[4], b[4];
    if (C->mixed)
      mixed_diag(C, c, d, b);
    else
      reduced_diag(C, c, d, b);
    /* the twist enters as the rows see it: y_r = p_r / e_r, s_r = e_r U_r */
    double er2 = cc->torsion ? cc->e2[2] : 0.0;
    cc->scale_w = (d[0] + d[1] + d[2] + er2 * d[3]) / (cc->torsion ? 4.0 : 3.0);
    cc->scale_v = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + er2 * b[3] * b[3]);
    wmax = fmax(wmax, cc->scale_w);
    vmax = fmax(vmax, cc->scale_v);
  }
  /* A contact at rest in the free motion (b_c = 0) takes the speed of the
   * system; only a system with no motion at all (its answer is P = 0) falls
   * back to 1, the one place where units could show. */
  if (!(wmax > 0) || !isfinite(wmax)) wmax = 1.0;
  if (!(vmax > 0) || !isfinite(vmax)) vmax = 1.0;
  for (size_t c = 0; c < C->nc; c++) {
    cvm_contact *cc = &C->cc[c];
    if (!(cc->scale_w > 1e-6 * wmax) || !isfinite(cc->scale_w)) cc->scale_w = wmax;
    if (!(cc->scale_v > 1e-3 * vmax) || !isfinite(cc->scale_v)) cc->scale_v = 1e-3 * vmax;
  }
}

/*
 * The size of every row of a nonlinear problem (cpk_problem.row_scale), for the
 * Newton merits that add squares of rows: the sigma rows are velocities (V of the
 * contact); every other row is an impulse: V / w for a contact's rows, M_jj times
 * the largest V for the momentum row of v_j (mixed form). With masses times s
 * every scale of an impulse row is times s too, so the merit reads the same.
 */
void cvm_row_scales(const cpk_varmap *C, double *scale)
{
  double vmax = 0.0;
  for (size_t c = 0; c < C->nc; c++) vmax = fmax(vmax, C->cc[c].scale_v);
  if (!(vmax > 0.0)) vmax = 1.0;
  for (size_t i = 0; i < C->n; i++) {
    const cpk_var_info *v = &C->info[i];
    double s = 1.0;
    if (v->role == CPK_ROLE_V) {
      s = mass_diag(C->M, (cpk_int)v->index) * vmax;
    } else if (v->contact < C->nc) {
      const cvm_contact *cc = &C->cc[v->contact];
      s = v->role == CPK_ROLE_SIGMA ? cc->scale_v : cc->scale_v / cc->scale_w;
    }
    scale[i] = s > 0.0 && isfinite(s) ? s : 1.0;
  }
}
