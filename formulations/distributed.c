/* distributed.c: the distributed compliance of seed 001 section 4: contact-patch elements coupled by influence coefficients (eqs. (4.4)-(4.10)), polyhedral friction per element, an LCP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

#define MAX_DIRECTIONS 100000

/*
 * The influence matrix G by 3 x 3 blocks between contacts, block-row CSR: the
 * rows of one element are what its complementarity rows read, so they must be
 * contiguous (the caller's CSC is transposed once here).
 */
struct cvm_influence {
  size_t nc;
  size_t *ptr;  /* nc + 1 */
  size_t *col;  /* block column (contact) of each block */
  double *val;  /* 9 per block, [a][b] row-major over (n, t, o), as given */
  double *u0;   /* 3 nc, displacement at the start of the step */
  double inv_h; /* 1 / h */
};

void cvm_influence_free(struct cvm_influence *G)
{
  if (!G) return;
  free(G->ptr);
  free(G->col);
  free(G->val);
  free(G->u0);
  free(G);
}

/* Visit the blocks of S block column by block column; `fill` 0 counts them per block row,
 * 1 stores them (blocks of a row come out in increasing column order). */
static void scan_blocks(const cpk_csc *S, struct cvm_influence *G, size_t *mark, size_t *next,
                        int fill)
{
  for (size_t j = 0; j < G->nc; j++)
    for (size_t b = 0; b < 3; b++) {
      cpk_int col = (cpk_int)(3 * j + b);
      for (cpk_int k = S->p[col]; k < S->p[col + 1]; k++) {
        size_t i = (size_t)S->i[k] / 3, a = (size_t)S->i[k] % 3;
        if (mark[i] != j + 1) { /* first entry of block (i, j) */
          mark[i] = j + 1;
          if (fill) {
            G->col[next[i]] = j;
            memset(G->val + 9 * next[i], 0, 9 * sizeof *G->val);
          }
          next[i]++;
        }
        if (fill) G->val[9 * (next[i] - 1) + 3 * a + b] = S->x[k];
      }
    }
}

static int build_influence(const cpk_contact_system *s, struct cvm_influence **out)
{
  struct cvm_influence *G = calloc(1, sizeof *G);
  size_t nc = s->nc;
  size_t *mark = cpk_calloc_array(nc + 1, sizeof *mark), *next = cpk_calloc_array(nc + 1, sizeof *next);
  *out = G;
  if (!G || !mark || !next) goto nomem;
  G->nc = nc;
  G->inv_h = 1.0 / s->h;
  G->ptr = cpk_calloc_array(nc + 1, sizeof *G->ptr);
  G->u0 = cpk_alloc_array(nc + 1, 3 * sizeof *G->u0);
  if (!G->ptr || !G->u0) goto nomem;
  memcpy(G->u0, s->u0, 3 * nc * sizeof *G->u0);
  scan_blocks(s->influence, G, mark, next, 0);
  for (size_t i = 0; i < nc; i++) G->ptr[i + 1] = G->ptr[i] + next[i];
  G->col = cpk_alloc_array(G->ptr[nc] + 1, sizeof *G->col);
  G->val = cpk_alloc_array(G->ptr[nc] + 1, 9 * sizeof *G->val);
  if (!G->col || !G->val) goto nomem;
  memset(mark, 0, nc * sizeof *mark);
  memcpy(next, G->ptr, nc * sizeof *next);
  scan_blocks(s->influence, G, mark, next, 1);
  free(mark);
  free(next);
  return CPK_OK;
nomem:
  free(mark);
  free(next);
  return CPK_ENOMEM;
}

/* Elastic displacement G P / h of contact c along (n, t, o). */
static void displacement(const struct cvm_influence *G, const double *P, size_t c, double u[3])
{
  for (int a = 0; a < 3; a++) {
    double sum = 0.0;
    for (size_t k = G->ptr[c]; k < G->ptr[c + 1]; k++)
      for (int b = 0; b < 3; b++) sum += G->val[9 * k + 3 * a + b] * P[4 * G->col[k] + b];
    u[a] = sum * G->inv_h;
  }
}

