/* kelvin_voigt_implicit.c: the geometrically implicit Kelvin-Voigt compiler (seed 003 eqs. (10)-(15)): layout of the unknowns, momentum rows, the Jacobian pattern, the emitted nonlinear MCP and reading a solution back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "implicit_internal.h"

/* ---- the map ---- */

static void setup_body(const cpk_implicit_body *b, double h, cim_mbody *m)
{
  double RI[9], Iw_w[3], gyro[3];
  cim_quat_to_matrix(b->quat, m->R);
  cim_mul(m->R, b->inertia, RI, 3, 3, 3);
  for (int i = 0; i < 3; i++) /* Iw = R I R^T */
    for (int j = 0; j < 3; j++)
      m->Iw[3 * i + j] = RI[3 * i] * m->R[3 * j] + RI[3 * i + 1] * m->R[3 * j + 1] +
                         RI[3 * i + 2] * m->R[3 * j + 2];
  m->mass = b->mass;
  memcpy(m->v0, b->velocity, sizeof m->v0);
  memcpy(m->c, b->position, sizeof m->c);
  /* the velocity product -w x Iw w is taken at the start of the step (explicit) */
  cim_mul(m->Iw, b->velocity + 3, Iw_w, 3, 3, 1);
  cim_cross(b->velocity + 3, Iw_w, gyro);
  for (int a = 0; a < 3; a++) {
    m->rhs[a] = m->mass * m->v0[a] + h * b->force[a];
    m->rhs[3 + a] = Iw_w[a] + h * (b->force[3 + a] - gyro[a]);
  }
}

static double det3(const double S[9])
{
  return S[0] * (S[4] * S[8] - S[5] * S[7]) - S[1] * (S[3] * S[8] - S[5] * S[6]) +
         S[2] * (S[3] * S[7] - S[4] * S[6]);
}

/* The tangent t = axis x n needs an axis away from n; the coordinate axis least aligned
 * with the normal of side 2 seen from side 1's centre at the start is kept for the step. */
static void choose_axis(const cpk_implicit_map *M, cim_mpair *p)
{
  cim_eval e;
  double n[3] = {0, 0, 1};
  if (!cim_place_eval(&p->place[1], NULL, M->h, p->place[0].c, &e) &&
      cim_dot(e.g, e.g) > 0)
    memcpy(n, e.g, sizeof n);
  int k = 0;
  for (int a = 1; a < 3; a++)
    if (fabs(n[a]) < fabs(n[k])) k = a;
  memset(p->axis, 0, sizeof p->axis);
  p->axis[k] = 1.0;
}

static int setup_pair(cpk_implicit_map *M, const cpk_implicit_system *s, size_t i, size_t *next,
                      cpk_error *err)
{
  const cim_pair *src = &s->pairs[i];
  const cpk_contact_params *q = &src->params;
  cim_mpair *p = &M->pairs[i];
  double scale = 0.0;
  for (int k = 0; k < 2; k++) {
    const cim_side *sd = &src->side[k];
    cim_place *pl = &p->place[k];
    M->surfs[2 * i + k] = sd->surf;
    pl->surf = &M->surfs[2 * i + k];
    pl->moving = sd->body != CPK_IMPLICIT_WORLD;
    p->body[k] = sd->body;
    if (pl->moving) {
      memcpy(pl->c, M->bodies[sd->body].c, sizeof pl->c);
      memcpy(pl->R, M->bodies[sd->body].R, sizeof pl->R);
    } else {
      memcpy(pl->c, sd->pos, sizeof pl->c);
      cim_quat_to_matrix(sd->quat, pl->R);
    }
  }
  p->mu = q->mu;
  p->e2[0] = q->e_t * q->e_t, p->e2[1] = q->e_o * q->e_o, p->e2[2] = q->e_r * q->e_r;
  p->dmax = q->delta_max;
  memcpy(p->delta_prev, q->delta_prev, sizeof p->delta_prev);
  for (int e = 0; e < 9; e++) {
    p->S[e] = M->h * q->K[e] + q->C[e];
    scale = fmax(scale, fabs(p->S[e]));
  }
  for (int a = 0; a < 3; a++) p->Cdprev[a] = cim_dot(q->C + 3 * a, q->delta_prev);
  if (!(fabs(det3(p->S)) > 1e-14 * scale * scale * scale))
    return cpk_error_set(err, CPK_EINVAL, "pair %zu (1-based): h K + C is singular", i + 1);
  p->m = CIM_PNS + 1;
  p->kpnr = p->kf = p->ksig = (size_t)-1;
  p->nf = 0;
  if (isfinite(p->dmax)) p->kpnr = p->m++;
  if (p->mu > 0) {
    p->nf = q->e_r > 0 ? 3 : 2;
    p->kf = p->m;
    p->m += p->nf;
    p->ksig = p->m++;
  }
  p->first = *next;
  *next += p->m;
  choose_axis(M, p);
  return CPK_OK;
}

