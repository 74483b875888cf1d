/* tao.h: private state of the TAO complementarity solvers (tao-ssils, tao-ssfls, tao-asils, tao-asfls; PETSc builds only). */
#ifndef CPK_SOLVERS_TAO_H
#define CPK_SOLVERS_TAO_H
#include <petsctao.h>
#include <cpkit/solver.h>

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
#error "the TAO solvers pass cpkit's double arrays to PETSc: they need a real double PETSc"
#endif

/*
 * What TAO's callbacks see. The Jacobian is an AIJ (CSR) matrix over this
 * state's arrays: the problem's pattern plus the whole diagonal, because the
 * semismooth methods scale its rows and add to its diagonal in place.
 */
typedef struct tao_state {
  TaoType method;      /* TAOSSILS, TAOSSFLS, TAOASILS or TAOASFLS */
  size_t n;
  cpk_csc *J0;         /* F's Jacobian (affine problems: M) on the problem's own pattern */
  PetscInt *rp, *cj;   /* CSR pattern of J0 plus the diagonal */
  PetscScalar *v;      /* its values (the Mat's own storage) */
  size_t nnz;          /* entries of the CSR pattern */
  size_t *perm;        /* J0's entry k is CSR entry perm[k] */
  Mat J;
  Vec x, c, xl, xu;
  double *zf, *f;      /* the last point F was evaluated at, and F there */
  int have_f;
  double *zprev;       /* the iterate the convergence test saw last */
  /* one solve */
  const cpk_problem *p;
  cpk_monitor *mon;
  double target;       /* the absolute tolerance of the natural residual */
  int status;          /* a cpk_status once the test stops the run */
  int bad_jacobian;
  long nf, nj;         /* F and Jacobian evaluations */
  double residual;     /* at the last tested iterate */
} tao_state;

/* The CSR pattern of S->J0 plus the diagonal, and S->J over it (J0 must be set). */
int tao_jacobian_pattern(tao_state *S);
/* S->J's values <- S->J0's (the diagonal entries J0 lacks are 0). */
int tao_jacobian_values(tao_state *S);
/* Release the pattern arrays and S->J. */
void tao_jacobian_free(tao_state *S);
#endif
