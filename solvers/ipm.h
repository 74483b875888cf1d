/* ipm.h: private interface between the parts of the interior-point solver (state, Newton system, crossover). */
#ifndef CPK_SOLVERS_IPM_H
#define CPK_SOLVERS_IPM_H
#include <cpkit/linsys.h>
#include <cpkit/solver.h>
#include "resolve.h"

/*
 * The box MCP is written as the constrained equation of Wang, Monteiro and
 * Pang: unknowns z, wl >= 0 (multipliers of finite lower bounds) and
 * wu >= 0 (of finite upper bounds), with slacks sl = z - l, su = u - z:
 *
 *   F(z) - wl + wu = 0,   sl o wl = 0,   su o wu = 0,   sl, su, wl, wu >= 0.
 *
 * A variable without a finite lower (upper) bound has no wl (wu); a fixed one
 * (l = u) has neither and its equation is dropped. Every method works in the
 * interior (all four > 0) and takes Newton steps on this system, reduced to
 * the n-by-n matrix K = J + diag(wl/sl + wu/su), J = F'(z), whose pattern
 * (J's plus the diagonal) never changes.
 */
enum { IPM_FREE = 0, IPM_LOWER = 1, IPM_UPPER = 2, IPM_BOX = 3, IPM_FIXED = 4 };

#define IPM_HAS_L(t) ((t) == IPM_LOWER || (t) == IPM_BOX)
#define IPM_HAS_U(t) ((t) == IPM_UPPER || (t) == IPM_BOX)

/* Which method runs (settings.ipm.method, resolved). */
enum { IPM_RUN_PATH = 1, IPM_RUN_POTENTIAL = 2 };

typedef struct ipm_state {
  size_t n, m;                 /* variables; complementarity pairs (finite bounds) */
  resolve_seen seen;           /* the problem's counters behind Jown's values */
  unsigned char *type;         /* IPM_FREE ... IPM_FIXED per variable */
  double *z, *wl, *wu, *f;     /* iterate and f = F(z) */
  double *dz, *dwl, *dwu;      /* Newton direction */
  double *az, *awl, *awu;      /* affine-scaling (predictor) direction */
  double *zt, *wlt, *wut, *ft; /* trial point of a line search */
  double *zbest;               /* iterate with the smallest natural residual so far */
  double *zw, *wlw, *wuw, *fw; /* potential reduction: the watchdog's reference point */
  double *tl, *tu;             /* centering targets of the complementarity rows */
  double *D, *rhs, *res, *tmp; /* K's diagonal shift, right-hand side, refinement work */
  double *sc;                  /* symmetric scaling of K (see ipm_newton.c) */
  double *y, *g;               /* certificate candidate and M^T y */
  unsigned char *pinned;       /* rows replaced by the identity (fixed variables, crossover) */
  unsigned char *act, *last_act; /* crossover: active set now and at the last attempt */
  const cpk_csc *J;            /* Jacobian values (borrowed M, or Jown) */
  cpk_csc *Jown;               /* owned: dense M converted, or the nonlinear Jacobian */
  cpk_csc *K;                  /* reduced matrix on the fixed pattern */
  cpk_int *jmap;               /* J entry k -> position in K */
  cpk_int *dpos;               /* diagonal position of each column of K */
  cpk_linsys *ls;
  int method;                  /* IPM_RUN_PATH or IPM_RUN_POTENTIAL, as configured */
  int running;                 /* the method of the current (last) run */
  int fallback;                /* path following stalled and potential reduction took over */
  int stopped;                 /* the monitor stopped the last run (its status), else 0 */
  double tol;                  /* absolute tolerance on the natural residual */
  double best_res;             /* natural residual of zbest */
  long iter, regularizations, crossover_tries, backtracks;
  long nf, nj;                 /* evaluations of F and of its Jacobian */
  int crossed;                 /* the returned z came from a crossover step */
  int warm;                    /* the start point came from settings.z0 */
  int polished;                /* the returned z came from the Newton polish */
  long polish_iter;            /* iterations of the Newton polish */
  int polish_tried;            /* the polish ran during the iterations (once per solve) */
  double mu, step, sigma;      /* last complementarity, step length, centering */
  int wd_left, wd_pause;       /* watchdog: relaxed steps left; monotone steps before the next try */
  double wd_need;              /* watchdog: the potential a relaxed step must reach */
  long wd_steps, wd_returns;   /* watchdog: relaxed steps taken; returns to the reference */
} ipm_state;

/* ---- ipm_newton.c: the reduced Newton system ---------------------------- */

