/* siconos.c: Siconos Numerics' FC3D solvers as benchmark entries (configure --with-siconos), judged by cpkit's own check and merit. */
#include <config.h>
#include <stddef.h>
#include <string.h>
#include "harness.h"

#ifdef HAVE_SICONOS
#include <math.h>
#include <stdlib.h>
#include <suitesparse/cs.h>
#include <siconos/numerics/FrictionContactProblem.h>
#include <siconos/numerics/Friction_cst.h>
#include <siconos/numerics/NonSmoothDrivers.h>
#include <siconos/numerics/NumericsMatrix.h>
#include <siconos/numerics/NumericsSparseMatrix.h>
#include <siconos/numerics/SolverOptions.h>
#include <siconos/numerics/fc3d_Solvers.h>
#include <cpkit/util.h>

/*
 * Each entry is a cpk_solver_type, so the harness treats it as any solver:
 * its own process, the wall-clock guard, the parent's check of the answer
 * and FCLIB's merit computed by cpkit (cpk_fc_merit) from the reactions it
 * returns. Siconos' own statuses and error measure are not trusted: its
 * `info == 0` is reported as `solved` and the solve driver and the parent
 * check that claim against cpkit's cone residual like any other.
 *
 * alloc converts the cone problem (W as a CSC NumericsMatrix, q, mu); solve
 * is the call to fc3d_driver. The harness times alloc + solve for every
 * solver; the conversion is one O(nnz) copy (see doc/bench.md).
 */

typedef struct sic_state {
  FrictionContactProblem fcp; /* its fields are ours: freed here, not by Siconos */
  SolverOptions *options;
  double *reaction, *velocity;
} sic_state;

static void sic_free(void *v)
{
  sic_state *S = v;
  if (!S) return;
  if (S->fcp.M) NM_free(S->fcp.M); /* the matrix and its struct */
  free(S->fcp.q);
  free(S->fcp.mu);
  if (S->options) solver_options_delete(S->options);
  free(S->reaction);
  free(S->velocity);
  free(S);
}

/* W as a Siconos CSC matrix (64-bit indices, as cpk_int). */
static NumericsMatrix *to_numerics(const cpk_matrix *W)
{
  cpk_csc *A = NULL;
  int own = W->format != CPK_MATRIX_CSC;
  if (own && cpk_matrix_to_csc(W, &A)) return NULL;
  if (!own) A = W->csc;
  cpk_int nnz = A->p[A->n];
  NumericsMatrix *M = NM_create(NM_SPARSE, (int)A->m, (int)A->n);
  if (M) {
    NM_csc_alloc(M, nnz > 0 ? nnz : 1);
    cs_dl *C = (cs_dl *)NM_csc(M);
    for (cpk_int j = 0; j <= A->n; j++) C->p[j] = A->p[j];
    for (cpk_int k = 0; k < nnz; k++) C->i[k] = A->i[k], C->x[k] = A->x[k];
    M->matrix2->origin = NSM_CSC; /* the storage Siconos converts the others from */
  }
  if (own) cpk_csc_free(A);
  return M;
}

static double *copy_array(const double *x, size_t n)
{
  double *y = cpk_alloc_array(n ? n : 1, sizeof *y);
  if (y) memcpy(y, x, n * sizeof *y);
  return y;
}

static int sic_alloc(void **state, const cpk_problem *p, const cpk_settings *s, int solver_id,
                     cpk_error *err)
{
  sic_state *S = calloc(1, sizeof *S);
  *state = S;
  if (!S) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (p->kind != CPK_KIND_FRICTION_CONE || p->cone_dim != 3 || p->n > (size_t)INT32_MAX / 4)
    return cpk_error_set(err, CPK_EUNSUP, "Siconos' FC3D solvers take 3D cone problems");
  S->fcp.dimension = 3;
  S->fcp.numberOfContacts = (int)p->nc;
  S->fcp.M = to_numerics(p->M);
  S->fcp.q = copy_array(p->q, p->n);
  S->fcp.mu = copy_array(p->mu, p->nc);
  S->reaction = cpk_calloc_array(p->n ? p->n : 1, sizeof *S->reaction);
  S->velocity = cpk_calloc_array(p->n ? p->n : 1, sizeof *S->velocity);
  S->options = solver_options_create(solver_id);
  if (!S->fcp.M || !S->fcp.q || !S->fcp.mu || !S->reaction || !S->velocity || !S->options)
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  S->options->dparam[SICONOS_DPARAM_TOL] = s->tol;
  if (s->max_iter > 0)
    S->options->iparam[SICONOS_IPARAM_MAX_ITER] =
        s->max_iter > INT32_MAX ? INT32_MAX : (int)s->max_iter;
  if (s->z0) memcpy(S->reaction, s->z0, p->n * sizeof *S->reaction);
  return CPK_OK;
}

