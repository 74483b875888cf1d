/* t_impact.c: the planar impact laws of seed 001 section 2 against hand-derived rod impacts and energy identities. */
#include <math.h>
#include <stdio.h>
#include <cpkit/cpkit.h>
#include "testlib.h"

static const double PI = 3.14159265358979323846;

/*
 * The rod of seed 001 section 2.4: unit mass, unit length, I = 1/12, at 45
 * degrees with its lower end (the contact) at r = (-sqrt(2)/4, -sqrt(2)/4)
 * from the centre of mass, no spin, contact velocity (S0, C0) = (0.6, -1).
 * By hand: K11 = 1 + r_y^2/I = 2.5, K22 = 1 + r_x^2/I = 2.5,
 * K12 = -r_x r_y/I = -1.5, so sticking needs mu >= |K12|/K11 = 0.6: the
 * paper's threshold between its cases (a) and (c).
 */
static cpk_impact_body rod_at(double theta, double S0, double C0, double omega)
{
  cpk_impact_body b = {1.0, 1.0 / 12.0, {-0.5 * cos(theta), -0.5 * sin(theta)}, {0, 0}, omega};
  /* centre velocity such that the contact point moves at (S0, C0) */
  b.v[0] = S0 + omega * b.r[1];
  b.v[1] = C0 - omega * b.r[0];
  return b;
}

static cpk_impact_body paper_rod(void) { return rod_at(PI / 4, 0.6, -1.0, 0.0); }

/* Kinetic energy computed here, not by the library. */
static double ke(const cpk_impact_body *b)
{
  return 0.5 * (b->mass * (b->v[0] * b->v[0] + b->v[1] * b->v[1]) + b->inertia * b->omega * b->omega);
}

static void frictionless(void)
{
  cpk_impact_body rod = paper_rod();
  double es[] = {0, 0.3, 0.7, 1};
  for (int k = 0; k < 4; k++)
    for (int law = 0; law < CPK_IMPACT_LAW_COUNT; law++) {
      cpk_impact_result r;
      int rc = cpk_impact_solve(&rod, NULL, 0, es[k], (cpk_impact_law)law, &r, NULL);
      double py = (1 + es[k]) / 2.5, D = 0.5 * (1 - es[k] * es[k]) / 2.5;
      t_ok(rc == 0 && r.P[0] == 0, "mu = 0, e = %g, %s: no tangential impulse", es[k],
           cpk_impact_law_name((cpk_impact_law)law));
      t_near(r.P[1], py, 1e-14, "mu = 0, e = %g, %s: P_y = (1 + e)/K22", es[k],
             cpk_impact_law_name((cpk_impact_law)law));
      t_near(r.D, D, 1e-14, "mu = 0, e = %g, %s: D = (1 - e^2) C0^2 / (2 K22)", es[k],
             cpk_impact_law_name((cpk_impact_law)law));
      t_near(ke(&rod) - ke(&r.after[0]), D, 1e-14, "  the rod's kinetic energy drops by D");
    }
}

/* mu = 0.5 < 0.6: slides until p_s = S0 / (K11 mu - K12) = 0.6/2.75, then slides back
 * (case (a)): C rises at K22 + mu K12 = 3.25 before p_s and K22 - mu |K12| = 1.75 after. */
