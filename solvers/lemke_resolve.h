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
  double mnorm;       /* ||M||_inf for the values counter in `seen` */
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
/* ||M||_inf, measured again only when M's values changed (CPK_ENOMEM possible for sparse M). */
int lemke_resolve_mnorm(lemke_resolve *R, const cpk_problem *p, double *mnorm);
/* After a solve: keep the final basis of a solved run as the next start, forget it otherwise. */
void lemke_resolve_record(lemke_resolve *R, const int *zstate, const cpk_result *r);
#endif
