/* compiler.c: the generic compile driver: unknowns and their layout, F and its Jacobian by the chain rule through J or A, the sparsity pattern, and the emitted problem. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "compiled.h"

/* Entries of the Jacobian are emitted in a fixed order that depends only on
 * constant data (T, J, A and the models' structural masks), so a first pass
 * records (row, col) and later passes write values through `pos`. */
struct cvm_emitter {
  int record;
  size_t count, cap;
  cpk_int *ti, *tj;
  const size_t *pos;
  double *x;
  size_t limit;
  int failed;
  const cpk_csc *verify; /* when set, every entry must fall where the pattern puts it */
  int mismatch;
};

/* 1 when position k of pattern P is entry (row, col). */
static inline int in_pattern(const cpk_csc *P, size_t k, size_t row, size_t col)
{
  return (cpk_int)k >= P->p[col] && (cpk_int)k < P->p[col + 1] && P->i[k] == (cpk_int)row;
}

/* Recording, an entry past the recorded ones, or one out of place. */
static void emit_slow(cvm_emitter *e, size_t row, size_t col)
{
  if (e->record) {
    if (e->count == e->cap) {
      size_t c = e->cap ? 2 * e->cap : 1024;
      cpk_int *ti = realloc(e->ti, c * sizeof *ti);
      if (ti) e->ti = ti;
      cpk_int *tj = ti ? realloc(e->tj, c * sizeof *tj) : NULL;
      if (!ti || !tj) {
        e->failed = 1;
        return;
      }
      e->tj = tj;
      e->cap = c;
    }
    e->ti[e->count] = (cpk_int)row;
    e->tj[e->count] = (cpk_int)col;
  } else {
    e->mismatch = 1;
    e->failed = 1;
  }
  e->count++;
}

/* The hot path of every compile and update (10^4 entries a step on the tripod's LCP):
 * inline, the value added where the recorded order puts it. */
static inline void emit(cvm_emitter *e, size_t row, size_t col, double value)
{
  if (!e->record && e->count < e->limit) {
    size_t k = e->pos[e->count];
    if (!e->verify || in_pattern(e->verify, k, row, col)) {
      e->x[k] += value;
      e->count++;
      return;
    }
  }
  emit_slow(e, row, col);
}

void cvm_partial(cvm_rowctx *x, size_t row, size_t var, double value)
{
  if (x->em) emit(x->em, x->g[row], x->g[var], value);
}

void cvm_partial_global(cvm_rowctx *x, size_t row, size_t gcol, double value)
{
  if (x->em) emit(x->em, x->g[row], gcol, value);
}

double cvm_normal_gap(const cvm_rowctx *x, double extra)
{
  if (x->C->h > 0) return x->U[0] + (x->cc->psi + extra) / x->C->h;
  return x->U[0];
}

int cvm_add_var(cpk_varmap *C, size_t c, cpk_var_role role, size_t index, double lo, double hi,
                const double T[4])
{
  if (C->nvars == C->cap_vars) {
    size_t cap = C->cap_vars ? 2 * C->cap_vars : 64;
    cvm_var *v = cpk_alloc_array(cap, sizeof *v);
    if (!v) return CPK_ENOMEM;
    if (C->nvars) memcpy(v, C->vars, C->nvars * sizeof *v);
    free(C->vars);
    C->vars = v;
    C->cap_vars = cap;
  }
  cvm_var *v = &C->vars[C->nvars++];
  v->role = role;
  v->index = index;
  v->lo = lo;
  v->hi = hi;
  for (int a = 0; a < 4; a++) v->T[a] = T ? T[a] : 0.0;
  C->cc[c].m++;
  return CPK_OK;
}

int cvm_var_acts(const cvm_var *v)
{
  return v->T[0] != 0.0 || v->T[1] != 0.0 || v->T[2] != 0.0 || v->T[3] != 0.0;
}

/* ---- evaluation ------------------------------------------------------- */

void cvm_impulses(const cpk_varmap *C, const double *z, double *P)
{
  memset(P, 0, 4 * C->nc * sizeof *P);
  for (size_t c = 0; c < C->nc; c++)
    for (size_t k = C->cc[c].first; k < C->cc[c].first + C->cc[c].m; k++)
      for (int a = 0; a < 4; a++) P[4 * c + a] += C->vars[k].T[a] * z[C->gidx[k]];
}

