/* nsn_rows.c: the "nsn-rows" solver (PETSc builds): nsn's semismooth Newton on the Alart-Curnier function with the problem, Phi and the Newton matrix held by rows over the MPI ranks, the backend given only each rank's rows, every decision taken on reduced merits. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "monitor.h"
#include "nsn_rows.h"

#ifndef HAVE_PETSC
const cpk_solver_type *cpk_solver_nsn_rows = NULL;
int cpk_fc_rows_solve_nsn(const cpk_fc_rows *R, const cpk_settings *s, cpk_result *res, cpk_error *err)
{
  (void)R, (void)s, (void)res;
  return cpk_error_set(err, CPK_EUNSUP, "nsn-rows: cpkit was built without PETSc");
}
#else

/*
 * What is nsn's and what is not: the per-contact Alart-Curnier function and its
 * Jacobian blocks (nsn_contact_phi), rho (nsn_contact_rho), H = A + B W, and the
 * shifted matrices H + delta I when H is singular or gives no descent, the
 * Armijo search on 1/2 |Phi|^2 and the scaled gradient H^T Phi as the fall-back
 * direction are nsn's (the same constants). nsn's non-monotone search and its
 * restarts from nsgs are not here (nsgs is a serial sweep over the contacts): a
 * failed search ends the solve as stalled.
 */
#define ARMIJO_SIGMA 1e-4
#define MAX_BACKTRACKS 40
#define DEFAULT_MAX_ITER 500
#define DESCENT_COS 1e-8
#define MAX_REGULARIZE 8
#define REGULARIZE_MAX_BASE 1e-2

static long nsn_rows_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return DEFAULT_MAX_ITER;
}

static void nsn_rows_free(void *vs)
{
  nsn_rows_state *S = vs;
  if (!S) return;
  cpk_linsys_free(S->ls);
  double *v[] = {S->hx, S->rho, S->Ablk, S->Bblk, S->r, S->rt, S->dir, S->grad, S->rbest, S->u, S->ut, S->phi, S->phit};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) free(v[k]);
  free(S->hp);
  free(S->hc);
  free(S->hdiag);
  cpk_fc_rows_free(S->own);
  free(S);
}

static int alloc_vectors(nsn_rows_state *S)
{
  const cpk_fc_rows *R = S->R;
  size_t n = R->n ? R->n : 1, m = R->row1 - R->row0 ? R->row1 - R->row0 : 1, ncl = R->c1 - R->c0 + 1;
  size_t dd = R->cone_dim * R->cone_dim;
  double **vn[] = {&S->r, &S->rt, &S->dir, &S->grad, &S->rbest}, **vm[] = {&S->u, &S->ut, &S->phi, &S->phit};
  for (size_t k = 0; k < sizeof vn / sizeof vn[0]; k++)
    if (!(*vn[k] = cpk_calloc_array(n, sizeof(double)))) return CPK_ENOMEM;
  for (size_t k = 0; k < sizeof vm / sizeof vm[0]; k++)
    if (!(*vm[k] = cpk_calloc_array(m, sizeof(double)))) return CPK_ENOMEM;
  S->rho = cpk_alloc_array(ncl, 2 * sizeof *S->rho);
  S->Ablk = cpk_alloc_array(ncl, dd * sizeof *S->Ablk);
  S->Bblk = cpk_alloc_array(ncl, dd * sizeof *S->Bblk);
  return S->rho && S->Ablk && S->Bblk ? CPK_OK : CPK_ENOMEM;
}

/* The backend: petsc (MUMPS) when none is set or for petsc-cg (CG needs a symmetric H),
 * else the settings' (a distributed one: nsn_rows_alloc refuses the others). */
static const cpk_linsys_type *rows_linsys(const cpk_settings *s)
{
  if (!s->linsys || s->linsys == cpk_linsys_petsc_cg) return cpk_linsys_petsc;
  return s->linsys;
}

