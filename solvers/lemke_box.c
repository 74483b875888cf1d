/* lemke_box.c: principal pivoting for small dense boxed problems with friction-index rows, in their own n unknowns (lemke's first try on them, findex.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/result.h>
#include <cpkit/util.h>
#include "lapack_decl.h"
#include "lu_solve1.h"
#include "lemke_box.h"

/*
 * A guess of the active set gives each unknown a state: free (w_i = 0, z_i between its
 * bounds), at its lower or at its upper bound. A friction row i (j = findex[i], bounds
 * -+c z_j) at a bound while its normal j is free slides: z_i = -+c z_j, which folds
 * -+c M[:, i] into the column of z_j. The free unknowns then solve one dense square
 * system G y = -(q + M z_const) (LAPACK LU). An unknown that breaks its condition (a free
 * one outside its box, a bound one with w of the wrong sign) changes state, one per
 * iteration: the first such index (Murty's least-index rule), except the one moved last
 * (moving it straight back 2-cycles when friction makes the matrix not P). A physics
 * engine's next problem usually has the last answer's active set: then one factorization
 * and no move.
 *
 * Redundant contacts (four corners of a face) make M singular at the level of float noise;
 * the method works on M + reg I (see BOX_REG) and refines against M. A free block that is
 * still singular has a first negligible LU pivot naming a column in the span of the ones
 * before it (partial pivoting keeps the column order): that unknown goes to a bound
 * ("drop") and the block is factored again. Nothing here is guaranteed to terminate on the
 * matrices engines give: the caller bounds the moves and falls back to Lemke's path.
 */

enum { KIND_FREE, KIND_CONST, KIND_SLIDE };

/* Pivots below this, relative to the largest entry of G, count as zero: exact dependence only,
   since reg (below) already lifts the noise-level pivots of float data's dependent columns. */
#define BOX_PIVOT_TOL 1e-10
/*
 * The pivoting runs on M + reg I, reg = BOX_REG max_i M_ii: a singular PSD M (redundant
 * contacts) becomes positive definite, where principal pivoting is finite (without
 * friction), and float noise (~1e-7) no longer decides which contact of a face carries
 * the load, so the next step's problem keeps the active set. The answer is refined
 * against M itself (refine, at most BOX_REFINE times); when reg's bias is still above the
 * tolerance, the pivoting goes on from there with reg times BOX_REG_STEP, BOX_REG_LEVELS
 * levels in all. Measured on Bullet's 6-box stack (float data) while choosing them: with
 * 1e-7 alone a tenth of the warm starts cycled, with 1e-6 alone a tenth missed the
 * tolerance; with 1e-6 then 1e-7 only the cold first call is left to Lemke's path.
 */
#define BOX_REG 1e-6
#define BOX_REG_STEP 0.1
#define BOX_REG_LEVELS 3
#define BOX_REFINE 2

int lemke_box_alloc(lemke_box *B, size_t n)
{
  memset(B, 0, sizeof *B);
  B->n = n;
  size_t nn;
  if (cpk_size_mul(n, n, &nn)) return CPK_EOVERFLOW;
  B->G = cpk_alloc_array(nn ? nn : 1, sizeof *B->G);
  B->y = cpk_alloc_array(n ? n : 1, sizeof *B->y);
  B->z = cpk_calloc_array(n ? n : 1, sizeof *B->z);
  B->w = cpk_alloc_array(n ? n : 1, sizeof *B->w);
  B->zkeep = cpk_alloc_array(n ? n : 1, sizeof *B->zkeep);
  B->wkeep = cpk_alloc_array(n ? n : 1, sizeof *B->wkeep);
  B->ipiv = cpk_alloc_array(n ? n : 1, sizeof *B->ipiv);
  B->kind = cpk_alloc_array(n ? n : 1, sizeof *B->kind);
  B->state = cpk_alloc_array(n ? n : 1, sizeof *B->state);
  B->seen = cpk_alloc_array(n ? n : 1, sizeof *B->seen);
  B->free_idx = cpk_alloc_array(n ? n : 1, sizeof *B->free_idx);
  B->pos = cpk_alloc_array(n ? n : 1, sizeof *B->pos);
  if (!B->G || !B->y || !B->z || !B->w || !B->ipiv || !B->kind || !B->state || !B->seen ||
      !B->free_idx || !B->pos || !B->zkeep || !B->wkeep)
    return CPK_ENOMEM;
  return CPK_OK;
}

