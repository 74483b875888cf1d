/* families.c: generators of classic, random and contact problem families for tests and bench. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <cpkit/util.h>
#include "families.h"

#define PD_SHIFT 0.1    /* delta of the random PD families */
#define GROUND SIZE_MAX /* body index of the ground in a contact */
#define STEP 0.01       /* h of the contact scenes */
#define GRAVITY 9.81
#define PI 3.14159265358979323846

/* ---------------------------------------------------------------- helpers */

/* mt19937 named explicitly so that GSL_RNG_TYPE cannot change the problems. */
static gsl_rng *rng_new(unsigned long seed)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (r) gsl_rng_set(r, seed);
  return r;
}

static double uniform(gsl_rng *r, double a, double b) { return a + (b - a) * gsl_rng_uniform(r); }

static size_t pick(gsl_rng *r, size_t k)
{
  return (size_t)gsl_rng_uniform_int(r, (unsigned long)k);
}

static double gauss(gsl_rng *r) { return gsl_ran_gaussian(r, 1.0); }

/* Name the new problem, or undo it when an earlier step failed. */
static int finish(int rc, cpk_problem **out, const char *name)
{
  if (!rc && name) rc = cpk_problem_set_name(*out, name);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}

/* Create the LCP (which copies M and q), then release the generator's copies. */
static int make_lcp(cpk_matrix *M, double *q, int rc, cpk_problem **out)
{
  if (!rc && !q) rc = CPK_ENOMEM;
  if (!rc) rc = cpk_problem_alloc_lcp(M, q, out);
  cpk_matrix_free(M);
  free(q);
  return rc;
}

/* SCS construction: z = max(v, 0), w = max(-v, 0), q = w - M z; M is consumed. */
static int lcp_with_solution(cpk_matrix *M, gsl_rng *r, cpk_problem **out, double *zstar)
{
  size_t n = M->n;
  double *buf = cpk_alloc_array(n, 3 * sizeof(double));
  int rc = buf ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    double *q = buf, *z = buf + n, *mz = buf + 2 * n;
    for (size_t i = 0; i < n; i++) {
      double v = gauss(r);
      z[i] = v > 0.0 ? v : 0.0;
      q[i] = v < 0.0 ? -v : 0.0;
    }
    cpk_matrix_mv(M, z, mz, 0);
    for (size_t i = 0; i < n; i++) q[i] -= mz[i];
    rc = cpk_problem_alloc_lcp(M, q, out);
    if (!rc && zstar) memcpy(zstar, z, n * sizeof *z);
  }
  free(buf);
  cpk_matrix_free(M);
  return rc;
}

static void cross(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Generalized force of a unit force along dir applied at arm: [dir; arm x dir], times sign. */
static void wrench(const double dir[3], const double arm[3], double sign, double row[6])
{
  double m[3];
  cross(arm, dir, m);
  for (int k = 0; k < 3; k++) {
    row[k] = sign * dir[k];
    row[3 + k] = sign * m[k];
  }
}

/* ------------------------------------------------------- Murty and Fathi */

static void murty_matrix(gsl_matrix *A)
{
  for (size_t i = 0; i < A->size1; i++)
    for (size_t j = 0; j < A->size2; j++)
      gsl_matrix_set(A, i, j, i == j ? 1.0 : (i > j ? 2.0 : 0.0));
}

int cpk_family_murty(size_t n, cpk_problem **out)
{
  cpk_matrix *M = NULL;
  char name[32];
  *out = NULL;
  if (n < 1 || n > 52) return CPK_EINVAL;
  int rc = cpk_matrix_alloc_dense(n, n, &M);
  if (rc) return rc;
  double *q = cpk_alloc_array(n, sizeof *q), sum = 0.0;
  murty_matrix(M->dense);
  for (size_t i = 0; q && i < n; i++) {
    sum += ldexp(1.0, (int)(n - i)); /* 2^n + 2^(n-1) + ... + 2^(n-i) */
    q[i] = -sum;
  }
  rc = make_lcp(M, q, rc, out);
  snprintf(name, sizeof name, "murty-%zu", n);
  return finish(rc, out, name);
}

void cpk_family_murty_solution(size_t n, double *z)
{
  for (size_t i = 0; i < n; i++) z[i] = i == 0 ? ldexp(1.0, (int)n) : 0.0;
}

long cpk_family_murty_pivots(size_t n) { return n <= 62 ? (long)((uint64_t)1 << n) : -1; }

int cpk_family_fathi(size_t n, cpk_problem **out)
{
  cpk_matrix *L = NULL, *M = NULL;
  char name[32];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  int rc = cpk_matrix_alloc_dense(n, n, &L);
  if (!rc) rc = cpk_matrix_alloc_dense(n, n, &M);
  double *q = rc ? NULL : cpk_alloc_array(n, sizeof *q);
  if (!rc) {
    murty_matrix(L->dense);
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, L->dense, L->dense, 0.0, M->dense);
    for (size_t i = 0; q && i < n; i++) q[i] = -1.0;
  }
  cpk_matrix_free(L);
  rc = make_lcp(M, q, rc, out);
  snprintf(name, sizeof name, "fathi-%zu", n);
  return finish(rc, out, name);
}