/* Everything but the rows, for S->R: vectors, H's pattern, the backend (collective), rho, the tolerance's scale. */
static int rows_setup(nsn_rows_state *S, int rc, const cpk_settings *s)
{
  if (!rc) rc = alloc_vectors(S);
  if (!rc) rc = nsn_rows_pattern(S);
  rc = cpk_mpi_agree(rc); /* every rank allocates the collective backend, or none */
  if (!rc) rc = cpk_linsys_alloc(rows_linsys(s), S->R->n, &S->ls);
  if (rc) return rc;
  nsn_rows_choose_rho(S, s->nsn.rho);
  double qmax[1] = {1.0};
  for (size_t i = 0; i < S->R->row1 - S->R->row0; i++) qmax[0] = fmax(qmax[0], fabs(S->R->q[i]));
  (void)cpk_mpi_reduce(qmax, 1, CPK_MPI_MAX);
  S->qmax = qmax[0];
  return CPK_OK;
}

static int nsn_rows_alloc(void **out, const cpk_problem *p, const cpk_settings *s, cpk_error *err)
{
  *out = NULL;
  /* The driver runs a solve in step over the ranks (agreed stops) only with a distributed
   * settings.linsys: refused on every rank alike, before anything collective. */
  if (!s->linsys || !cpk_linsys_is_distributed(s->linsys))
    return cpk_error_set(err, CPK_EINVAL, "nsn-rows needs a distributed linear solver: "
                         "settings.linsys petsc or petsc-gmres (--linsys)");
  nsn_rows_state *S = calloc(1, sizeof *S);
  int rc = S ? cpk_fc_rows_from_problem(p, cpk_mpi_rank(), cpk_mpi_size(), &S->own) : CPK_ENOMEM;
  if (S) S->R = S->own;
  rc = rows_setup(S, rc, s);
  if (rc) {
    nsn_rows_free(S);
    return cpk_error_set(err, rc, "nsn-rows: cannot set up the Newton rows for %zu contacts (%s)", p->nc,
                         cpk_strerror(rc));
  }
  *out = S;
  return CPK_OK;
}

/* u (local) at r, phi (local) and the merit 1/2 |Phi|^2 reduced over the ranks. Collective. */
static double evaluate(nsn_rows_state *S, const double *r, double *u, double *phi)
{
  cpk_fc_rows_velocity(S->R, r, u);
  double sum[1] = {nsn_rows_phi(S, r, u, phi, 0)};
  if (isnan(sum[0])) sum[0] = INFINITY; /* NaN never wins a reduction */
  int rc = cpk_mpi_reduce(sum, 1, CPK_MPI_SUM);
  S->evaluations++;
  return !rc && isfinite(sum[0]) ? 0.5 * sum[0] : INFINITY;
}

/* The cone residual at r reduced over the ranks (FCLIB's merit into *fcm). Collective. */
static double residual(nsn_rows_state *S, const double *r, double *fcm)
{
  double res = INFINITY;
  (void)cpk_fc_rows_residual_merit(S->R, r, S->ut, &res, fcm);
  return res;
}

/* grad <- H^T phi over all the ranks' rows (H assembled); returns |grad|^2 (INFINITY on failure). Collective. */
static double gradient(nsn_rows_state *S)
{
  const cpk_fc_rows *R = S->R;
  memset(S->grad, 0, R->n * sizeof *S->grad);
  for (size_t i = 0; i < R->row1 - R->row0; i++)
    for (cpk_int k = S->hp[i]; k < S->hp[i + 1]; k++) S->grad[S->hc[k]] += S->hx[k] * S->phi[i];
  if (cpk_mpi_reduce(S->grad, R->n, CPK_MPI_SUM)) return INFINITY;
  double g2 = 0.0;
  for (size_t i = 0; i < R->n; i++) g2 += S->grad[i] * S->grad[i];
  return g2;
}

/* Over all the ranks: phi . (H x) and |H x|^2 (x replicated). Collective. */
static void h_products(const nsn_rows_state *S, const double *x, double *phi_hx, double *hx2)
{
  double v[2] = {0.0, 0.0};
  for (size_t i = 0; i < S->R->row1 - S->R->row0; i++) {
    double y = 0.0;
    for (cpk_int k = S->hp[i]; k < S->hp[i + 1]; k++) y += S->hx[k] * x[S->hc[k]];
    v[0] += S->phi[i] * y;
    v[1] += y * y;
  }
  if (cpk_mpi_reduce(v, 2, CPK_MPI_SUM)) v[0] = v[1] = NAN;
  *phi_hx = v[0];
  *hx2 = v[1];
}

