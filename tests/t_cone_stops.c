/* t_cone_stops.c: the cone solvers on the problems of the example scenes that stopped them: a ball wedged between two spheres (redundant contacts whose sticking equations have no solution), a slip reversal warm-started on the wrong side, a rod and a box at rest with torsion. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "slip_reversal.h"
#include "testlib.h"

/*
 * Seed 000 §4.2 at t = 0: a unit ball (m = 1, I = 2/5) resting in the seam of
 * two fixed spheres (radius 10 at the origin, 9 at (0, 11.4, 0)), h = 0.1,
 * force (1, 2.6, -9.81), mu = 0.2. With contact points rho_c = -n_c (unit
 * radius) and frame (n, x, n x x), the rows of J are (e, rho_c x e) and
 * W = J M^-1 J^T has rank 5: equal and opposite impulses along the chord
 * between the contact points move nothing. q = J v_free + (psi/h) e_n: a gap
 * psi on both contacts asks the ball to leave (or enter) the seam, which it
 * cannot do while rolling without slip at both contacts (sticking needs
 * W r = -q, which has no solution), so one contact slides at the edge of its
 * cone. Gauss-Seidel sweeps creep along the chord direction towards that edge
 * at a rate proportional to psi: 30 000 sweeps for psi = 1e-6.
 */
static cpk_problem *wedged_ball(double psi, double mu)
{
  const double h = 0.1, mu_c[2] = {mu, mu}, force[3] = {1.0, 2.6, -9.81};
  const double ball[3] = {0.0, 6.62105263157895, 8.78417110772903};
  const double centre[2][3] = {{0, 0, 0}, {0, 11.4, 0}}; /* radii 10 and 9: touching the ball */
  double J[6][6] = {{0}}, W[36], q[6];
  for (int c = 0; c < 2; c++) {
    double n[3], dist = 0.0;
    for (int k = 0; k < 3; k++) dist += (ball[k] - centre[c][k]) * (ball[k] - centre[c][k]);
    for (int k = 0; k < 3; k++) n[k] = (ball[k] - centre[c][k]) / sqrt(dist);
    double e[3][3] = {{n[0], n[1], n[2]}, {1, 0, 0}, {0, n[2], -n[1]}}; /* n, x, n x x */
    for (int a = 0; a < 3; a++) {
      double *row = J[3 * c + a], rho[3] = {-n[0], -n[1], -n[2]};
      for (int k = 0; k < 3; k++) row[k] = e[a][k];
      row[3] = rho[1] * e[a][2] - rho[2] * e[a][1];
      row[4] = rho[2] * e[a][0] - rho[0] * e[a][2];
      row[5] = rho[0] * e[a][1] - rho[1] * e[a][0];
    }
  }
  for (int i = 0; i < 6; i++) {
    q[i] = (i % 3 == 0) ? psi / h : 0.0;
    for (int k = 0; k < 3; k++) q[i] += J[i][k] * h * force[k]; /* v_free = h F / m */
    for (int j = 0; j < 6; j++) {
      W[i * 6 + j] = 0.0;
      for (int k = 0; k < 6; k++) W[i * 6 + j] += J[i][k] * J[j][k] * (k < 3 ? 1.0 : 2.5);
    }
  }
  cpk_matrix *M = NULL;
  cpk_problem *p = NULL;
  if (cpk_matrix_alloc_dense(6, 6, &M)) return NULL;
  memcpy(M->dense->data, W, sizeof W);
  cpk_problem_alloc_friction_cone(M, q, 3, mu_c, &p);
  cpk_matrix_free(M);
  return p;
}

/* Largest |r_T| - mu r_n over the contacts: 0 when some contact is at the edge of its cone. */
static double edge_gap(const cpk_problem *p, const double *r)
{
  double g = -INFINITY;
  for (size_t c = 0; c < p->nc; c++) {
    const double *rc = r + 3 * c;
    g = fmax(g, hypot(rc[1], rc[2]) - p->mu[c] * rc[0]);
  }
  return g;
}

