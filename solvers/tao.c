/* tao.c: PETSc TAO's semismooth complementarity solvers as cpkit solvers: tao-ssils, tao-ssfls, tao-asils, tao-asfls. */
#include <config.h>
#include <cpkit/solver.h>

#ifndef HAVE_PETSC
/* Built without PETSc: the solvers do not exist and the registry does not list them. */
const cpk_solver_type *cpk_solver_tao_ssils = NULL;
const cpk_solver_type *cpk_solver_tao_ssfls = NULL;
const cpk_solver_type *cpk_solver_tao_asils = NULL;
const cpk_solver_type *cpk_solver_tao_asfls = NULL;
#else
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "resolve.h"
#include "tao.h"

/*
 * TAO (Munson, Facchinei, Ferris, Fischer, Kanzow) solves the box MCP through
 * the Fischer-Burmeister reformulation with Billups' composition for two finite
 * bounds: semismooth Newton with an Armijo search on 0.5 |Phi|^2 (SS), or the
 * active-set variant that solves only the free rows (AS); infeasible (I)
 * iterates may leave the box, feasible (F) ones are projected back. F is TAO's
 * "constraints" routine, F' its Jacobian routine, l and u its variable bounds.
 * TAO's own stopping rules (on |Phi|_2) are replaced by cpkit's natural residual,
 * so the methods stop where every other cpkit solver would; the Newton systems
 * go to an LU factorization (MUMPS when PETSc has it, options prefix cpk_tao_).
 * Every object lives on PETSC_COMM_SELF: under mpirun each rank solves the whole
 * problem, as the petsc linsys backend does.
 */

/* Newton's default (a TAO run that needs more has stalled in practice). */
#define TAO_DEFAULT_MAX_ITER 500

static long tao_default_max_iter(const cpk_problem *p)
{
  (void)p;
  return TAO_DEFAULT_MAX_ITER;
}

/* PETSc (and MPI) start, and are finalised at exit, through the petsc backend's own path. */
static int tao_petsc_ready(void)
{
  cpk_linsys *ls = NULL;
  int rc = cpk_linsys_alloc(cpk_linsys_petsc, 1, &ls);
  cpk_linsys_free(ls);
  return rc;
}

static void tao_free(void *state)
{
  tao_state *S = state;
  if (!S) return;
  tao_jacobian_free(S);
  Vec *v[] = {&S->x, &S->c, &S->xl, &S->xu};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (*v[k]) (void)VecDestroy(v[k]);
  cpk_csc_free(S->J0);
  free(S->zf);
  free(S->f);
  free(S->zprev);
  free(S);
}

static int tao_vectors(tao_state *S)
{
  PetscInt n = (PetscInt)S->n;
  if (VecCreateSeq(PETSC_COMM_SELF, n, &S->x) || VecDuplicate(S->x, &S->c) ||
      VecDuplicate(S->x, &S->xl) || VecDuplicate(S->x, &S->xu))
    return CPK_ENOMEM;
  S->zf = cpk_alloc_array(S->n + 1, sizeof *S->zf);
  S->f = cpk_alloc_array(S->n + 1, sizeof *S->f);
  S->zprev = cpk_alloc_array(S->n + 1, sizeof *S->zprev);
  return (!S->zf || !S->f || !S->zprev) ? CPK_ENOMEM : CPK_OK;
}

static int tao_alloc(void **state, const cpk_problem *p, const cpk_settings *s, TaoType method,
                     cpk_error *err)
{
  (void)s;
  *state = NULL;
  if (p->n >= (size_t)PETSC_MAX_INT)
    return cpk_error_set(err, CPK_EOVERFLOW, "tao: n = %zu exceeds PETSc's index range", p->n);
  int rc = tao_petsc_ready();
  if (rc) return cpk_error_set(err, rc, "tao: cannot initialise PETSc (%s)", cpk_strerror(rc));
  tao_state *S = calloc(1, sizeof *S);
  if (!S) return cpk_error_set(err, CPK_ENOMEM, "tao: out of memory");
  S->method = method;
  S->n = p->n;
  rc = p->kind == CPK_KIND_NONLINEAR_MCP ? cpk_csc_copy(p->jac_pattern, &S->J0)
                                         : resolve_affine_jacobian(p, &S->J0);
  if (!rc && (S->J0->m != (cpk_int)p->n || S->J0->n != (cpk_int)p->n)) rc = CPK_EBADMAT;
  if (!rc) rc = tao_jacobian_pattern(S);
  if (!rc) rc = tao_vectors(S);
  if (rc) {
    tao_free(S);
    return cpk_error_set(err, rc, "tao: cannot set up for n = %zu (%s)", p->n, cpk_strerror(rc));
  }
  *state = S;
  return CPK_OK;
}

