/* lemke_box.h: lemke's first try on small dense problems with friction-index rows: block principal pivoting in their own n unknowns (lemke_box.c). */
#ifndef CPK_SOLVERS_LEMKE_BOX_H
#define CPK_SOLVERS_LEMKE_BOX_H
#include <cpkit/problem.h>
#include <cpkit/solver.h>

/* Largest n the method is tried on (it factors the free block densely at each iteration). */
#define LEMKE_BOX_MAX_N 200

typedef struct lemke_box {
  size_t n, m;     /* unknowns; free unknowns of the current iteration */
  double *G;       /* m x m, column-major: M's free block with the sliding rows folded in */
  double *y, *z, *w, *zkeep, *wkeep; /* z and w before a refinement step */
  int *ipiv;
  int *kind;       /* per unknown: free, constant or sliding (lemke_box.c) */
  int *state;      /* per unknown: cpk_var_state, the method's current guess */
  int *seen;       /* the state the last solve ended in (the next warm start) */
  int have_seen;
  size_t *free_idx; /* the m free unknowns, in order */
  size_t *pos;      /* per free unknown: its position in free_idx */
  double reg;      /* the diagonal added to M while pivoting (lemke_box.c) */
  long pivots, drops, factorizations, refinements;
  int stop;        /* the monitor's stop status that ended the last solve, 0 if none */
} lemke_box;

int lemke_box_alloc(lemke_box *B, size_t n);
void lemke_box_free(lemke_box *B);
/* 1 if the method applies: dense M, n <= LEMKE_BOX_MAX_N. */
int lemke_box_applies(const cpk_problem *p);
/* The diagonal the method first adds to M (BOX_REG max_i M_ii): above float noise, far below M. */
double lemke_box_reg(const cpk_problem *p);
/*
 * Solve p (affine MCP, dense M, friction-index rows allowed) from the states `state0`
 * (cpk_var_state in p's unknowns, e.g. B->seen; NULL: cold), making at most max_iter
 * moves. Before each move mon is asked (cpk_monitor_log, iteration first + B->pivots, first
 * being the iterations the solve's earlier stages made: the limits and the callback); when it says stop, B->stop holds its status and B->z the current
 * guess. On return *solved is 1 when B->z solves p to `tol` (M's natural residual,
 * checked here), with B->state its basis, then also kept in B->seen. Allocates nothing;
 * the only error is CPK_ELINSYS (LAPACK refused its arguments). Not solved is no error.
 */
int lemke_box_solve(lemke_box *B, const cpk_problem *p, const int *state0, double tol,
                    long first, long max_iter, cpk_monitor *mon, int *solved);
/* After a solve that solved: its basis as a result reports it (cpk_var_state per unknown). */
void lemke_box_basis(const lemke_box *B, const cpk_problem *p, int *basis);
#endif