static cpk_result *solve(const cpk_problem *p, const char *solver, const double *z0)
{
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_error err;
  cpk_settings_default(&s);
  s.tol = 1e-12; /* the slip is 1e-5: its direction needs a residual well below that */
  s.z0 = z0;
  if (!p || cpk_result_alloc(p->n, &r)) return NULL;
  if (cpk_solve(p, solver, &s, r, &err)) {
    t_diag("%s: %s", solver, err.message);
    cpk_result_free(r);
    return NULL;
  }
  return r;
}

static void check(const char *what, const cpk_problem *p, const cpk_result *r)
{
  t_ok(r && r->status == CPK_STATUS_SOLVED, "%s: solved (%s after %ld iterations)", what,
       r ? cpk_status_name(r->status) : "no result", r ? r->iterations : 0);
  t_ok(r && t_is_fc_solution(p, r->z, 1e-7), "%s: the Coulomb law holds", what);
  /* no sticking answer exists: some contact must be on the boundary of its cone */
  t_ok(r && fabs(edge_gap(p, r->z)) < 1e-6, "%s: a contact on the boundary of its cone (%.2g)",
       what, r ? edge_gap(p, r->z) : NAN);
}

/* nsgs cold, for either sign of the gap (the edge is at one end of the chord or the other). */
static void test_nsgs(void)
{
  for (int sign = -1; sign <= 1; sign += 2) {
    cpk_problem *p = wedged_ball(sign * 1e-6, 0.2);
    cpk_result *r = solve(p, "nsgs", NULL);
    check(sign < 0 ? "nsgs, ball pressed in" : "nsgs, ball pulled out", p, r);
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

/*
 * nsn warm-started at the other end of the chord (the answer for the opposite
 * gap): its Newton matrix is singular along the chord, on which the merit is
 * flat until the edge of a cone, so it needs the sweeps of its restarts.
 */
static void test_nsn_warm(void)
{
  cpk_problem *other = wedged_ball(1e-6, 0.2), *p = wedged_ball(-1e-6, 0.2);
  cpk_result *start = solve(other, "nsn", NULL), *r = NULL;
  t_ok(start && start->status == CPK_STATUS_SOLVED, "nsn cold on the opposite gap: solved");
  if (start) r = solve(p, "nsn", start->z);
  check("nsn from the other end of the chord", p, r);
  cpk_result_free(r);
  cpk_result_free(start);
  cpk_problem_free(p);
  cpk_problem_free(other);
}

/*
 * Seed 004's particle on the rotating plate at t = 0.0237 (W = I: a point mass
 * of unit scale, mu = 0.3): the step before slid with friction on the rim of
 * the cone, +0.0502 along t, and this step's free velocity (-0.1674, 0.00728, 0)
 * sticks: r = -q, inside the cone since 0.00728 <= 0.3 * 0.1674. Warm-started
 * from the sliding answer, fcipm's fixed point on the De Saxce term cycled
 * (`stalled` at cone residual 0.04).
 */
static void test_fcipm_slip_reversal(void)
{
  const double *q = slip_reversal_q;
  cpk_problem *p = slip_reversal_problem();
  cpk_result *r = p ? solve(p, "fcipm", slip_reversal_z0) : NULL;
  t_ok(r && r->status == CPK_STATUS_SOLVED, "fcipm warm-started across a slip reversal: solved (%s)",
       r ? r->message : "no result");
  double err = 0.0;
  for (int k = 0; r && k < 3; k++) err = fmax(err, fabs(r->z[k] + q[k]));
  t_ok(r && err < 1e-9, "fcipm: the sticking answer r = -q (off by %.2g)", err);
  t_ok(r && t_is_fc_solution(p, r->z, 1e-9), "fcipm: the Coulomb law holds");
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * Redundant contacts at rest with torsion (elliptic model, e_r = 0.01): the
 * problems of the thrown rod and box of issue 14 once they lie on the floor
 * (tests/data/cone/, written from cpkit simulate). The sweeps converge so
 * slowly along W's null space that 1000 of them end above the tolerance; nsgs
 * then finishes with nsn (nsn_finish.c), by default as soon as the sweeps'
 * rate shows it (settings.nsgs.handoff), or after all 1000 with handoff 0.
 */
static void test_nsgs_at_rest(const char *file, double handoff)
{
  cpk_problem *p = NULL;
  cpk_error err;
  char path[512];
  snprintf(path, sizeof path, "data/cone/%s", file);
  if (cpk_problem_read_file(t_srcpath(path), &p, &err)) t_diag("%s: %s", file, err.message);
  cpk_settings s;
  cpk_result *r = NULL;
  cpk_settings_default(&s);
  s.tol = 1e-8;
  s.nsgs.handoff = handoff;
  if (p && !cpk_result_alloc(p->n, &r) && cpk_solve(p, "nsgs", &s, r, &err)) {
    t_diag("nsgs: %s", err.message);
    cpk_result_free(r);
    r = NULL;
  }
  double polished = NAN;
  if (r) cpk_result_get_stat(r, "polished", &polished);
  t_ok(r && r->status == CPK_STATUS_SOLVED && r->residual <= 1e-8,
       "%s: nsgs solved (%s, residual %.2g, polished by nsn: %g)", file,
       r ? cpk_status_name(r->status) : "no result", r ? r->residual : NAN, polished);
  t_ok(r && t_is_fc_solution(p, r->z, 1e-7), "%s: the Coulomb law holds", file);
  double sweeps = -1.0, finish = -1.0;
  if (r) cpk_result_get_stat(r, "sweeps", &sweeps);
  if (r) cpk_result_get_stat(r, "polish_iterations", &finish);
  t_ok(r && finish > 0.0 && sweeps > 0.0 && (double)r->iterations == sweeps + finish,
       "%s: iterations (%ld) = sweeps (%g) + nsn's finish (%g)", file, r ? r->iterations : -1L,
       sweeps, finish);
  /* the rate says 1000 sweeps end short: handed over early (handoff), or all 1000 when 0 */
  t_ok(r && (handoff > 0.0 ? sweeps < 1000.0 : sweeps == 1000.0),
       "%s, handoff %g: %g sweeps before the finish", file, handoff, sweeps);
  cpk_result_free(r);
  cpk_problem_free(p);
}

/*
 * mu = 2 is above the wedge's self-locking value cot(theta / 2) = 1.555
 * (theta = 65.5 degrees between the normals): the squeeze along the chord lies
 * inside both cones. Pulled out (psi > 0) the reactions drift the other way,
 * to where a contact reaches the edge of its cone, and the jump takes them
 * there. Pressed in, the drift is along the squeeze, a ray that never leaves
 * the cones: no jump is taken (none could end it), and whatever nsgs and its
 * finish return, a `solved` must be an answer.
 */
static void test_self_locking(void)
{
  for (int sign = -1; sign <= 1; sign += 2) {
    cpk_problem *p = wedged_ball(sign * 1e-6, 2.0);
    cpk_result *r = solve(p, "nsgs", NULL);
    double jumps = NAN;
    if (r) cpk_result_get_stat(r, "drift_jumps", &jumps);
    if (sign > 0) {
      check("nsgs, mu = 2, ball pulled out", p, r);
      t_ok(jumps == 1, "nsgs, mu = 2, ball pulled out: one jump to the cone's edge (%g)", jumps);
    } else {
      t_ok(r && jumps == 0, "nsgs, mu = 2, ball pressed in: no jump along the squeeze (%g)", jumps);
      t_ok(r && (r->status != CPK_STATUS_SOLVED || t_is_fc_solution(p, r->z, 1e-7)),
           "nsgs, mu = 2, ball pressed in: %s, never a false `solved`",
           r ? cpk_status_name(r->status) : "no result");
    }
    cpk_result_free(r);
    cpk_problem_free(p);
  }
}

int main(void)
{
  cpk_init();
  test_nsgs();
  test_nsn_warm();
  test_self_locking();
  test_fcipm_slip_reversal();
  for (int k = 0; k < 2; k++) { /* the default hand-off, and none (the sweeps run to max_iter) */
    test_nsgs_at_rest("rod-at-rest-elliptic.cpk", k ? 0.0 : CPK_DEFAULT_NSGS_HANDOFF);
    test_nsgs_at_rest("box-at-rest-elliptic.cpk", k ? 0.0 : CPK_DEFAULT_NSGS_HANDOFF);
  }
  return t_done();
}
