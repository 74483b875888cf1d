/* lemke_resolve.h: what Lemke keeps between solves of a problem updated in place: its last basis and ||M||. */
#ifndef CPK_SOLVERS_LEMKE_RESOLVE_H
#define CPK_SOLVERS_LEMKE_RESOLVE_H
#include <cpkit/result.h>
#include <cpkit/settings.h>
#include "resolve.h"

typedef struct lemke_resolve {
  size_t n;
  int *basis;         /* cpk_var_state of each z_i at the end of the last successful solve */
  int have_basis;
  int factors_kept;   /* the linear solver still holds the factors of `basis`, made from M's values
                         of counter `factored_values`, with no update since */
  unsigned long factored_values;
  double mnorm;       /* ||M||_inf for the values counter in `seen` */
  double *rowsum;     /* n row sums: a sparse M's norm measured without allocating */
  int have_mnorm;
  resolve_seen seen;
} lemke_resolve;

int lemke_resolve_alloc(lemke_resolve *R, size_t n);
void lemke_resolve_free(lemke_resolve *R);
/*
 * The settings a solve runs with: `s` itself, or (a re-solve, settings.resolve.warm, no
 * z0/basis0 from the caller) a copy in *buf whose basis0 is the last basis.
 */
const cpk_settings *lemke_resolve_settings(const lemke_resolve *R, const cpk_settings *s,
                                           cpk_settings *buf);
/* ||M||_inf, measured again only when M's values changed (CPK_ENOMEM possible only for a sparse
   M with more rows than the n of lemke_resolve_alloc). */
int lemke_resolve_mnorm(lemke_resolve *R, const cpk_problem *p, double *mnorm);
/*
 * At the start of a run, after the starting basis `zstate` is set: 1 when the linear solver's
 * factors are already those of this basis (the last solve made no pivot, M's values are the same),
 * so the start need not factor. Answers 1 at most once per record.
 */
int lemke_resolve_factors_kept(lemke_resolve *R, const cpk_problem *p, const int *zstate);
/* After a solve: keep the final basis of a solved run as the next start (and, when the run made
   no pivot, its factors), forget it otherwise. */
void lemke_resolve_record(lemke_resolve *R, const cpk_problem *p, const int *zstate,
                          const cpk_result *r, long pivots);
#endif