/* ---- TAO's callbacks ------------------------------------------------------------ */

/*
 * F(X) into C. A failed or non-finite F is not a PETSc error: C gets NaN, which
 * TAO's Armijo search treats as a step too long (outside F's domain); only at an
 * iterate does it end the run (tao_verdict).
 */
static PetscErrorCode tao_constraints(Tao tao, Vec X, Vec C, void *ctx)
{
  (void)tao;
  tao_state *S = ctx;
  const PetscScalar *x;
  PetscScalar *c;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArray(C, &c));
  S->nf++;
  if (cpk_problem_eval(S->p, x, c)) {
    for (size_t i = 0; i < S->n; i++) c[i] = NAN;
  }
  memcpy(S->zf, x, S->n * sizeof *x);
  memcpy(S->f, c, S->n * sizeof *c);
  S->have_f = 1;
  PetscCall(VecRestoreArray(C, &c));
  PetscCall(VecRestoreArrayRead(X, &x));
  return 0;
}

/* F'(X) into A (TAO overwrote A's values with its own matrix since the last call). */
static PetscErrorCode tao_jacobian(Tao tao, Vec X, Mat A, Mat B, void *ctx)
{
  (void)tao, (void)A, (void)B;
  tao_state *S = ctx;
  S->nj++;
  if (S->p->kind == CPK_KIND_NONLINEAR_MCP) {
    const PetscScalar *x;
    PetscCall(VecGetArrayRead(X, &x));
    int rc = S->p->jacobian(x, S->J0, S->p->params);
    PetscCall(VecRestoreArrayRead(X, &x));
    for (cpk_int k = 0; !rc && k < S->J0->p[S->n]; k++) rc = !isfinite(S->J0->x[k]);
    if (rc) {
      S->bad_jacobian = 1;
      return PETSC_ERR_USER; /* TaoSolve returns it; tao_solve reports `stalled` */
    }
  }
  return tao_jacobian_values(S) ? PETSC_ERR_LIB : 0;
}

/* Not a cpk_status (CPK_STATUS_SOLVED is 0). */
#define TAO_GO_ON (-1)

/* cpkit's natural residual at x, from the F of the last evaluation when it was at x. */
static double tao_residual(tao_state *S, const double *x)
{
  if (!S->have_f || memcmp(S->zf, x, S->n * sizeof *x) != 0) {
    S->nf++;
    if (cpk_problem_eval(S->p, x, S->f)) return INFINITY;
    memcpy(S->zf, x, S->n * sizeof *x);
    S->have_f = 1;
  }
  return cpk_natural_residual(S->p, x, S->f);
}

/* Why the run stops at iterate x of iteration `its` (TAO_GO_ON: it goes on), monitor included. */
static int tao_verdict(tao_state *S, const double *x, PetscInt its, PetscReal merit,
                       PetscReal step)
{
  S->residual = tao_residual(S, x);
  if (S->residual <= S->target) return CPK_STATUS_SOLVED;
  if (!isfinite(S->residual)) return CPK_STATUS_STALLED;
  /* TAO goes on after a failed line search, from the same point: nothing more will come */
  if (its > 0 && memcmp(S->zprev, x, S->n * sizeof *x) == 0) return CPK_STATUS_STALLED;
  memcpy(S->zprev, x, S->n * sizeof *x);
  if (its == 0) return TAO_GO_ON;
  int stop = cpk_monitor_log(S->mon, (long)its, S->residual, merit, NAN, step, x);
  return stop ? stop : TAO_GO_ON;
}

