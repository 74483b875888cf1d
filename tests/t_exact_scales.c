/* t_exact_scales.c: the mixed form's exact contact scales (cpk_compile_options.exact_scales) equal the reduced form's, which builds A = J^T M^-1 J and b exactly, on a two-body contact with rotated inertias and on a coupled M; the default path of cpk_compile_update allocates nothing for them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc_count.h"
#include "testlib.h"

#define MODEL "elliptic-torsional"
#define NV_LARGE 72 /* one coupled group larger than the dense block limit (64): a sparse LU */

/* R diag(I) R^T for the rotation about (1, 1, 1) / sqrt 3 by angle a (Rodrigues). */
static void world_inertia(const double I[3], double a, double J[9])
{
  double u = 1.0 / sqrt(3.0), c = cos(a), s = sin(a), R[9];
  double K[9] = {0, -u, u, u, 0, -u, -u, u, 0};
  for (int i = 0; i < 9; i++) R[i] = (i % 4 == 0 ? 1.0 : 0.0) + s * K[i];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double kk = 0;
      for (int l = 0; l < 3; l++) kk += K[3 * i + l] * K[3 * l + j];
      R[3 * i + j] += (1 - c) * kk;
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      J[3 * i + j] = 0;
      for (int l = 0; l < 3; l++) J[3 * i + j] += R[3 * i + l] * I[l] * R[3 * j + l];
    }
}

/* M of two rigid bodies (rows 0-5, 6-11; masses 2 and 3, thin inertias rotated by a
 * and 2a), then nv - 12 unit masses; coupling > 0 joins body 1 and 2 (an entry between
 * rows 0 and 6), chain > 0 joins every row to the next (one group of nv rows). */
static cpk_csc *mass_matrix(size_t nv, double a, double coupling, double chain)
{
  static const double I1[3] = {1e-3, 0.2, 0.25}, I2[3] = {0.4, 0.05, 0.3};
  cpk_int ti[400], tj[400];
  double x[400], J[9];
  size_t n = 0;
  for (int b = 0; b < 2; b++) {
    world_inertia(b ? I2 : I1, (b + 1) * a, J);
    for (int i = 0; i < 3; i++) {
      ti[n] = tj[n] = 6 * b + i;
      x[n++] = b ? 3.0 : 2.0;
      for (int j = 0; j < 3; j++, n++) {
        ti[n] = 6 * b + 3 + i;
        tj[n] = 6 * b + 3 + j;
        x[n] = J[3 * i + j];
      }
    }
  }
  for (size_t i = 12; i < nv; i++, n++) {
    ti[n] = tj[n] = (cpk_int)i;
    x[n] = 1.0;
  }
  for (int s = 0; coupling > 0 && s < 2; s++, n++) {
    ti[n] = s ? 0 : 6;
    tj[n] = s ? 6 : 0;
    x[n] = coupling;
  }
  for (size_t i = 0; chain > 0 && i + 1 < nv; i++)
    for (int s = 0; s < 2; s++, n++) {
      ti[n] = (cpk_int)(i + (size_t)s);
      tj[n] = (cpk_int)(i + 1 - (size_t)s);
      x[n] = chain;
    }
  cpk_csc *M = NULL;
  return cpk_csc_from_triplets((cpk_int)nv, (cpk_int)nv, (cpk_int)n, ti, tj, x, &M) ? NULL : M;
}

/* One contact between the two bodies (centres 0 and (0.1, 0.2, -0.6), point (0.05, -0.1,
 * -0.3), normal z into body 1), moving with velocities v (shifted by `shift`). */
static cpk_contact_system *two_bodies(size_t nv, double a, double coupling, double chain,
                                      double shift)
{
  double v[NV_LARGE], k[NV_LARGE] = {0};
  for (size_t i = 0; i < nv; i++) v[i] = 0.3 * sin(1.7 * (double)i + 0.4) + shift;
  k[2] = -9.81 * 2.0;
  k[8] = -9.81 * 3.0;
  cpk_csc *M = mass_matrix(nv, a, coupling, chain);
  cpk_contact_system *s = NULL;
  int rc = !M || cpk_contact_system_alloc_body(nv, M, v, k, 1e-3, &s, NULL);
  cpk_csc_free(M);
  double p[3] = {0.05, -0.1, -0.3}, c2[3] = {0.1, 0.2, -0.6}, n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  double r2[3] = {p[0] - c2[0], p[1] - c2[1], p[2] - c2[2]}, w[4][12];
  cpk_int rows[12];
  for (int i = 0; i < 12; i++) rows[i] = i;
  if (!rc) rc = cpk_rigid_contact_wrenches(p, n, t, w[0], w[1], w[2], w[3]) ||
                cpk_rigid_contact_wrenches(r2, n, t, w[0] + 6, w[1] + 6, w[2] + 6, w[3] + 6);
  for (int c = 0; c < 4; c++)
    for (int i = 6; i < 12; i++) w[c][i] = -w[c][i];
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = 0.4;
  cp.e_r = 0.04;
  cp.psi = 1e-4;
  if (!rc) rc = cpk_contact_system_add_contact(s, &cp, 12, rows, w[0], w[1], w[2], w[3], NULL);
  if (rc) {
    cpk_contact_system_free(s);
    return NULL;
  }
  return s;
}