void cpk_family_fathi_solution(size_t n, double *z)
{
  for (size_t i = 0; i < n; i++) z[i] = i == 0 ? 1.0 : 0.0;
}

long cpk_family_fathi_pivots(size_t n) { return cpk_family_murty_pivots(n); }

/* ------------------------------------------------------ random PD and P */

/* A += S + delta I, S skew with entries N(0, 1/n): x'Ax = x'(BB'/n)x + delta |x|^2 still. */
static void add_skew_shift(gsl_matrix *A, gsl_rng *r)
{
  size_t n = A->size1;
  double scale = 1.0 / sqrt((double)n);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = i + 1; j < n; j++) {
      double s = scale * gauss(r);
      gsl_matrix_set(A, i, j, gsl_matrix_get(A, i, j) + s);
      gsl_matrix_set(A, j, i, gsl_matrix_get(A, j, i) - s);
    }
    gsl_matrix_set(A, i, i, gsl_matrix_get(A, i, i) + PD_SHIFT);
  }
}

static int random_pd_dense(size_t n, gsl_rng *r, cpk_matrix **out)
{
  cpk_matrix *B = NULL;
  int rc = cpk_matrix_alloc_dense(n, n, &B);
  if (!rc) rc = cpk_matrix_alloc_dense(n, n, out);
  if (!rc) {
    for (size_t i = 0; i < n; i++)
      for (size_t j = 0; j < n; j++) gsl_matrix_set(B->dense, i, j, gauss(r));
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0 / (double)n, B->dense, B->dense, 0.0,
                   (*out)->dense);
    add_skew_shift((*out)->dense, r);
  }
  cpk_matrix_free(B);
  return rc;
}

/* B with 3 entries per column gives 9 triplets of BB' per column; S adds 2 pairs per row. */
static void random_pd_triplets(size_t n, gsl_rng *r, cpk_int *ti, cpk_int *tj, double *tx,
                               size_t *nnz)
{
  size_t k = 0;
  for (size_t c = 0; c < n; c++) {
    size_t rows[3];
    double val[3];
    for (int a = 0; a < 3; a++) {
      rows[a] = pick(r, n);
      val[a] = gauss(r);
    }
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++, k++) {
        ti[k] = (cpk_int)rows[a];
        tj[k] = (cpk_int)rows[b];
        tx[k] = val[a] * val[b];
      }
  }
  for (size_t i = 0; i < n; i++)
    for (int t = 0; t < 2; t++, k += 2) {
      size_t j = pick(r, n);
      double s = gauss(r); /* j == i gives s - s = 0 on the diagonal: harmless */
      ti[k] = tj[k + 1] = (cpk_int)i;
      tj[k] = ti[k + 1] = (cpk_int)j;
      tx[k] = s;
      tx[k + 1] = -s;
    }
  for (size_t i = 0; i < n; i++, k++) {
    ti[k] = tj[k] = (cpk_int)i;
    tx[k] = PD_SHIFT;
  }
  *nnz = k;
}

static int random_pd_sparse(size_t n, gsl_rng *r, cpk_matrix **out)
{
  size_t cap, nnz;
  if (cpk_size_mul(n, 14, &cap)) return CPK_EOVERFLOW;
  cpk_int *ti = cpk_alloc_array(cap, sizeof *ti), *tj = cpk_alloc_array(cap, sizeof *tj);
  double *tx = cpk_alloc_array(cap, sizeof *tx);
  int rc = ti && tj && tx ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    random_pd_triplets(n, r, ti, tj, tx, &nnz);
    rc = cpk_matrix_from_triplets(n, n, nnz, ti, tj, tx, out);
  }
  free(ti);
  free(tj);
  free(tx);
  return rc;
}

int cpk_family_random_pd(size_t n, unsigned long seed, int storage, cpk_problem **out,
                         double *zstar)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int sparse = storage == CPK_FAMILY_SPARSE;
  int rc = sparse ? random_pd_sparse(n, r, &M) : random_pd_dense(n, r, &M);
  if (!rc) rc = lcp_with_solution(M, r, out, zstar);
  else cpk_matrix_free(M);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "random-pd-%s-%zu-%lu", sparse ? "sparse" : "dense", n, seed);
  return finish(rc, out, name);
}

/* P T P' with T upper triangular, positive diagonal, large off-diagonal entries (see header). */
static int random_p_matrix(size_t n, gsl_rng *r, cpk_matrix **out)
{
  size_t *perm = cpk_alloc_array(n, sizeof *perm);
  int rc = perm ? cpk_matrix_alloc_dense(n, n, out) : CPK_ENOMEM;
  if (!rc) {
    for (size_t i = 0; i < n; i++) perm[i] = i;
    gsl_ran_shuffle(r, perm, n, sizeof *perm);
    for (size_t i = 0; i < n; i++)
      for (size_t j = i; j < n; j++) {
        double t = i == j ? uniform(r, 1.0, 2.0) : uniform(r, -3.0, 3.0);
        if (i == 0 && j == 1) t = gsl_rng_uniform(r) < 0.5 ? -6.0 : 6.0;
        gsl_matrix_set((*out)->dense, perm[i], perm[j], t);
      }
  }
  free(perm);
  return rc;
}