/* H's diagonal entries shifted by delta > 0, the unshifted values kept in ut (scratch here); restore puts them back. */
static void shift_diagonal(nsn_rows_state *S, double delta, int restore)
{
  for (size_t i = 0; i < S->R->row1 - S->R->row0; i++) {
    if (!restore) S->ut[i] = S->hx[S->hdiag[i]];
    S->hx[S->hdiag[i]] = restore ? S->ut[i] : S->hx[S->hdiag[i]] + delta;
  }
}

/* dir solves (H + delta I) dir = -phi: *ok 1 if it did (finite); CPK_OK, or an error other than singular. */
static int solve_shifted(nsn_rows_state *S, cpk_monitor *mon, double delta, int *ok)
{
  const cpk_fc_rows *R = S->R;
  *ok = 0;
  if ((S->stop = cpk_monitor_before_factor(mon, S->ls))) return CPK_OK;
  if (delta > 0.0) shift_diagonal(S, delta, 0);
  int rc = cpk_linsys_factor_rows(S->ls, R->row0, R->row1, S->hp, S->hc, S->hx);
  if (delta > 0.0) shift_diagonal(S, delta, 1);
  if (rc) return rc == CPK_ESINGULAR ? CPK_OK : rc;
  for (size_t i = 0; i < R->row1 - R->row0; i++) S->dir[R->row0 + i] = -S->phi[i];
  rc = cpk_linsys_solve(S->ls, S->dir, 0);
  if (rc) return rc == CPK_ESINGULAR ? CPK_OK : rc;
  *ok = 1;
  for (size_t i = 0; i < R->n; i++) *ok = *ok && isfinite(S->dir[i]);
  return CPK_OK;
}

/*
 * The Newton direction, or the first shifted one (H + delta I, delta = base 10^k as nsn
 * takes them) that descends: *found 1 with *slope = phi . H dir. Collective.
 */
static int newton_direction(nsn_rows_state *S, cpk_monitor *mon, double gn, int *found, double *slope)
{
  double base = fmin(REGULARIZE_MAX_BASE, fmax(1e-12, sqrt(S->merit / S->merit0))), h2;
  *found = 0;
  for (int k = S->was_singular; k < MAX_REGULARIZE && !S->stop; k++) {
    int ok = 0, rc = solve_shifted(S, mon, k == 0 ? 0.0 : base * pow(10.0, k - 1), &ok);
    if (rc) return rc;
    S->regularizations += k > 0;
    if (k == 0) S->was_singular = !ok;
    if (!ok) continue;
    double d2 = 0.0;
    for (size_t i = 0; i < S->R->n; i++) d2 += S->dir[i] * S->dir[i];
    h_products(S, S->dir, slope, &h2);
    if (isfinite(*slope) && *slope < 0.0 && *slope <= -DESCENT_COS * gn * sqrt(d2)) {
      *found = 1;
      return CPK_OK;
    }
  }
  return CPK_OK;
}

/* Armijo's backtracking along dir from r with the given slope; 1 when a step was taken. Collective. */
static int line_search(nsn_rows_state *S, double slope)
{
  size_t n = S->R->n, m = S->R->row1 - S->R->row0;
  double t = 1.0, dn = 0.0, rn = 0.0;
  for (size_t i = 0; i < n; i++) dn = fmax(dn, fabs(S->dir[i])), rn = fmax(rn, fabs(S->r[i]));
  for (int k = 0; k < MAX_BACKTRACKS && t * dn > 1e-16 * (1.0 + rn); k++, t *= 0.5, S->backtracks++) {
    for (size_t i = 0; i < n; i++) S->rt[i] = S->r[i] + t * S->dir[i];
    double mt = evaluate(S, S->rt, S->ut, S->phit);
    if (mt <= S->merit + ARMIJO_SIGMA * t * slope) {
      memcpy(S->r, S->rt, n * sizeof *S->r);
      memcpy(S->u, S->ut, m * sizeof *S->u);
      memcpy(S->phi, S->phit, m * sizeof *S->phi);
      S->merit = mt;
      return 1;
    }
  }
  return 0;
}