void cvm_contact_velocity(const cpk_varmap *C, const double *z, const double *P, double *U)
{
  for (size_t c = 0; c < C->nc; c++)
    for (int a = 0; a < 4; a++) {
      double sum;
      if (C->mixed) {
        sum = C->drift[4 * c + a];
        for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++)
          sum += C->wval[4 * k + a] * z[C->wrow[k]];
      } else {
        sum = C->B.b[4 * c + a];
        for (size_t k = C->B.ptr[c]; k < C->B.ptr[c + 1]; k++)
          for (int b = 0; b < 4; b++) sum += C->B.val[16 * k + 4 * a + b] * P[4 * C->B.col[k] + b];
      }
      U[4 * c + a] = sum;
    }
  if (C->influence) cvm_influence_velocity(C, P, U);
}

/* Momentum rows F_v = M v - sum_c J_c P_c - rhs (mixed form only). */
static void momentum_rows(const cpk_varmap *C, const double *z, double *f, cvm_emitter *em)
{
  const cpk_csc *M = C->M;
  for (size_t r = 0; r < C->nv; r++) f[r] = -C->rhs[r];
  for (cpk_int j = 0; j < M->n; j++)
    for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++) {
      f[M->i[k]] += M->x[k] * z[j];
      if (em) emit(em, (size_t)M->i[k], (size_t)j, M->x[k]);
    }
  for (size_t c = 0; c < C->nc; c++)
    for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++)
      for (int a = 0; a < 4; a++) f[C->wrow[k]] -= C->wval[4 * k + a] * C->P[4 * c + a];
  /* Structural entries: a wrench row k of contact c and an unknown l whose impulse is
   * not identically zero, whatever the wrench's values (an entry that is exactly zero
   * at one pose and not at the next would change the pattern, and force a compile). */
  for (size_t c = 0; em && c < C->nc; c++)
    for (size_t l = C->cc[c].first; l < C->cc[c].first + C->cc[c].m; l++) {
      if (!cvm_var_acts(&C->vars[l])) continue;
      for (size_t k = C->wptr[c]; k < C->wptr[c + 1]; k++) {
        double v = 0.0;
        for (int a = 0; a < 4; a++) v -= C->wval[4 * k + a] * C->vars[l].T[a];
        emit(em, (size_t)C->wrow[k], C->gidx[l], v);
      }
    }
}

/* d(row)/dU expanded through U_c = J_c^T v (mixed form): every wrench row of c for a row
 * that depends on U at all (structural, as in momentum_rows). */
static void expand_mixed(const cpk_varmap *C, size_t c, const cvm_rowctx *x, cvm_emitter *em)
{
  for (size_t k = 0; k < x->cc->m; k++) {
    if (!x->umask[k]) continue;
    for (size_t e = C->wptr[c]; e < C->wptr[c + 1]; e++) {
      double v = 0.0;
      for (int a = 0; a < 4; a++)
        if (x->umask[k] >> a & 1) v += x->dfdU[4 * k + a] * C->wval[4 * e + a];
      emit(em, x->g[k], (size_t)C->wrow[e], v);
    }
  }
}

/* dfdU row k (0 outside umask: mask_partials) times the column's contact velocity BT. */
static inline double row_dot(const cvm_rowctx *x, size_t k, const double BT[4])
{
  double v = 0.0;
  for (int a = 0; a < 4; a++) v += x->dfdU[4 * k + a] * BT[a];
  return v;
}

/* The entries of column `col` in the rows of x's contact: written straight into the
 * values when they are placed unchecked (an update's hot loop: 10^4 entries a step on
 * the tripod's LCP), else emitted one by one. */
static void expand_column(cvm_emitter *em, const cvm_rowctx *x, size_t col, const double BT[4])
{
  size_t m = x->cc->m;
  if (!em->record && !em->verify && em->count <= em->limit && m <= em->limit - em->count) {
    double *X = em->x;
    const size_t *pos = em->pos + em->count;
    size_t e = 0;
    for (size_t k = 0; k < m; k++)
      if (x->umask[k]) X[pos[e++]] += row_dot(x, k, BT);
    em->count += e;
    return;
  }
  for (size_t k = 0; k < m; k++)
    if (x->umask[k]) emit(em, x->g[k], col, row_dot(x, k, BT));
}

