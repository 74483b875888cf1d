/* t_physics_check.c: cpk_varmap_check on hand-known answers and on physically wrong ones (friction outside the cone, on a contact without normal impulse, along the slip, impulses while separating), including issue 14's box on four coplanar corners pushed above mu m g. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "formtest.h"
#include "testlib.h"

#define H 0.01

/* The check of impulses P (4 per contact) through the map of s compiled with model/form. */
static int check_of(const cpk_contact_system *s, const char *model, cpk_problem_form form,
                    const double *P, cpk_physics_check *out)
{
  cpk_compile_options o;
  cpk_problem *p = NULL;
  cpk_varmap *m = NULL;
  cpk_compile_options_default(&o);
  o.form = form;
  int rc = cpk_compile(s, model, &o, &p, &m, NULL);
  double *z = rc ? NULL : calloc(cpk_varmap_n(m), sizeof *z);
  if (!rc) rc = z ? cpk_varmap_point(m, P, z, NULL) : CPK_ENOMEM;
  if (!rc) rc = cpk_varmap_check(m, z, 1e-3, out, NULL);
  if (!rc && !out->ok) t_diag("%s: %s", model, out->message);
  free(z);
  cpk_problem_free(p);
  cpk_varmap_free(m);
  return rc ? -1 : out->ok;
}

static void test_particle(void)
{
  double v[3] = {1, 0, 0}, mu = 0.5, pn = FT_G * H;
  cpk_contact_system *s = ft_particle(1.0, H, v);
  cpk_contact_params cp;
  cpk_physics_check ck;
  int got;
  cpk_contact_params_default(&cp);
  cp.mu = mu;
  ft_plane_contact(s, &cp);
  const char *models[] = {"point-coulomb", "elliptic-torsional"};
  for (int k = 0; k < 2; k++)
    for (int f = CPK_FORM_MIXED; f <= CPK_FORM_CONE; f++) {
      double P[4] = {pn, -mu * pn, 0, 0};
      const char *fn = cpk_problem_form_name((cpk_problem_form)f);
      got = check_of(s, models[k], (cpk_problem_form)f, P, &ck);
      t_ok(got == 1 && ck.cone <= 1e-15,
           "%s, %s: the sliding block's answer passes", models[k], fn);
      P[1] = -0.5 * mu * pn;
      got = check_of(s, models[k], (cpk_problem_form)f, P, &ck);
      t_ok(got == 0 && ck.dissipation > 0.1,
           "%s, %s: half the friction fails maximum dissipation (%.2g)", models[k], fn,
           ck.dissipation);
      P[1] = 0.9 * mu * pn;
      got = check_of(s, models[k], (cpk_problem_form)f, P, &ck);
      t_ok(got == 0,
           "%s, %s: friction along the slip fails", models[k], fn);
      P[1] = -2 * mu * pn;
      got = check_of(s, models[k], (cpk_problem_form)f, P, &ck);
      t_ok(got == 0 && ck.cone > 0.4,
           "%s, %s: friction twice mu P_n fails the cone (%.2g)", models[k], fn, ck.cone);
    }
  double Pneg[4] = {-pn, 0, 0, 0};
  got = check_of(s, "polyhedral", CPK_FORM_REDUCED, Pneg, &ck);
  t_ok(got == 0 && ck.normal > 0.5,
       "polyhedral: a pulling normal impulse fails (%.2g)", ck.normal);
  cp.psi = 0.01; /* 1 cm above: flies for this step */
  cpk_contact_set_params(s, 0, &cp, NULL);
  double Pfly[4] = {pn, -mu * pn, 0, 0}, none[4] = {0, 0, 0, 0};
  got = check_of(s, "point-coulomb", CPK_FORM_MIXED, Pfly, &ck);
  t_ok(got == 0 && ck.normal > 0.5,
       "an impulse while the gap opens fails Signorini (%.2g)", ck.normal);
  got = check_of(s, "point-coulomb", CPK_FORM_MIXED, none, &ck);
  t_ok(got == 1, "no impulse there passes");
  cpk_contact_system_free(s);
}

/* Issue 14: a box (half sizes a, b, c) on its four bottom corners, sliding along x and
 * pushed with 2 mu m g. With no rotation, the loads are Pf on each front corner and Pb
 * on each back one, Pf (a - mu c) = Pb (a + mu c), 2 Pf + 2 Pb = m g h, and any load
 * moved along the diagonals (+d, -d, -d, +d) is as good (four coplanar contacts). */
static const double A = 0.2, B = 0.1, C = 0.05, MU = 0.3, M = 1.0;