static cpk_compile_options options(cpk_problem_form form, int exact)
{
  cpk_compile_options co;
  cpk_compile_options_default(&co);
  co.form = form;
  co.exact_scales = exact;
  return co;
}

/* Row scales of the contact's p_n, p_t, p_o, p_r and sigma rows compiled in `form`. */
static int contact_scales(const cpk_contact_system *s, cpk_problem_form form, int exact,
                          double out[5])
{
  static const cpk_var_role roles[5] = {CPK_ROLE_P_N, CPK_ROLE_P_T, CPK_ROLE_P_O, CPK_ROLE_P_R,
                                        CPK_ROLE_SIGMA};
  cpk_compile_options co = options(form, exact);
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  int ok = s && !cpk_compile(s, MODEL, &co, &p, &m, NULL) && p->row_scale &&
           cpk_varmap_form(m) == form;
  for (int r = 0; ok && r < 5; r++) {
    size_t i = cpk_varmap_find(m, roles[r], 0, 0);
    ok = i < p->n;
    if (ok) out[r] = p->row_scale[i];
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return ok;
}

/* Largest relative difference of rows [lo, hi) of the two sets of scales. */
static double worst(const double *a, const double *b, int lo, int hi)
{
  double d = 0;
  for (int r = lo; r < hi; r++) d = fmax(d, fabs(a[r] - b[r]) / b[r]);
  return d;
}

static void compare(const char *what, size_t nv, double coupling, double chain)
{
  cpk_contact_system *s = two_bodies(nv, 0.7, coupling, chain, 0.0);
  double red[5], exact[5], dflt[5];
  int ok = contact_scales(s, CPK_FORM_REDUCED, 0, red) && contact_scales(s, CPK_FORM_MIXED, 1, exact) &&
           contact_scales(s, CPK_FORM_MIXED, 0, dflt);
  if (!t_ok(ok, "%s: compiled in both forms", what)) {
    cpk_contact_system_free(s);
    return;
  }
  /* the default's diag(M) stands for the rotated thin inertias: off (the comparison can fail) */
  t_ok(worst(dflt, red, 0, 5) > 0.05, "%s: the default scales are not the exact ones (%.2g relative)",
       what, worst(dflt, red, 0, 5));
  if (chain > 0) { /* a sparse LU: V exact, A's diagonal stays the diag(M) estimate */
    t_ok(worst(exact, red, 4, 5) <= 1e-9, "%s: exact V (sigma row) = the reduced form's (%.2g)", what,
         worst(exact, red, 4, 5));
    t_ok(worst(exact, dflt, 4, 5) > 1e-3, "%s: and not the default's (%.2g)", what,
         worst(exact, dflt, 4, 5));
  } else {
    t_ok(worst(exact, red, 0, 5) <= 1e-9, "%s: exact scales = the reduced form's (worst %.2g)", what,
         worst(exact, red, 0, 5));
  }
  cpk_contact_system_free(s);
}

#ifndef ALLOC_COUNT_NONE
/* Allocations of one cpk_compile_update of the mixed form to new velocities. */
static long update_allocations(int exact)
{
  cpk_contact_system *s0 = two_bodies(12, 0.7, 0, 0, 0.0), *s1 = two_bodies(12, 0.7, 0, 0, 0.1);
  cpk_compile_options co = options(CPK_FORM_MIXED, exact);
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  long n = -1;
  if (s0 && s1 && !cpk_compile(s0, MODEL, &co, &p, &m, NULL)) {
    alloc_count_start();
    int rc = cpk_compile_update(s1, p, m, NULL);
    n = alloc_count_stop();
    if (rc) n = -1;
  }
  cpk_problem_free(p);
  cpk_varmap_free(m);
  cpk_contact_system_free(s0);
  cpk_contact_system_free(s1);
  return n;
}
#endif

int main(void)
{
  cpk_init();
  compare("two bodies, rotated inertias", 12, 0, 0);
  compare("two bodies coupled in one block of M", 12, 0.5, 0);
  compare("M coupled beyond the block limit (sparse LU)", NV_LARGE, 0, 1e-4);
#ifndef ALLOC_COUNT_NONE
  long dflt = update_allocations(0), exact = update_allocations(1);
  t_ok(dflt >= 0 && exact > dflt,
       "cpk_compile_update, mixed form: the default scales allocate nothing of their own "
       "(%ld allocations, %ld with exact_scales)", dflt, exact);
#endif
  return t_done();
}