/* Pattern of K = pattern(J) + diagonal; fills jmap/dpos. */
int ipm_build_pattern(ipm_state *S);
/* Mean complementarity sl*wl, su*wu over the m pairs (0 when m = 0). */
double ipm_mu(const ipm_state *S, const cpk_problem *p, const double *z, const double *wl,
              const double *wu);
/* K = J + D on the unpinned rows, identity on pinned rows; factor, regularizing if singular. */
int ipm_factor(ipm_state *S, const double *D);
/* D = wl/sl + wu/su at the current iterate. */
void ipm_barrier_diagonal(ipm_state *S, const cpk_problem *p);
/* x <- K^{-1} x, with one step of iterative refinement. */
int ipm_solve_reduced(ipm_state *S, double *x);
/*
 * Newton direction (dz, dwl, dwu) for complementarity targets tl, tu (the
 * right-hand sides of sl dwl + wl dz = tl - sl wl, ...). K must be factored.
 */
int ipm_direction(ipm_state *S, const cpk_problem *p, const double *tl, const double *tu,
                  double *dz, double *dwl, double *dwu);
/* Largest alpha in (0, inf] keeping sl, su, wl, wu >= 0 along the direction. */
double ipm_max_step(const ipm_state *S, const cpk_problem *p, const double *dz,
                    const double *dwl, const double *dwu);
/* ||F(z) - wl + wu||_inf over the equations. */
double ipm_infeasibility(const ipm_state *S, const double *f, const double *wl, const double *wu);
/* f = F(z), counted. */
int ipm_eval(ipm_state *S, const cpk_problem *p, const double *z, double *f);
/* Nonlinear problems: evaluate the Jacobian at z into Jown, counted. */
int ipm_jacobian(ipm_state *S, const cpk_problem *p, const double *z);

/* ---- ipm.c: shared pieces ------------------------------------------------ */

/* Natural residual of (z, f); keeps z as the best point if it is the smallest yet. */
void ipm_note(ipm_state *S, const cpk_problem *p, double *res);
/* Evaluate f = F(z), then ipm_note. */
int ipm_evaluate(ipm_state *S, const cpk_problem *p, double *res);

/* ---- ipm_crossover.c ------------------------------------------------------ */

/*
 * Identify the active set from (z, wl, wu), solve the reduced equations on it
 * and keep the result if its natural residual beats best_res. Returns 1 when
 * the point was accepted and solves to tolerance, 0 otherwise (or an error < 0
 * as -code). `force` skips the "active set unchanged since last try" test.
 */
int ipm_crossover(ipm_state *S, const cpk_problem *p, int force);

/* ---- ipm_polish.c ------------------------------------------------------------ */

/*
 * A warm start or an answer that passes the tolerance by less than this factor
 * gets a Newton step (the crossover's for a warm start, the polish for an
 * answer), kept when it lowers the residual: the tolerance is absolute, and at
 * a touch-down, whose impulses are of its order, a point that passes it only
 * just can be wrong at the scale of the answer (as for bdnewton and fbnewton,
 * solvers/newton_run.c, polish_start).
 */
#define IPM_FINISH_MARGIN 1e-2

/*
 * Nonlinear problems left unsolved (not stopped by the monitor, crossover
 * on), or solved by less than IPM_FINISH_MARGIN: bdnewton from zbest, kept if
 * its residual is smaller; r->status becomes solved when it solves. Returns an
 * error code (CPK_ENOMEM).
 */
int ipm_polish(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r);
/* The polish itself, whatever the status: *solved when zbest now solves. */
int ipm_polish_from_best(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                         int *solved);

/* ---- the two methods: one iteration each ---------------------------------- */

/* A step function found no acceptable step (not an error code: a stall). */
#define IPM_NO_STEP (-1)

/*
 * One iteration from (z, wl, wu) with S->mu current; on return the new
 * iterate is in place with S->f = F(z), S->step and S->sigma set, and the
 * affine-scaling direction of this iterate in (az, awl, awu). Returns an
 * error code, CPK_ESINGULAR or IPM_NO_STEP.
 */
typedef int (*ipm_step_fn)(ipm_state *S, const cpk_problem *p);
int ipm_pc_step(ipm_state *S, const cpk_problem *p); /* ipm_affine.c */
int ipm_pr_step(ipm_state *S, const cpk_problem *p); /* ipm_potential.c */

/*
 * Iterate `step` from the starting point in S until the natural residual
 * meets the tolerance (possibly through a crossover), a certificate proves
 * infeasibility, the method stalls or diverges, or the monitor stops it.
 * The outcome goes to r->status / r->message; returns an error code.
 */
int ipm_iterate(ipm_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                cpk_result *r, ipm_step_fn step);
#endif