int cpk_family_random_p(size_t n, unsigned long seed, cpk_problem **out, double *zstar)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = random_p_matrix(n, r, &M);
  if (!rc) rc = lcp_with_solution(M, r, out, zstar);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "random-p-%zu-%lu", n, seed);
  return finish(rc, out, name);
}

/* ------------------------------------------------------------ random PSD */

/* B (n x rank, N(0, 1/rank)); with y given, its columns are projected onto y's complement. */
static void psd_factor(size_t n, size_t rank, gsl_rng *r, double *B, const double *y)
{
  double yy = 0.0;
  for (size_t i = 0; y && i < n; i++) yy += y[i] * y[i];
  for (size_t k = 0; k < rank; k++) {
    double dot = 0.0;
    for (size_t i = 0; i < n; i++) {
      B[i * rank + k] = gauss(r) / sqrt((double)rank);
      if (y) dot += y[i] * B[i * rank + k];
    }
    for (size_t i = 0; y && i < n; i++) B[i * rank + k] -= dot / yy * y[i];
  }
}

static int psd_matrix(size_t n, size_t rank, gsl_rng *r, const double *y, cpk_matrix **out)
{
  size_t cells;
  if (cpk_size_mul(n, rank, &cells)) return CPK_EOVERFLOW;
  double *B = cpk_alloc_array(cells, sizeof *B);
  int rc = B ? cpk_matrix_alloc_dense(n, n, out) : CPK_ENOMEM;
  if (!rc && rank > 0) {
    psd_factor(n, rank, r, B, y);
    gsl_matrix_view Bv = gsl_matrix_view_array(B, n, rank);
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &Bv.matrix, &Bv.matrix, 0.0, (*out)->dense);
  }
  free(B);
  return rc;
}

/* q drawn, then shifted along y so that q'y = -1: the Farkas certificate of the header. */
static int psd_infeasible(cpk_matrix *M, const double *y, gsl_rng *r, cpk_problem **out)
{
  size_t n = M->n;
  double *q = cpk_alloc_array(n, sizeof *q), qy = 0.0, yy = 0.0;
  for (size_t i = 0; q && i < n; i++) {
    q[i] = gauss(r);
    qy += q[i] * y[i];
    yy += y[i] * y[i];
  }
  for (size_t i = 0; q && i < n; i++) q[i] -= (qy + 1.0) / yy * y[i];
  return make_lcp(M, q, CPK_OK, out);
}

int cpk_family_random_psd(size_t n, size_t rank, unsigned long seed, int feasible,
                          cpk_problem **out, double *zstar_or_y)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1 || rank > n || (!feasible && rank >= n)) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  double *y = cpk_alloc_array(n, sizeof *y);
  int rc = r && y ? CPK_OK : CPK_ENOMEM;
  if (!rc && !feasible)
    for (size_t i = 0; i < n; i++) y[i] = uniform(r, 0.5, 1.5);
  if (!rc) rc = psd_matrix(n, rank, r, feasible ? NULL : y, &M);
  if (!rc && feasible) rc = lcp_with_solution(M, r, out, zstar_or_y);
  else if (!rc) rc = psd_infeasible(M, y, r, out);
  else cpk_matrix_free(M);
  if (!rc && !feasible && zstar_or_y) memcpy(zstar_or_y, y, n * sizeof *y);
  free(y);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "random-psd-%zu-r%zu-%s-%lu", n, rank,
           feasible ? "feasible" : "infeasible", seed);
  return finish(rc, out, name);
}

/* ------------------------------------------------------------ degenerate */

/* D + S + uu': positive definite because x'(D + uu')x >= |x|^2 and x'Sx = 0. */
static int degenerate_matrix(size_t n, gsl_rng *r, cpk_matrix **out)
{
  double *u = cpk_alloc_array(n, sizeof *u);
  int rc = u ? cpk_matrix_alloc_dense(n, n, out) : CPK_ENOMEM;
  if (!rc) {
    gsl_matrix *A = (*out)->dense;
    for (size_t i = 0; i < n; i++) u[i] = (double)pick(r, 3) - 1.0;
    for (size_t i = 0; i < n; i++) {
      gsl_matrix_set(A, i, i, 1.0 + (double)pick(r, 2) + u[i] * u[i]);
      for (size_t j = i + 1; j < n; j++) {
        double s = (double)pick(r, 3) - 1.0;
        gsl_matrix_set(A, i, j, s + u[i] * u[j]);
        gsl_matrix_set(A, j, i, -s + u[i] * u[j]);
      }
    }
  }
  free(u);
  return rc;
}

int cpk_family_degenerate(size_t n, unsigned long seed, cpk_problem **out)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = degenerate_matrix(n, r, &M);
  double *q = rc ? NULL : cpk_alloc_array(n, sizeof *q);
  for (size_t i = 0; q && i < n; i++) q[i] = gsl_rng_uniform(r) < 0.5 ? -1.0 : 0.0;
  if (q) q[pick(r, n)] = -1.0; /* z = 0 must not be the answer */
  rc = make_lcp(M, q, rc, out);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "degenerate-%zu-%lu", n, seed);
  return finish(rc, out, name);
}

