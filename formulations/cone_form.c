/* cone_form.c: the cone form of point-coulomb and elliptic-torsional: the frictional-contact problem u' = W' r + q' (FCLIB's local form) with the friction ellipsoid made isotropic by scaling, its unknowns in the variable map, and a cone problem as a local-form system. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "compiled.h"

/*
 * With S = diag(1, e_t, e_o, e_r) per contact, r = S^-1 P and u' = S U turn the
 * ellipsoid sum_a p_a^2 / e_a^2 <= mu^2 p_n^2 into |r_T| <= mu r_n, and maximum
 * dissipation p_a = -e_a^2 mu p_n U_a / |E U_T| into r_T = -mu r_n u'_T / |u'_T|
 * (doc/formulations.md). So W' = S A S and q' = S b (+ psi / h on the normal),
 * and the impulse of unknown r_a is e_a along a: T = the columns of S.
 */

static int torsion_of(const cpk_varmap *C, const cpk_contact_system *s, size_t c)
{
  return C->model == CPK_MODEL_ELLIPTIC_TORSIONAL && s->contacts[c].e_r > 0 &&
         cvm_has_twist(s, c);
}

/* The dim unknowns of contact c: p_n, p_t, p_o[, p_r] with T = S's columns. */
static int cone_contact(cpk_varmap *C, const cpk_contact_system *s, size_t c, double rolling_tol,
                        cpk_error *err)
{
  static const cpk_var_role roles[4] = {CPK_ROLE_P_N, CPK_ROLE_P_T, CPK_ROLE_P_O, CPK_ROLE_P_R};
  const cpk_contact_params *p = &s->contacts[c];
  cvm_contact *cc = &C->cc[c];
  int elliptic = C->model == CPK_MODEL_ELLIPTIC_TORSIONAL;
  double e[3] = {elliptic ? p->e_t : 1.0, elliptic ? p->e_o : 1.0, elliptic ? p->e_r : 0.0};
  cc->first = C->nvars;
  cc->torsion = torsion_of(C, s, c);
  for (int q = 0; q < 3; q++) cc->e2[q] = e[q] * e[q];
  cc->rs[0] = 1.0;
  for (int q = 0; q < 3; q++) cc->rs[q + 1] = q < 2 || cc->torsion ? e[q] : 0.0;
  cc->cone_mu = cc->mu;
  cc->kpn[0] = 0;
  cc->npn = 1;
  cc->nf = C->cone_dim - 1;
  double Tn[4] = {1, 0, 0, 0}, slip = C->h == 0 ? cvm_start_slip(cc, rolling_tol) : 0.0;
  if (slip > 0) { /* h = 0, sliding at the start: friction rides on p_n, the cone is mu = 0 */
    cvm_sliding0_impulse(cc, slip, Tn);
    cc->sliding0 = 1;
    cc->cone_mu = 0.0;
  }
  int rc = cvm_add_var(C, c, CPK_ROLE_P_N, 0, 0.0, INFINITY, Tn);
  for (size_t a = 1; a < C->cone_dim && !rc; a++) {
    double T[4] = {0, 0, 0, 0};
    T[a] = cc->rs[a];
    cc->kf[a - 1] = a;
    rc = cvm_add_var(C, c, roles[a], 0, -INFINITY, INFINITY, T);
  }
  return rc ? cpk_error_set(err, rc, "out of memory") : CPK_OK;
}

int cvm_cone_setup(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                   cpk_error *err)
{
  C->cone = 1;
  C->cone_dim = 3;
  for (size_t c = 0; c < s->nc; c++)
    if (torsion_of(C, s, c)) C->cone_dim = 4;
  for (size_t c = 0; c < s->nc; c++) {
    int rc = cone_contact(C, s, c, o->rolling_tol, err);
    if (rc) return rc;
  }
  return CPK_OK;
}

/* Triplets of W' (capacity: every entry of every block, and one per contact), or, with P
 * set, W' added straight into out on P's pattern (a stepper's update: no triplet arrays). */
typedef struct trip {
  size_t n, cap;
  cpk_int *i, *j;
  double *x;
  const cpk_csc *P;
  double *out;
  long last; /* P's position of the last entry added: the next row of its column is tried first */
  long off;  /* offset in its column of the last entry a column's start gave: a block's first
              * row sits at the same offset in each of its columns when they share a pattern */
} trip;