/* d(row)/dU expanded through U_c = sum_j A_cj T_j z_j (reduced form). */
static void expand_reduced(const cpk_varmap *C, size_t c, const cvm_rowctx *x, cvm_emitter *em)
{
  for (size_t bk = C->B.ptr[c]; bk < C->B.ptr[c + 1]; bk++) {
    const cvm_contact *cj = &C->cc[C->B.col[bk]];
    const double *blk = C->B.val + 16 * bk;
    for (size_t l = cj->first; l < cj->first + cj->m; l++) {
      /* structural: a block present and an impulse not identically zero, whatever the
       * block's values (so the pattern stays fixed while the contact set does) */
      if (!cvm_var_acts(&C->vars[l])) continue;
      double BT[4] = {0, 0, 0, 0};
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) BT[a] += blk[4 * a + b] * C->vars[l].T[b];
      expand_column(em, x, C->gidx[l], BT);
    }
  }
}

/* The partials outside a row's structural mask set to 0, so the chain rule's inner
 * loops need no test per component (the same sums: those terms were skipped). */
static void mask_partials(const cvm_rowctx *x)
{
  for (size_t k = 0; k < x->cc->m; k++)
    for (int a = 0; a < 4; a++)
      if (!(x->umask[k] >> a & 1)) x->dfdU[4 * k + a] = 0.0;
}

/* F(z) into f and, when em is given, the Jacobian entries in their fixed order. */
static int assemble(cpk_varmap *C, const double *z, double *f, cvm_emitter *em)
{
  cvm_impulses(C, z, C->P);
  if (C->mixed) momentum_rows(C, z, f, em);
  cvm_contact_velocity(C, z, C->P, C->U);
  for (size_t c = 0; c < C->nc; c++) {
    cvm_contact *cc = &C->cc[c];
    cvm_rowctx x = {C, cc, c, z, C->gidx + cc->first, C->U + 4 * c, C->floc, C->dfdU, C->umask, em};
    memset(C->dfdU, 0, 4 * cc->m * sizeof *C->dfdU);
    memset(C->umask, 0, cc->m);
    int rc = C->rows(&x);
    if (rc) return rc;
    for (size_t k = 0; em && k < cc->m; k++)
      emit(em, x.g[k], x.g[k], 0.0); /* structural diagonal */
    if (em) mask_partials(&x);
    for (size_t k = 0; k < cc->m; k++) f[x.g[k]] = C->floc[k];
    if (em && C->mixed)
      expand_mixed(C, c, &x, em);
    else if (em)
      expand_reduced(C, c, &x, em);
    if (em && C->influence) cvm_influence_expand(C, c, &x);
  }
  if (em && em->failed) return em->mismatch ? CPK_EUNSUP : CPK_ENOMEM;
  for (size_t i = 0; i < C->n; i++)
    if (!isfinite(f[i])) return CPK_EBADFUNC;
  return CPK_OK;
}

static int nl_function(const double *z, double *f, void *params)
{
  return assemble(params, z, f, NULL);
}

/* F(z) into f and the Jacobian's values into x (the pattern's order), each entry where
 * the recorded order puts it; `checked`: each one verified to be the entry recorded
 * there. *mismatch: the entries are not the ones the pattern was recorded from. */
static int jacobian_into(cpk_varmap *C, const double *z, double *f, double *x, int checked,
                         int *mismatch)
{
  cvm_emitter em = {0};
  em.pos = C->pos;
  em.x = x;
  em.limit = C->ntrip;
  em.verify = checked ? C->pattern : NULL;
  memset(x, 0, (size_t)C->pattern->p[C->pattern->n] * sizeof *x);
  int rc = assemble(C, z, f, &em);
  *mismatch = em.mismatch || em.count != C->ntrip;
  return rc == CPK_EUNSUP ? CPK_OK : rc;
}

static int nl_jacobian(const double *z, cpk_csc *J, void *params)
{
  cpk_varmap *C = params;
  int mismatch;
  int rc = jacobian_into(C, z, C->fwork, J->x, 0, &mismatch);
  if (!rc && mismatch) rc = CPK_EBADFUNC;
  return rc;
}

int cvm_pattern_values(cpk_varmap *C, double *q, double *x, double *z, int checked)
{
  int mismatch;
  memset(z, 0, C->n * sizeof *z);
  /* The entries are structural (never skipped on a value that happens to be zero), so
   * the same structure emits the recorded sequence. */
  int rc = jacobian_into(C, z, C->fwork, x, checked, &mismatch);
  if (rc == CPK_EBADFUNC && !C->affine) rc = CPK_OK; /* as record_pattern: F(0) may be odd */
  if (!rc && mismatch) rc = CPK_EUNSUP;
  if (!rc && C->affine) memcpy(q, C->fwork, C->n * sizeof *q); /* F(0), checked finite */
  return rc;
}