/* The surfaces move by the rigid motion plus the change of the elastic displacement over
 * the step. Normally that change is measured from the undeformed profiles (psi is their
 * gap), tangentially from the displacement u0 at the start: the slip is history-dependent. */
void cvm_influence_velocity(const cpk_varmap *C, const double *P, double *U)
{
  const struct cvm_influence *G = C->influence;
  for (size_t c = 0; c < G->nc; c++) {
    double u[3];
    displacement(G, P, c, u);
    U[4 * c] += u[0] * G->inv_h;
    for (int a = 1; a < 3; a++) U[4 * c + a] += (u[a] - G->u0[3 * c + a]) * G->inv_h;
  }
}

/* d(row)/dU through U_c += sum_j G_cj T_j z_j / h^2, for every unknown of the coupled elements. */
void cvm_influence_expand(const cpk_varmap *C, size_t c, cvm_rowctx *x)
{
  const struct cvm_influence *G = C->influence;
  double s2 = G->inv_h * G->inv_h;
  for (size_t bk = G->ptr[c]; bk < G->ptr[c + 1]; bk++) {
    const cvm_contact *cj = &C->cc[G->col[bk]];
    const double *blk = G->val + 9 * bk;
    for (size_t l = cj->first; l < cj->first + cj->m; l++) {
      /* structural, as the compiler's chain rule: not on the block's values */
      if (!cvm_var_acts(&C->vars[l])) continue;
      double GT[3] = {0, 0, 0};
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) GT[a] += blk[3 * a + b] * C->vars[l].T[b] * s2;
      for (size_t k = 0; k < x->cc->m; k++) {
        if (!(x->umask[k] & 7u)) continue;
        double v = 0.0;
        for (int a = 0; a < 3; a++)
          if (x->umask[k] >> a & 1) v += x->dfdU[4 * k + a] * GT[a];
        cvm_partial_global(x, k, C->gidx[l], v);
      }
    }
  }
}

int cpk_varmap_elastic_displacement(const cpk_varmap *m, const double *z, double *u)
{
  if (!m || !z || !u) return CPK_EINVAL;
  if (!m->influence) return CPK_EUNSUP;
  double *P = cpk_alloc_array(m->nc, 4 * sizeof *P);
  if (!P) return CPK_ENOMEM;
  cvm_impulses(m, z, P);
  for (size_t c = 0; c < m->nc; c++) displacement(m->influence, P, c, u + 3 * c);
  free(P);
  return CPK_OK;
}

/* ---- elements and their rows ----------------------------------------------- */

/* An element is a point of a surface: its friction lies in the tangent plane, and a patch's
 * friction moment comes from the lever arms of its elements, so directions have no twist. */
static int element_directions(cpk_varmap *C, const cpk_contact_params *p, size_t c,
                              const cpk_compile_options *o, cpk_error *err)
{
  cvm_contact *cc = &C->cc[c];
  size_t n = o->directions.kind == CPK_DIRECTIONS_PLANE ? o->directions.d : o->directions.equator;
  int rc = CPK_OK;
  cc->dir_off = C->ndirs;
  if (p->ndirections > 0) {
    for (size_t j = 0; j < p->ndirections && !rc; j++) {
      if (p->directions[3 * j + 2] != 0.0)
        return cpk_error_set(err, CPK_EINVAL,
                             "contact %zu (1-based): an element's friction directions have no twist", c + 1);
      rc = cvm_push_dir(C, p->directions[3 * j], p->directions[3 * j + 1], 0.0);
    }
  } else {
    rc = cvm_push_circle(C, n, p->e_t, p->e_o, 0.0, o->directions.offset);
  }
  cc->ndir = C->ndirs - cc->dir_off;
  return rc ? cpk_error_set(err, CPK_ENOMEM, "out of memory") : CPK_OK;
}

