/* rotation.c: unit quaternions and 3-vectors for the time-stepper. */
#include <math.h>
#include "rotation.h"

void sim_vcross(const double a[3], const double b[3], double out[3])
{
  double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2],
         c2 = a[0] * b[1] - a[1] * b[0];
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
}

double sim_vdot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double sim_vnorm(const double a[3]) { return sqrt(sim_vdot(a, a)); }

int sim_qnormalize(double q[4])
{
  double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(s > 0) || !isfinite(s)) return 0;
  for (int i = 0; i < 4; i++) q[i] /= s;
  return 1;
}

void sim_qmatrix(const double q[4], double R[9])
{
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - w * z);
  R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);
  R[7] = 2 * (y * z + w * x);
  R[8] = 1 - 2 * (x * x + y * y);
}

void sim_rotate(const double R[9], const double v[3], double out[3])
{
  double o[3];
  for (int i = 0; i < 3; i++) o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
  for (int i = 0; i < 3; i++) out[i] = o[i];
}

void sim_rotate_t(const double R[9], const double v[3], double out[3])
{
  double o[3];
  for (int i = 0; i < 3; i++) o[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
  for (int i = 0; i < 3; i++) out[i] = o[i];
}

void sim_qmul(const double a[4], const double b[4], double out[4])
{
  double o[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  for (int i = 0; i < 4; i++) out[i] = o[i];
}

void sim_qaxis(const double axis[3], double angle, double q[4])
{
  double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  for (int i = 0; i < 3; i++) q[i + 1] = s * axis[i];
}

void sim_qintegrate(double q[4], const double w[3], double h)
{
  double nw = sim_vnorm(w), dq[4];
  if (!(nw * h > 0)) return;
  double axis[3] = {w[0] / nw, w[1] / nw, w[2] / nw};
  sim_qaxis(axis, nw * h, dq);
  sim_qmul(dq, q, q);
  sim_qnormalize(q);
}

void sim_tangent(const double n[3], double t[3])
{
  double e[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.9) {
    e[0] = 0;
    e[1] = 1;
  }
  double d = sim_vdot(e, n);
  for (int i = 0; i < 3; i++) t[i] = e[i] - d * n[i];
  double s = sim_vnorm(t);
  for (int i = 0; i < 3; i++) t[i] /= s;
}