/* ---- pattern --------------------------------------------------------- */

/* The recorded entries as a fixed pattern; duplicates share one position. */
static int build_pattern(cpk_varmap *C, const cvm_emitter *em)
{
  int rc = cpk_csc_pattern((cpk_int)C->n, (cpk_int)C->n, em->count, em->ti, em->tj, &C->pattern,
                           &C->pos);
  C->ntrip = em->count;
  return rc;
}

static int record_pattern(cpk_varmap *C)
{
  cvm_emitter em = {0};
  double *z = cpk_calloc_array(C->n, sizeof *z);
  em.record = 1;
  int rc = z ? assemble(C, z, C->fwork, &em) : CPK_ENOMEM;
  if (rc == CPK_EBADFUNC)
    rc = CPK_OK; /* F(0) may be non-finite only in exotic data; pattern is what counts */
  if (!rc) rc = build_pattern(C, &em);
  free(z);
  free(em.ti);
  free(em.tj);
  return rc;
}

/* ---- layout and names -------------------------------------------------- */

static const char *const role_names[] = {"v",   "p_n", "p_ns",  "p_nr",    "p_t",     "p_o",
                                         "p_r", "p_d", "sigma", "delta_n", "delta_t", "delta_o"};
#define NROLES (sizeof role_names / sizeof role_names[0])

/* The cone form: contact by contact, (n, t, o[, r]) in each, as the cone problem needs. */
static int cone_layout(cpk_varmap *C)
{
  for (size_t c = 0; c < C->nc; c++)
    for (size_t k = C->cc[c].first; k < C->cc[c].first + C->cc[c].m; k++) {
      size_t i = C->cone_dim * c + (k - C->cc[c].first);
      C->gidx[k] = i;
      C->info[i] = (cpk_var_info){C->vars[k].role, c, C->vars[k].index};
    }
  return C->nvars == C->cone_dim * C->nc ? CPK_OK : CPK_EINVAL;
}

/* Unknowns grouped by role (v, p_n, ..., delta_o), by contact inside a role, as the seeds do. */
static int assign_layout(cpk_varmap *C, cpk_varmap *old)
{
  size_t next = 0;
  C->n = (C->mixed ? C->nv : 0) + C->nvars;
  C->gidx = cvm_reuse((void **)&old->gidx, old->nvars, C->nvars, sizeof *C->gidx, 0);
  C->info = cvm_reuse((void **)&old->info, old->n, C->n, sizeof *C->info, 0);
  if (!C->gidx || !C->info) return CPK_ENOMEM;
  if (C->cone) return cone_layout(C);
  for (size_t j = 0; C->mixed && j < C->nv; j++)
    C->info[next++] = (cpk_var_info){CPK_ROLE_V, (size_t)-1, j};
  for (size_t role = 1; role < NROLES; role++)
    for (size_t c = 0; c < C->nc; c++)
      for (size_t k = C->cc[c].first; k < C->cc[c].first + C->cc[c].m; k++)
        if ((size_t)C->vars[k].role == role) {
          C->gidx[k] = next;
          C->info[next++] = (cpk_var_info){C->vars[k].role, c, C->vars[k].index};
        }
  return next == C->n ? CPK_OK : CPK_EINVAL;
}

static int set_names(const cpk_varmap *C, cpk_problem *p)
{
  char name[64];
  int rc = CPK_OK;
  for (size_t i = 0; i < C->n && !rc; i++) {
    const cpk_var_info *v = &C->info[i];
    if (v->role == CPK_ROLE_V)
      snprintf(name, sizeof name, "v[%zu]", v->index + 1);
    else if (v->role == CPK_ROLE_P_D)
      snprintf(name, sizeof name, "p_d[%zu,%zu]", v->contact + 1, v->index + 1);
    else
      snprintf(name, sizeof name, "%s[%zu]", role_names[v->role], v->contact + 1);
    rc = cpk_problem_set_var_name(p, i, name);
  }
  return rc;
}

/* ---- the driver ------------------------------------------------------------ */

