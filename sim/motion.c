/* motion.c: prescribed motions of driven bodies (seed 004's rotating plate, a vibrating plate). */
#include <math.h>
#include "rotation.h"
#include "world.h"

static const double SIM_PI = 3.14159265358979323846;

/* theta(t) of seed 004 eq. (16), repeated with period T, and its derivative. */
static void seed004_theta(double alpha, double T, double t, double *th, double *dth)
{
  double s = fmod(t, T);
  if (s < 0) s += T;
  if (s < 0.5 * T) {
    *th = 0.5 * alpha * s * s - 0.25 * alpha * T * s;
    *dth = alpha * s - 0.25 * alpha * T;
  } else {
    *th = -0.5 * alpha * s * s + 0.75 * alpha * T * s - 0.25 * alpha * T * T;
    *dth = -alpha * s + 0.75 * alpha * T;
  }
}

static void rotating(const cpk_body *b, const double x0[3], const double q0[4], double t,
                     double x[3], double q[4], double v[3], double om[3])
{
  const double *c = b->motion.p, *axis = b->motion.p + 3;
  double th, dth, dq[4], R[9], r0[3], r[3];
  seed004_theta(b->motion.p[6], b->motion.p[7], t, &th, &dth);
  sim_qaxis(axis, th, dq);
  sim_qmul(dq, q0, q);
  sim_qmatrix(dq, R);
  for (int i = 0; i < 3; i++) r0[i] = x0[i] - c[i];
  sim_rotate(R, r0, r);
  for (int i = 0; i < 3; i++) {
    x[i] = c[i] + r[i];
    om[i] = dth * axis[i];
  }
  sim_vcross(om, r, v);
}

static void oscillating(const cpk_body *b, const double x0[3], const double q0[4], double t,
                        double x[3], double q[4], double v[3], double om[3])
{
  const double *d = b->motion.p, ar = b->motion.p[3], al = b->motion.p[4];
  double B = 2 * SIM_PI * b->motion.p[5], ar_ = b->motion.p[6] + B * t, al_ = b->motion.p[7] + B * t;
  double dq[4];
  sim_qaxis(d, -ar * sin(ar_) / (B * B), dq);
  sim_qmul(dq, q0, q);
  for (int i = 0; i < 3; i++) {
    x[i] = x0[i] - al * sin(al_) / (B * B) * d[i];
    v[i] = -al * cos(al_) / B * d[i];
    om[i] = -ar * cos(ar_) / B * d[i];
  }
}

void sim_motion_eval(const cpk_body *b, const double x0[3], const double q0[4], double t,
                     double x[3], double q[4], double v[3], double om[3])
{
  for (int i = 0; i < 3; i++) {
    x[i] = x0[i];
    v[i] = om[i] = 0;
  }
  for (int i = 0; i < 4; i++) q[i] = q0[i];
  if (b->motion.kind == CPK_MOTION_ROTATING) {
    rotating(b, x0, q0, t, x, q, v, om);
  } else if (b->motion.kind == CPK_MOTION_OSCILLATING) {
    oscillating(b, x0, q0, t, x, q, v, om);
  } else if (b->motion.kind == CPK_MOTION_VIBRATING) {
    const double *d = b->motion.p, a = b->motion.p[3], f = b->motion.p[4], ph = b->motion.p[5];
    double arg = 2 * SIM_PI * f * t + ph;
    for (int i = 0; i < 3; i++) {
      x[i] = x0[i] + a * (sin(arg) - sin(ph)) * d[i];
      v[i] = a * 2 * SIM_PI * f * cos(arg) * d[i];
    }
  }
}