/* Replaces TAO's convergence test (which judges |Phi|_2 and its gradient). */
static PetscErrorCode tao_converged(Tao tao, void *ctx)
{
  tao_state *S = ctx;
  PetscInt its;
  PetscReal merit, gnorm, cnorm, step;
  TaoConvergedReason reason;
  Vec X;
  const PetscScalar *x;
  PetscCall(TaoGetSolutionStatus(tao, &its, &merit, &gnorm, &cnorm, &step, &reason));
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(VecGetArrayRead(X, &x));
  int verdict = tao_verdict(S, x, its, merit, step);
  PetscCall(VecRestoreArrayRead(X, &x));
  if (verdict == TAO_GO_ON) return 0;
  S->status = verdict;
  return TaoSetConvergedReason(tao, verdict == CPK_STATUS_SOLVED ? TAO_CONVERGED_USER
                                                                 : TAO_DIVERGED_USER);
}

/* ---- one solve ------------------------------------------------------------------ */

/* The start (z0, else 0) and the bounds, infinite ones as PETSc's +-PETSC_INFINITY. */
static PetscErrorCode tao_set_data(tao_state *S, const cpk_problem *p, const cpk_settings *s)
{
  PetscScalar *x, *l, *u;
  PetscCall(VecGetArray(S->x, &x));
  PetscCall(VecGetArray(S->xl, &l));
  PetscCall(VecGetArray(S->xu, &u));
  for (size_t i = 0; i < S->n; i++) {
    x[i] = s->z0 ? s->z0[i] : 0.0;
    l[i] = isinf(p->lower[i]) ? PETSC_NINFINITY : p->lower[i];
    u[i] = isinf(p->upper[i]) ? PETSC_INFINITY : p->upper[i];
  }
  PetscCall(VecRestoreArray(S->xu, &u));
  PetscCall(VecRestoreArray(S->xl, &l));
  PetscCall(VecRestoreArray(S->x, &x));
  return 0;
}

/*
 * MUMPS stops at a zero pivot, and then TAO's direction is infinite and its line search
 * fails: at z = 0 the Jacobian of a contact NCP is singular (every FCLIB file failed at
 * the first iteration so). With null-pivot detection (ICNTL(24) = 1) MUMPS solves a
 * nearby system instead. The as* methods reset their KSP every iteration, which drops
 * the factor matrix and whatever was set on it, so the setting goes where every new
 * factor matrix comes from: a solver type of its own, MUMPS with ICNTL(24) = 1, that
 * the PC asks for. `-cpk_tao_mat_mumps_icntl_24 0` (read after it) still overrides it,
 * and nothing is written to PETSc's options database.
 */
#ifdef PETSC_HAVE_MUMPS
#define TAO_MUMPS "cpk_mumps_null_pivots"

static PetscErrorCode tao_mumps_factor(Mat A, MatFactorType type, Mat *F)
{
  PetscCall(MatGetFactor(A, MATSOLVERMUMPS, type, F));
  PetscCall(MatMumpsSetIcntl(*F, 24, 1));
  return 0;
}

/* Registered once per PETSc initialisation (TAO's matrices are sequential AIJ). */
static PetscErrorCode tao_mumps_register(void)
{
  PetscBool have_mtype = PETSC_FALSE, have_stype = PETSC_FALSE;
  PetscErrorCode (*f)(Mat, MatFactorType, Mat *) = NULL;
  PetscCall(MatSolverTypeGet(TAO_MUMPS, MATSEQAIJ, MAT_FACTOR_LU, &have_mtype, &have_stype, &f));
  if (!f) PetscCall(MatSolverTypeRegister(TAO_MUMPS, MATSEQAIJ, MAT_FACTOR_LU, tao_mumps_factor));
  return 0;
}
#endif