/* z*, w* in {0, 1, 2} with z*_i = w*_i = 0 at index `zero` and about a third of the others. */
static void degenerate_point(size_t n, gsl_rng *r, double *z, double *w)
{
  size_t zero = pick(r, n);
  for (size_t i = 0; i < n; i++) {
    size_t kind = i == zero ? 2 : pick(r, 3);
    double v = 1.0 + (double)pick(r, 2);
    z[i] = kind == 0 ? v : 0.0;
    w[i] = kind == 1 ? v : 0.0;
  }
}

int cpk_family_known_degenerate(size_t n, unsigned long seed, cpk_problem **out, double *zstar)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = degenerate_matrix(n, r, &M);
  double *buf = rc ? NULL : cpk_alloc_array(n, 3 * sizeof(double));
  if (buf) {
    double *q = buf, *z = buf + n, *mz = buf + 2 * n;
    degenerate_point(n, r, z, q);
    cpk_matrix_mv(M, z, mz, 0);
    for (size_t i = 0; i < n; i++) q[i] -= mz[i];
    rc = cpk_problem_alloc_lcp(M, q, out);
    if (!rc && zstar) memcpy(zstar, z, n * sizeof *z);
  } else if (!rc) {
    rc = CPK_ENOMEM;
  }
  free(buf);
  cpk_matrix_free(M);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "known-degenerate-%zu-%lu", n, seed);
  return finish(rc, out, name);
}

/* --------------------------------------------------------------- box MCP */

/* Bounds of kind i % 4 and a point that is at a bound (F strictly signed) or inside (F = 0). */
static void box_point(size_t i, gsl_rng *r, double *l, double *u, double *z, double *f)
{
  size_t kind = i % 4;
  *l = kind == 1 ? 0.0 : (kind == 3 ? uniform(r, -2.0, 0.0) : -INFINITY);
  *u = kind == 2 ? uniform(r, -1.0, 1.0) : (kind == 3 ? *l + uniform(r, 0.5, 2.0) : INFINITY);
  size_t where = kind == 0 ? 2 : pick(r, 3); /* 0 lower, 1 upper, 2 inside */
  if (where == 0 && !isfinite(*l)) where = 2;
  if (where == 1 && !isfinite(*u)) where = 2;
  *f = 0.0;
  if (where == 0) {
    *z = *l;
    *f = uniform(r, 0.1, 1.0);
  } else if (where == 1) {
    *z = *u;
    *f = -uniform(r, 0.1, 1.0);
  } else if (isfinite(*l) && isfinite(*u)) {
    *z = *l + (*u - *l) * uniform(r, 0.1, 0.9);
  } else {
    *z = isfinite(*l) ? *l + uniform(r, 0.1, 1.0)
                      : (isfinite(*u) ? *u - uniform(r, 0.1, 1.0) : gauss(r));
  }
}

int cpk_family_random_box_mcp(size_t n, unsigned long seed, cpk_problem **out, double *zstar)
{
  cpk_matrix *M = NULL;
  char name[64];
  *out = NULL;
  if (n < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = random_pd_dense(n, r, &M);
  double *buf = rc ? NULL : cpk_alloc_array(n, 5 * sizeof(double));
  if (buf) {
    double *q = buf, *z = buf + n, *mz = buf + 2 * n, *l = buf + 3 * n, *u = buf + 4 * n;
    for (size_t i = 0; i < n; i++) box_point(i, r, &l[i], &u[i], &z[i], &q[i]);
    cpk_matrix_mv(M, z, mz, 0);
    for (size_t i = 0; i < n; i++) q[i] -= mz[i];
    rc = cpk_problem_alloc_affine_mcp(M, q, l, u, out);
    if (!rc && zstar) memcpy(zstar, z, n * sizeof *z);
  } else if (!rc) {
    rc = CPK_ENOMEM;
  }
  free(buf);
  cpk_matrix_free(M);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "random-box-mcp-%zu-%lu", n, seed);
  return finish(rc, out, name);
}

/* ---------------------------------------------------------- contact scenes */

typedef struct contact {
  size_t body[2]; /* body[1] == GROUND for a contact with the ground */
  double normal[3], arm[2][3], gap;
} contact;

typedef struct scene {
  size_t nb, nc;
  double *mass;    /* nb */
  double *inertia; /* 3 nb principal moments, world-aligned */
  contact *c;      /* nc */
  double *rows;    /* 2 nc rows of 6: normal Jacobian of (contact, side) */
} scene;

static void scene_free(scene *s)
{
  free(s->mass);
  free(s->inertia);
  free(s->c);
  free(s->rows);
}

static void random_unit(gsl_rng *r, double v[3])
{
  double len;
  do {
    for (int k = 0; k < 3; k++) v[k] = gauss(r);
    len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } while (len < 1e-3);
  for (int k = 0; k < 3; k++) v[k] /= len;
}