/* s->M into C->M, in old's copy when it has the same pattern size. */
static int copy_mass(cpk_varmap *C, const cpk_csc *M, cpk_varmap *old)
{
  cpk_csc *K = old->M;
  cpk_int nnz = M->p[M->n];
  old->M = NULL;
  if (!K || K->m != M->m || K->n != M->n || K->p[K->n] != nnz) {
    cpk_csc_free(K);
    return cpk_csc_copy(M, &C->M);
  }
  memcpy(K->p, M->p, ((size_t)M->n + 1) * sizeof *M->p);
  memcpy(K->i, M->i, (size_t)nnz * sizeof *M->i);
  memcpy(K->x, M->x, (size_t)nnz * sizeof *M->x);
  C->M = K;
  return CPK_OK;
}

static int copy_kinematics(cpk_varmap *C, const cpk_contact_system *s, cpk_varmap *old)
{
  size_t nnz = s->wptr[s->nc], old_nnz = old->wptr ? old->wptr[old->nc] : 0;
  C->drift = cvm_reuse((void **)&old->drift, 4 * old->nc, 4 * s->nc, sizeof *C->drift, 0);
  if (!C->drift) return CPK_ENOMEM;
  for (size_t c = 0; c < s->nc; c++)
    memcpy(C->drift + 4 * c, s->contacts[c].drift, 4 * sizeof(double));
  if (s->form == CPK_SYSTEM_LOCAL) return CPK_OK;
  C->wptr = cvm_reuse((void **)&old->wptr, old->nc + 1, s->nc + 1, sizeof *C->wptr, 0);
  C->wrow = cvm_reuse((void **)&old->wrow, old_nnz, nnz, sizeof *C->wrow, 0);
  C->wval = cvm_reuse((void **)&old->wval, old_nnz, nnz, 4 * sizeof *C->wval, 0);
  C->rhs = cvm_reuse((void **)&old->rhs, old->nv, s->nv, sizeof *C->rhs, 0);
  if (!C->wptr || !C->wrow || !C->wval || !C->rhs || copy_mass(C, s->M, old)) return CPK_ENOMEM;
  /* A singular M is reported where it is used (the operator A, the motion). */
  if (cvm_mass_factor_reuse(s->M, &old->mass, &C->mass) == CPK_ENOMEM) return CPK_ENOMEM;
  memcpy(C->wptr, s->wptr, (s->nc + 1) * sizeof *C->wptr);
  if (nnz > 0) { /* a system without contacts has no row arrays at all */
    memcpy(C->wrow, s->wrow, nnz * sizeof *C->wrow);
    memcpy(C->wval, s->wval, 4 * nnz * sizeof *C->wval);
  }
  /* rhs = M v + h k (h > 0) or k (h = 0) */
  for (size_t r = 0; r < s->nv; r++) C->rhs[r] = s->h > 0 ? s->h * s->k[r] : s->k[r];
  for (cpk_int j = 0; s->h > 0 && j < s->M->n; j++)
    for (cpk_int k = s->M->p[j]; k < s->M->p[j + 1]; k++)
      C->rhs[s->M->i[k]] += s->M->x[k] * s->v[j];
  return CPK_OK;
}

static int choose_form(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                       cpk_error *err)
{
  if (o->form == CPK_FORM_CONE && C->model != CPK_MODEL_POINT_COULOMB &&
      C->model != CPK_MODEL_ELLIPTIC_TORSIONAL)
    return cpk_error_set(err, CPK_EINVAL,
                         "the cone form is offered by point-coulomb and elliptic-torsional only "
                         "(model %s)",
                         cpk_contact_model_name(C->model));
  if (o->form == CPK_FORM_MIXED && s->form == CPK_SYSTEM_LOCAL)
    return cpk_error_set(err, CPK_EINVAL,
                         "a local-form system has no velocities to keep (mixed form)");
  if (o->form == CPK_FORM_MIXED)
    C->mixed = 1;
  else if (o->form == CPK_FORM_REDUCED || o->form == CPK_FORM_CONE)
    C->mixed = 0; /* the cone form has the velocities eliminated: it is never mixed */
  else if (o->form == CPK_FORM_AUTO)
    C->mixed = s->form == CPK_SYSTEM_BODY && C->model != CPK_MODEL_POLYHEDRAL;
  else
    return cpk_error_set(err, CPK_EINVAL, "unknown problem form %d", (int)o->form);
  return CPK_OK;
}

int cvm_has_twist(const cpk_contact_system *s, size_t c)
{
  if (s->form == CPK_SYSTEM_LOCAL) return s->dim == 4;
  for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
    if (s->wval[4 * k + 3] != 0.0) return 1;
  return 0;
}