/* Position of entry (row, col) in P, or -1 (rows sorted in each column). */
static long csc_find(const cpk_csc *P, cpk_int row, cpk_int col)
{
  cpk_int lo = P->p[col], hi = P->p[col + 1];
  while (lo < hi) {
    cpk_int mid = lo + (hi - lo) / 2;
    if (P->i[mid] < row)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < P->p[col + 1] && P->i[lo] == row ? (long)lo : -1;
}

static int trip_alloc(trip *t, size_t cap)
{
  t->n = 0;
  t->cap = cap;
  t->i = cpk_alloc_array(cap, sizeof *t->i);
  t->j = cpk_alloc_array(cap, sizeof *t->j);
  t->x = cpk_alloc_array(cap, sizeof *t->x);
  return t->i && t->j && t->x ? CPK_OK : CPK_ENOMEM;
}

/* The scatter's search and the triplets' append, off trip_push's usual path; CPK_EUNSUP: (i, j)
 * outside P's pattern. */
static int trip_push_rest(trip *t, size_t i, size_t j, double x)
{
  if (t->P) {
    const cpk_csc *P = t->P;
    long at = P->p[j] + t->off;
    if (!(t->off >= 0 && at < P->p[j + 1] && P->i[at] == (cpk_int)i))
      at = csc_find(P, (cpk_int)i, (cpk_int)j);
    if (at < 0) return CPK_EUNSUP;
    t->off = at - P->p[j];
    t->out[at] += x;
    t->last = at;
    return CPK_OK;
  }
  if (t->n == t->cap) return CPK_EINVAL; /* cannot happen: the capacity is counted */
  t->i[t->n] = (cpk_int)i;
  t->j[t->n] = (cpk_int)j;
  t->x[t->n++] = x;
  return CPK_OK;
}

/* Inline: a step's scatter calls it for every entry of W' (81 a tripod step), and the call
 * cost more than the usual case, the entry right after the last one. */
static inline int trip_push(trip *t, size_t i, size_t j, double x)
{
  const cpk_csc *P = t->P;
  long at = t->last + 1;
  if (!P || !(at > P->p[j] && at < P->p[j + 1] && P->i[at] == (cpk_int)i))
    return trip_push_rest(t, i, j, x);
  t->out[at] += x; /* a block's rows come in order down each column: usually the next entry */
  t->last = at;
  return CPK_OK;
}

/* Block (c, j) of W' (blk: A_cj, 16 row-major): rs_c[a] * (A_cj T_j)[a][b] for the cone
 * rows a and unknowns b. */
static int cone_block(const cpk_varmap *C, size_t c, size_t j, const double *blk, trip *t,
                      double *diag_n)
{
  size_t d = C->cone_dim;
  const cvm_contact *ci = &C->cc[c], *cj = &C->cc[j];
  for (size_t b = 0; b < d; b++) {
    const double *T = C->vars[cj->first + b].T;
    int used = cvm_var_acts(&C->vars[cj->first + b]);
    for (size_t a = 0; a < d; a++) {
      double v = 0.0;
      for (int k = 0; k < 4; k++) v += blk[4 * a + k] * T[k];
      v *= ci->rs[a];
      if (c == j && a == 0 && b == 0) *diag_n = v;
      /* Every entry of a block the structure allows is kept, zero or not, so the
       * pattern depends on which contacts share a body, not on the pose: a
       * stepper then updates the values in place (cpk_compile_update). */
      int rc = used && ci->rs[a] != 0.0 ? trip_push(t, d * c + a, d * j + b, v) : CPK_OK;
      if (rc) return rc;
    }
  }
  return CPK_OK;
}

/* A contact without torsion in a dim-4 problem: u'_r = k r_r (k > 0, the scale of
 * the contact's normal row) forces r_r = 0 at every solution, so the unused twist
 * neither takes friction from the cone nor leaves r_r undetermined. */
static int decoupled_twist(const cpk_varmap *C, size_t c, double diag_n, trip *t)
{
  if (C->cone_dim < 4 || C->cc[c].rs[3] != 0.0) return CPK_OK;
  return trip_push(t, 4 * c + 3, 4 * c + 3, diag_n > 0 ? diag_n : 1.0);
}

static void trip_free(trip *t)
{
  free(t->i);
  free(t->j);
  free(t->x);
}

/* The entries of W' into t (duplicates none), block column by block column: the blocks
 * as the operator's build generated them (its list, column j after column j - 1; the
 * same values as B.val), so a scatter into a CSC pattern stays within the columns of
 * one contact. Read row by row, each block's columns were a search in another part of
 * the pattern: at 10 001 bodies (W' 1.6 million entries) a cache miss each. */
static int cone_entries(const cpk_varmap *C, trip *t)
{
  const cvm_blockop *B = &C->B;
  size_t nb = B->ptr[C->nc], k = 0;
  int rc = CPK_OK;
  for (size_t j = 0; !rc && j < C->nc; j++) {
    double diag_n = 0.0;
    for (; !rc && k < nb && B->lbj[k] == j; k++)
      rc = cone_block(C, B->lbi[k], j, B->lval + 16 * k, t, &diag_n);
    if (!rc) rc = decoupled_twist(C, j, diag_n, t);
  }
  return rc || k == nb ? rc : CPK_EINVAL; /* cannot happen: the list is in column order */
}

/* The entries of W' as triplets. */
static int cone_triplets(const cpk_varmap *C, trip *t)
{
  size_t cap;
  int rc = cpk_size_mul(C->B.ptr[C->nc], C->cone_dim * C->cone_dim, &cap) ||
                   cap > SIZE_MAX - C->nc
               ? CPK_EOVERFLOW
               : trip_alloc(t, cap + C->nc + 1);
  return rc ? rc : cone_entries(C, t);
}

int cvm_cone_scatter(const cpk_varmap *C, const cpk_csc *P, double *x)
{
  trip t = {.P = P, .out = x, .last = -2, .off = -1};
  size_t n = C->cone_dim * C->nc;
  if ((size_t)P->m != n || (size_t)P->n != n) return CPK_EUNSUP;
  memset(x, 0, (size_t)P->p[P->n] * sizeof *x);
  return cone_entries(C, &t);
}

static int cone_matrix(const cpk_varmap *C, int dense, cpk_matrix **W)
{
  trip t = {0};
  size_t n = C->cone_dim * C->nc;
  int rc = cone_triplets(C, &t);
  if (!rc) rc = cpk_matrix_from_triplets(n, n, t.n, t.i, t.j, t.x, W);
  if (!rc && dense) {
    cpk_matrix *D = NULL;
    rc = cpk_matrix_alloc_dense(n, n, &D);
    for (size_t k = 0; !rc && k < t.n; k++)
      gsl_matrix_set(D->dense, (size_t)t.i[k], (size_t)t.j[k],
                     gsl_matrix_get(D->dense, (size_t)t.i[k], (size_t)t.j[k]) + t.x[k]);
    cpk_matrix_free(*W);
    *W = D;
  }
  trip_free(&t);
  return rc;
}

/* q' = S b, the gap psi / h on the normal row (h > 0; at h = 0 the normal row is the
 * acceleration, as in the NCP rows). */
void cvm_cone_vector(const cpk_varmap *C, double *q, double *mu)
{
  size_t d = C->cone_dim;
  for (size_t c = 0; c < C->nc; c++) {
    const cvm_contact *cc = &C->cc[c];
    for (size_t a = 0; a < d; a++) q[d * c + a] = cc->rs[a] * C->B.b[4 * c + a];
    if (C->h > 0) q[d * c] += cc->psi / C->h;
    mu[c] = cc->cone_mu;
  }
}

int cvm_cone_emit(const cpk_varmap *C, const cpk_compile_options *o, cpk_problem **p)
{
  cpk_matrix *W = NULL;
  size_t n = C->cone_dim * C->nc;
  double *q = cpk_alloc_array(n, sizeof *q), *mu = cpk_alloc_array(C->nc, sizeof *mu);
  int rc = q && mu ? cone_matrix(C, o->dense, &W) : CPK_ENOMEM;
  if (!rc) {
    cvm_cone_vector(C, q, mu);
    rc = cpk_problem_alloc_friction_cone(W, q, C->cone_dim, mu, p);
  }
  cpk_matrix_free(W);
  free(q);
  free(mu);
  return rc;
}

int cpk_contact_system_from_cone(const cpk_problem *p, cpk_contact_system **out, cpk_error *err)
{
  cpk_csc *W = NULL;
  *out = NULL;
  if (!p || p->kind != CPK_KIND_FRICTION_CONE || p->cone_dim < 3)
    return cpk_error_set(err, CPK_EINVAL, "a friction-cone problem of dim 3 or 4 is needed");
  int rc = cpk_matrix_to_csc(p->M, &W);
  if (rc) return cpk_error_set(err, rc, "converting W: %s", cpk_strerror(rc));
  rc = cpk_contact_system_alloc_local(p->nc, p->cone_dim, W, p->q, p->mu, 1.0, out, err);
  cpk_csc_free(W);
  for (size_t c = 0; !rc && p->cone_dim == 4 && c < p->nc; c++) {
    cpk_contact_params cp = (*out)->contacts[c];
    cp.e_r = 1.0; /* the twist is already scaled: elliptic-torsional reads it as it is */
    rc = cpk_contact_set_params(*out, c, &cp, err);
  }
  if (!rc && p->name) rc = cpk_contact_system_set_name(*out, p->name) ? CPK_ENOMEM : CPK_OK;
  if (rc) {
    cpk_contact_system_free(*out);
    *out = NULL;
  }
  return rc;
}

cpk_problem_form cpk_compile_form_for_solver(const char *model, const char *solver,
                                             cpk_problem_form form)
{
  cpk_contact_model m;
  const cpk_solver_type *T = solver ? cpk_solver_find(solver) : NULL;
  if (form != CPK_FORM_AUTO || !T || cpk_contact_model_from_name(model, &m)) return form;
  if (m != CPK_MODEL_POINT_COULOMB && m != CPK_MODEL_ELLIPTIC_TORSIONAL) return form;
  if ((T->kinds & CPK_KIND_FRICTION_CONE) && !(T->kinds & CPK_KIND_NONLINEAR_MCP))
    return CPK_FORM_CONE;
  return form;
}
