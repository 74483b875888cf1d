/* nsgs.c: nonsmooth block Gauss-Seidel for the friction-cone problem: sweeps over contacts with the exact one-contact solver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "fc_local.h"
#include "monitor.h"
#include "nsgs_drift.h"
#include "nsn_finish.h"
#include "resolve.h"

/*
 * One sweep solves, contact after contact, the one-contact problem
 * u_c = W_cc r_c + (u_c - W_cc r_c) with every other reaction fixed, exactly
 * (fc_local.c), relaxes the update by omega, and adds W's columns of the
 * contact times the change to u = W r + q, so a sweep costs O(nnz(W)) and the
 * residual after it costs O(n). u is recomputed from scratch every
 * NSGS_REFRESH sweeps and before `solved` is claimed, so round-off from the
 * updates never decides the status. The iterate with the smallest residual is
 * what a failed solve returns: a caller restarting from it (nsn) gets the best
 * point seen, not the last one.
 *
 * When the residual stands still while every sweep moves r by the same
 * change d with W d = 0 (nsgs_drift.h: redundant contacts, e.g. a ball wedged
 * between two spheres, whose sticking equations have no solution because the
 * gaps ask for a motion that rolling forbids), the sweeps only creep along d,
 * by the same amount each time, until a contact reaches the edge of its cone
 * where it can slide: tens of thousands of sweeps. Within that regime a sweep
 * is an affine map and u does not change along d, so the jump r + t d to the
 * first cone boundary is where those sweeps would lead; it is taken unless it
 * makes the residual worse.
 */

#define NSGS_REFRESH 16      /* sweeps between recomputations of u = W r + q */
#define NSGS_DIVERGED 1e6    /* residual this many times (1 + the first one): give up */
#define NSGS_LOCAL_TOL_SHARE 0.1 /* local target at most this share of the global one */
#define NSGS_WINDOW 100      /* sweeps whose residuals are compared with the previous as many */
#define NSGS_NO_PROGRESS 0.9999 /* a window whose lowest and highest residuals both stay above this
                                   times the previous window's is cycling, not converging slowly */
#define NSGS_DAMPING 0.7     /* omega's factor when the sweeps cycle */
#define NSGS_OMEGA_MIN 0.1   /* omega is never lowered below this */
#define NSGS_FLAT 0.999      /* a sweep that lowers the residual less than this is not progress */
#define NSGS_JUMP_MIN 2.0    /* a drift jump is worth at least this many sweeps */
#define NSGS_JUMP_MAX 1e12   /* sweeps' worth beyond which the drift is taken as unbounded */
#define NSGS_JUMP_WORSE 2.0  /* a jump that multiplies the residual by more is undone */
#define NSGS_RATE_WINDOW 50  /* sweeps over which the rate that decides a hand-off is measured */

typedef struct nsgs_state {
  size_t nc, dim;
  double *blocks; /* the nc diagonal blocks W_cc, dim x dim row-major each */
  double *u;      /* W r + q at the current r */
  double *best;   /* iterate with the smallest residual so far */
  double *prev, *d, *dprev, *wd; /* r before the sweep, its change, the one before, W d */
  double wmax;    /* max |W_ij| over the diagonal blocks, the scale of the drift test */
  resolve_seen seen; /* the problem's counters behind `blocks` */
  nsn_finisher *polisher; /* nsn's workspace for the finish, made at its first run */
} nsgs_state;

/* Lowest and highest residual of the current and of the previous window of sweeps. */
typedef struct nsgs_window {
  double lo, hi, prev_lo, prev_hi;
  long count;
} nsgs_window;

/* The run's relaxation and what the sweeps counted, for the result's statistics. */
typedef struct nsgs_counts {
  double omega;        /* relaxation in force: settings.nsgs.omega, lowered when the sweeps cycle */
  long dampings;       /* times omega was lowered */
  long local_failures; /* one-contact solves short of the local target, over all sweeps */
  long degenerate;     /* contacts given up (zero normal block) in the last sweep */
  double change; /* largest |r_c change| of the last sweep */
  long jumps;    /* drift jumps taken (nsgs_drift.h) */
  long polish_iterations; /* nsn's iterations in the finish (nsn_finish.h), 0 if none ran */
  long polish_factorizations; /* and its factorizations of the Newton matrix */
  int polished;  /* the answer is nsn's */
  long handoff;  /* sweep after which the finish was tried early (0: never) */
} nsgs_counts;

static long nsgs_default_max_iter(const cpk_problem *p) { return 1000; }