/* h = 0: the contact velocity at the start decides rolling/sliding. */
static void start_velocities(cpk_varmap *C, const cpk_contact_system *s)
{
  for (size_t c = 0; c < s->nc; c++)
    for (int a = 0; a < 4; a++) {
      double sum = 0.0;
      for (size_t k = s->wptr[c]; s->form == CPK_SYSTEM_BODY && k < s->wptr[c + 1]; k++)
        sum += s->wval[4 * k + a] * s->v[s->wrow[k]];
      C->cc[c].s[a] = sum;
    }
}

static int init_map(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                    cpk_varmap *old, cpk_error *err)
{
  C->sysform = s->form;
  C->h = s->h;
  C->nv = s->form == CPK_SYSTEM_BODY ? s->nv : 0;
  C->nc = s->nc;
  int rc = choose_form(C, s, o, err);
  if (rc) return rc;
  C->cc = cvm_reuse((void **)&old->cc, old->nc, s->nc, sizeof *C->cc, 1);
  if (!C->cc || copy_kinematics(C, s, old))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  /* the model's set-up appends to these (cvm_add_var, cvm_push_dir): old's capacity serves */
  C->vars = old->vars;
  C->cap_vars = old->cap_vars;
  C->dirs = old->dirs;
  C->cap_dirs = old->cap_dirs;
  old->vars = NULL;
  old->dirs = NULL;
  start_velocities(C, s);
  for (size_t c = 0; c < s->nc; c++) {
    cvm_contact *cc = &C->cc[c];
    cc->psi = s->contacts[c].psi;
    cc->mu = s->contacts[c].mu;
    cc->kpn[0] = cc->kpn[1] = cc->kf[0] = cc->kf[1] = cc->kf[2] = (size_t)-1;
    cc->ksig = cc->kdelta = (size_t)-1;
  }
  return CPK_OK;
}

static int alloc_workspace(cpk_varmap *C, cpk_varmap *old)
{
  for (size_t c = 0; c < C->nc; c++)
    if (C->cc[c].m > C->mmax) C->mmax = C->cc[c].m;
  size_t nP;
  if (cpk_size_mul(C->nc, 20, &nP) || nP > SIZE_MAX - C->nv - 1) return CPK_EOVERFLOW;
  /* old's sizes did not overflow: it was laid out the same way */
  size_t old_nP = old->P ? 20 * old->nc + old->nv + 1 : 0;
  C->P = cvm_reuse((void **)&old->P, old_nP, nP + C->nv + 1, sizeof *C->P, 0);
  C->check = C->P ? C->P + 4 * C->nc : NULL;
  C->U = cvm_reuse((void **)&old->U, 4 * old->nc, 4 * C->nc, sizeof *C->U, 0);
  C->fwork = cvm_reuse((void **)&old->fwork, old->n, C->n, sizeof *C->fwork, 0);
  C->floc = cvm_reuse((void **)&old->floc, old->mmax, C->mmax, sizeof *C->floc, 0);
  C->dfdU = cvm_reuse((void **)&old->dfdU, old->mmax, C->mmax, 4 * sizeof *C->dfdU, 0);
  C->umask = cvm_reuse((void **)&old->umask, old->mmax, C->mmax, 1, 0);
  return C->P && C->U && C->fwork && C->floc && C->dfdU && C->umask ? CPK_OK : CPK_ENOMEM;
}

void cvm_bounds_into(const cpk_varmap *C, double *lo, double *hi)
{
  size_t first = C->mixed ? C->nv : 0;
  for (size_t i = 0; i < first; i++) {
    lo[i] = -INFINITY;
    hi[i] = INFINITY;
  }
  for (size_t k = 0; k < C->nvars; k++) {
    lo[C->gidx[k]] = C->vars[k].lo;
    hi[C->gidx[k]] = C->vars[k].hi;
  }
}

int cvm_bounds(const cpk_varmap *C, double **lo, double **hi)
{
  *lo = cpk_alloc_array(C->n, sizeof **lo);
  *hi = cpk_alloc_array(C->n, sizeof **hi);
  if (!*lo || !*hi) return CPK_ENOMEM;
  cvm_bounds_into(C, *lo, *hi);
  return CPK_OK;
}

