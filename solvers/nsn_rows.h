/* nsn_rows.h: private to the nsn-rows solver: its workspace on this rank's rows and the Newton matrix's rows. */
#ifndef CPK_SOLVERS_NSN_ROWS_H
#define CPK_SOLVERS_NSN_ROWS_H
#include <cpkit/linsys.h>
#include <cpkit/rows.h>
#include <cpkit/solver.h>
#include "nsn.h"

/*
 * nsn's semismooth Newton (nsn.h) with the problem held by rows (cpk_fc_rows): each
 * rank has its block of contacts' rows of W, evaluates u, Phi and the Jacobian blocks
 * on them, assembles its rows of H = A + B W and hands them to a distributed backend
 * (cpk_linsys_factor_rows). r and the Newton direction are replicated (n values: the
 * backend gathers the solution on every rank); u, Phi and H are local. Every decision
 * (step length, stop) is taken on merits and residuals reduced over the ranks, so the
 * ranks' r stay equal.
 */
typedef struct nsn_rows_state {
  const cpk_fc_rows *R; /* this rank's rows: own (cut from the problem at alloc) or the caller's */
  cpk_fc_rows *own;
  double qmax;         /* max(1, max |q|) over all the ranks: the tolerance's scale (cpk_problem_tolerance) */
  cpk_int *hp, *hc;    /* H's local rows: CSR pattern, global columns */
  double *hx;          /* H's values */
  double *rho;         /* 2 per local contact */
  double *Ablk, *Bblk; /* d*d per local contact */
  cpk_linsys *ls;
  double *r, *rt, *dir, *grad, *rbest; /* n each, replicated */
  double *u, *ut, *phi, *phit;         /* local rows */
  cpk_int *hdiag;      /* per local row: its diagonal entry's place in hx */
  double merit, merit0, res_best;
  int was_singular;    /* the last unshifted H failed: the next step starts shifted (as nsn) */
  int stop;            /* the monitor's stop before a factorization (a status), else 0 */
  long iter, evaluations, backtracks, gradient_steps, regularizations;
} nsn_rows_state;

/* H's local pattern (hp, hc, hx allocated): per contact the union of its rows' columns and its diagonal block. */
int nsn_rows_pattern(nsn_rows_state *S);
/* rho per local contact from its diagonal block (nsn_contact_rho); unusable ones repaired with the mean over all ranks. Collective. */
void nsn_rows_choose_rho(nsn_rows_state *S, int policy);
/* phi (local rows) at r (replicated) and u (local rows); with jacobian, Ablk and Bblk too. Returns the local sum of |phi_c|^2. */
double nsn_rows_phi(const nsn_rows_state *S, const double *r, const double *u, double *phi, int jacobian);
/* hx <- the local rows of A + B W. */
void nsn_rows_assemble(nsn_rows_state *S);
#endif