void lemke_box_free(lemke_box *B)
{
  free(B->G);
  free(B->y);
  free(B->z);
  free(B->w);
  free(B->zkeep);
  free(B->wkeep);
  free(B->ipiv);
  free(B->kind);
  free(B->state);
  free(B->seen);
  free(B->free_idx);
  free(B->pos);
  memset(B, 0, sizeof *B);
}

int lemke_box_applies(const cpk_problem *p)
{
  return p->kind != CPK_KIND_NONLINEAR_MCP && p->M && p->M->format == CPK_MATRIX_DENSE &&
         p->n <= LEMKE_BOX_MAX_N && p->n <= (size_t)INT32_MAX;
}

static double mget(const cpk_problem *p, size_t r, size_t c)
{
  const gsl_matrix *D = p->M->dense;
  return D->data[r * D->tda + c];
}

static int is_friction(const cpk_problem *p, size_t i) { return p->findex && p->findex[i] >= 0; }

/* ---- states ------------------------------------------------------------------ */

/* A plain unknown's state where it can be: a bound state needs that bound finite. */
static int plain_state(const cpk_problem *p, size_t i, int want)
{
  int has_l = isfinite(p->lower[i]), has_u = isfinite(p->upper[i]);
  if ((want == CPK_VAR_AT_LOWER && has_l) || (want == CPK_VAR_AT_UPPER && has_u)) return want;
  if (want == CPK_VAR_BASIC || (!has_l && !has_u)) return CPK_VAR_BASIC;
  return has_l ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
}

/* Cold: plain unknowns at a bound (z = 0 for contacts), friction rows sticking. */
static void set_states(lemke_box *B, const cpk_problem *p, const int *state0)
{
  for (size_t i = 0; i < B->n; i++) {
    int want = state0 ? state0[i] : (is_friction(p, i) ? CPK_VAR_BASIC : CPK_VAR_AT_LOWER);
    if (want != CPK_VAR_AT_LOWER && want != CPK_VAR_AT_UPPER) want = CPK_VAR_BASIC;
    B->state[i] = is_friction(p, i) ? want : plain_state(p, i, want);
  }
}

/* Value of a plain unknown at its bound state. */
static double bound_value(const cpk_problem *p, size_t i, int state)
{
  return state == CPK_VAR_AT_UPPER ? p->upper[i] : p->lower[i];
}

/* Friction row i's half-width c z_j when its normal j is at a bound (constant). */
static double const_width(const lemke_box *B, const cpk_problem *p, size_t i)
{
  size_t j = (size_t)p->findex[i];
  return p->fcoef[i] * fmax(bound_value(p, j, B->state[j]), 0.0);
}

/* Each unknown free, constant (value in z) or sliding on its free normal; the free ones listed. */
static void classify(lemke_box *B, const cpk_problem *p)
{
  B->m = 0;
  for (size_t i = 0; i < B->n; i++) {
    int st = B->state[i];
    B->kind[i] = KIND_CONST;
    if (!is_friction(p, i)) {
      if (st == CPK_VAR_BASIC) B->kind[i] = KIND_FREE;
      else B->z[i] = bound_value(p, i, st);
    } else if (B->state[p->findex[i]] == CPK_VAR_BASIC) {
      B->kind[i] = st == CPK_VAR_BASIC ? KIND_FREE : KIND_SLIDE;
    } else {
      double b = const_width(B, p, i); /* b = 0: z_i = 0 whatever its state */
      if (st == CPK_VAR_BASIC && b > 0.0) B->kind[i] = KIND_FREE;
      else B->z[i] = st == CPK_VAR_AT_UPPER ? b : (st == CPK_VAR_AT_LOWER || b == 0.0 ? -b : 0.0);
    }
    if (B->kind[i] == KIND_FREE) B->free_idx[B->m++] = i;
  }
}

