/* nsn.h: private to the nsn solver: its workspace, the Alart-Curnier function with its generalized Jacobian, the Newton matrix. */
#ifndef CPK_SOLVERS_NSN_H
#define CPK_SOLVERS_NSN_H
#include <cpkit/linsys.h>
#include <cpkit/solver.h>
#include "resolve.h"

/*
 * Per contact c (dim d, normal first), with u = W r + q,
 *   x_n = r_n - rho_n u_n,  x_T = r_T - rho_t u_T,  R = mu max(0, x_n),
 *   Phi_n = r_n - max(0, x_n),  Phi_T = r_T - proj_{|y| <= R}(x_T)
 * (Alart and Curnier 1991). Phi(r) = 0 exactly at the solutions of the
 * Coulomb (De Saxce) cone problem. An element of its generalized Jacobian is
 * dPhi_c = A_c dr_c + B_c du_c, A_c and B_c d-by-d, so the Newton matrix is
 * H = A + B W with A, B block diagonal: its pattern is W's block pattern
 * (every d-by-d block W touches, full) plus the diagonal blocks, fixed for
 * the whole solve, so UMFPACK's symbolic analysis is done once.
 */
typedef struct nsn_state {
  size_t n, nc, d;
  /*
   * W in CSC: the problem's own CSC (set from the problem at alloc and at every
   * solve, never copied: a copy was 16 bytes per entry of W on every rank,
   * 1.5 KB per contact on the 3-D piles), or Wown, a dense W on its full pattern.
   */
  const cpk_csc *W;
  cpk_csc *Wown;
  resolve_seen seen;   /* the problem's counters behind W's values and rho */
  cpk_csc *H;          /* Newton matrix on the block pattern; W's block pattern is a subset */
  cpk_int *dpos;       /* H->x[dpos[j] + b] is row (j/d)*d + b of column j (the diagonal block) */
  cpk_int *diag;       /* H->x[diag[j]] is the diagonal entry of column j */
  double *rho;         /* 2 per contact: rho_n, rho_t */
  double *Ablk, *Bblk; /* d*d per contact, row-major */
  cpk_linsys *ls;
  /* current point, trial point, direction and scratch (n each) */
  double *r, *u, *phi, *rt, *ut, *phit, *dir, *wd, *hd, *dsave, *rbest, *grad;
  int u_exact;         /* 1 when u = W r + q was computed from r (not u + t W dir) */
  int u_age;           /* accepted steps since u was last computed from r */
  double hist[CPK_MAX_NEWTON_NONMONOTONE];
  int nhist, hist_cap, hist_cap0; /* memory in use, and as set (a stall switches to 1) */
  int monotone_switch;
  double merit;        /* 1/2 |Phi(r)|^2 */
  double merit0;       /* the larger of the merits at the start point and at 0 (> 0) */
  double res_best;     /* smallest cone residual so far, at rbest */
  double window_merit; /* merit at the start of the stall window */
  long window_start;
  int was_singular;    /* the last unshifted H failed to factor */
  double fc_merit;      /* FCLIB's merit at (r, u) of the last residual (see fc_merit_at) */
  long fc_merit_at;     /* evaluations when fc_merit was computed (-1: none this solve) */
  long iter, evaluations, backtracks, regularizations, gradient_steps, restarts, restart_sweeps;
} nsn_state;

/* The block pattern of H and the maps dpos, diag (all allocation here). */
int nsn_build_pattern(nsn_state *S);
/* rho per contact from W's diagonal blocks, by policy (CPK_NSN_RHO_*). */
void nsn_choose_rho(nsn_state *S, int policy);
/* phi <- Phi(r) given u = W r + q; returns 1/2 |phi|^2 (INFINITY if not finite). */
double nsn_phi(const nsn_state *S, const cpk_problem *p, const double *r, const double *u,
               double *phi);
/* rho (2 values) of one contact from its diagonal block of W (d*d, row-major) by a policy other
 * than CPK_NSN_RHO_UNIT; not repaired (nsn_choose_rho replaces unusable values). */
void nsn_contact_rho(const double *blk, size_t d, int policy, double *rho);
/* One contact's Phi (d values) and, with A and B, the d*d blocks of an element of its generalized
 * Jacobian at (r, u); returns |phi|^2 (nsn and nsn-rows share it). */
double nsn_contact_phi(size_t d, double mu, const double *rho, const double *r, const double *u,
                       double *phi, double *A, double *B);
/* Ablk, Bblk <- an element of the generalized Jacobian at S->r, S->u (S->phit is scratch). */
void nsn_linearize(nsn_state *S, const cpk_problem *p);
/* H <- A + B W on the fixed pattern. */
void nsn_assemble(nsn_state *S);
/* y = H x (trans = 0) or H^T x (trans != 0: the merit's gradient when x = Phi). */
void nsn_hmul(const nsn_state *S, const double *x, double *y, int trans);
#endif