static void nsgs_free(void *vs)
{
  nsgs_state *S = vs;
  if (!S) return;
  free(S->blocks);
  free(S->u);
  free(S->best);
  free(S->prev);
  free(S->d);
  free(S->dprev);
  free(S->wd);
  nsn_finisher_free(S->polisher);
  free(S);
}

/* The diagonal blocks of W, again after an update of its values (a re-solve allocates nothing). */
static void set_blocks(nsgs_state *S, const cpk_problem *p)
{
  size_t d = S->dim;
  S->wmax = 0.0;
  for (size_t c = 0; c < p->nc; c++)
    for (size_t i = 0; i < d; i++)
      for (size_t j = 0; j < d; j++) {
        double w = cpk_matrix_get(p->M, c * d + i, c * d + j);
        S->blocks[(c * d + i) * d + j] = w;
        S->wmax = fmax(S->wmax, fabs(w));
      }
  resolve_seen_set(&S->seen, p);
}

static int nsgs_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  size_t d = p->cone_dim, nblock;
  nsgs_state *S = calloc(1, sizeof *S);
  (void)s;
  *out = NULL;
  if (!S || cpk_size_mul(p->nc, d * d, &nblock)) {
    free(S);
    return cpk_error_set(err, CPK_ENOMEM, "nsgs: cannot allocate the workspace for %zu contacts",
                         p->nc);
  }
  S->nc = p->nc;
  S->dim = d;
  S->blocks = cpk_alloc_array(nblock ? nblock : 1, sizeof *S->blocks);
  S->u = cpk_alloc_array(p->n ? p->n : 1, sizeof *S->u);
  S->best = cpk_alloc_array(p->n ? p->n : 1, sizeof *S->best);
  double **v[] = {&S->prev, &S->d, &S->dprev, &S->wd};
  int short_of_memory = !S->blocks || !S->u || !S->best;
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    short_of_memory |= !(*v[k] = cpk_calloc_array(p->n ? p->n : 1, sizeof(double)));
  if (short_of_memory) {
    nsgs_free(S);
    return cpk_error_set(err, CPK_ENOMEM, "nsgs: cannot allocate the workspace for %zu contacts",
                         p->nc);
  }
  set_blocks(S, p);
  *out = S;
  return CPK_OK;
}

/* u <- W r + q from scratch. */
static void refresh_velocity(nsgs_state *S, const cpk_problem *p, const double *r)
{
  cpk_matrix_mv(p->M, r, S->u, 0);
  for (size_t i = 0; i < p->n; i++) S->u[i] += p->q[i];
}

/* u += W(:, j0 .. j0 + dim - 1) delta: the columns of one contact. */
static void add_columns(const cpk_matrix *W, size_t j0, size_t dim, const double *delta, double *u)
{
  if (W->format == CPK_MATRIX_CSC) {
    const cpk_csc *A = W->csc;
    for (size_t k = 0; k < dim; k++) {
      if (delta[k] == 0.0) continue;
      for (cpk_int e = A->p[j0 + k]; e < A->p[j0 + k + 1]; e++) u[A->i[e]] += A->x[e] * delta[k];
    }
    return;
  }
  gsl_matrix_const_view cols = gsl_matrix_const_submatrix(W->dense, 0, j0, W->m, dim);
  gsl_vector_const_view dv = gsl_vector_const_view_array(delta, dim);
  gsl_vector_view uv = gsl_vector_view_array(u, W->m);
  gsl_blas_dgemv(CblasNoTrans, 1.0, &cols.matrix, &dv.vector, 1.0, &uv.vector);
}

/* Solve contact c with the others fixed, relax, and bring u up to date. */
static void update_contact(nsgs_state *S, const cpk_problem *p, const cpk_settings *s,
                           double local_tol, size_t c, double *r, nsgs_counts *n)
{
  size_t d = S->dim;
  double *rc = r + c * d, *uc = S->u + c * d, *Wc = S->blocks + c * d * d;
  double qc[CPK_CONE_DIM_MAX], rn[CPK_CONE_DIM_MAX], delta[CPK_CONE_DIM_MAX], res;
  for (size_t i = 0; i < d; i++) { /* the contact's free velocity with the others fixed */
    qc[i] = uc[i];
    for (size_t j = 0; j < d; j++) qc[i] -= Wc[i * d + j] * rc[j];
    rn[i] = rc[i];
  }
  fc_local_status st =
      fc_local_solve(d, p->mu[c], Wc, qc, rn, local_tol, s->nsgs.local_max_iter, &res);
  if (st != FC_LOCAL_SOLVED) n->local_failures++;
  if (st == FC_LOCAL_DEGENERATE) n->degenerate++;
  if (n->omega != 1.0) {
    for (size_t i = 0; i < d; i++) rn[i] = n->omega * rn[i] + (1.0 - n->omega) * rc[i];
    if (n->omega > 1.0) cpk_cone_project(d, p->mu[c], rn, rn); /* extrapolation may leave K */
  }
  for (size_t i = 0; i < d; i++) {
    delta[i] = rn[i] - rc[i];
    n->change = fmax(n->change, fabs(delta[i]));
    rc[i] = rn[i];
  }
  add_columns(p->M, c * d, d, delta, S->u);
}