/* Affine models: q = F(0) and M = the Jacobian (constant). */
static int emit_affine(cpk_varmap *C, const double *lo, const double *hi, int dense,
                       cpk_problem **p)
{
  cpk_csc *J = NULL;
  cpk_matrix *A = NULL;
  double *z = cpk_calloc_array(C->n, sizeof *z), *q = cpk_alloc_array(C->n, sizeof *q);
  int rc = z && q ? cpk_csc_copy(C->pattern, &J) : CPK_ENOMEM;
  if (!rc) rc = nl_jacobian(z, J, C);
  if (!rc) rc = assemble(C, z, q, NULL);
  if (!rc) rc = cpk_matrix_from_csc(J, &A);
  if (!rc && dense) {
    cpk_matrix *D = NULL;
    rc = cpk_matrix_alloc_dense(C->n, C->n, &D);
    for (size_t j = 0; !rc && j < C->n; j++)
      for (cpk_int k = J->p[j]; k < J->p[j + 1]; k++)
        gsl_matrix_set(D->dense, (size_t)J->i[k], j, J->x[k]);
    cpk_matrix_free(A);
    A = D;
  }
  int lcp = 1;
  for (size_t i = 0; i < C->n; i++) lcp &= lo[i] == 0.0 && hi[i] == INFINITY;
  if (!rc)
    rc = lcp ? cpk_problem_alloc_lcp(A, q, p) : cpk_problem_alloc_affine_mcp(A, q, lo, hi, p);
  cpk_matrix_free(A);
  cpk_csc_free(J);
  free(z);
  free(q);
  return rc;
}

static int set_problem_name(const cpk_contact_system *s, cpk_contact_model model, cpk_problem *p)
{
  char name[160];
  snprintf(name, sizeof name, "%.100s%s%s", s->name ? s->name : "", s->name ? "-" : "",
           cpk_contact_model_name(model));
  return cpk_problem_set_name(p, name);
}

/* The scaled rows' sizes (cvm_row_scales), for the merits of the Newton methods. */
static int set_row_scale(const cpk_varmap *C, cpk_problem *p)
{
  double *s = cpk_alloc_array(C->n ? C->n : 1, sizeof *s);
  if (!s) return CPK_ENOMEM;
  cvm_row_scales(C, s);
  int rc = cpk_problem_set_row_scale(p, s);
  free(s);
  return rc;
}

static int emit_problem(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                        cpk_problem **p)
{
  double *lo = NULL, *hi = NULL;
  int rc = cvm_bounds(C, &lo, &hi);
  if (!rc && C->affine)
    rc = emit_affine(C, lo, hi, o->dense, p);
  else if (!rc)
    rc = cpk_problem_alloc_nonlinear_mcp(C->n, nl_function, nl_jacobian, C->pattern, C, lo, hi, p);
  if (!rc && !C->affine) rc = set_row_scale(C, *p);
  if (!rc) rc = set_names(C, *p);
  if (!rc) rc = set_problem_name(s, C->model, *p);
  free(lo);
  free(hi);
  return rc;
}

static int emit_cone(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                     cpk_problem **p)
{
  int rc = cvm_cone_emit(C, o, p);
  if (!rc) rc = set_names(C, *p);
  if (!rc) rc = set_problem_name(s, C->model, *p);
  return rc;
}

int cvm_compile_layout(cpk_varmap *C, const cpk_contact_system *s, cpk_varmap *old,
                       cpk_error *err)
{
  const cpk_compile_options *o = &C->options;
  cpk_varmap none = {0};
  if (!old) old = &none;
  int rc = init_map(C, s, o, old, err);
  if (!rc) rc = o->form == CPK_FORM_CONE ? cvm_cone_setup(C, s, o, err) : C->setup(C, s, o, err);
  if (rc) return rc;
  if (C->nvars == 0 && !C->mixed)
    return cpk_error_set(err, CPK_EINVAL, "the system has no contacts: nothing to compile");
  if (assign_layout(C, old) || alloc_workspace(C, old))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (!C->mixed) {
    rc = cvm_blockop_build(s, C->mass, &C->B, &old->B, err);
    if (rc) return rc;
    C->has_B = 1;
  }
  if (cvm_contact_scales(C)) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  return CPK_OK;
}

static int compile_steps(cpk_varmap *C, const cpk_contact_system *s, cpk_problem **problem,
                         cpk_error *err)
{
  const cpk_compile_options *o = &C->options;
  int rc = cvm_compile_layout(C, s, NULL, err);
  if (rc) return rc;
  if (C->cone)
    rc = emit_cone(C, s, o, problem);
  else
    rc = record_pattern(C);
  if (!rc && !C->cone) rc = emit_problem(C, s, o, problem);
  if (rc) return cpk_error_set(err, rc, "building the problem: %s", cpk_strerror(rc));
  return CPK_OK;
}