static void random_contact(gsl_rng *r, size_t nb, contact *c)
{
  c->body[0] = pick(r, nb);
  c->body[1] = GROUND;
  if (nb > 1 && gsl_rng_uniform(r) >= 0.2) {
    size_t b = pick(r, nb - 1);
    c->body[1] = b >= c->body[0] ? b + 1 : b;
  }
  random_unit(r, c->normal);
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) c->arm[s][k] = uniform(r, -0.5, 0.5);
  c->gap = uniform(r, 0.0, 0.01);
}

static int scene_new(size_t nb, size_t nc, gsl_rng *r, scene *s)
{
  size_t nrows;
  memset(s, 0, sizeof *s);
  if (nb < 1 || cpk_size_mul(nc, 12, &nrows)) return nb < 1 ? CPK_EINVAL : CPK_EOVERFLOW;
  s->nb = nb;
  s->nc = nc;
  s->mass = cpk_alloc_array(nb, sizeof *s->mass);
  s->inertia = cpk_alloc_array(nb, 3 * sizeof *s->inertia);
  s->c = cpk_alloc_array(nc, sizeof *s->c);
  s->rows = cpk_alloc_array(nrows, sizeof *s->rows);
  if (!s->mass || !s->inertia || !s->c || !s->rows) return CPK_ENOMEM;
  for (size_t b = 0; b < nb; b++) {
    s->mass[b] = uniform(r, 1.0, 10.0);
    for (int k = 0; k < 3; k++) s->inertia[3 * b + k] = s->mass[b] * uniform(r, 0.05, 0.2);
  }
  for (size_t k = 0; k < nc; k++) {
    random_contact(r, nb, &s->c[k]);
    for (int side = 0; side < 2; side++)
      wrench(s->c[k].normal, s->c[k].arm[side], side ? -1.0 : 1.0, &s->rows[(2 * k + side) * 6]);
  }
  return CPK_OK;
}

/* x' M_b^-1 y for body b. */
static double minv_dot(const scene *s, size_t b, const double *x, const double *y)
{
  double sum = 0.0;
  for (int k = 0; k < 3; k++) sum += x[k] * y[k] / s->mass[b];
  for (int k = 0; k < 3; k++) sum += x[3 + k] * y[3 + k] / s->inertia[3 * b + k];
  return sum;
}

/* Mean diagonal of J M^-1 J', the scale of the regularization. */
static double mean_delassus_diag(const scene *s)
{
  double sum = 0.0;
  for (size_t k = 0; k < s->nc; k++)
    for (int side = 0; side < 2; side++) {
      size_t b = s->c[k].body[side];
      const double *row = &s->rows[(2 * k + side) * 6];
      if (b != GROUND) sum += minv_dot(s, b, row, row);
    }
  return s->nc ? sum / (double)s->nc : 1.0;
}

/* (contact, side) entries touching each body, grouped by body: start has nb + 1 offsets. */
static int incidence(const scene *s, size_t **start, size_t **list)
{
  *start = cpk_calloc_array(s->nb + 1, sizeof **start);
  *list = cpk_alloc_array(s->nc, 2 * sizeof **list);
  if (!*start || !*list) return CPK_ENOMEM;
  for (size_t k = 0; k < s->nc; k++)
    for (int side = 0; side < 2; side++)
      if (s->c[k].body[side] != GROUND) (*start)[s->c[k].body[side] + 1]++;
  for (size_t b = 0; b < s->nb; b++) (*start)[b + 1] += (*start)[b];
  for (size_t k = 0; k < s->nc; k++)
    for (int side = 0; side < 2; side++) {
      size_t b = s->c[k].body[side];
      if (b == GROUND) continue;
      size_t slot = (*start)[b]++;
      (*list)[slot] = 2 * k + (size_t)side;
    }
  for (size_t b = s->nb; b > 0; b--) (*start)[b] = (*start)[b - 1];
  (*start)[0] = 0;
  return CPK_OK;
}

/* sum over bodies of deg(b)^2 + nc (the regularization), or CPK_EOVERFLOW. */
static int delassus_count(const scene *s, const size_t *start, size_t *count)
{
  size_t total = s->nc;
  for (size_t b = 0; b < s->nb; b++) {
    size_t deg = start[b + 1] - start[b], sq;
    if (cpk_size_mul(deg, deg, &sq) || total > SIZE_MAX - sq) return CPK_EOVERFLOW;
    total += sq;
  }
  *count = total;
  return CPK_OK;
}

/* One triplet per pair of (contact, side) entries sharing a body: W = J M^-1 J' + eps I. */
static void delassus_triplets(const scene *s, const size_t *start, const size_t *list, cpk_int *ti,
                              cpk_int *tj, double *tx)
{
  size_t t = 0;
  double eps = 1e-6 * mean_delassus_diag(s);
  for (size_t b = 0; b < s->nb; b++)
    for (size_t e1 = start[b]; e1 < start[b + 1]; e1++)
      for (size_t e2 = start[b]; e2 < start[b + 1]; e2++, t++) {
        ti[t] = (cpk_int)(list[e1] / 2);
        tj[t] = (cpk_int)(list[e2] / 2);
        tx[t] = minv_dot(s, b, &s->rows[list[e1] * 6], &s->rows[list[e2] * 6]);
      }
  for (size_t k = 0; k < s->nc; k++, t++) {
    ti[t] = tj[t] = (cpk_int)k;
    tx[t] = eps;
  }
}