static void sweep(nsgs_state *S, const cpk_problem *p, const cpk_settings *s, double local_tol,
                  double *r, nsgs_counts *n)
{
  n->change = 0.0;
  n->degenerate = 0;
  for (size_t c = 0; c < S->nc; c++) update_contact(S, p, s, local_tol, c, r, n);
}

/* The start: z0 (or 0) with each contact's block projected on its cone. */
static void start_point(const cpk_problem *p, const cpk_settings *s, double *r)
{
  size_t d = p->cone_dim;
  for (size_t i = 0; i < p->n; i++) r[i] = s->z0 ? s->z0[i] : 0.0;
  for (size_t c = 0; s->z0 && c < p->nc; c++) cpk_cone_project(d, p->mu[c], r + c * d, r + c * d);
}

/* The stopping residual, from a fresh u when it is about to decide `solved`. */
static double residual(nsgs_state *S, const cpk_problem *p, const double *r, double tol, int fresh)
{
  if (fresh) refresh_velocity(S, p, r);
  double res = cpk_fc_residual(p, r, S->u);
  if (res <= tol && !fresh) {
    refresh_velocity(S, p, r);
    res = cpk_fc_residual(p, r, S->u);
  }
  return res;
}

static void set_stats(cpk_result *r, const cpk_problem *p, long sweeps, const nsgs_counts *n,
                      const double *u)
{
  r->iterations = sweeps + n->polish_iterations; /* the finish's work counts, as ipm's polish does */
  cpk_result_set_stat(r, "sweeps", (double)sweeps);
  cpk_result_set_stat(r, "local_failures", (double)n->local_failures);
  cpk_result_set_stat(r, "degenerate_contacts", (double)n->degenerate);
  cpk_result_set_stat(r, "merit", cpk_fc_merit(p, r->z, u));
  cpk_result_set_stat(r, "omega", n->omega);
  cpk_result_set_stat(r, "dampings", (double)n->dampings);
  cpk_result_set_stat(r, "drift_jumps", (double)n->jumps);
  cpk_result_set_stat(r, "polish_iterations", (double)n->polish_iterations);
  cpk_result_set_stat(r, "polish_factorizations", (double)n->polish_factorizations);
  cpk_result_set_stat(r, "polished", (double)n->polished);
  cpk_result_set_stat(r, "handoff_sweep", (double)n->handoff);
}

/*
 * 1 at the end of a window in which neither the lowest nor the highest residual
 * went down: the sweeps cycle. Non-monotone but converging runs (a transient
 * rise, then a slow descent) lower at least the highest residual.
 */
static int cycling(nsgs_window *w, double res)
{
  w->lo = fmin(w->lo, res);
  w->hi = fmax(w->hi, res);
  if (++w->count < NSGS_WINDOW) return 0;
  int stuck = w->lo >= NSGS_NO_PROGRESS * w->prev_lo && w->hi >= NSGS_NO_PROGRESS * w->prev_hi;
  *w = (nsgs_window){INFINITY, -INFINITY, w->lo, w->hi, 0};
  return stuck;
}

/*
 * The sweeps cycle (Gauss-Seidel on the cone problem has no convergence
 * guarantee, e.g. with large mu), which under-relaxation usually cures: lower
 * omega and go back to the best point.
 */
static void damp(nsgs_state *S, const cpk_problem *p, double *r, nsgs_counts *n, double *res,
                 double best_res)
{
  n->omega = fmax(NSGS_OMEGA_MIN, NSGS_DAMPING * fmin(n->omega, 1.0));
  n->dampings++;
  memcpy(r, S->best, p->n * sizeof *r);
  refresh_velocity(S, p, r);
  *res = best_res;
}

/*
 * After a sweep that did not lower the residual (res) from last_res: when the
 * sweep repeated the last one's change along a direction that moves no
 * velocity, jump along it to the first cone boundary (see the top comment).
 * The change history restarts after a jump, so the next needs two new sweeps.
 */