/* One step: Newton's direction (shifted if need be), else the scaled gradient's. *taken 0: stuck. */
static int step(nsn_rows_state *S, cpk_monitor *mon, int *taken)
{
  double slope = 0.0, h2 = 0.0;
  int found = 0;
  *taken = 0;
  (void)nsn_rows_phi(S, S->r, S->u, S->phit, 1);
  nsn_rows_assemble(S);
  double g2 = gradient(S);
  int rc = newton_direction(S, mon, sqrt(g2), &found, &slope);
  if (rc || S->stop) return rc;
  if (found && (*taken = line_search(S, slope))) return CPK_OK;
  /* dir = t g, g = -H^T phi, t minimizing |phi + t H g| as linearized */
  for (size_t i = 0; i < S->R->n; i++) S->dir[i] = -S->grad[i];
  h_products(S, S->dir, &slope, &h2);
  if (!(g2 > 0.0) || !(h2 > 0.0) || !isfinite(g2 / h2)) return CPK_OK;
  for (size_t i = 0; i < S->R->n; i++) S->dir[i] *= g2 / h2;
  S->gradient_steps++;
  *taken = line_search(S, -g2 * g2 / h2);
  return CPK_OK;
}

static void set_status(cpk_result *r, cpk_status st, const char *what, double res, double merit)
{
  r->status = st;
  snprintf(r->message, sizeof r->message, "%s (residual %.3g, Alart-Curnier merit %.3g)", what, res, merit);
}

static int iterate(nsn_rows_state *S, const cpk_settings *s, cpk_monitor *mon, cpk_result *r, double *fcm)
{
  double tol = s->tol * S->qmax, res = residual(S, S->r, fcm); /* cpk_problem_tolerance over the ranks */
  S->res_best = res;
  memcpy(S->rbest, S->r, S->R->n * sizeof *S->r);
  while (!(res <= tol)) {
    int stop = cpk_monitor_log(mon, S->iter, res, S->merit, NAN, NAN, S->r), taken = 0;
    if (stop) {
      set_status(r, (cpk_status)stop, "stopped", res, S->merit);
      return CPK_OK;
    }
    int rc = step(S, mon, &taken);
    if (rc) return rc;
    if (S->stop) {
      set_status(r, (cpk_status)S->stop, "stopped before a factorization", res, S->merit);
      return CPK_OK;
    }
    if (!taken) {
      set_status(r, CPK_STATUS_STALLED, "line search failed", res, S->merit);
      return CPK_OK;
    }
    S->iter++;
    res = residual(S, S->r, fcm);
    if (res < S->res_best) {
      S->res_best = res;
      memcpy(S->rbest, S->r, S->R->n * sizeof *S->r);
    }
  }
  r->status = CPK_STATUS_SOLVED;
  return CPK_OK;
}

static void fill_stats(const nsn_rows_state *S, const cpk_linsys_stats *ls0, double fcm, cpk_result *r)
{
  cpk_linsys_stats ls;
  cpk_linsys_get_stats(S->ls, &ls);
  const cpk_stat list[] = {
      {"factorizations", (double)(ls.factorizations - ls0->factorizations)},
      {"symbolic_analyses", (double)(ls.symbolic - ls0->symbolic)},
      {"factor_time_s", ls.factor_time_s - ls0->factor_time_s},
      {"sparse_linsys", ls.sparse},
      {"function_evaluations", (double)S->evaluations},
      {"linesearch_backtracks", (double)S->backtracks},
      {"gradient_steps", (double)S->gradient_steps},
      {"regularizations", (double)S->regularizations},
      {"local_contacts", (double)(S->R->c1 - S->R->c0)},
      {"local_h_entries", (double)S->hp[S->R->row1 - S->R->row0]},
      {"merit", S->merit},
      {"fclib_merit", fcm}};
  cpk_result_set_stats(r, list, sizeof list / sizeof list[0]);
}

