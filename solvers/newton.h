/* newton.h: private core shared by bdnewton and fbnewton: workspace, Newton system on a fixed pattern, line search, globalization (start, crash, proximal perturbation, watchdog, restarts), the iteration loop. */
#ifndef CPK_SOLVERS_NEWTON_H
#define CPK_SOLVERS_NEWTON_H
#include <cpkit/linsys.h>
#include <cpkit/solver.h>
#include "resolve.h"

/* A method's fallback has no (further) direction to offer. */
#define NEWTON_NO_FALLBACK (-1)

typedef struct newton_ws newton_ws;

/*
 * What a method (bdnewton, fbnewton) supplies to the common loop. Both
 * reformulate the MCP as a nonsmooth equation Phi(z) = 0 whose generalized
 * Jacobian has the row-scaled form V = diag(alpha) + diag(beta) J, J = F'(z),
 * so one sparsity pattern (J's plus the diagonal) serves every iteration.
 */
typedef struct newton_method {
  const char *name;
  /* phi <- Phi(z) given w = F(z); returns the merit 0.5 ||phi||^2 (INFINITY if not finite). */
  double (*residual)(newton_ws *ws, const cpk_problem *p, const double *z, const double *w,
                     double *phi);
  /* alpha, beta <- the row scalings of V at the current point (ws->z, ws->w, ws->phi, ws->J). */
  void (*linearize)(newton_ws *ws, const cpk_problem *p);
  /*
   * Optional (NULL): given the Newton direction d for the current V, change
   * the choice of V (alpha, beta) and return 1 to have the system solved
   * again, or return 0 to keep d.
   */
  int (*adjust)(newton_ws *ws, const cpk_problem *p, const double *d);
  /* Directional derivative of the merit at the current point along d (ws->A holds V). */
  double (*slope)(newton_ws *ws, const cpk_problem *p, const double *d);
  /* Fallback direction number `attempt` into d: CPK_OK, NEWTON_NO_FALLBACK, or an error code. */
  int (*fallback)(newton_ws *ws, const cpk_problem *p, int attempt, double *d);
  /* 1: the restarts' line searches project their trial points onto the bounds (fbnewton,
     whose iterates leave them; bdnewton's restarts stay as they were). */
  int project_restarts;
} newton_method;

struct newton_ws {
  size_t n;
  const newton_method *method;
  cpk_csc *J;          /* F'(z) on the problem's pattern (for affine problems: M, constant) */
  cpk_csc *A;          /* V on pattern(J) + diagonal, explicit zeros kept: one symbolic analysis */
  cpk_int *jmap;       /* entry k of J lives at A->x[jmap[k]] */
  cpk_int *dpos;       /* A->x[dpos[j]] is the diagonal entry of column j */
  cpk_linsys *ls;
  double *z, *w, *phi;    /* current point, F(z), Phi(z) */
  double *zt, *wt, *phit; /* trial point of the line search */
  double *d, *alpha, *beta, *g, *tmp;
  double *zb, *wb, *phib; /* the best point of the attempt (lowest merit), F and Phi there */
  double *zg, *wg;        /* the best point of the earlier attempts (before a restart), F there */
  double *zs;             /* the start point (inside F's domain): a restart point */
  double *zlast;          /* the last solution: a re-solve's start (settings.resolve.warm) */
  int have_last;
  resolve_seen seen;      /* the problem's counters behind J's values */
  double *rw;             /* row weights 1 / p->row_scale (1 without): Phi and V are row i times
                             rw[i], so the merit adds unit-free squares (newton_set_row_weights) */
  double hist[CPK_MAX_NEWTON_NONMONOTONE]; /* last merits (non-monotone reference) */
  int nhist, hist_cap, hist_cap0;
  double merit, merit_best, merit_global, fb_lambda;
  long best_iter;      /* iteration at which the best point was last improved */
  double prox_scale;   /* settings.newton.proximal */
  double prox_rho;     /* adaptive factor of the proximal lambda (shrinks after full steps) */
  double last_step;    /* step length the last line search accepted */
  int watchdog, restarts, crash;
  int g_valid;         /* methods may cache the merit gradient in g for one iteration */
  int project;         /* the line search projects its trial points onto the bounds (restarts of
                          a method with project_restarts) */
  long iter, nf, nj, backtracks, fallbacks, extra_factorizations;
  long prox_steps, crash_steps, watchdog_returns, restarts_done;
  double extra_factor_time;
};

