/* implicit_internal.h: internal to formulations/: the implicit contact system, its compiled map, the surface evaluated at the end-of-step pose, and 3-vector helpers. */
#ifndef CPK_FORMULATIONS_IMPLICIT_INTERNAL_H
#define CPK_FORMULATIONS_IMPLICIT_INTERNAL_H
#include <stddef.h>
#include <cpkit/implicit.h>

/* One side of a pair: a body, or the world with a fixed pose. */
typedef struct cim_side {
  size_t body;
  cpk_implicit_surface surf;
  double pos[3], quat[4]; /* world side only */
} cim_side;

typedef struct cim_pair {
  cim_side side[2];
  cpk_contact_params params;
} cim_pair;

struct cpk_implicit_system {
  double h;
  size_t nb, cap_b, np, cap_p;
  cpk_implicit_body *bodies;
  cim_pair *pairs;
};

/* A surface at the start pose (c, R) whose body moves with V = (v, w) over the step:
 * world point x maps to the body frame by xb = R^T (I - h [w]x) (x - c - h v), the
 * first-order rotation update (I + h [w]x) R inverted to first order. */
typedef struct cim_place {
  const cpk_implicit_surface *surf;
  double c[3], R[9]; /* R row-major, body to world */
  int moving;        /* 0 for the world: V ignored */
} cim_place;

/* F(x) and its partials: g = dF/dx, Fv = dF/dV (6), Gx = dg/dx (3x3), GV = dg/dV (3x6). */
typedef struct cim_eval {
  double F, g[3], Fv[6], Gx[9], GV[18];
} cim_eval;

int cim_place_eval(const cim_place *p, const double *V, double h, const double x[3], cim_eval *e);
void cim_quat_to_matrix(const double q[4], double R[9]);

/* The compiled problem. Local unknowns of a pair, in this order: a1 (3), a2 (3), s, l,
 * deltabar, delta (3), p_ns, [p_nr], [p_t, p_o, [p_r], sigma]. */
enum { CIM_A1 = 0, CIM_A2 = 3, CIM_S = 6, CIM_L = 7, CIM_DB = 8, CIM_DN = 9, CIM_PNS = 12 };
#define CIM_MAXM 20
/* Stencil of a pair's rows: its local unknowns at 0..m-1, then V1 and V2 at fixed places. */
enum { CIM_V1 = CIM_MAXM, CIM_V2 = CIM_MAXM + 6, CIM_MAXS = CIM_MAXM + 12 };

typedef struct cim_mbody {
  double mass, Iw[9], v0[6], rhs[6]; /* rhs = M v0 + h (force - w x Iw w) */
  double c[3], R[9];
} cim_mbody;

typedef struct cim_mpair {
  cim_place place[2];
  size_t body[2];
  size_t first, m;
  size_t kpnr, kf, nf, ksig; /* (size_t)-1 when absent */
  double S[9], Cdprev[3], dmax, mu, e2[3], axis[3], delta_prev[3];
} cim_mpair;

/* Everything a pair's rows see at one point z. */
typedef struct cim_local {
  double f[CIM_MAXM];
  double fm[12];                /* contribution to the momentum rows of body 1 and body 2 */
  double Jc[CIM_MAXM][CIM_MAXS]; /* d f / d stencil */
  double Jm[12][CIM_MAXS];       /* d fm / d stencil */
} cim_local;

struct cpk_implicit_map {
  double h;
  size_t nb, np, n;
  cim_mbody *bodies;
  cim_mpair *pairs;
  cpk_implicit_surface *surfs; /* 2 np copies the places point into */
  cpk_csc *pattern;
  size_t ntrip, *pos;
  cim_local *work;
};

/* Rows of pair p at z (V1, V2 point into z or are NULL for the world); the Jacobian
 * blocks too when jac is non-zero. */
int cim_pair_rows(const cpk_implicit_map *M, const cim_mpair *p, const double *z, int jac,
                  cim_local *L);
/* Column of stencil entry k of pair p in the problem, or (size_t)-1 when absent. */
size_t cim_stencil_col(const cpk_implicit_map *M, const cim_mpair *p, size_t k);
/* Contact frame, velocities and impulses of pair p at z. */
int cim_pair_contact(const cpk_implicit_map *M, const cim_mpair *p, const double *z,
                     cpk_implicit_contact *out);

/* ---- 3-vectors and 3x3 row-major matrices ---- */
static inline void cim_cross(const double a[3], const double b[3], double c[3])
{
  double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
  c[0] = t0;
  c[1] = t1;
}
static inline double cim_dot(const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* [a]x: the matrix of x -> a x x. */
static inline void cim_skew(const double a[3], double S[9])
{
  S[0] = 0, S[1] = -a[2], S[2] = a[1];
  S[3] = a[2], S[4] = 0, S[5] = -a[0];
  S[6] = -a[1], S[7] = a[0], S[8] = 0;
}
/* C (r x c) = A (r x k) B (k x c), all row-major; C must not alias A or B. */
static inline void cim_mul(const double *A, const double *B, double *C, int r, int k, int c)
{
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      double s = 0.0;
      for (int l = 0; l < k; l++) s += A[i * k + l] * B[l * c + j];
      C[i * c + j] = s;
    }
}
/* C (r x c) = A^T B with A (k x r), B (k x c). */
static inline void cim_mul_tn(const double *A, const double *B, double *C, int r, int k, int c)
{
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) {
      double s = 0.0;
      for (int l = 0; l < k; l++) s += A[l * r + i] * B[l * c + j];
      C[i * c + j] = s;
    }
}
#endif