/* ---- the free block ------------------------------------------------------------ */

static double slide_sign(const lemke_box *B, size_t i) { return B->state[i] == CPK_VAR_AT_UPPER ? 1.0 : -1.0; }

/* G (column-major) and y = the right-hand side; returns max |G_ab|. */
static double build_block(lemke_box *B, const cpk_problem *p)
{
  size_t m = B->m;
  double gmax = 0.0;
  for (size_t a = 0; a < m; a++) B->pos[B->free_idx[a]] = a;
  for (size_t b = 0; b < m; b++)
    for (size_t a = 0; a < m; a++) B->G[a + b * m] = mget(p, B->free_idx[a], B->free_idx[b]);
  for (size_t a = 0; a < m; a++) B->y[a] = -p->q[B->free_idx[a]];
  for (size_t i = 0; i < B->n; i++) {
    if (B->kind[i] == KIND_SLIDE) {
      size_t col = B->pos[p->findex[i]];
      double f = slide_sign(B, i) * p->fcoef[i];
      for (size_t a = 0; a < m; a++) B->G[a + col * m] += f * mget(p, B->free_idx[a], i);
    } else if (B->kind[i] == KIND_CONST && B->z[i] != 0.0) {
      for (size_t a = 0; a < m; a++) B->y[a] -= mget(p, B->free_idx[a], i) * B->z[i];
    }
  }
  for (size_t a = 0; a < m; a++) B->G[a + a * m] += B->reg;
  for (size_t k = 0; k < m * m; k++)
    if (fabs(B->G[k]) > gmax) gmax = fabs(B->G[k]); /* not fmax: a libm call per entry */
  return gmax;
}

/*
 * Factor G; *dep = position of the first negligible pivot (a column in the span of the
 * ones before it, partial pivoting keeping the column order), m when there is none.
 */
static int factor_block(lemke_box *B, double gmax, size_t *dep)
{
  int m = (int)B->m, info = 0;
  *dep = B->m;
  if (m == 0) return CPK_OK;
  B->factorizations++;
  dgetrf_(&m, &m, B->G, &m, B->ipiv, &info);
  if (info < 0) return CPK_ELINSYS;
  for (size_t k = 0; k < B->m; k++)
    if (!(fabs(B->G[k + k * B->m]) > BOX_PIVOT_TOL * gmax)) {
      *dep = k;
      break;
    }
  return CPK_OK;
}

/* Send dependent free unknown i to a bound: a contact to z = 0, a friction row to its side. */
static int drop(lemke_box *B, const cpk_problem *p, size_t i)
{
  B->drops++;
  if (is_friction(p, i)) {
    B->state[i] = B->z[i] < 0.0 ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
    return CPK_OK;
  }
  if (isinf(p->lower[i]) && isinf(p->upper[i])) return CPK_ESINGULAR; /* a free row cannot leave */
  B->state[i] = isfinite(p->lower[i]) ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
  return CPK_OK;
}

/* z from the solved free block: free unknowns, then the sliding ones from their normals. */
static void fill_z(lemke_box *B, const cpk_problem *p)
{
  for (size_t a = 0; a < B->m; a++) B->z[B->free_idx[a]] = B->y[a];
  for (size_t i = 0; i < B->n; i++)
    if (B->kind[i] == KIND_SLIDE) B->z[i] = slide_sign(B, i) * p->fcoef[i] * B->z[p->findex[i]];
}

/*
 * z and w = Mz + q for the current states, dependent free columns dropped on the way;
 * CPK_ESINGULAR when one cannot be (a free row), CPK_EBADFUNC when w is not finite.
 */
