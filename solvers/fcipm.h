/* fcipm.h: private interface between the parts of the friction-cone interior-point solver (cone algebra, Newton system, outer loop). */
#ifndef CPK_SOLVERS_FCIPM_H
#define CPK_SOLVERS_FCIPM_H
#include <cpkit/linsys.h>
#include <cpkit/solver.h>
#include "resolve.h"

/*
 * The friction-cone problem with the De Saxce term s_c = mu_c |u_T,c| frozen
 * is a linear complementarity problem over second-order cones. With
 * r_c = D_c x_c, D_c = diag(1, mu_c, ..., mu_c), each K_mu becomes the
 * standard Lorentz cone L = { x_0 >= |x_1| } and, because D_c maps L* = L onto
 * the dual cone, the problem is: find x in L, y = M x + b in L, x . y = 0,
 * with M = D W D and b = D (q + s e_n). Contacts with mu = 0 keep only their
 * normal unknown (a cone of size 1, the half-line); their tangential
 * reactions are 0. x and y are the "reduced" vectors (nr entries).
 */

/* Largest size of one cone (CPK_CONE_DIM_MAX) and of its dense blocks. */
#define FCIPM_CMAX CPK_CONE_DIM_MAX
#define FCIPM_BLK (FCIPM_CMAX * FCIPM_CMAX)

typedef struct fcipm_state {
  size_t n, nr, nc, dim;   /* full unknowns, reduced unknowns, contacts (= cones), unknowns per contact */
  size_t *cstart, *csize;  /* reduced position and size (1 or dim) of each contact's cone */
  size_t *ridx;            /* reduced k -> full index */
  double *rscale;          /* reduced k -> D entry (1 normal, mu tangential) */
  double *x, *y, *dx, *dy, *ax, *ay; /* iterate, direction, predictor direction */
  double *rp, *t, *lam;    /* feasibility residual y - M x - b, scaled complementarity targets, lambda */
  double *winv, *w2inv;    /* per cone: W^{-1} and W^{-2} (dense FCIPM_BLK blocks) */
  double *r, *u, *rbest, *s, *snew; /* full r = D x, u = W r + q, best r; De Saxce terms per contact */
  double *rt, *ut;         /* full: a trial point (contacts snapped to the apex) and its u */
  double *sc, *work, *res; /* K's symmetric scaling, solve workspace (refinement) */
  cpk_csc *K;              /* M + W^{-2} on a fixed pattern */
  size_t *mpos;            /* triplet k of M -> position in K->x (first nm), then the blocks */
  double *mval;            /* values of M's triplets (rscale_i W_ij rscale_j) */
  size_t nm, nblk, nl;     /* triplets of M, of the blocks, of the linearized De Saxce term */
  cpk_int *mrow;           /* reduced row of each M triplet */
  size_t *lsrc;            /* linearized triplet l -> the M triplet it scales */
  long *fmap;              /* full index -> reduced one, or -1 (contacts with mu = 0: tangential) */
  cpk_csc *wfix;           /* a dense W on its full pattern, refreshed in place (NULL: W is sparse) */
  resolve_seen seen;       /* the problem's counters behind the layout, rscale and mval */
  double *g;               /* full: u_T / |u_T| per contact (0 on normals and when |u_T| is tiny) */
  int linearize;           /* the linearized De Saxce term is in use (settings.fcipm.linearize, 0 in the fallback) */
  cpk_linsys *ls;
  double tol, best_res;    /* tolerance, best residual of the solve */
  double run_best, gain_ref; /* this run's best residual, and its value at the last 10% gain */
  int stopped, fallback;   /* the monitor stopped the run; the plain fixed point took over */
  int cold;                /* the warm start is ignored: a run from it stalled */
  long inner, outer, factorizations, regularizations;
  double ds;               /* change of s at the last refresh */
  double floor;            /* centering floor factor in force (FCIPM_FLOOR, 0 once dropped) */
  double mu_c, step;       /* last mean complementarity x.y / nc, step length */
  struct nsn_finisher *finisher; /* nsn's workspace for the finish (nsn_finish.h), made at its first run */
  long finish_iterations, finish_factorizations; /* nsn's work in the finish of the last solve */
  int finished;            /* the answer is the finish's (its residual was lower) */
} fcipm_state;

/* ---- fcipm_cone.c: one Lorentz cone, d = 1 .. FCIPM_CMAX ---------------- */

/* det x = x0^2 - |x1|^2 computed as (x0 - |x1|)(x0 + |x1|). */
double fcipm_det(size_t d, const double *x);
/*
 * Nesterov-Todd scaling of the pair (x, y) in int L: the symmetric W with
 * W^2 y = x. Writes W^{-1} and W^{-2} (d-by-d, row-major) and
 * lambda = W^{-1} x = W y. CPK_ESINGULAR if x or y is not interior.
 */
int fcipm_nt_scaling(size_t d, const double *x, const double *y, double *winv, double *w2inv,
                     double *lam);
/* Jordan product z = a o b = (a . b, a0 b1 + b0 a1). */
void fcipm_jordan(size_t d, const double *a, const double *b, double *z);
/* Solve a o t = r for t (a in int L): the arrow matrix's inverse. */
void fcipm_arrow_solve(size_t d, const double *a, const double *r, double *t);
/* Largest alpha (INFINITY if none) keeping x + alpha dx in L, x in int L. */
double fcipm_max_step(size_t d, const double *x, const double *dx);
/* y = A x for a d-by-d row-major block. */
void fcipm_block_mv(size_t d, const double *A, const double *x, double *y);

/* ---- fcipm_newton.c: the Newton system ---------------------------------- */

/* Pattern of K = pattern(M) + the cones' diagonal blocks (+ the linearized De Saxce rows); fills mpos/mval. */
int fcipm_build_system(fcipm_state *S, const cpk_problem *p);
/* mval again from W's values (same pattern) and rscale: a re-solve after W or mu changed. */
void fcipm_refresh_system(fcipm_state *S, const cpk_problem *p);
/* K = M + W^{-2} (blocks in S->w2inv), factored, with a diagonal shift when singular. */
int fcipm_factor(fcipm_state *S);
/*
 * Direction for complementarity targets t (in scaled space, per cone
 * W^{-1} dx + W dy = t): K dx = rp + W^{-1} t, dy = W^{-1}(t - W^{-1} dx).
 */
int fcipm_direction(fcipm_state *S, const double *t, double *dx, double *dy);
/* One predictor-corrector iteration at the current x, y, rp; steps go `fraction` of the way to the cones' boundary. */
int fcipm_pc_step(fcipm_state *S, double fraction, double floor);

/* ---- fcipm.c -------------------------------------------------------------- */

/* r = D x (full), u = W r + q, rp = y - D u_reduced - D s e_n: evaluates the iterate. */
void fcipm_evaluate(fcipm_state *S, const cpk_problem *p);
#endif