/* q = J v + gap / h with v ~ N(0, 1) per dof; contact 0 is made to approach if none does. */
static void delassus_q(const scene *s, gsl_rng *r, double *v, double *q)
{
  int approaching = 0;
  for (size_t i = 0; i < 6 * s->nb; i++) v[i] = gauss(r);
  for (size_t k = 0; k < s->nc; k++) {
    q[k] = s->c[k].gap / STEP;
    for (int side = 0; side < 2; side++) {
      size_t b = s->c[k].body[side];
      for (size_t d = 0; b != GROUND && d < 6; d++)
        q[k] += s->rows[(2 * k + side) * 6 + d] * v[6 * b + d];
    }
    approaching |= q[k] < 0.0;
  }
  if (!approaching && s->nc > 0) q[0] = -fabs(q[0]) - 0.1;
}

static int delassus_build(const scene *s, gsl_rng *r, cpk_problem **out)
{
  size_t *start = NULL, *list = NULL, count = 0;
  cpk_int *ti = NULL, *tj = NULL;
  double *tx = NULL, *v = NULL, *q = NULL;
  cpk_matrix *W = NULL;
  int rc = incidence(s, &start, &list);
  if (!rc) rc = delassus_count(s, start, &count);
  if (!rc) {
    ti = cpk_alloc_array(count, sizeof *ti);
    tj = cpk_alloc_array(count, sizeof *tj);
    tx = cpk_alloc_array(count, sizeof *tx);
    v = cpk_alloc_array(s->nb, 6 * sizeof *v);
    q = cpk_alloc_array(s->nc, sizeof *q);
    if (!ti || !tj || !tx || !v || !q) rc = CPK_ENOMEM;
  }
  if (!rc) {
    delassus_triplets(s, start, list, ti, tj, tx);
    delassus_q(s, r, v, q);
    rc = cpk_matrix_from_triplets(s->nc, s->nc, count, ti, tj, tx, &W);
  }
  if (!rc) rc = cpk_problem_alloc_lcp(W, q, out);
  cpk_matrix_free(W);
  free(start), free(list), free(ti), free(tj), free(tx), free(v), free(q);
  return rc;
}

int cpk_family_delassus(size_t ncontacts, size_t nbodies, unsigned long seed, cpk_problem **out)
{
  scene s;
  char name[80];
  *out = NULL;
  if (ncontacts < 1 || nbodies < 1) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = scene_new(nbodies, ncontacts, r, &s);
  if (!rc) rc = delassus_build(&s, r, out);
  scene_free(&s);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "delassus-%zuc-%zub-%lu", ncontacts, nbodies, seed);
  return finish(rc, out, name);
}

/* ------------------------------------------------------ contact KKT (MCP) */

/* An orthonormal tangent pair of the unit normal n. */
static void tangents(const double n[3], double t1[3], double t2[3])
{
  double e[3] = {0.0, 0.0, 0.0};
  int k = 0; /* the axis least aligned with n keeps n x e away from zero */
  for (int i = 1; i < 3; i++)
    if (fabs(n[i]) < fabs(n[k])) k = i;
  e[k] = 1.0;
  cross(n, e, t1);
  double len = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
  for (int i = 0; i < 3; i++) t1[i] /= len;
  cross(n, t1, t2);
}

typedef struct triplets {
  cpk_int *i, *j;
  double *x;
  size_t n;
} triplets;

static void push(triplets *t, size_t i, size_t j, double x)
{
  t->i[t->n] = (cpk_int)i;
  t->j[t->n] = (cpk_int)j;
  t->x[t->n++] = x;
}

/* Row of contact k along dir (normal or tangent) and its -J' column, at unknown `col`. */
static void kkt_direction(const scene *s, size_t k, const double dir[3], size_t col, triplets *t)
{
  for (int side = 0; side < 2; side++) {
    size_t b = s->c[k].body[side];
    double row[6];
    if (b == GROUND) continue;
    wrench(dir, s->c[k].arm[side], side ? -1.0 : 1.0, row);
    for (size_t d = 0; d < 6; d++) {
      push(t, col, 6 * b + d, row[d]);
      push(t, 6 * b + d, col, -row[d]);
    }
  }
}

/* Triplets of [[Mass, -J'], [J, eps I]] with ndir = 1 (normal) or 3 (normal, two tangents). */
static void kkt_triplets(const scene *s, int ndir, triplets *t)
{
  size_t nv = 6 * s->nb;
  double eps = 1e-6 * mean_delassus_diag(s);
  for (size_t b = 0; b < s->nb; b++)
    for (size_t d = 0; d < 6; d++)
      push(t, 6 * b + d, 6 * b + d, d < 3 ? s->mass[b] : s->inertia[3 * b + d - 3]);
  for (size_t k = 0; k < s->nc; k++) {
    double t1[3], t2[3];
    tangents(s->c[k].normal, t1, t2);
    kkt_direction(s, k, s->c[k].normal, nv + k, t);
    if (ndir == 3) {
      kkt_direction(s, k, t1, nv + s->nc + 2 * k, t);
      kkt_direction(s, k, t2, nv + s->nc + 2 * k + 1, t);
    }
  }
  for (size_t k = 0; k < (size_t)ndir * s->nc; k++) push(t, nv + k, nv + k, eps);
}