static int solve_states(lemke_box *B, const cpk_problem *p)
{
  while (B->drops <= (long)B->n) { /* over the whole solve: each drop costs an LU */
    classify(B, p);
    size_t dep;
    int rc = factor_block(B, build_block(B, p), &dep);
    if (rc) return rc;
    if (dep < B->m) {
      if ((rc = drop(B, p, B->free_idx[dep]))) return rc;
      continue;
    }
    cpk_lu_solve1((int)B->m, B->G, B->ipiv, B->y, 0);
    fill_z(B, p);
    rc = cpk_problem_eval(p, B->z, B->w);
    for (size_t i = 0; i < B->n; i++) B->w[i] += B->reg * B->z[i]; /* w of M + reg I */
    return rc;
  }
  return CPK_ESINGULAR;
}

/* One refinement step: y += (G + reg I)^{-1} (-w_F) on the current states, z and w (M's) after it. */
static int refine_step(lemke_box *B, const cpk_problem *p)
{
  for (size_t a = 0; a < B->m; a++) B->y[a] = -B->w[B->free_idx[a]];
  cpk_lu_solve1((int)B->m, B->G, B->ipiv, B->y, 0);
  for (size_t a = 0; a < B->m; a++) B->y[a] += B->z[B->free_idx[a]];
  fill_z(B, p);
  B->refinements++;
  return cpk_problem_eval(p, B->z, B->w);
}

/*
 * The pivoting solved M + reg I; on its final states, iterative refinement against M
 * itself with the factors at hand (a proximal-point step), which converges at rate
 * reg / (lambda + reg) where the free block is consistent and drifts where float noise
 * left it slightly inconsistent: a step is kept only when it lowers the residual, and
 * taken while the residual is above tol (one step always: it takes a consistent block
 * from reg's bias to rounding). B->w is M's w afterwards.
 */
static int refine(lemke_box *B, const cpk_problem *p, double tol)
{
  for (size_t i = 0; i < B->n; i++) B->w[i] -= B->reg * B->z[i];
  double res = cpk_natural_residual(p, B->z, B->w);
  for (int k = 0; k < BOX_REFINE && B->m > 0 && (k == 0 || res > tol); k++) {
    memcpy(B->zkeep, B->z, B->n * sizeof *B->z);
    memcpy(B->wkeep, B->w, B->n * sizeof *B->w);
    int rc = refine_step(B, p);
    if (rc) return rc;
    double now = cpk_natural_residual(p, B->z, B->w);
    if (!(now < res)) { /* back to the better point */
      memcpy(B->z, B->zkeep, B->n * sizeof *B->z);
      memcpy(B->w, B->wkeep, B->n * sizeof *B->w);
      return CPK_OK;
    }
    res = now;
  }
  return CPK_OK;
}

/* ---- broken conditions and moves ------------------------------------------------- */

/* Bounds of unknown i at the current z (a friction row's follow its normal). */
static void bounds_at(const lemke_box *B, const cpk_problem *p, size_t i, double *lo, double *hi)
{
  if (!is_friction(p, i)) {
    *lo = p->lower[i];
    *hi = p->upper[i];
    return;
  }
  *hi = p->fcoef[i] * fmax(B->z[p->findex[i]], 0.0);
  *lo = -*hi;
}

/* The state unknown i should move to (its own when its condition holds to eps). */
static int wanted_state(const lemke_box *B, const cpk_problem *p, size_t i, double eps)
{
  int st = B->state[i];
  if (B->kind[i] == KIND_FREE) {
    double lo, hi;
    bounds_at(B, p, i, &lo, &hi);
    if (B->z[i] < lo - eps) return CPK_VAR_AT_LOWER;
    if (B->z[i] > hi + eps) return CPK_VAR_AT_UPPER;
    return st;
  }
  if (is_friction(p, i) && B->kind[i] == KIND_CONST && const_width(B, p, i) == 0.0) return st;
  if (st == CPK_VAR_AT_LOWER && B->w[i] < -eps) return CPK_VAR_BASIC;
  if (st == CPK_VAR_AT_UPPER && B->w[i] > eps) return CPK_VAR_BASIC;
  return st;
}