static int build_map(cpk_implicit_map *M, const cpk_implicit_system *s, cpk_error *err)
{
  M->h = s->h;
  M->nb = s->nb;
  M->np = s->np;
  M->bodies = cpk_calloc_array(s->nb, sizeof *M->bodies);
  M->pairs = cpk_calloc_array(s->np, sizeof *M->pairs);
  M->surfs = cpk_calloc_array(s->np, 2 * sizeof *M->surfs);
  M->work = calloc(1, sizeof *M->work);
  size_t next;
  if (!M->bodies || !M->pairs || !M->surfs || !M->work || cpk_size_mul(6, s->nb, &next))
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t b = 0; b < s->nb; b++) setup_body(&s->bodies[b], s->h, &M->bodies[b]);
  for (size_t i = 0; i < s->np; i++) {
    int rc = setup_pair(M, s, i, &next, err);
    if (rc) return rc;
  }
  M->n = next;
  return CPK_OK;
}

void cpk_implicit_map_free(cpk_implicit_map *m)
{
  if (!m) return;
  free(m->bodies);
  free(m->pairs);
  free(m->surfs);
  cpk_csc_free(m->pattern);
  free(m->pos);
  free(m->work);
  free(m);
}

/* ---- F, the Jacobian and its pattern ---- */

/* Entries go out in one fixed order: the first walk records (row, col), later walks add
 * values through pos. */
typedef struct walker {
  int record;
  size_t count;
  cpk_int *ti, *tj;
  const size_t *pos;
  double *x;
} walker;

static void put(walker *w, size_t row, size_t col, double v)
{
  if (w->record) {
    w->ti[w->count] = (cpk_int)row;
    w->tj[w->count] = (cpk_int)col;
  } else {
    w->x[w->pos[w->count]] += v;
  }
  w->count++;
}

static double mass_entry(const cim_mbody *b, int i, int j)
{
  if (i < 3 && j < 3) return i == j ? b->mass : 0.0;
  if (i >= 3 && j >= 3) return b->Iw[3 * (i - 3) + j - 3];
  return 0.0;
}

/* Every stencil entry of a pair's rows and of its momentum contributions (L NULL: zeros). */
static void put_pair(const cpk_implicit_map *M, const cim_mpair *p, const cim_local *L, walker *w)
{
  for (size_t s = 0; s < CIM_MAXS; s++) {
    size_t col = cim_stencil_col(M, p, s);
    if (col == (size_t)-1) continue;
    for (size_t k = 0; k < p->m; k++) put(w, p->first + k, col, L ? L->Jc[k][s] : 0.0);
    for (int q = 0; q < 2; q++)
      for (size_t i = 0; p->body[q] != CPK_IMPLICIT_WORLD && i < 6; i++)
        put(w, 6 * p->body[q] + i, col, L ? L->Jm[6 * q + i][s] : 0.0);
  }
}