/* q = (-Mass v_prev - h f_ext; gap/h; 0), bounds v free, p_n >= 0, |p_t| <= mu m_a g h. */
static void kkt_vectors(const scene *s, int ndir, double mu, gsl_rng *r, double *q, double *l,
                        double *u)
{
  size_t nv = 6 * s->nb, n = nv + (size_t)ndir * s->nc;
  for (size_t b = 0; b < s->nb; b++)
    for (size_t d = 0; d < 6; d++) {
      double m = d < 3 ? s->mass[b] : s->inertia[3 * b + d - 3];
      q[6 * b + d] = -m * 0.5 * gauss(r) + (d == 2 ? STEP * GRAVITY * s->mass[b] : 0.0);
    }
  for (size_t i = nv; i < n; i++) {
    size_t k = i - nv < s->nc ? i - nv : (i - nv - s->nc) / 2;
    int normal = i - nv < s->nc;
    double c = mu * s->mass[s->c[k].body[0]] * GRAVITY * STEP;
    q[i] = normal ? s->c[k].gap / STEP : 0.0;
    l[i] = normal ? 0.0 : -c;
    u[i] = normal ? INFINITY : c;
  }
  for (size_t i = 0; i < nv; i++) {
    l[i] = -INFINITY;
    u[i] = INFINITY;
  }
}

static int kkt_build(const scene *s, int ndir, double mu, gsl_rng *r, cpk_problem **out)
{
  size_t nv = 6 * s->nb, n = nv + (size_t)ndir * s->nc, cap, blocks;
  triplets t = {NULL, NULL, NULL, 0};
  cpk_matrix *A = NULL;
  /* mass diagonal, 24 entries per (direction, contact) at most, the eps diagonal */
  if (cpk_size_mul((size_t)ndir * s->nc, 25, &blocks) || blocks > SIZE_MAX - nv)
    return CPK_EOVERFLOW;
  cap = blocks + nv;
  t.i = cpk_alloc_array(cap, sizeof *t.i);
  t.j = cpk_alloc_array(cap, sizeof *t.j);
  t.x = cpk_alloc_array(cap, sizeof *t.x);
  double *buf = cpk_alloc_array(n, 3 * sizeof *buf);
  int rc = t.i && t.j && t.x && buf ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    kkt_triplets(s, ndir, &t);
    kkt_vectors(s, ndir, mu, r, buf, buf + n, buf + 2 * n);
    rc = cpk_matrix_from_triplets(n, n, t.n, t.i, t.j, t.x, &A);
  }
  if (!rc) rc = cpk_problem_alloc_affine_mcp(A, buf, buf + n, buf + 2 * n, out);
  cpk_matrix_free(A);
  free(t.i), free(t.j), free(t.x), free(buf);
  return rc;
}

static int contact_kkt(size_t nbodies, size_t ncontacts, int ndir, double mu, unsigned long seed,
                       cpk_problem **out)
{
  scene s;
  char name[80];
  *out = NULL;
  if (ncontacts < 1 || nbodies < 1 || !(mu >= 0.0) || !isfinite(mu)) return CPK_EINVAL;
  gsl_rng *r = rng_new(seed);
  if (!r) return CPK_ENOMEM;
  int rc = scene_new(nbodies, ncontacts, r, &s);
  if (!rc) rc = kkt_build(&s, ndir, mu, r, out);
  scene_free(&s);
  gsl_rng_free(r);
  snprintf(name, sizeof name, "contact-kkt%s-%zub-%zuc-%lu", ndir == 3 ? "-box" : "", nbodies,
           ncontacts, seed);
  return finish(rc, out, name);
}

int cpk_family_contact_kkt(size_t nbodies, size_t ncontacts, unsigned long seed, cpk_problem **out)
{
  return contact_kkt(nbodies, ncontacts, 1, 0.0, seed, out);
}

int cpk_family_contact_kkt_box(size_t nbodies, size_t ncontacts, double mu, unsigned long seed,
                               cpk_problem **out)
{
  return contact_kkt(nbodies, ncontacts, 3, mu, seed, out);
}

/* ------------------------------------------------------ block on a plane */

/* Corner i of the box bottom: x = +a for i = 0, 1 (front), -a for i = 2, 3; y alternates. */
static void block_corner(size_t i, double r[3])
{
  r[0] = i < 2 ? CPK_BLOCK_HALF_X : -CPK_BLOCK_HALF_X;
  r[1] = i % 2 == 0 ? CPK_BLOCK_HALF_Y : -CPK_BLOCK_HALF_Y;
  r[2] = -CPK_BLOCK_HALF_Z;
}

/* Unit direction j of d in the plane; entries that are zero up to rounding are made exact. */
static void block_direction(size_t j, size_t d, double t[3])
{
  double angle = 2.0 * PI * (double)j / (double)d;
  t[0] = fabs(cos(angle)) < 1e-15 ? 0.0 : cos(angle);
  t[1] = fabs(sin(angle)) < 1e-15 ? 0.0 : sin(angle);
  t[2] = 0.0;
}