/* The solve from s->z0 (or 0) on S's rows; r->residual gets the reduced residual at the answer. Collective. */
static int run(nsn_rows_state *S, const cpk_settings *s, cpk_monitor *mon, cpk_result *r)
{
  cpk_linsys_stats ls0;
  double fcm = NAN;
  size_t n = S->R->n;
  cpk_linsys_get_stats(S->ls, &ls0);
  S->iter = S->evaluations = S->backtracks = S->gradient_steps = S->regularizations = 0;
  S->stop = S->was_singular = 0;
  memset(S->r, 0, n * sizeof *S->r); /* the shifts' scale: the larger merit of 0 and z0 (as nsn) */
  S->merit0 = evaluate(S, S->r, S->u, S->phi);
  if (s->z0) memcpy(S->r, s->z0, n * sizeof *S->r);
  S->merit = evaluate(S, S->r, S->u, S->phi);
  if (!(isfinite(S->merit0) && S->merit0 > S->merit)) S->merit0 = S->merit;
  if (!(S->merit0 > 1e-300)) S->merit0 = 1e-300;
  int rc = iterate(S, s, mon, r, &fcm);
  double res = residual(S, S->r, &fcm);
  if (r->status != CPK_STATUS_SOLVED && S->res_best < res) {
    memcpy(S->r, S->rbest, n * sizeof *S->r);
    S->merit = evaluate(S, S->r, S->u, S->phi);
    res = residual(S, S->r, &fcm);
  }
  r->iterations = S->iter;
  r->residual = res;
  memcpy(r->z, S->r, n * sizeof *r->z);
  fill_stats(S, &ls0, fcm, r);
  return rc;
}

static int nsn_rows_solve(void *vs, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                          cpk_result *r)
{
  (void)p; /* S holds its rows of p (cut at alloc) */
  return run(vs, s, mon, r);
}

int cpk_fc_rows_solve_nsn(const cpk_fc_rows *R, const cpk_settings *settings, cpk_result *res, cpk_error *err)
{
  cpk_settings dflt;
  cpk_error_clear(err);
  if (!settings) cpk_settings_default(&dflt);
  const cpk_settings *s = settings ? settings : &dflt;
  int bad = !R || !res || !res->z || res->n != R->n || R->rank != cpk_mpi_rank() ||
            R->size != cpk_mpi_size();
  cpk_mpi_agree_reset(); /* a run of agreements, as the driver's */
  if (cpk_mpi_agree(bad ? CPK_EINVAL : CPK_OK)) { /* refused on every rank, before a collective */
    cpk_mpi_agree_end();
    return cpk_error_set(err, CPK_EINVAL, "nsn-rows: %s", bad ? "no rows, a result not of their n, "
                         "or rows made for another rank or number of ranks" : "refused on another rank");
  }
  nsn_rows_state *S = calloc(1, sizeof *S);
  if (S) S->R = R;
  int rc = rows_setup(S, S ? CPK_OK : CPK_ENOMEM, s);
  if (!rc) {
    cpk_monitor mon;
    cpk_monitor_start(&mon, s, "nsn-rows", s->max_iter > 0 ? s->max_iter : DEFAULT_MAX_ITER);
    mon.distributed = 1; /* every rank runs this solve in step */
    res->status = CPK_STATUS_STALLED;
    res->message[0] = 0;
    rc = run(S, s, &mon, res);
  }
  nsn_rows_free(S);
  cpk_mpi_agree_end();
  return rc ? cpk_error_set(err, rc, "nsn-rows: %s", cpk_strerror(rc)) : CPK_OK;
}

static const cpk_solver_type nsn_rows_type = {
    "nsn-rows",
    "nsn's semismooth Newton with the problem and the Newton matrix distributed by rows over the MPI "
    "ranks (friction cone; PETSc builds, a petsc backend)",
    CPK_KIND_FRICTION_CONE,
    nsn_rows_default_max_iter,
    nsn_rows_alloc,
    nsn_rows_solve,
    nsn_rows_free};

const cpk_solver_type *cpk_solver_nsn_rows = &nsn_rows_type;
#endif