static int sic_solve(void *v, const cpk_problem *p, const cpk_settings *s, cpk_monitor *mon,
                     cpk_result *r)
{
  sic_state *S = v;
  int info = fc3d_driver(&S->fcp, S->reaction, S->velocity, S->options);
  long it = S->options->iparam[SICONOS_IPARAM_ITER_DONE];
  memcpy(r->z, S->reaction, p->n * sizeof *r->z);
  r->iterations = it;
  r->status = info == 0                                           ? CPK_STATUS_SOLVED
              : it >= S->options->iparam[SICONOS_IPARAM_MAX_ITER] ? CPK_STATUS_MAX_ITERATIONS
                                                                  : CPK_STATUS_STALLED;
  snprintf(r->message, sizeof r->message, "Siconos info %d, its error %.3g", info,
           S->options->dparam[SICONOS_DPARAM_RESIDU]);
  return CPK_OK;
}

/* One alloc per Siconos solver id: the type carries no data pointer. */
#define SICONOS_ENTRY(fn, id)                                                                      \
  static int fn(void **state, const cpk_problem *p, const cpk_settings *s, cpk_error *err)         \
  {                                                                                                \
    return sic_alloc(state, p, s, id, err);                                                        \
  }
SICONOS_ENTRY(alloc_nsgs, SICONOS_FRICTION_3D_NSGS)
SICONOS_ENTRY(alloc_nsn_ac, SICONOS_FRICTION_3D_NSN_AC)
SICONOS_ENTRY(alloc_nsn_fb, SICONOS_FRICTION_3D_NSN_FB)
SICONOS_ENTRY(alloc_prox, SICONOS_FRICTION_3D_PROX)
SICONOS_ENTRY(alloc_admm, SICONOS_FRICTION_3D_ADMM)

#define CONE_KIND ((unsigned)CPK_KIND_FRICTION_CONE)
static const cpk_solver_type siconos_types[] = {
    {"siconos-nsgs", "Siconos Numerics NSGS (block Gauss-Seidel, one-contact Newton)", CONE_KIND,
     NULL, alloc_nsgs, sic_solve, sic_free},
    {"siconos-nsn-ac", "Siconos Numerics NSN_AC (Alart-Curnier nonsmooth Newton)", CONE_KIND, NULL,
     alloc_nsn_ac, sic_solve, sic_free},
    {"siconos-nsn-fb", "Siconos Numerics NSN_FB (Fischer-Burmeister nonsmooth Newton)", CONE_KIND,
     NULL, alloc_nsn_fb, sic_solve, sic_free},
    {"siconos-prox", "Siconos Numerics PROX (proximal point, inner Alart-Curnier Newton)",
     CONE_KIND, NULL, alloc_prox, sic_solve, sic_free},
    {"siconos-admm", "Siconos Numerics ADMM", CONE_KIND, NULL, alloc_admm, sic_solve, sic_free},
};
#define NSICONOS (sizeof siconos_types / sizeof siconos_types[0])
#else
#define NSICONOS 0
#endif

size_t cpk_bench_extra_solver_count(void) { return NSICONOS; }

const cpk_solver_type *cpk_bench_extra_solver_at(size_t i)
{
#ifdef HAVE_SICONOS
  return i < NSICONOS ? &siconos_types[i] : NULL;
#else
  (void)i;
  return NULL;
#endif
}

const cpk_solver_type *cpk_bench_solver_find(const char *name)
{
  const cpk_solver_type *T = cpk_solver_find(name);
  for (size_t k = 0; !T && k < cpk_bench_extra_solver_count(); k++)
    if (strcmp(cpk_bench_extra_solver_at(k)->name, name) == 0) T = cpk_bench_extra_solver_at(k);
  return T;
}