/* Unknowns of element c: p_n, then (mu > 0) one beta per direction and sigma. */
static int setup_element(cpk_varmap *C, const cpk_contact_system *s, size_t c,
                         const cpk_compile_options *o, cpk_error *err)
{
  static const double T_N[4] = {1, 0, 0, 0};
  cvm_contact *cc = &C->cc[c];
  cc->first = C->nvars;
  cc->kpn[0] = 0;
  cc->npn = 1;
  int rc = cc->mu > 0 ? element_directions(C, &s->contacts[c], c, o, err) : CPK_OK;
  if (rc) return rc;
  rc = cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, T_N);
  for (size_t j = 0; j < cc->ndir && !rc; j++) {
    const double *d = C->dirs + 3 * (cc->dir_off + j);
    double T[4] = {0, d[0], d[1], 0};
    rc = cvm_add_var(C, c, CPK_ROLE_P_D, j, 0.0, INFINITY, T);
  }
  cc->ksig = cc->m;
  if (!rc && cc->ndir > 0) rc = cvm_add_var(C, c, CPK_ROLE_SIGMA, 0, 0.0, INFINITY, NULL);
  return rc ? cpk_error_set(err, CPK_ENOMEM, "out of memory") : CPK_OK;
}

static int check_input(const cpk_contact_system *s, const cpk_compile_options *o, cpk_error *err)
{
  if (!(s->h > 0))
    return cpk_error_set(err, CPK_EINVAL,
                         "distributed is an impulse-level model: the system needs h > 0");
  if (!s->influence)
    return cpk_error_set(err, CPK_EINVAL,
                         "distributed needs the influence matrix of the elements "
                         "(\"influence\" in the file, cpk_contact_system_set_compliance_matrix)");
  size_t n = o->directions.kind == CPK_DIRECTIONS_PLANE ? o->directions.d : o->directions.equator;
  if (o->directions.kind != CPK_DIRECTIONS_PLANE && o->directions.kind != CPK_DIRECTIONS_ELLIPSOID)
    return cpk_error_set(err, CPK_EINVAL, "unknown direction kind %d", (int)o->directions.kind);
  if (n < 1 || n > MAX_DIRECTIONS)
    return cpk_error_set(err, CPK_EINVAL, "need 1 <= d <= %d directions", MAX_DIRECTIONS);
  return CPK_OK;
}

static int setup_distributed(cpk_varmap *C, const cpk_contact_system *s,
                             const cpk_compile_options *o, cpk_error *err)
{
  int rc = check_input(s, o, err);
  if (rc) return rc;
  if (build_influence(s, &C->influence)) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t c = 0; c < s->nc && !rc; c++) rc = setup_element(C, s, c, o, err);
  return rc;
}

/* The rows are polyhedral's with plane directions: U is the velocity of the deformed
 * surfaces (rigid motion plus elastic rate), so
 *   0 <= p_n    _|_ U_n + psi/h              >= 0   (eq. (4.8))
 *   0 <= beta_j _|_ d_j . (U_t, U_o) + sigma >= 0   (eq. (4.10): slip opposes friction)
 *   0 <= sigma  _|_ mu p_n - sum_j beta_j    >= 0   (eq. (4.7), per element) */

int cpk_compile_distributed(const cpk_contact_system *s, const cpk_compile_options *o,
                            cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  cpk_compile_options opt;
  if (o)
    opt = *o;
  else
    cpk_compile_options_default(&opt);
  if (opt.form == CPK_FORM_AUTO) opt.form = CPK_FORM_REDUCED; /* an LCP, as polyhedral */
  return cvm_compile(s, CPK_MODEL_DISTRIBUTED, &opt, setup_distributed, cvm_rows_polyhedral, problem,
                     map, err);
}