static int evaluate(const cpk_implicit_map *M, const double *z, double *f, walker *w)
{
  for (size_t b = 0; b < M->nb; b++)
    for (int i = 0; i < 6; i++) {
      f[6 * b + i] = -M->bodies[b].rhs[i];
      for (int j = 0; j < 6; j++) {
        double m = mass_entry(&M->bodies[b], i, j);
        f[6 * b + i] += m * z[6 * b + j];
        if (w) put(w, 6 * b + i, 6 * b + j, m);
      }
    }
  for (size_t i = 0; i < M->np; i++) {
    const cim_mpair *p = &M->pairs[i];
    cim_local *L = M->work;
    int rc = cim_pair_rows(M, p, z, w != NULL, L);
    if (rc) return rc;
    for (size_t k = 0; k < p->m; k++) f[p->first + k] = L->f[k];
    for (int q = 0; q < 2; q++)
      for (size_t r = 0; p->body[q] != CPK_IMPLICIT_WORLD && r < 6; r++)
        f[6 * p->body[q] + r] += L->fm[6 * q + r];
    if (w) put_pair(M, p, L, w);
  }
  for (size_t i = 0; i < M->n; i++)
    if (!isfinite(f[i])) return CPK_EBADFUNC;
  return CPK_OK;
}

static int nl_function(const double *z, double *f, void *params)
{
  return evaluate(params, z, f, NULL);
}

static int nl_jacobian(const double *z, cpk_csc *J, void *params)
{
  cpk_implicit_map *M = params;
  double *f = cpk_alloc_array(M->n, sizeof *f);
  if (!f) return CPK_ENOMEM;
  walker w = {0, 0, NULL, NULL, M->pos, J->x};
  memset(J->x, 0, (size_t)J->p[J->n] * sizeof *J->x);
  int rc = evaluate(M, z, f, &w);
  if (!rc && w.count != M->ntrip) rc = CPK_EBADFUNC;
  free(f);
  return rc;
}

/* The recorded entries as a fixed pattern; repeated entries (a body in several pairs)
 * share a position. */
static int pattern_from(cpk_implicit_map *M, const walker *w)
{
  int rc = cpk_csc_pattern((cpk_int)M->n, (cpk_int)M->n, w->count, w->ti, w->tj, &M->pattern,
                           &M->pos);
  M->ntrip = w->count;
  return rc;
}

static int record_pattern(cpk_implicit_map *M)
{
  size_t count = 36 * M->nb;
  for (size_t i = 0; i < M->np; i++) {
    const cim_mpair *p = &M->pairs[i];
    size_t side = p->m + 6 * ((p->body[0] != CPK_IMPLICIT_WORLD) + (p->body[1] != CPK_IMPLICIT_WORLD));
    count += side * side;
  }
  walker w = {1, 0, cpk_alloc_array(count, sizeof(cpk_int)), cpk_alloc_array(count, sizeof(cpk_int)),
              NULL, NULL};
  int rc = w.ti && w.tj ? CPK_OK : CPK_ENOMEM;
  for (size_t b = 0; !rc && b < M->nb; b++)
    for (size_t i = 0; i < 6; i++)
      for (size_t j = 0; j < 6; j++) put(&w, 6 * b + i, 6 * b + j, 0.0);
  for (size_t i = 0; !rc && i < M->np; i++) put_pair(M, &M->pairs[i], NULL, &w);
  if (!rc && w.count != count) rc = CPK_EINVAL;
  if (!rc) rc = pattern_from(M, &w);
  free(w.ti);
  free(w.tj);
  return rc;
}

/* ---- the problem ---- */

static void local_name(const cim_mpair *p, size_t k, size_t i, char *buf, size_t len)
{
  static const char *const fixed[CIM_PNS + 1] = {"a1_x", "a1_y", "a1_z", "a2_x", "a2_y",
                                                 "a2_z", "s", "l", "deltabar", "delta_n",
                                                 "delta_t", "delta_o", "p_ns"};
  static const char *const fr[3] = {"p_t", "p_o", "p_r"};
  const char *nm = "sigma";
  if (k <= CIM_PNS)
    nm = fixed[k];
  else if (k == p->kpnr)
    nm = "p_nr";
  else if (p->nf && k >= p->kf && k < p->kf + p->nf)
    nm = fr[k - p->kf];
  snprintf(buf, len, "%s[%zu]", nm, i + 1);
}

/* l >= 0 (paired with f2(a2) + deltabar, which l = 0 cannot satisfy on a convex surface)
 * keeps the solutions and drops the farthest-point branch of eq. (11), where l < 0. */
static int local_free(const cim_mpair *p, size_t k)
{
  return (k < CIM_PNS && k != CIM_L) || (p->nf && k >= p->kf && k < p->kf + p->nf);
}

