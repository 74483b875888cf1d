/* newton_resolve.c: bdnewton/fbnewton on problems updated in place: J's values follow M, the last point is the next start. */
#include <string.h>
#include "newton.h"

/* At a solve's start: J follows M's values; the start is z0, else (a re-solve) the last solution. */
const double *newton_resolve_start(newton_ws *ws, const cpk_problem *p, const cpk_settings *s)
{
  if (p->kind != CPK_KIND_NONLINEAR_MCP && (resolve_changed(&ws->seen, p) & RESOLVE_VALUES))
    resolve_refresh_jacobian(ws->J, p);
  resolve_seen_set(&ws->seen, p);
  if (s->z0) return s->z0;
  return ws->have_last && s->resolve.warm ? ws->zlast : NULL;
}

void newton_resolve_record(newton_ws *ws, const cpk_result *r)
{
  ws->have_last = r->status == CPK_STATUS_SOLVED;
  if (ws->have_last) memcpy(ws->zlast, r->z, ws->n * sizeof *ws->zlast);
}