static void reverse_sliding(void)
{
  cpk_impact_body rod = paper_rod();
  double mu = 0.5, p_s = 0.6 / 2.75, c_s = -1 + 3.25 * p_s, p_c = p_s - c_s / 1.75;
  cpk_impact_result r;
  int rc = cpk_impact_solve(&rod, NULL, mu, 1.0, CPK_IMPACT_NEWTON, &r, NULL);
  t_ok(rc == 0 && r.kase == CPK_IMPACT_REVERSE_COMPRESSION, "mu 0.5: case (a) reverse sliding in compression");
  t_near(r.p_s, p_s, 1e-14, "slip stops at P_yS = 0.6/2.75");
  t_near(r.p_c, p_c, 1e-14, "compression ends at P_yC");
  double p_T = p_c + 1 / 1.75, px = -mu * p_s + mu * (p_T - p_s);
  t_near(r.P[1], p_T, 1e-14, "Newton e = 1: C_f = 1 at P_yT = P_yC + 1/1.75");
  t_near(r.P[0], px, 1e-14, "tangential impulse -mu p_s + mu (p_T - p_s)");
  t_near(r.S, 0.6 + 2.5 * px - 1.5 * p_T, 1e-14, "final slip from the collision matrix");
  double gain = ke(&r.after[0]) - ke(&rod);
  /* by hand: P = (0.25977, 0.95584): u0.P + P^T K P / 2 = -0.80000 + 0.85399 */
  t_ok(gain > 0.05, "Newton e = 1 with friction GAINS energy (%.5f > 0), the paper's point", gain);
  t_near(gain, 0.6 * px - p_T + 0.5 * (2.5 * px * px + 2.5 * p_T * p_T - 3 * px * p_T), 1e-14,
         "the gain is u0.P + P^T K P / 2");
  t_near(r.D, -gain, 1e-13, "D = -(energy gain)");
  t_ok(r.D_n < 0, "Newton e = 1: the normal impulse does positive work (D_n = %.4f)", r.D_n);

  rc = cpk_impact_solve(&rod, NULL, mu, 1.0, CPK_IMPACT_POISSON, &r, NULL);
  t_near(r.P[1], 2 * p_c, 1e-14, "Poisson e = 1: P_yT = 2 P_yC");
  t_ok(rc == 0 && r.D >= 0 && r.D_n > 1e-3,
       "Poisson e = 1: D >= 0 but D_n = %.4f > 0 (normal impulse does negative work)", r.D_n);
  rc = cpk_impact_solve(&rod, NULL, mu, 1.0, CPK_IMPACT_STRONGE, &r, NULL);
  t_near(r.D_n, 0, 1e-14, "Stronge e = 1: D_n = 0");
  t_ok(rc == 0 && r.D_t > 0 && fabs(r.D - r.D_t) < 1e-14, "Stronge e = 1: D = D_t = %.4f > 0", r.D_t);
  rc = cpk_impact_solve(&rod, NULL, mu, 0.0, CPK_IMPACT_NEWTON, &r, NULL);
  cpk_impact_result r2;
  rc |= cpk_impact_solve(&rod, NULL, mu, 0.0, CPK_IMPACT_STRONGE, &r2, NULL);
  t_ok(rc == 0 && fabs(r.P[1] - p_c) < 1e-14 && fabs(r2.P[1] - p_c) < 1e-14,
       "e = 0: every law stops at the end of compression");
}

/* mu = 0.8 > 0.6: slip stops at 0.6/(2.5*0.8 + 1.5) and the contact sticks (case (c)). */
static void sticking(void)
{
  cpk_impact_body rod = paper_rod();
  cpk_impact_result r;
  double p_s = 0.6 / 3.5, c_s = -1 + 3.7 * p_s, stick_slope = 2.5 - 1.5 * 1.5 / 2.5;
  int rc = cpk_impact_solve(&rod, NULL, 0.8, 0.5, CPK_IMPACT_NEWTON, &r, NULL);
  t_ok(rc == 0 && r.kase == CPK_IMPACT_STICK_COMPRESSION, "mu 0.8: case (c) sticking in compression");
  t_near(r.p_s, p_s, 1e-14, "slip stops at 0.6/3.5");
  t_near(r.S, 0, 1e-14, "sticks: final slip 0");
  t_near(r.C, 0.5, 1e-14, "Newton e = 0.5: C_f = -e C0");
  t_near(r.P[1], p_s + (0.5 - c_s) / stick_slope, 1e-14, "P_yT along the sticking line (slope det K / K11)");
  t_ok(fabs(r.P[0]) <= 0.8 * r.P[1], "impulse inside the friction cone");
}