static int emit_problem(cpk_implicit_map *M, cpk_problem **out)
{
  double *lo = cpk_alloc_array(M->n, sizeof *lo), *hi = cpk_alloc_array(M->n, sizeof *hi);
  int rc = lo && hi ? CPK_OK : CPK_ENOMEM;
  for (size_t i = 0; !rc && i < M->n; i++) lo[i] = -INFINITY, hi[i] = INFINITY;
  for (size_t i = 0; !rc && i < M->np; i++)
    for (size_t k = 0; k < M->pairs[i].m; k++)
      if (!local_free(&M->pairs[i], k)) lo[M->pairs[i].first + k] = 0.0;
  if (!rc)
    rc = cpk_problem_alloc_nonlinear_mcp(M->n, nl_function, nl_jacobian, M->pattern, M, lo, hi, out);
  free(lo);
  free(hi);
  char buf[64];
  for (size_t j = 0; !rc && j < 6 * M->nb; j++) {
    snprintf(buf, sizeof buf, "v[%zu]", j + 1);
    rc = cpk_problem_set_var_name(*out, j, buf);
  }
  for (size_t i = 0; !rc && i < M->np; i++)
    for (size_t k = 0; !rc && k < M->pairs[i].m; k++) {
      local_name(&M->pairs[i], k, i, buf, sizeof buf);
      rc = cpk_problem_set_var_name(*out, M->pairs[i].first + k, buf);
    }
  if (!rc) rc = cpk_problem_set_name(*out, "kelvin-voigt-implicit");
  return rc;
}

int cpk_compile_implicit_kelvin_voigt(const cpk_implicit_system *s,
                                      const cpk_compile_options *options, cpk_problem **problem,
                                      cpk_implicit_map **map, cpk_error *err)
{
  (void)options;
  *problem = NULL;
  *map = NULL;
  if (!s || s->nb == 0)
    return cpk_error_set(err, CPK_EINVAL, "the implicit system has no bodies");
  cpk_implicit_map *M = calloc(1, sizeof *M);
  if (!M) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  int rc = build_map(M, s, err);
  if (!rc && (record_pattern(M) || emit_problem(M, problem)))
    rc = cpk_error_set(err, CPK_ENOMEM, "building the problem: out of memory");
  if (rc) {
    cpk_problem_free(*problem);
    *problem = NULL;
    cpk_implicit_map_free(M);
    return rc;
  }
  *map = M;
  return CPK_OK;
}

/* ---- reading a solution ---- */

size_t cpk_implicit_map_n(const cpk_implicit_map *m) { return m->n; }

size_t cpk_implicit_map_index(const cpk_implicit_map *m, cpk_implicit_var var, size_t i,
                              size_t component)
{
  static const size_t fixed[] = {0, CIM_A1, CIM_A2, CIM_S, CIM_L, CIM_DB, CIM_DN, CIM_PNS};
  static const size_t width[] = {6, 3, 3, 1, 1, 1, 3, 1};
  if (var == CPK_IMPLICIT_V) return i < m->nb && component < 6 ? 6 * i + component : (size_t)-1;
  if (i >= m->np) return (size_t)-1;
  const cim_mpair *p = &m->pairs[i];
  size_t k = (size_t)-1;
  if ((unsigned)var <= CPK_IMPLICIT_P_NS)
    k = component < width[var] ? fixed[var] + component : (size_t)-1;
  else if (var == CPK_IMPLICIT_P_NR && component == 0)
    k = p->kpnr;
  else if (var == CPK_IMPLICIT_P_F && component < p->nf)
    k = p->kf + component;
  else if (var == CPK_IMPLICIT_SIGMA && component == 0)
    k = p->ksig;
  return k == (size_t)-1 ? k : p->first + k;
}

int cpk_implicit_map_velocities(const cpk_implicit_map *m, const double *z, double *v)
{
  if (!m || !z || !v) return CPK_EINVAL;
  memcpy(v, z, 6 * m->nb * sizeof *v);
  return CPK_OK;
}

int cpk_implicit_map_contact(const cpk_implicit_map *m, const double *z, size_t i,
                             cpk_implicit_contact *out)
{
  if (!m || !z || !out || i >= m->np) return CPK_EINVAL;
  return cim_pair_contact(m, &m->pairs[i], z, out);
}