/* newton.c: set-up, linear algebra, line search. */
/* Set up ws for problem p (all allocation happens here). ws must be zeroed. */
int newton_ws_init(newton_ws *ws, const newton_method *m, const cpk_problem *p,
                   const cpk_settings *s, cpk_error *err);
/* Free what newton_ws_init allocated (not ws itself). */
void newton_ws_release(newton_ws *ws);
/* ws->rw from the problem's row scales (all 1 when it has none). */
void newton_set_row_weights(newton_ws *ws, const cpk_problem *p);
/* newton_run.c: the iteration loop: fills r (z, status, iterations, message, statistics). */
int newton_run(newton_ws *ws, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
               cpk_result *r);
/* Default iteration limit of both methods. */
long newton_default_max_iter(const cpk_problem *p);
/* The linear solver to use: settings.linsys, else dense for small or dense problems, else UMFPACK. */
const cpk_linsys_type *newton_choose_linsys(const cpk_problem *p, const cpk_settings *s);

/* w = F(z), phi = Phi(z), *merit = 0.5 |phi|^2; INFINITY and CPK_EBADFUNC when F fails. */
int newton_evaluate(newton_ws *ws, const cpk_problem *p, const double *z, double *w, double *phi,
                    double *merit);
/* J = F'(z) (nonlinear problems); CPK_EBADFUNC when the callback fails or returns non-finite values. */
int newton_evaluate_jacobian(newton_ws *ws, const cpk_problem *p);
enum { NEWTON_STEP_TAKEN = 0, NEWTON_STEP_FAILED = 1 };
/* One iteration's step from the evaluated current point (J evaluated): NEWTON_STEP_TAKEN,
   NEWTON_STEP_FAILED (no direction decreases the merit), or CPK_ENOMEM. */
int newton_step(newton_ws *ws, const cpk_problem *p);
/* Record the current point as the best one when its merit is lower (or `force`). */
void newton_save_best(newton_ws *ws, int force);
/* Push the current merit into the non-monotone memory (before a step). */
void newton_remember_merit(newton_ws *ws);
/* Back to the best point (z, F, Phi, merit); the non-monotone memory is cleared. */
void newton_return_to_best(newton_ws *ws);
/* Make the trial point (zt, wt, phit, merit mt) the current one. */
void newton_accept_trial(newton_ws *ws, double mt);

/* newton_resolve.c: re-solves. */
/* Refresh J when M's values changed; the start point: z0, the last solution, or NULL (0). */
const double *newton_resolve_start(newton_ws *ws, const cpk_problem *p, const cpk_settings *s);
/* Keep a solved run's point for the next re-solve. */
void newton_resolve_record(newton_ws *ws, const cpk_result *r);

/* newton_start.c: the start and restart points and the crash phase. */
/* Evaluate at ws->z; when F fails there, move z toward an interior point of the bounds until it
   does not. CPK_OK, or CPK_EBADFUNC when no point tried is in F's domain. */
int newton_start_into_domain(newton_ws *ws, const cpk_problem *p);
/* Up to `steps` projected-gradient steps z <- P(z - t F(z)) that decrease the merit. */
void newton_crash(newton_ws *ws, const cpk_problem *p, int steps);
/* Restart number k >= 1: a perturbed point (best so far zg, start or interior), evaluated and inside F's
   domain. CPK_OK, or CPK_EBADFUNC when F fails there. */
int newton_restart_point(newton_ws *ws, const cpk_problem *p, int k);

/* y = J x */
void newton_jmul(const newton_ws *ws, const double *x, double *y);
/* y = A^T x (A = V as last assembled) */
void newton_atmul(const newton_ws *ws, const double *x, double *y);
/* Dot product and infinity norm of length-n vectors. */
double newton_dot(const double *a, const double *b, size_t n);
double newton_norm_inf(const double *a, size_t n);
#endif