static cpk_contact_system *box(void)
{
  double d[6] = {M, M, M, 0.004, 0.014, 0.017}, v[6] = {1, 0, 0, 0, 0, 0};
  double k[6] = {2 * MU * M * FT_G, 0, -M * FT_G, 0, 0, 0};
  const double n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
  const cpk_int rows[6] = {0, 1, 2, 3, 4, 5};
  cpk_csc *Mm = NULL;
  cpk_contact_system *s = NULL;
  cpk_contact_params cp;
  cpk_contact_params_default(&cp);
  cp.mu = MU;
  if (cpk_csc_alloc(6, 6, 6, &Mm)) return NULL;
  for (int j = 0; j < 6; j++) {
    Mm->p[j + 1] = j + 1;
    Mm->i[j] = j;
    Mm->x[j] = d[j];
  }
  int rc = cpk_contact_system_alloc_body(6, Mm, v, k, H, &s, NULL);
  for (int c = 0; !rc && c < 4; c++) {
    double r[3] = {c < 2 ? A : -A, c % 2 == 0 ? B : -B, -C}, W[4][6];
    rc = cpk_rigid_contact_wrenches(r, n, t, W[0], W[1], W[2], W[3]);
    if (!rc) rc = cpk_contact_system_add_contact(s, &cp, 6, rows, W[0], W[1], W[2], W[3], NULL);
  }
  cpk_csc_free(Mm);
  if (rc) cpk_contact_system_free(s);
  return rc ? NULL : s;
}

/* Corners (a, b), (a, -b), (-a, b), (-a, -b): loads with the diagonal shift d. */
static void box_answer(double d, double P[16])
{
  double total = M * FT_G * H, pb = total / 2 / (1 + (A + MU * C) / (A - MU * C));
  double pf = total / 2 - pb, load[4] = {pf + d, pf - d, pb - d, pb + d};
  memset(P, 0, 16 * sizeof *P);
  for (int c = 0; c < 4; c++) {
    P[4 * c] = load[c];
    P[4 * c + 1] = -MU * load[c];
  }
}

static void test_box(void)
{
  cpk_contact_system *s = box();
  cpk_physics_check ck;
  double P[16];
  int got;
  t_ok(s != NULL, "box on four corners built");
  if (!s) return;
  box_answer(0.0, P);
  got = check_of(s, "point-coulomb", CPK_FORM_MIXED, P, &ck);
  t_ok(got == 1, "box: the symmetric loads pass");
  double pb = P[8];
  box_answer(pb, P); /* corner 3 unloaded: still an answer */
  got = check_of(s, "point-coulomb", CPK_FORM_REDUCED, P, &ck);
  t_ok(got == 1 && P[8] == 0,
       "box: the loads shifted along a diagonal until a corner is unloaded pass too");
  P[9] = -8.7e-5; /* fbnewton's false answer: friction where P_n = 0 */
  got = check_of(s, "point-coulomb", CPK_FORM_REDUCED, P, &ck);
  t_ok(got == 0 && ck.contact == 2 &&
           ck.cone > 1e-3,
       "box: friction 8.7e-5 on the unloaded corner fails the cone check (%.2g, contact %zu)",
       ck.cone, ck.contact + 1);
  /* what the Newton solvers answer on it: if they say solved, the check decides */
  const char *solvers[] = {"bdnewton", "fbnewton", "ipm"};
  for (int k = 0; k < 3; k++) {
    cpk_problem *p = NULL;
    cpk_varmap *m = NULL;
    if (cpk_compile(s, "point-coulomb", NULL, &p, &m, NULL)) continue;
    cpk_result *r = ft_solve(p, solvers[k], 1e-8);
    if (r && cpk_varmap_check(m, r->z, 1e-3, &ck, NULL) == 0)
      t_diag("box, %s: %s, residual %.2g, physics %s %s", solvers[k],
             cpk_status_name(r->status), r->residual, ck.ok ? "ok" : "FAILS:", ck.message);
    cpk_result_free(r);
    cpk_problem_free(p);
    cpk_varmap_free(m);
  }
  cpk_contact_system_free(s);
}

/* The figures are relative: the same answer in other units gives the same verdicts. */
static void test_units(void)
{
  double v[3] = {1, 0, 0}, mu = 0.5;
  cpk_physics_check a, b;
  for (int k = 0; k < 2; k++) {
    double m = k ? 1e-3 : 1e3, pn = m * FT_G * H;
    cpk_contact_system *s = ft_particle(m, H, v);
    cpk_contact_params cp;
    cpk_contact_params_default(&cp);
    cp.mu = mu;
    ft_plane_contact(s, &cp);
    double P[4] = {pn, -0.5 * mu * pn, 0, 0};
    check_of(s, "point-coulomb", CPK_FORM_CONE, P, k ? &b : &a);
    cpk_contact_system_free(s);
  }
  t_ok(!a.ok && !b.ok && fabs(a.dissipation - b.dissipation) < 1e-12,
       "mass x1e3 and x1e-3: the same figure (%.6g, %.6g)", a.dissipation, b.dissipation);
}

int main(void)
{
  test_particle();
  test_box();
  test_units();
  return t_done();
}