/* ---- a starting point ---- */

/* a1 = support of side 1 against the normal n of side 2, a2 = a1 moved along n onto side 2
 * (exact for a plane); a few rounds let n follow a curved side 2. */
static void start_points(const cpk_implicit_map *M, const cim_mpair *p, double a1[3], double a2[3])
{
  const cim_place *P1 = &p->place[0], *P2 = &p->place[1];
  double n[3] = {0, 0, 1}, x[3], nb[3], xb[3];
  cim_eval e;
  memcpy(a1, P1->c, 3 * sizeof *a1);
  memcpy(x, P1->c, sizeof x);
  for (int round = 0; round < 8; round++) {
    if (!cim_place_eval(P2, NULL, M->h, x, &e) && cim_dot(e.g, e.g) > 0) {
      double len = sqrt(cim_dot(e.g, e.g));
      for (int a = 0; a < 3; a++) n[a] = e.g[a] / len;
    }
    if (P1->surf->support) {
      double mn[3] = {-n[0], -n[1], -n[2]};
      cim_mul_tn(P1->R, mn, nb, 3, 3, 1);
      P1->surf->support(P1->surf, nb, xb);
      cim_mul(P1->R, xb, a1, 3, 3, 1);
      for (int a = 0; a < 3; a++) a1[a] += P1->c[a];
    }
    double step = 0.0;
    if (!cim_place_eval(P2, NULL, M->h, a1, &e) && cim_dot(e.g, n) != 0)
      step = e.F / cim_dot(e.g, n);
    for (int a = 0; a < 3; a++) x[a] = a2[a] = a1[a] - step * n[a];
  }
}

/* The spring's impulse at delta_prev, sigma at the slip speed and the friction of that slip:
 * with sigma = 0 and no impulse the friction rows have a zero Jacobian, a singular start. */
static void start_impulses(const cpk_implicit_map *m, const cim_mpair *p, double *z)
{
  double *x = z + p->first, slip = 0.0;
  cpk_implicit_contact c;
  x[CIM_PNS] = fmax(0.0, cim_dot(p->S, p->delta_prev) - p->Cdprev[0]);
  if (!p->nf || cim_pair_contact(m, p, z, &c)) return;
  for (size_t a = 0; a < p->nf; a++) slip += p->e2[a] * c.U[a + 1] * c.U[a + 1];
  x[p->ksig] = sqrt(slip) + 1e-3;
  for (size_t a = 0; a < p->nf; a++) /* sliding friction at the start's slip */
    x[p->kf + a] = -p->e2[a] * p->mu * x[CIM_PNS] * c.U[a + 1] / x[p->ksig];
}

int cpk_implicit_map_start(const cpk_implicit_map *m, double *z)
{
  if (!m || !z) return CPK_EINVAL;
  memset(z, 0, m->n * sizeof *z);
  for (size_t b = 0; b < m->nb; b++) memcpy(z + 6 * b, m->bodies[b].v0, 6 * sizeof *z);
  for (size_t i = 0; i < m->np; i++) {
    const cim_mpair *p = &m->pairs[i];
    double *x = z + p->first, a1[3], a2[3];
    cim_eval e1, e2;
    start_points(m, p, a1, a2);
    memcpy(x + CIM_A1, a1, sizeof a1);
    memcpy(x + CIM_A2, a2, sizeof a2);
    memcpy(x + CIM_DN, p->delta_prev, sizeof p->delta_prev);
    if (cim_place_eval(&p->place[0], NULL, m->h, a1, &e1) ||
        cim_place_eval(&p->place[1], NULL, m->h, a2, &e2))
      continue;
    double g1 = cim_dot(e1.g, e1.g), g2 = cim_dot(e2.g, e2.g);
    double d[3] = {a2[0] - a1[0], a2[1] - a1[1], a2[2] - a1[2]};
    x[CIM_S] = g1 > 0 ? cim_dot(d, e1.g) / g1 : 0.0;
    x[CIM_L] = g2 > 0 ? sqrt(g1 / g2) : 1.0;
    x[CIM_DB] = -e2.F;
    start_impulses(m, p, z);
  }
  return CPK_OK;
}