/*
 * Number of unknowns whose condition is broken; in *pick the first of them other than
 * `avoid` (the one moved last: on a matrix that is not P, moving it straight back 2-cycles),
 * or `avoid` itself when it is the only one.
 */
static size_t count_broken(const lemke_box *B, const cpk_problem *p, double eps, size_t avoid,
                           size_t *pick)
{
  size_t count = 0;
  *pick = SIZE_MAX;
  for (size_t i = 0; i < B->n; i++)
    if (wanted_state(B, p, i, eps) != B->state[i]) {
      if (*pick == SIZE_MAX && i != avoid) *pick = i;
      count++;
    }
  if (*pick == SIZE_MAX) *pick = avoid;
  return count;
}

/* Move unknown i to the state it wants. */
static void move(lemke_box *B, const cpk_problem *p, double eps, size_t i)
{
  B->state[i] = wanted_state(B, p, i, eps);
}

/* Pivot from the current states on M + B->reg I until no condition is broken; 1 if reached. */
static int pivot(lemke_box *B, const cpk_problem *p, double eps, long first, long max_iter,
                 cpk_monitor *mon, int *reached)
{
  size_t last = SIZE_MAX;
  *reached = 0;
  for (long it = 0;; it++) {
    int rc = solve_states(B, p);
    if (rc == CPK_ESINGULAR || rc == CPK_EBADFUNC) return CPK_OK; /* not solved: the caller's path */
    if (rc) return rc;
    size_t broken = count_broken(B, p, eps, last, &last);
    if (broken == 0) break;
    if (B->pivots >= max_iter) return CPK_OK;
    /* each move factors the free block again: the clock and the callback may stop it */
    B->stop = cpk_monitor_log(mon, first + B->pivots, NAN, (double)broken, NAN, NAN, NULL);
    if (B->stop) return CPK_OK;
    move(B, p, eps, last);
    B->pivots++;
  }
  *reached = 1;
  return CPK_OK;
}

double lemke_box_reg(const cpk_problem *p)
{
  double dmax = 0.0;
  for (size_t i = 0; i < p->n; i++) dmax = fmax(dmax, mget(p, i, i));
  return BOX_REG * dmax;
}

int lemke_box_solve(lemke_box *B, const cpk_problem *p, const int *state0, double tol,
                    long first, long max_iter, cpk_monitor *mon, int *solved)
{
  *solved = 0;
  B->stop = 0;
  B->pivots = B->drops = B->factorizations = B->refinements = 0;
  double reg0 = lemke_box_reg(p);
  set_states(B, p, state0);
  /* a smaller reg only when M + reg I's answer is too far from M's for the refinement */
  for (int level = 0; level < BOX_REG_LEVELS && !*solved; level++) {
    B->reg = reg0 * pow(BOX_REG_STEP, level);
    int reached, rc = pivot(B, p, 0.1 * tol, first, max_iter, mon, &reached);
    if (rc || !reached) return rc;
    rc = refine(B, p, tol);
    if (rc == CPK_EBADFUNC) return CPK_OK;
    if (rc) return rc;
    *solved = cpk_natural_residual(p, B->z, B->w) <= tol;
  }
  if (*solved) {
    memcpy(B->seen, B->state, B->n * sizeof *B->seen);
    B->have_seen = 1;
  }
  return CPK_OK;
}

void lemke_box_basis(const lemke_box *B, const cpk_problem *p, int *basis)
{
  for (size_t i = 0; i < B->n; i++) {
    basis[i] = B->state[i];
    /* a friction row whose box is [0, 0] keeps its guess (sticking) in B->state for the next
       start, but is reported at the bound its w's sign allows, as the result's basis means */
    if (is_friction(p, i) && B->kind[i] == KIND_CONST && const_width(B, p, i) == 0.0)
      basis[i] = B->w[i] >= 0.0 ? CPK_VAR_AT_LOWER : CPK_VAR_AT_UPPER;
  }
}