static void drift_jump(nsgs_state *S, const cpk_problem *p, double *r, double tol, double *res,
                       double last_res, nsgs_counts *n)
{
  size_t dim = S->dim;
  for (size_t i = 0; i < p->n; i++) S->d[i] = r[i] - S->prev[i];
  int drift = *res >= NSGS_FLAT * last_res && nsgs_drift_detected(p, S->d, S->dprev, S->wmax, S->wd);
  double *swap = S->dprev;
  S->dprev = S->d;
  S->d = swap;
  if (!drift) return;
  double t = nsgs_drift_step_to_boundary(p, r, S->dprev, NSGS_JUMP_MAX);
  if (!(t >= NSGS_JUMP_MIN && t < NSGS_JUMP_MAX)) return;
  memcpy(S->prev, r, p->n * sizeof *r); /* to undo a jump that does harm */
  for (size_t i = 0; i < p->n; i++) r[i] += t * S->dprev[i];
  for (size_t c = 0; c < p->nc; c++) cpk_cone_project(dim, p->mu[c], r + c * dim, r + c * dim);
  double jumped = residual(S, p, r, tol, 1);
  memset(S->dprev, 0, p->n * sizeof *S->dprev);
  if (jumped > NSGS_JUMP_WORSE * *res) {
    memcpy(r, S->prev, p->n * sizeof *r);
    refresh_velocity(S, p, r);
    return;
  }
  *res = jumped;
  n->jumps++;
}

/* A failed solve hands back the best iterate seen, with u to match; returns its residual. */
static double restore_best(nsgs_state *S, const cpk_problem *p, double *r, double best_res,
                           double res)
{
  if (!(best_res < res)) return res;
  memcpy(r, S->best, p->n * sizeof *r);
  refresh_velocity(S, p, r);
  return best_res;
}

/* Iterations the finish may take: it starts near a solution, where Newton takes a few. */
#define NSGS_POLISH_MAX_ITER 50

/* The sweeps stopped by themselves short of the tolerance: nsn finishes from r (nsn_finish.h),
 * then from its cold start. */
static int polish(nsgs_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                  double *r, double res, cpk_result *out, nsgs_counts *n)
{
  int solved = 0;
  long iterations = 0, factorizations = 0;
  const nsn_finish_opts o = {s->nsgs.polish ? NSGS_POLISH_MAX_ITER : 0, 0, 1, 0, 0};
  int rc = nsn_finish(&S->polisher, p, s, mon, &o, r, &res, &solved, &iterations, &factorizations);
  n->polish_iterations += iterations; /* an early try (hand_off) and the last finish add up */
  n->polish_factorizations += factorizations;
  if (rc) return rc;
  n->polished = solved;
  refresh_velocity(S, p, r);
  nsn_finish_outcome(out, solved, n->polish_iterations, res);
  return CPK_OK;
}

/*
 * Every NSGS_RATE_WINDOW sweeps: 1 when the best residual's geometric rate over
 * the last window says the sweeps left before max_iter cannot reach tol, by a
 * factor settings.nsgs.handoff (on singular W, e.g. a pile of spheres, the rate
 * is 0.1 % a sweep and 1000 sweeps end short anyway, then nsn finishes in 1-2
 * iterations: the sweeps in between are wasted). *mark is the window's start.
 */
static int hopeless(const cpk_settings *s, const cpk_monitor *mon, long sweeps, double best_res,
                    double tol, double *mark)
{
  if (sweeps % NSGS_RATE_WINDOW != 0) return 0;
  double rate = best_res / *mark; /* over the window, <= 1: best_res never rises */
  *mark = best_res;
  if (sweeps == NSGS_RATE_WINDOW) return 0; /* the first window is the fast start: not the rate */
  double left = (double)(mon->max_iter - sweeps);
  if (!(rate < 1.0)) return 1;
  double need = NSGS_RATE_WINDOW * log(tol / best_res) / log(rate);
  return need > s->nsgs.handoff * left;
}

/*
 * The finish tried before the sweeps end: kept when it solves; otherwise the
 * sweeps go on from where they were (S->prev keeps it), so the solve ends no
 * worse than without the try. 1 when solved.
 */
static int hand_off(nsgs_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                    double *z, double res, long sweeps, cpk_result *r, nsgs_counts *n, int *rc)
{
  n->handoff = sweeps;
  memcpy(S->prev, z, p->n * sizeof *z);
  r->status = CPK_STATUS_MAX_ITERATIONS; /* polish() says `solved` only when nsn solved */
  *rc = polish(S, p, s, mon, z, res, r, n);
  if (!*rc && r->status == CPK_STATUS_SOLVED) return 1;
  r->status = CPK_STATUS_SOLVED;
  r->message[0] = '\0';
  n->polished = 0;
  memcpy(z, S->prev, p->n * sizeof *z);
  refresh_velocity(S, p, z);
  return 0;
}