/* G = [W_n W_t] (6 x (4 + 4d), column-major) and the diagonal of M^-1. */
static void block_wrenches(size_t d, double *G, double minv[6])
{
  const double m = CPK_BLOCK_MASS, a = CPK_BLOCK_HALF_X, b = CPK_BLOCK_HALF_Y, c = CPK_BLOCK_HALF_Z;
  const double inertia[3] = {m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0,
                             m * (a * a + b * b) / 3.0};
  const double up[3] = {0.0, 0.0, 1.0};
  for (int k = 0; k < 3; k++) {
    minv[k] = 1.0 / m;
    minv[3 + k] = 1.0 / inertia[k];
  }
  for (size_t i = 0; i < 4; i++) {
    double r[3], t[3];
    block_corner(i, r);
    wrench(up, r, 1.0, &G[6 * i]);
    for (size_t j = 0; j < d; j++) {
      block_direction(j, d, t);
      wrench(t, r, 1.0, &G[6 * (4 + i * d + j)]);
    }
  }
}

static void block_fill(size_t d, const double *G, const double minv[6], gsl_matrix *A, double *q)
{
  size_t nf = 4 + 4 * d;
  const double vstar[6] = {
      CPK_BLOCK_SPEED, 0.0, -CPK_BLOCK_STEP * CPK_BLOCK_GRAVITY, 0.0, 0.0, 0.0};
  for (size_t i = 0; i < nf; i++) {
    q[i] = 0.0; /* gap psi = 0: the normal rows get no psi/h */
    for (int k = 0; k < 6; k++) q[i] += G[6 * i + k] * vstar[k];
    for (size_t j = 0; j < nf; j++) {
      double sum = 0.0;
      for (int k = 0; k < 6; k++) sum += G[6 * i + k] * minv[k] * G[6 * j + k];
      gsl_matrix_set(A, i, j, sum);
    }
  }
  for (size_t i = 0; i < 4; i++) {
    size_t sig = nf + i;
    q[sig] = 0.0;
    gsl_matrix_set(A, sig, i, CPK_BLOCK_MU);
    for (size_t j = 0; j < d; j++) {
      gsl_matrix_set(A, 4 + i * d + j, sig, 1.0);  /* E */
      gsl_matrix_set(A, sig, 4 + i * d + j, -1.0); /* -E' */
    }
  }
}

static int block_names(cpk_problem *p, size_t d)
{
  char name[48];
  int rc = CPK_OK;
  for (size_t i = 0; i < 4 && !rc; i++) {
    snprintf(name, sizeof name, "p_n[%zu]", i + 1);
    rc = cpk_problem_set_var_name(p, i, name);
    for (size_t j = 0; j < d && !rc; j++) {
      snprintf(name, sizeof name, "p_t[%zu,%zu]", i + 1, j + 1);
      rc = cpk_problem_set_var_name(p, 4 + i * d + j, name);
    }
    snprintf(name, sizeof name, "sigma[%zu]", i + 1);
    if (!rc) rc = cpk_problem_set_var_name(p, 4 + 4 * d + i, name);
  }
  return rc;
}

int cpk_family_block_on_plane_lcp(size_t d, cpk_problem **out)
{
  cpk_matrix *A = NULL;
  double minv[6], *G = NULL, *q = NULL;
  char name[48];
  size_t n = 8 + 4 * d, cols = 4 + 4 * d;
  *out = NULL;
  if (d < 1 || d > 1000000) return CPK_EINVAL;
  int rc = cpk_matrix_alloc_dense(n, n, &A);
  if (!rc) {
    G = cpk_alloc_array(cols, 6 * sizeof *G);
    q = cpk_alloc_array(n, sizeof *q);
    if (!G || !q) rc = CPK_ENOMEM;
  }
  if (!rc) {
    block_wrenches(d, G, minv);
    block_fill(d, G, minv, A->dense, q);
    rc = cpk_problem_alloc_lcp(A, q, out);
  }
  if (!rc) rc = block_names(*out, d);
  cpk_matrix_free(A);
  free(G);
  free(q);
  snprintf(name, sizeof name, "block-on-plane-d%zu", d);
  return finish(rc, out, name);
}

int cpk_family_block_on_plane_solution(size_t d, double *z)
{
  const double m = CPK_BLOCK_MASS, g = CPK_BLOCK_GRAVITY, h = CPK_BLOCK_STEP, mu = CPK_BLOCK_MU;
  const double tilt = mu * CPK_BLOCK_HALF_Z / CPK_BLOCK_HALF_X, total = m * g * h;
  if (d < 2 || d % 2 != 0) return CPK_EINVAL;
  memset(z, 0, (8 + 4 * d) * sizeof *z);
  for (size_t i = 0; i < 4; i++) {
    z[i] = total / 4.0 * (i < 2 ? 1.0 + tilt : 1.0 - tilt);
    z[4 + i * d + d / 2] = mu * z[i];
    z[4 + 4 * d + i] = CPK_BLOCK_SPEED - mu * g * h;
  }
  return CPK_OK;
}