cpk_varmap *cvm_varmap_new(cpk_contact_model model, const cpk_compile_options *o,
                           cvm_setup_fn setup, cvm_rows_fn rows)
{
  cpk_varmap *C = calloc(1, sizeof *C);
  if (!C) return NULL;
  C->model = model;
  C->options = *o;
  C->setup = setup;
  C->rows = rows;
  C->affine = 1;
  return C;
}

int cvm_compile(const cpk_contact_system *s, cpk_contact_model model, const cpk_compile_options *o,
                cvm_setup_fn setup, cvm_rows_fn rows, cpk_problem **problem, cpk_varmap **map,
                cpk_error *err)
{
  cpk_compile_options defaults;
  *problem = NULL;
  *map = NULL;
  if (!o) {
    cpk_compile_options_default(&defaults);
    o = &defaults;
  }
  int rc = cpk_contact_system_validate(s, err);
  if (rc) return rc;
  cpk_varmap *C = cvm_varmap_new(model, o, setup, rows);
  if (!C) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  rc = compile_steps(C, s, problem, err);
  if (rc) {
    cpk_problem_free(*problem);
    *problem = NULL;
    cpk_varmap_free(C);
    return rc;
  }
  *map = C;
  return CPK_OK;
}

void cvm_varmap_release(cpk_varmap *C)
{
  free(C->cc);
  free(C->vars);
  free(C->gidx);
  free(C->info);
  free(C->dirs);
  cpk_csc_free(C->M);
  cvm_mass_free(C->mass);
  free(C->wptr);
  free(C->wrow);
  free(C->wval);
  free(C->rhs);
  free(C->drift);
  cvm_blockop_free(&C->B);
  cpk_csc_free(C->pattern);
  free(C->pos);
  free(C->P);
  free(C->U);
  free(C->fwork);
  free(C->upd);
  free(C->floc);
  free(C->dfdU);
  free(C->umask);
  cvm_influence_free(C->influence);
  cpk_varmap_free(C->spare);
}

void cpk_varmap_free(cpk_varmap *C)
{
  if (!C) return;
  cvm_varmap_release(C);
  free(C);
}

/* ---- by name ------------------------------------------------------------------ */

static const char *const model_names[CPK_MODEL_COUNT] = {
    "point-coulomb", "elliptic-torsional", "polyhedral", "kelvin-voigt", "distributed"};

const char *cpk_contact_model_name(cpk_contact_model m)
{
  return (unsigned)m < CPK_MODEL_COUNT ? model_names[m] : NULL;
}

int cpk_contact_model_from_name(const char *name, cpk_contact_model *m)
{
  for (unsigned k = 0; name && k < CPK_MODEL_COUNT; k++)
    if (strcmp(name, model_names[k]) == 0) {
      *m = (cpk_contact_model)k;
      return CPK_OK;
    }
  return CPK_ENOTFOUND;
}

void cpk_compile_options_default(cpk_compile_options *o)
{
  memset(o, 0, sizeof *o);
  o->form = CPK_FORM_AUTO;
  o->directions.kind = CPK_DIRECTIONS_PLANE;
  o->directions.d = 8;
  o->directions.equator = 8;
  o->directions.circles = 1;
  o->directions.per_circle = 5;
  o->rolling_tol = 1e-9;
}

int cpk_compile(const cpk_contact_system *s, const char *model, const cpk_compile_options *options,
                cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  cpk_contact_model m;
  *problem = NULL;
  *map = NULL;
  if (cpk_contact_model_from_name(model, &m))
    return cpk_error_set(err, CPK_ENOTFOUND,
                         "unknown model '%s' (valid: point-coulomb, elliptic-torsional, "
                         "polyhedral, kelvin-voigt, distributed)",
                         model ? model : "(null)");
  switch (m) {
  case CPK_MODEL_POINT_COULOMB: return cpk_compile_point_coulomb(s, options, problem, map, err);
  case CPK_MODEL_ELLIPTIC_TORSIONAL:
    return cpk_compile_elliptic_torsional(s, options, problem, map, err);
  case CPK_MODEL_POLYHEDRAL: return cpk_compile_polyhedral(s, options, problem, map, err);
  case CPK_MODEL_KELVIN_VOIGT: return cpk_compile_kelvin_voigt(s, options, problem, map, err);
  case CPK_MODEL_DISTRIBUTED: return cpk_compile_distributed(s, options, problem, map, err);
  }
  return cpk_error_set(err, CPK_ENOTFOUND, "unknown model");
}