/* Energy identities and Coulomb's law over many rods, velocities and coefficients. */
static void sweep(void)
{
  int n = 0, bad_coulomb = 0, bad_energy = 0, stronge_gain = 0, newton_gain = 0, fail = 0;
  int bad_law = 0, dn_nonzero = 0;
  for (double th = 0.1; th < 1.5; th += 0.2)
    for (double S0 = -1; S0 <= 1.01; S0 += 0.5)
      for (double om = -2; om <= 2.01; om += 2)
        for (double mu = 0; mu <= 1.5; mu += 0.1)
          for (double e = 0; e <= 1.001; e += 0.25)
            for (int law = 0; law < CPK_IMPACT_LAW_COUNT; law++) {
              cpk_impact_body rod = rod_at(th, S0, -1, om);
              cpk_impact_result r;
              n++;
              if (cpk_impact_solve(&rod, NULL, mu, e, (cpk_impact_law)law, &r, NULL)) {
                fail++;
                continue;
              }
              double loss = ke(&rod) - ke(&r.after[0]);
              bad_energy += fabs(loss - r.D) > 1e-12 || fabs(r.D - r.D_n - r.D_t) > 1e-12;
              bad_coulomb += fabs(r.P[0]) > mu * r.P[1] + 1e-12 || r.D_t < -1e-12;
              if (law == CPK_IMPACT_STRONGE) {
                stronge_gain += loss < -1e-12;
                dn_nonzero += e == 1 && fabs(r.D_n) > 1e-12;
              }
              if (law == CPK_IMPACT_NEWTON) {
                newton_gain += loss < -1e-9;
                bad_law += fabs(r.C - e) > 1e-12;
              }
              if (law == CPK_IMPACT_POISSON) bad_law += fabs(r.P[1] - (1 + e) * r.p_c) > 1e-12;
            }
  t_ok(fail == 0, "sweep: all %d impacts resolved (%d failed)", n, fail);
  t_ok(bad_energy == 0, "sweep: D = kinetic energy lost = D_n + D_t (%d violations)", bad_energy);
  t_ok(bad_coulomb == 0, "sweep: |P_x| <= mu P_y and friction dissipates (%d violations)", bad_coulomb);
  t_ok(bad_law == 0, "sweep: Newton C_f = -e C0, Poisson P_yT = (1 + e) P_yC (%d violations)", bad_law);
  t_ok(stronge_gain == 0, "sweep: Stronge never gains energy (%d gains)", stronge_gain);
  t_ok(dn_nonzero == 0, "sweep: Stronge e = 1 has D_n = 0 (%d exceptions)", dn_nonzero);
  t_ok(newton_gain > 0, "sweep: Newton gains energy in %d impacts", newton_gain);
}

/* Two equal discs, head on, frictionless, e = 1: velocities swap. */
static void two_bodies(void)
{
  cpk_impact_body a = {2.0, 0.25, {0, -0.5}, {0.3, -1.0}, 0.7};
  cpk_impact_body b = {2.0, 0.25, {0, 0.5}, {0, 0}, 0};
  cpk_impact_result r;
  int rc = cpk_impact_solve(&a, &b, 0, 1, CPK_IMPACT_STRONGE, &r, NULL);
  t_ok(rc == 0 && fabs(r.after[0].v[1]) < 1e-15 && fabs(r.after[1].v[1] + 1) < 1e-15,
       "equal discs, e = 1: normal velocities swap");
  t_ok(r.after[0].v[0] == 0.3 && r.after[0].omega == 0.7 && r.after[1].omega == 0,
       "frictionless central impact: tangential velocity and spins unchanged");
  t_near(ke(&a) + ke(&b), ke(&r.after[0]) + ke(&r.after[1]), 1e-14, "energy conserved");
}

static void errors(void)
{
  cpk_impact_body rod = paper_rod(), wall = {INFINITY, INFINITY, {0, 0}, {0, 0}, 0};
  cpk_impact_result r;
  cpk_error err;
  t_ok(cpk_impact_solve(&rod, NULL, 0.3, 1.5, CPK_IMPACT_NEWTON, &r, &err) == CPK_EINVAL,
       "e > 1 rejected: %s", err.message);
  t_ok(cpk_impact_solve(&rod, NULL, -0.1, 0.5, CPK_IMPACT_NEWTON, &r, NULL) == CPK_EINVAL, "mu < 0 rejected");
  t_ok(cpk_impact_solve(&wall, &wall, 0.1, 0.5, CPK_IMPACT_NEWTON, &r, NULL) == CPK_EINVAL,
       "two immovable bodies rejected");
  rod.mass = 0;
  t_ok(cpk_impact_solve(&rod, NULL, 0.1, 0.5, CPK_IMPACT_NEWTON, &r, NULL) == CPK_EINVAL, "mass 0 rejected");
  rod = rod_at(PI / 4, 0.6, 0.2, 0);
  t_ok(cpk_impact_solve(&rod, NULL, 0.1, 0.5, CPK_IMPACT_NEWTON, &r, NULL) == 0 &&
           r.kase == CPK_IMPACT_NO_IMPACT && r.P[0] == 0 && r.P[1] == 0,
       "separating contact: no impact, no impulse");
  cpk_impact_law law;
  t_ok(cpk_impact_law_from_name("stronge", &law) == 0 && law == CPK_IMPACT_STRONGE &&
           cpk_impact_law_from_name("routh", &law) == CPK_ENOTFOUND,
       "law names");
}

int main(void)
{
  frictionless();
  reverse_sliding();
  sticking();
  sweep();
  two_bodies();
  errors();
  return t_done();
}