/* Newton systems by LU (MUMPS when present) unless PETSC_OPTIONS says otherwise. */
static PetscErrorCode tao_setup(Tao tao, tao_state *S)
{
  KSP ksp;
  PC pc;
  PetscCall(TaoSetType(tao, S->method));
  PetscCall(TaoSetOptionsPrefix(tao, "cpk_tao_"));
  PetscCall(TaoSetSolution(tao, S->x));
  PetscCall(TaoSetVariableBounds(tao, S->xl, S->xu));
  PetscCall(TaoSetConstraintsRoutine(tao, S->c, tao_constraints, S));
  PetscCall(TaoSetJacobianRoutine(tao, S->J, S->J, tao_jacobian, S));
  PetscCall(TaoSetConvergenceTest(tao, tao_converged, S));
  PetscCall(TaoGetKSP(tao, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
#ifdef PETSC_HAVE_MUMPS
  PetscCall(tao_mumps_register());
  PetscCall(PCFactorSetMatSolverType(pc, TAO_MUMPS));
#endif
  PetscCall(TaoSetFromOptions(tao));
  return 0;
}

static void tao_start(tao_state *S, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon)
{
  S->p = p;
  S->mon = mon;
  S->target = cpk_problem_tolerance(p, s->tol);
  S->status = CPK_STATUS_STALLED;
  S->bad_jacobian = 0;
  S->have_f = 0;
  S->nf = S->nj = 0;
  S->residual = INFINITY;
  if (p->kind != CPK_KIND_NONLINEAR_MCP) resolve_refresh_jacobian(S->J0, p);
}

/* z and the statistics; the status stays what the convergence test decided. */
static void tao_finish(tao_state *S, Tao tao, cpk_result *r)
{
  PetscInt its = 0;
  const PetscScalar *x;
  (void)TaoGetIterationNumber(tao, &its);
  r->iterations = (long)its;
  if (VecGetArrayRead(S->x, &x) == 0) {
    memcpy(r->z, x, S->n * sizeof *x);
    (void)VecRestoreArrayRead(S->x, &x);
  }
  r->status = (cpk_status)S->status;
  cpk_result_set_stat(r, "function_evaluations", (double)S->nf);
  cpk_result_set_stat(r, "jacobian_evaluations", (double)S->nj);
  if (S->status == CPK_STATUS_SOLVED) return;
  if (S->bad_jacobian || !isfinite(S->residual))
    snprintf(r->message, sizeof r->message, "tao (%s): %s failed or was not finite at the iterate",
             S->method, S->bad_jacobian ? "the Jacobian" : "F");
  else if (S->status == CPK_STATUS_STALLED)
    snprintf(r->message, sizeof r->message,
             "tao (%s): no progress (line search failed) at residual %.3g", S->method, S->residual);
}

static int tao_solve(void *state, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  tao_state *S = state;
  Tao tao = NULL;
  tao_start(S, p, s, mon);
  if (S->n == 0) {
    r->status = CPK_STATUS_SOLVED;
    return CPK_OK;
  }
  PetscErrorCode err = tao_set_data(S, p, s);
  if (!err) err = TaoCreate(PETSC_COMM_SELF, &tao);
  if (!err) err = tao_setup(tao, S);
  if (!err) err = TaoSolve(tao);
  int rc = CPK_OK;
  if (err && !S->bad_jacobian) rc = err == PETSC_ERR_MEM ? CPK_ENOMEM : CPK_ELINSYS;
  if (err && S->bad_jacobian) S->status = CPK_STATUS_STALLED;
  if (!rc && tao) tao_finish(S, tao, r);
  if (tao) (void)TaoDestroy(&tao);
  return rc;
}

#define TAO_KINDS (CPK_KIND_LCP | CPK_KIND_AFFINE_MCP | CPK_KIND_NONLINEAR_MCP)
#define TAO_TYPE(NAME, METHOD, TEXT)                                                            \
  static int NAME##_alloc(void **st, const cpk_problem *p, const cpk_settings *s, cpk_error *e) \
  {                                                                                             \
    return tao_alloc(st, p, s, METHOD, e);                                                      \
  }                                                                                             \
  static const cpk_solver_type NAME##_type = {"tao-" #NAME,       TEXT,     TAO_KINDS,           \
                                              tao_default_max_iter, NAME##_alloc, tao_solve,   \
                                              tao_free};                                        \
  const cpk_solver_type *cpk_solver_tao_##NAME = &NAME##_type;

TAO_TYPE(ssils, TAOSSILS,
         "PETSc TAO: semismooth Fischer-Burmeister Newton, infeasible, Armijo (TAOSSILS)")
TAO_TYPE(ssfls, TAOSSFLS,
         "PETSc TAO: semismooth Fischer-Burmeister Newton, feasible, Armijo (TAOSSFLS)")
TAO_TYPE(asils, TAOASILS, "PETSc TAO: active-set semismooth Newton, infeasible, Armijo (TAOASILS)")
TAO_TYPE(asfls, TAOASFLS, "PETSc TAO: active-set semismooth Newton, feasible, Armijo (TAOASFLS)")
#endif
