/* contact_scale.c: per-contact scale factors of the nonlinear friction rows (a compliance and a reference velocity), computed once at compile time from the system. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
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
 * principal axes). For a rigid body's world inertia it is not a scale of the
 * right size: for seed 003's thin ellipsoid (I_x = 1e-5, I_y = I_z = 0.0125,
 * tilted) it made V 71 times the free contact velocity at t = 0.1771 (1.32 for
 * 0.0186), so the slip rows mu P_n s / V of a pressed, sticking contact let a
 * slip of 2.5e-5 pass the tolerance 1e-7 and the answer failed the physical
 * check (issue 14). The option exact_scales takes b from one solve with M's
 * factorization (the free motion) and the diagonal of A from the blocks of M
 * each contact touches (rigid bodies; diag(M) stays for a sparse LU, where nc
 * solves would cost too much). It is not the default: alone it does not make
 * the tilted runs pass (bdnewton's answer at t = 0.1778 still fails the check),
 * it costs an allocation and a solve with M a compile, and the default with the
 * stepper's finishing completes every example (doc/formulations.md "Exact
 * scales"); the stepper uses the exact scales to finish an answer that fails
 * the physical check (sim/step.c).
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

/* d[a] = J_ca^T M^-1 J_ca through the diagonal blocks of M that contact c touches
 * (rigid bodies: each body's block); x (nv, zero on entry and on return) is the
 * workspace. 0 when M has no blocks (a sparse LU: nc solves would cost too much). */
static int mixed_block_diag(const cpk_varmap *C, size_t c, double *x, double d[4])
{
  const cvm_mass *F = C->mass;
  if (!F || F->ls) return 0;
  for (int a = 0; a < 4; a++) {
    d[a] = 0.0;
    for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++) x[C->wrow[k]] = C->wval[4 * k + a];
    for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++) {
      size_t blk = F->block[C->wrow[k]], r0 = F->start[blk], len = F->start[blk + 1] - r0;
      int seen = 0;
      for (size_t j = C->wptr[c]; j < k && !seen; j++) seen = F->block[C->wrow[j]] == blk;
      if (seen) continue; /* this block's rows were done with an earlier entry */
      double y[CVM_MASS_BLOCK_MAX];
      memcpy(y, x + r0, len * sizeof *y);
      cvm_mass_solve_block(F, blk, x);
      for (size_t r = 0; r < len; r++) d[a] += y[r] * x[r0 + r];
      memset(x + r0, 0, len * sizeof *x);
    }
  }
  return 1;
}

/* Mixed form with the option exact_scales: b_c (all contacts) from the free motion
 * v* = M^-1 rhs, the diagonal of A_cc from the blocks of M (mixed_block_diag); the
 * diag(M) estimates (mixed_diag) where M has no blocks or its solve fails. d, b: 4 nc
 * each. Only this option allocates: the default path runs on every compile and every
 * cpk_compile_update of a step. CPK_ENOMEM only. */
static int mixed_exact(const cpk_varmap *C, double *d, double *b)
{
  double *x = cpk_calloc_array(C->nv + 1, 2 * sizeof *x), *v = x + C->nv;
  if (!x) return CPK_ENOMEM;
  memcpy(v, C->rhs, C->nv * sizeof *v);
  int exact_b = C->mass && cvm_mass_apply(C->mass, v) == CPK_OK;
  for (size_t c = 0; c < C->nc; c++) {
    double *dc = d + 4 * c, *bc = b + 4 * c, dd[4];
    mixed_diag(C, c, dd, bc);
    if (!mixed_block_diag(C, c, x, dc)) memcpy(dc, dd, sizeof dd);
    for (int a = 0; exact_b && a < 4; a++) {
      bc[a] = C->drift[4 * c + a];
      for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++) bc[a] += C->wval[4 * k + a] * v[C->wrow[k]];
    }
  }
  free(x);
  return CPK_OK;
}

int cvm_contact_scales(cpk_varmap *C)
{
  double wmax = 0.0, vmax = 0.0, *db = NULL;
  if (C->mixed && C->options.exact_scales) {
    db = cpk_alloc_array(C->nc + 1, 8 * sizeof *db);
    if (!db || mixed_exact(C, db, db + 4 * C->nc)) {
      free(db);
      return CPK_ENOMEM;
    }
  }
  for (size_t c = 0; c < C->nc; c++) {
    cvm_contact *cc = &C->cc[c];
    double d[4], b[4];
    if (db) {
      memcpy(d, db + 4 * c, sizeof d);
      memcpy(b, db + 4 * (C->nc + c), sizeof b);
    } else if (C->mixed) {
      mixed_diag(C, c, d, b);
    } else {
      reduced_diag(C, c, d, b);
    }
  /* the twist enters as the rows see it: y_r = p_r / e_r, s_r = e_r U_r */
    double er2 = cc->torsion ? cc->e2[2] : 0.0;
    cc->scale_w = (d[0] + d[1] + d[2] + er2 * d[3]) / (cc->torsion ? 4.0 : 3.0);
    cc->scale_v = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + er2 * b[3] * b[3]);
    wmax = fmax(wmax, cc->scale_w);
    vmax = fmax(vmax, cc->scale_v);
  }
  free(db);
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
  return CPK_OK;
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
