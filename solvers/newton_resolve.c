/* newton_resolve.c: bdnewton/fbnewton on problems updated in place: J = M on a fixed pattern, refreshed values, the last point as the next start. */
#include <string.h>
#include <cpkit/util.h>
#include "newton.h"

/*
 * J = M for affine problems. A dense M gets its full pattern (explicit zeros
 * kept): an update may make any entry non-zero, and the pattern (A's, the
 * symbolic analysis, bdnewton's fallback system) must not change after alloc.
 * The dense LU holds n^2 entries anyway.
 */
int newton_affine_jacobian(const cpk_problem *p, cpk_csc **out)
{
  const cpk_matrix *M = p->M;
  size_t n = p->n, nn;
  if (M->format == CPK_MATRIX_CSC) return cpk_csc_copy(M->csc, out);
  if (cpk_size_mul(n, n, &nn) || nn > (size_t)INT64_MAX) return CPK_EOVERFLOW;
  int rc = cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)nn, out);
  if (rc) return rc;
  cpk_csc *J = *out;
  for (size_t j = 0; j <= n; j++) J->p[j] = (cpk_int)(j * n);
  for (size_t k = 0; k < nn; k++) J->i[k] = (cpk_int)(k % (n ? n : 1));
  newton_refresh_values(J, p);
  return CPK_OK;
}

void newton_refresh_values(cpk_csc *J, const cpk_problem *p)
{
  const cpk_matrix *M = p->M;
  size_t n = p->n;
  if (M->format == CPK_MATRIX_CSC) {
    memcpy(J->x, M->csc->x, (size_t)M->csc->p[n] * sizeof *J->x);
    return;
  }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) J->x[j * n + i] = gsl_matrix_get(M->dense, i, j);
}

/* At a solve's start: J follows M's values; the start is z0, else (a re-solve) the last solution. */
const double *newton_resolve_start(newton_ws *ws, const cpk_problem *p, const cpk_settings *s)
{
  if (p->kind != CPK_KIND_NONLINEAR_MCP && (resolve_changed(&ws->seen, p) & RESOLVE_VALUES))
    newton_refresh_values(ws->J, p);
  resolve_seen_set(&ws->seen, p);
  if (s->z0) return s->z0;
  return ws->have_last && s->resolve.warm ? ws->zlast : NULL;
}

void newton_resolve_record(newton_ws *ws, const cpk_result *r)
{
  ws->have_last = r->status == CPK_STATUS_SOLVED;
  if (ws->have_last) memcpy(ws->zlast, r->z, ws->n * sizeof *ws->zlast);
}
