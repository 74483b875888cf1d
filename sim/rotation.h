/* rotation.h: unit quaternions and 3-vectors for the time-stepper (internal). */
#ifndef CPK_SIM_ROTATION_H
#define CPK_SIM_ROTATION_H

void sim_vcross(const double a[3], const double b[3], double out[3]);
double sim_vdot(const double a[3], const double b[3]);
double sim_vnorm(const double a[3]);
/* Normalise q in place; returns 0 when q is zero or not finite. */
int sim_qnormalize(double q[4]);
/* R (row-major 3x3) of a unit quaternion (w, x, y, z): world = R body. */
void sim_qmatrix(const double q[4], double R[9]);
/* out = R v and out = R^T v. */
void sim_rotate(const double R[9], const double v[3], double out[3]);
void sim_rotate_t(const double R[9], const double v[3], double out[3]);
/* q <- exp(h w / 2) q (w in the world frame), renormalised. */
void sim_qintegrate(double q[4], const double w[3], double h);
/* Quaternion of a rotation by angle about a unit axis. */
void sim_qaxis(const double axis[3], double angle, double q[4]);
/* out = a b (Hamilton product). */
void sim_qmul(const double a[4], const double b[4], double out[4]);
/* A unit tangent t orthogonal to the unit normal n: the projection of world x,
 * or of world y when |n_x| > 0.9. The switch is a jump of the frame: impulses
 * remembered across it give a poorer warm start, never a wrong answer. */
void sim_tangent(const double n[3], double t[3]);

#endif
