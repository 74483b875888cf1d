/* slip_reversal.h: the slip-reversal friction-cone problem shared by the cone tests (seed 004's particle on the rotating plate at t = 0.0237). */
#ifndef CPK_TESTS_SLIP_REVERSAL_H
#define CPK_TESTS_SLIP_REVERSAL_H
#include <cpkit/problem.h>

/* One contact, W = I (a point mass of unit scale), mu = 0.3: the step before slid on the
 * rim of the cone, +0.0502 along t (slip_reversal_z0, the warm start), and this step's
 * free velocity q sticks: the answer is r = -q, inside the cone. */
extern const double slip_reversal_q[3];
extern const double slip_reversal_z0[3];
/* The problem (W, q, mu above); NULL when it cannot be built. */
cpk_problem *slip_reversal_problem(void);
#endif