static int nsgs_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                      cpk_result *r)
{
  nsgs_state *S = vs;
  double *z = r->z, tol = cpk_problem_tolerance(p, s->tol);
  double local_tol = fmin(s->nsgs.local_tol, NSGS_LOCAL_TOL_SHARE * s->tol);
  local_tol = cpk_problem_tolerance(p, local_tol);
  nsgs_counts counts = {s->nsgs.omega, 0, 0, 0, 0.0, 0, 0, 0, 0, 0};
  int by_itself = 0; /* stopped by the iteration limit or a stall, not by the callback or the clock */
  nsgs_window window = {INFINITY, -INFINITY, INFINITY, INFINITY, 0};
  long sweeps = 0, best_sweep = 0; /* sweep of the last new best residual (or damping) */
  if (resolve_changed(&S->seen, p) & RESOLVE_VALUES) set_blocks(S, p);
  start_point(p, s, z);
  double res = residual(S, p, z, tol, 1), first = res, best_res = res, mark = res;
  int try_handoff = s->nsgs.polish && s->nsgs.handoff > 0.0, rc = CPK_OK;
  memcpy(S->best, z, p->n * sizeof *z);
  memset(S->dprev, 0, p->n * sizeof *S->dprev);
  r->status = CPK_STATUS_SOLVED;
  while (!(res <= tol)) {
    int stop = cpk_monitor_log(mon, sweeps, res, NAN, NAN, counts.change, z);
    if (stop) { /* the limits or the callback: say where it stood */
      r->status = (cpk_status)stop;
      by_itself = stop == CPK_STATUS_MAX_ITERATIONS;
      snprintf(r->message, sizeof r->message, "stopped after %ld sweeps at residual %.3g", sweeps,
               res);
      break;
    }
    double last_res = res;
    memcpy(S->prev, z, p->n * sizeof *z);
    sweep(S, p, s, local_tol, z, &counts);
    sweeps++;
    res = residual(S, p, z, tol, sweeps % NSGS_REFRESH == 0);
    if (!(res <= tol)) drift_jump(S, p, z, tol, &res, last_res, &counts);
    if (!isfinite(res) || res > NSGS_DIVERGED * (1.0 + first)) {
      r->status = CPK_STATUS_STALLED;
      by_itself = 1;
      snprintf(r->message, sizeof r->message, "diverged: residual %.3g after %ld sweeps", res,
               sweeps);
      break;
    }
    if (res < best_res) {
      best_res = res;
      best_sweep = sweeps;
      memcpy(S->best, z, p->n * sizeof *z);
    }
    /* cycling, and no new best for as long again as the best took: plateaus of slow runs pass */
    if (cycling(&window, res) && sweeps - best_sweep >= NSGS_WINDOW + best_sweep &&
        counts.omega > NSGS_OMEGA_MIN) {
      damp(S, p, z, &counts, &res, best_res);
      best_sweep = sweeps;
      window.prev_lo = window.prev_hi = INFINITY; /* judge the new omega on two fresh windows */
    }
    if (counts.change == 0.0 && !(res <= tol)) {
      r->status = CPK_STATUS_STALLED;
      by_itself = 1;
      snprintf(r->message, sizeof r->message,
               "no reaction changed in sweep %ld at residual %.3g (%ld contacts given up)", sweeps,
               res, counts.degenerate);
      break;
    }
    if (try_handoff && !(res <= tol) && hopeless(s, mon, sweeps, best_res, tol, &mark)) {
      try_handoff = 0;
      if (hand_off(S, p, s, mon, z, res, sweeps, r, &counts, &rc) || rc) break;
    }
  }
  if (rc || counts.polished) {
    set_stats(r, p, sweeps, &counts, S->u);
    return rc;
  }
  if (r->status != CPK_STATUS_SOLVED) res = restore_best(S, p, z, best_res, res);
  rc = by_itself ? polish(S, p, s, mon, z, res, r, &counts) : CPK_OK;
  set_stats(r, p, sweeps, &counts, S->u);
  return rc;
}

static const cpk_solver_type nsgs_type = {
    "nsgs",
    "nonsmooth block Gauss-Seidel over contacts with an exact one-contact solver (settings.nsgs)",
    CPK_KIND_FRICTION_CONE,
    nsgs_default_max_iter,
    nsgs_alloc,
    nsgs_solve,
    nsgs_free};

const cpk_solver_type *cpk_solver_nsgs = &nsgs_type;
