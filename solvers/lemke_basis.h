/* lemke_basis.h: the basis of Lemke's method: which variable sits at which position, and its factorization. */
#ifndef CPK_SOLVERS_LEMKE_BASIS_H
#define CPK_SOLVERS_LEMKE_BASIS_H
#include <stddef.h>
#include <cpkit/linsys.h>
#include <cpkit/problem.h>
#include "lemke_reduced.h"

/*
 * Lemke works on the n equations  -M z + I s + a_t t = q  in the 2n+1
 * variables (z, s, t). Variable ids: z_i = i, s_i = n + i, t = 2n.
 */
#define LEMKE_VAR_Z(b, i) (i)
#define LEMKE_VAR_S(b, i) ((b)->n + (i))
#define LEMKE_VAR_T(b) (2 * (b)->n)

typedef struct lemke_basis {
  size_t n;
  const cpk_problem *p; /* borrowed */
  const double *a_t;    /* artificial column (owned by the caller, length n) */
  size_t *head;         /* position -> variable id */
  long *pos;            /* variable id -> position, or -1 when nonbasic */
  cpk_csc *B;           /* workspace for assembling the basis matrix */
  double *zwork;        /* workspace, length n */
  cpk_linsys *ls;        /* the backend in use: primary, or sparse after a singular dense factorization */
  cpk_linsys *primary;   /* the backend chosen at allocation */
  cpk_linsys *sparse;    /* UMFPACK, allocated on the first fallback and kept for later solves */
  long refactor_interval; /* updates between fresh factorizations */
  long fallbacks;         /* factorizations moved from a dense backend to UMFPACK */
  lemke_reduced red;      /* a basis of few non-unit columns, factored through their block */
  int reduced;            /* the current factors are red's (every update then refactors) */
  long reduced_factors;   /* factorizations made by red */
} lemke_basis;

int lemke_basis_alloc(lemke_basis *b, const cpk_problem *p, const cpk_linsys_type *T,
                      const double *a_t, long refactor_interval);
void lemke_basis_free(lemke_basis *b);
/** Variable id `v` is basic at position k. */
void lemke_basis_set(lemke_basis *b, size_t k, size_t v);
/** Dense column of the equation matrix for variable v. */
void lemke_basis_column(const lemke_basis *b, size_t v, double *col);
/**
 * Assemble B from head[] and factor it: through its block of non-unit columns when there are
 * few (lemke_reduced.h) and that block is not singular, else with b->ls; a dense backend that finds B singular
 * hands over to UMFPACK (b->ls changes). CPK_ESINGULAR if that fails too.
 */
int lemke_basis_factor(lemke_basis *b);
/**
 * Back to the backend chosen at allocation (a solve's first factorization): 1 when
 * the basis had moved to UMFPACK (its factors are then not the primary's), else 0.
 */
int lemke_basis_restore(lemke_basis *b);
/** x <- B^{-1} x, or B^{-T} x when transpose. */
int lemke_basis_solve(lemke_basis *b, double *x, int transpose);
/**
 * Variable v enters at position k; col is its column and alpha = B^{-1} col.
 * Updates the factors, refactoring when the update budget is spent or the update fails.
 * Sets *refactored when a fresh factorization was made (the caller then recomputes values).
 */
int lemke_basis_replace(lemke_basis *b, size_t k, size_t v, const double *col, const double *alpha,
                        int *refactored);
/** y = B x for the current basis (for residual refinement), using the problem data. */
void lemke_basis_multiply(const lemke_basis *b, const double *x, double *y);
#endif
