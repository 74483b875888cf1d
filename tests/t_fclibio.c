/* t_fclibio.c: FCLIB files as friction-cone problems: local files read against values derived by hand from h5dump, a global problem reduced by hand and checked against a dense reduction, exact write/read round trips, and malformed files (crafted here with the HDF5 C API) refused with a message before any large allocation. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

#ifndef HAVE_HDF5
int main(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_fclib(t_srcpath("data/fclib/Rover1040.hdf5"), &p, &err);
  t_ok(rc == CPK_EUNSUP && !p, "without HDF5 the reader says so: %s", err.message);
  return t_done();
}
#else
#include <sys/resource.h>
#include <sys/wait.h>
#include <gsl/gsl_linalg.h>
#include <hdf5.h>

static char tmpdir[512];

static const char *tmp_path(const char *name)
{
  static char buf[4][600];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

/* ---- a small HDF5 writer of our own, for crafting files ------------------ */

static void h5_group(hid_t f, const char *name)
{
  hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g >= 0) H5Gclose(g);
}

static void h5_array(hid_t f, const char *name, hid_t type, hsize_t n, const void *v)
{
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n) H5Dwrite(d, type == H5T_STD_I32LE ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE, H5S_ALL,
                  H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Sclose(sp);
}

static void h5_ints(hid_t f, const char *name, hsize_t n, const int32_t *v)
{
  h5_array(f, name, H5T_STD_I32LE, n, v);
}

static void h5_int(hid_t f, const char *name, int32_t v)
{
  h5_ints(f, name, 1, &v);
}

static void h5_doubles(hid_t f, const char *name, hsize_t n, const double *v)
{
  h5_array(f, name, H5T_IEEE_F64LE, n, v);
}

/* A dataset that declares n values and stores none (chunked, never written). */
static void h5_hollow(hid_t f, const char *name, hid_t type, hsize_t n)
{
  hsize_t chunk = 1024;
  hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &chunk);
  hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(sp);
}

/* A triplet matrix in group g: i = row, p = column, as the FCLIB files store them. */
static void h5_triplets(hid_t f, const char *g, int32_t m, int32_t n, int32_t nz, int32_t nzmax,
                        const int32_t *i, const int32_t *p, const double *x)
{
  char name[128];
  const char *keys[] = {"m", "n", "nz", "nzmax"};
  const int32_t vals[] = {m, n, nz, nzmax};
  for (int k = 0; k < 4; k++) {
    snprintf(name, sizeof name, "%s/%s", g, keys[k]);
    h5_int(f, name, vals[k]);
  }
  snprintf(name, sizeof name, "%s/i", g);
  h5_ints(f, name, (hsize_t)nz, i);
  snprintf(name, sizeof name, "%s/p", g);
  h5_ints(f, name, (hsize_t)nz, p);
  snprintf(name, sizeof name, "%s/x", g);
  h5_doubles(f, name, (hsize_t)nz, x);
}

/* What to break in the crafted one-contact local file. */
enum flaw {
  OK_FILE,
  HOLLOW_X,      /* W/x declares 1e8 values, stores none (the 1.19 GB finding) */
  HUGE_X,        /* W/x declares ~6e17 values (the 5e18-byte finding) */
  HOLLOW_Q,      /* q declares 1e8 values, stores none */
  NZMAX_BIG,     /* nzmax = 100000000 with 9 stored entries */
  TRIPLET_NZ,    /* triplets, nz = 2000000000 with 9 stored */
  M_BIG,         /* W/m = W/n = 300 while q has 3 values */
  MU_NEG,        /* mu = -0.5 */
  MU_NAN,        /* mu = NaN */
  Q_NAN,         /* q[1] = NaN */
  X_INF,         /* W/x[4] = inf */
  SPACEDIM5,     /* spacedim = 5 */
  P_NOT_MONO,    /* p = 0 7 6 9 */
  P0_NONZERO,    /* p = 1 3 6 9 */
  I_RANGE,       /* a column index 3 in a 3 x 3 matrix */
  MU_COUNT,      /* two coefficients for one contact */
  NO_X,          /* W/x missing */
  HAS_RV,        /* equality part R, V present */
  X_STRING,      /* W/x is a string */
  X_EXTERNAL,    /* W/x is a link into another file */
  DUP_INF,       /* triplets: two finite duplicates of (0, 0) that sum to inf */
  FLAW_COUNT
};

static const char *const flaw_name[FLAW_COUNT] = {
    "valid",          "x declared 1e8, stored none", "x declared 6e17",
    "q declared 1e8, stored none", "nzmax far above the data", "triplet nz 2e9",
    "m, n larger than q", "negative mu", "NaN mu", "NaN in q", "inf in W",
    "spacedim 5", "p not monotone", "p[0] = 1", "index out of range",
    "mu of the wrong length", "W/x missing", "equality part R, V", "W/x of strings",
    "W/x an external link", "duplicates summing to inf"};

/* The part of the message that says what is wrong (besides the path). */
static const char *const flaw_says[FLAW_COUNT] = {
    "",       "W/x: declares 100000000 values", "W/x: declares",
    "vectors/q: declares 100000000 values", "nzmax", "nz = 2000000000",
    "declared 300 x 300", "vectors/mu[0] = -0.5", "vectors/mu[0] = nan", "vectors/q[1] = nan",
    "W/x[4] = inf", "spacedim = 5", "not monotone", "p[0] = 1",
    "outside the 3 x 3 matrix", "mu holds 2", "W/x: missing", "R and V", "not an array of numbers",
    "W/x: goes through a soft or external link", "duplicate entries sum to inf"};

/* W of FrictionContact3D_1c (symmetric), CSR: rows 0 3 6 9. */
static const int32_t W_p[] = {0, 3, 6, 9}, W_i[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
static const double W_x[] = {15, -1, -2, -1, 14, 1, -2, 1, 16};

static void craft_w(hid_t f, enum flaw k)
{
  int32_t p[4], i[9];
  double x[9];
  memcpy(p, W_p, sizeof p);
  memcpy(i, W_i, sizeof i);
  memcpy(x, W_x, sizeof x);
  if (k == P_NOT_MONO) p[1] = 7;
  if (k == P0_NONZERO) p[0] = 1;
  if (k == I_RANGE) i[7] = 3;
  if (k == X_INF) x[4] = INFINITY;
  int32_t m = k == M_BIG ? 300 : 3;
  if (k == DUP_INF) { /* the CSR entries as triplets, plus (0, 0) once more */
    int32_t r[10], c[10];
    double v[10];
    for (int e = 0; e < 9; e++) {
      r[e] = e / 3;
      c[e] = i[e];
      v[e] = x[e];
    }
    r[9] = c[9] = 0;
    v[0] = v[9] = 1.7e308;
    h5_triplets(f, "/fclib_local/W", 3, 3, 10, 10, r, c, v);
    return;
  }
  h5_int(f, "/fclib_local/W/m", m);
  h5_int(f, "/fclib_local/W/n", m);
  h5_int(f, "/fclib_local/W/nz", k == TRIPLET_NZ ? 2000000000 : -2);
  h5_int(f, "/fclib_local/W/nzmax", k == NZMAX_BIG ? 100000000 : k == TRIPLET_NZ ? 2000000000 : 9);
  if (k == TRIPLET_NZ) { /* i = row, p = column */
    int32_t r[9], c[9];
    for (int e = 0; e < 9; e++) {
      r[e] = e / 3;
      c[e] = i[e];
    }
    h5_ints(f, "/fclib_local/W/p", 9, c);
    h5_ints(f, "/fclib_local/W/i", 9, r);
  } else {
    h5_ints(f, "/fclib_local/W/p", 4, p);
    h5_ints(f, "/fclib_local/W/i", 9, i);
  }
  if (k == HOLLOW_X) h5_hollow(f, "/fclib_local/W/x", H5T_IEEE_F64LE, 100000000);
  else if (k == HUGE_X) h5_hollow(f, "/fclib_local/W/x", H5T_IEEE_F64LE, (hsize_t)1 << 59);
  else if (k == X_STRING) {
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, 8);
    hid_t d = H5Dcreate2(f, "/fclib_local/W/x", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, "1234567");
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(t);
  } else if (k == X_EXTERNAL)
    H5Lcreate_external(tmp_path("local_0.hdf5"), "/fclib_local/W/x", f, "/fclib_local/W/x",
                       H5P_DEFAULT, H5P_DEFAULT);
  else if (k != NO_X)
    h5_doubles(f, "/fclib_local/W/x", 9, x);
}

static void h5_title(hid_t f, const char *name, const char *s)
{
  hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
  H5Tset_size(t, strlen(s) + 1);
  hid_t d = H5Dcreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
  H5Dclose(d);
  H5Sclose(sp);
  H5Tclose(t);
}

static const char *craft_local(enum flaw k)
{
  char name[64];
  snprintf(name, sizeof name, "local_%d.hdf5", (int)k);
  const char *path = tmp_path(name);
  double q[3] = {-1, 2, 3}, mu[2] = {0.1, 0.2};
  if (k == Q_NAN) q[1] = NAN;
  if (k == MU_NEG) mu[0] = -0.5;
  if (k == MU_NAN) mu[0] = NAN;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5_group(f, "/fclib_local");
  h5_group(f, "/fclib_local/W");
  h5_group(f, "/fclib_local/vectors");
  h5_group(f, "/fclib_local/info");
  h5_int(f, "/fclib_local/spacedim", k == SPACEDIM5 ? 5 : 3);
  craft_w(f, k);
  if (k == HOLLOW_Q) h5_hollow(f, "/fclib_local/vectors/q", H5T_IEEE_F64LE, 100000000);
  else h5_doubles(f, "/fclib_local/vectors/q", 3, q);
  h5_doubles(f, "/fclib_local/vectors/mu", k == MU_COUNT ? 2 : 1, mu);
  if (k == HAS_RV) {
    h5_group(f, "/fclib_local/R");
    h5_group(f, "/fclib_local/V");
  }
  h5_title(f, "/fclib_local/info/title", "crafted");
  H5Fclose(f);
  return path;
}

/* ---- reading local files -------------------------------------------------- */

static double entry(const cpk_problem *p, size_t i, size_t j)
{
  return cpk_matrix_get(p->M, i, j);
}

static void test_local_by_hand(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  /* h5dump of FrictionContact3D_1c.hdf5: W CSR p = 0 3 6 9, i = 0 1 2 (x3),
     x = 15 -1 -2 -1 14 1 -2 1 16, q = -1 2 3, mu = 0.1, title "FrictionContact3D_1c" */
  int rc = cpk_problem_read_fclib(t_srcpath("data/fclib/FrictionContact3D_1c.hdf5"), &p, &err);
  if (!t_ok(rc == CPK_OK && p, "FrictionContact3D_1c read: %s", rc ? err.message : "ok")) return;
  t_ok(p->kind == CPK_KIND_FRICTION_CONE && p->n == 3 && p->nc == 1 && p->cone_dim == 3,
       "one contact of dimension 3");
  t_ok(p->M->format == CPK_MATRIX_CSC && cpk_matrix_nnz(p->M) == 9, "W sparse with 9 entries");
  int same = 1;
  for (int e = 0; e < 9; e++) same &= entry(p, (size_t)e / 3, (size_t)W_i[e]) == W_x[e];
  t_ok(same, "W entries equal the file's CSR values, row by row");
  t_ok(p->q[0] == -1 && p->q[1] == 2 && p->q[2] == 3 && p->mu[0] == 0.1, "q and mu as stored");
  t_ok(p->name && strcmp(p->name, "FrictionContact3D_1c") == 0, "name from info/title: %s",
       p->name ? p->name : "(none)");
  cpk_problem_free(p);
}

static int exactly_symmetric(const cpk_problem *p)
{
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < i; j++)
      if (entry(p, i, j) != entry(p, j, i)) return 0;
  return 1;
}

/* Largest |W_ij - W_ji| relative to |W|_inf. */
static double asymmetry(const cpk_problem *p)
{
  double a = 0;
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < i; j++) a = fmax(a, fabs(entry(p, i, j) - entry(p, j, i)));
  return a / cpk_matrix_norm_inf(p->M);
}

static void test_local_samples(void)
{
  static const struct {
    const char *file;
    size_t nc, nnz;
    double asym; /* the converted files carry the rounding of Siconos' text dumps */
  } cases[] = {{"data/fclib/Rover4396.hdf5", 2, 36, 1e-4},
               {"data/fclib/Rover1040.hdf5", 5, 225, 1e-4},
               {"data/fclib/local_problem_test.hdf5", 48, 4896, 1e-14}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    cpk_problem *p = NULL;
    cpk_error err;
    int rc = cpk_problem_read_fclib(t_srcpath(cases[k].file), &p, &err);
    if (!t_ok(rc == CPK_OK, "%s read: %s", cases[k].file, rc ? err.message : "ok")) continue;
    t_ok(p->nc == cases[k].nc && p->n == 3 * cases[k].nc && cpk_matrix_nnz(p->M) == cases[k].nnz,
         "%s: %zu contacts, %zu entries (MANIFEST: %zu, %zu)", cases[k].file, p->nc,
         cpk_matrix_nnz(p->M), cases[k].nc, cases[k].nnz);
    t_ok(cpk_problem_validate(p, NULL) == CPK_OK, "%s: a valid cone problem", cases[k].file);
    double a = asymmetry(p);
    t_ok(a <= cases[k].asym, "%s: W symmetric to %g (max |W - W'| / |W| = %g)", cases[k].file,
         cases[k].asym, a);
    cpk_problem_free(p);
  }
}

/* ---- the global problem ----------------------------------------------------- */

/* M = [2 1 0; 1 2 0; 0 0 4] (the (1,1) entry split in two triplets, summed),
   H = diag(1, 1, 2), f = (1, 0, 2), w = (0.5, 0, 0), mu = 0.3. By hand:
   M^-1 = [2/3 -1/3 0; -1/3 2/3 0; 0 0 1/4], W = H' M^-1 H = [2/3 -1/3 0; -1/3 2/3 0; 0 0 1],
   M^-1 f = (2/3, -1/3, 1/2), q = H' M^-1 f + w = (7/6, -1/3, 1). */
enum { GLOBAL_OK, GLOBAL_G, GLOBAL_SINGULAR, GLOBAL_TRIANGLE, GLOBAL_TINY };

static const char *craft_global(int variant)
{
  static const char *const names[] = {"global.hdf5", "global_g.hdf5", "global_s.hdf5",
                                      "global_t.hdf5", "global_tiny.hdf5"};
  const char *path = tmp_path(names[variant]);
  int with_g = variant == GLOBAL_G, triangle = variant == GLOBAL_TRIANGLE;
  /* i = row, p = column; the triangle variant leaves out M(1,0) = 1 (FCLIB's M is symmetric) */
  int32_t Mi[] = {0, 0, 0, 1, 2, 1}, Mp[] = {0, 0, 1, 1, 2, 0};
  double m22 = variant == GLOBAL_SINGULAR ? 0 : variant == GLOBAL_TINY ? 1e-320 : 4;
  double Mx[] = {1.5, 0.5, 1, 2, m22, 1};
  int32_t Hi[] = {0, 1, 2}, Hp[] = {0, 1, 2};
  double Hx[] = {1, 1, 2}, fv[] = {1, 0, 2}, w[] = {0.5, 0, 0}, mu = 0.3;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const char *groups[] = {"/fclib_global", "/fclib_global/M", "/fclib_global/H",
                          "/fclib_global/vectors", "/fclib_global/info"};
  for (int g = 0; g < 5; g++) h5_group(f, groups[g]);
  h5_int(f, "/fclib_global/spacedim", 3);
  h5_triplets(f, "/fclib_global/M", 3, 3, triangle ? 5 : 6, 8, Mi, Mp, Mx);
  h5_triplets(f, "/fclib_global/H", 3, 3, 3, 3, Hi, Hp, Hx);
  h5_doubles(f, "/fclib_global/vectors/f", 3, fv);
  h5_doubles(f, "/fclib_global/vectors/w", 3, w);
  h5_doubles(f, "/fclib_global/vectors/mu", 1, &mu);
  if (with_g) {
    h5_group(f, "/fclib_global/G");
    h5_doubles(f, "/fclib_global/vectors/b", 1, &mu);
  }
  h5_title(f, "/fclib_global/info/title", "hand-made global");
  H5Fclose(f);
  return path;
}

static void global_by_hand(int variant, const char *what)
{
  cpk_problem *p = NULL;
  cpk_error err;
  static const double W[3][3] = {{2.0 / 3, -1.0 / 3, 0}, {-1.0 / 3, 2.0 / 3, 0}, {0, 0, 1}};
  static const double q[3] = {7.0 / 6, -1.0 / 3, 1};
  int rc = cpk_problem_read_fclib(craft_global(variant), &p, &err);
  if (!t_ok(rc == CPK_OK && p, "%s read: %s", what, rc ? err.message : "ok")) return;
  double dw = 0, dq = 0;
  for (size_t i = 0; i < 3; i++) {
    dq = fmax(dq, fabs(p->q[i] - q[i]));
    for (size_t j = 0; j < 3; j++) dw = fmax(dw, fabs(entry(p, i, j) - W[i][j]));
  }
  t_ok(dw <= 1e-15, "%s: W = H' M^-1 H as derived by hand (max error %g)", what, dw);
  t_ok(dq <= 1e-15, "%s: q = H' M^-1 f + w as derived by hand (max error %g)", what, dq);
  t_ok(p->mu[0] == 0.3 && p->cone_dim == 3 && p->nc == 1, "%s: mu and the cone as stored", what);
  t_ok(exactly_symmetric(p), "%s: W exactly symmetric (M is)", what);
  t_ok(p->name && strcmp(p->name, "hand-made global") == 0,
       "%s: name from /fclib_global/info/title", what);
  cpk_problem_free(p);
}

static void test_global_by_hand(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  global_by_hand(GLOBAL_OK, "hand-made global problem");
  global_by_hand(GLOBAL_TRIANGLE, "the same with one triangle of M stored");
  int rc = cpk_problem_read_fclib(craft_global(GLOBAL_G), &p, &err);
  t_ok(rc == CPK_EPARSE && !p && strstr(err.message, "equality constraints"),
       "equality constraints G, b refused: %s", err.message);
  rc = cpk_problem_read_fclib(craft_global(GLOBAL_SINGULAR), &p, &err);
  t_ok(rc == CPK_EPARSE && !p && strstr(err.message, "singular"), "singular M refused: %s",
       err.message);
  rc = cpk_problem_read_fclib(craft_global(GLOBAL_TINY), &p, &err); /* 1/1e-320 overflows */
  t_ok(rc == CPK_EPARSE && !p && strstr(err.message, "singular"),
       "M with a pivot of 1e-320 (W would be infinite) refused: %s", err.message);
}

/* Read a triplet matrix of the file with the HDF5 API directly, into a dense GSL matrix. */
static gsl_matrix *dense_triplets(hid_t f, const char *g, size_t m, size_t n)
{
  char name[128];
  int32_t nz = 0;
  snprintf(name, sizeof name, "%s/nz", g);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, &nz);
  H5Dclose(d);
  int32_t *ri = malloc((size_t)nz * sizeof *ri), *cj = malloc((size_t)nz * sizeof *cj);
  double *x = malloc((size_t)nz * sizeof *x);
  const char *parts[] = {"i", "p", "x"};
  void *bufs[] = {ri, cj, x};
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "%s/%s", g, parts[k]);
    d = H5Dopen2(f, name, H5P_DEFAULT);
    H5Dread(d, k == 2 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
            bufs[k]);
    H5Dclose(d);
  }
  gsl_matrix *A = gsl_matrix_calloc(m, n);
  for (int32_t e = 0; e < nz; e++) *gsl_matrix_ptr(A, (size_t)ri[e], (size_t)cj[e]) += x[e];
  free(ri);
  free(cj);
  free(x);
  return A;
}

static void read_vector(hid_t f, const char *name, double *v)
{
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
}

/* The same reduction with dense GSL LU: W = H' M^-1 H and q = H' M^-1 f + w. */
static void dense_reduction(const char *path, size_t n, size_t m, gsl_matrix *W, double *q)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  gsl_matrix *M = dense_triplets(f, "/fclib_global/M", n, n);
  gsl_matrix *H = dense_triplets(f, "/fclib_global/H", n, m);
  gsl_vector *fv = gsl_vector_alloc(n), *x = gsl_vector_alloc(n);
  double *w = malloc(m * sizeof *w);
  read_vector(f, "/fclib_global/vectors/f", fv->data);
  read_vector(f, "/fclib_global/vectors/w", w);
  H5Fclose(f);
  size_t below = 0, above = 0; /* one triangle stored: the symmetric M it stands for */
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      below += i > j && gsl_matrix_get(M, i, j) != 0;
      above += i < j && gsl_matrix_get(M, i, j) != 0;
    }
  for (size_t i = 0; (below == 0) != (above == 0) && i < n; i++)
    for (size_t j = 0; j < i; j++) {
      double v = gsl_matrix_get(M, i, j) + gsl_matrix_get(M, j, i);
      gsl_matrix_set(M, i, j, v);
      gsl_matrix_set(M, j, i, v);
    }
  gsl_permutation *perm = gsl_permutation_alloc(n);
  int sign;
  gsl_linalg_LU_decomp(M, perm, &sign);
  for (size_t j = 0; j <= m; j++) {
    if (j < m) gsl_matrix_get_col(x, H, j);
    gsl_linalg_LU_svx(M, perm, j < m ? x : fv);
    const gsl_vector *y = j < m ? x : fv;
    for (size_t k = 0; k < m; k++) {
      double s = 0;
      for (size_t r = 0; r < n; r++) s += gsl_matrix_get(H, r, k) * gsl_vector_get(y, r);
      if (j < m) gsl_matrix_set(W, k, j, s);
      else q[k] = s + w[k];
    }
  }
  gsl_permutation_free(perm);
  gsl_vector_free(fv);
  gsl_vector_free(x);
  gsl_matrix_free(M);
  gsl_matrix_free(H);
  free(w);
}

static void test_global_sample(void)
{
  const char *rel = "data/fclib/LMGC_GlobalFrictionContactProblem00046.hdf5";
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_fclib(t_srcpath(rel), &p, &err);
  if (!t_ok(rc == CPK_OK && p, "%s reduced: %s", rel, rc ? err.message : "ok")) return;
  t_ok(p->nc == 9 && p->n == 27 && p->cone_dim == 3, "9 contacts of dimension 3 (H is 162 x 27)");
  gsl_matrix *W = gsl_matrix_alloc(27, 27);
  double q[27], dw = 0, dq = 0, wmax = 0, qmax = 0, diag = INFINITY;
  dense_reduction(t_srcpath(rel), 162, 27, W, q);
  for (size_t i = 0; i < 27; i++) {
    dq = fmax(dq, fabs(p->q[i] - q[i]));
    qmax = fmax(qmax, fabs(q[i]));
    diag = fmin(diag, entry(p, i, i));
    for (size_t j = 0; j < 27; j++) {
      dw = fmax(dw, fabs(entry(p, i, j) - gsl_matrix_get(W, i, j)));
      wmax = fmax(wmax, fabs(gsl_matrix_get(W, i, j)));
    }
  }
  t_ok(dw <= 1e-10 * wmax, "W equals a dense GSL reduction (max error %g, max |W| %g)", dw, wmax);
  t_ok(dq <= 1e-10 * fmax(1, qmax), "q equals a dense GSL reduction (max error %g)", dq);
  t_ok(diag > 0, "W has a positive diagonal (min %g)", diag);
  /* This LMGC dump stores one triangle of M only (no entry below the diagonal): mirrored */
  t_ok(exactly_symmetric(p), "W exactly symmetric (M's triangle mirrored)");
  gsl_matrix_free(W);
  cpk_problem_free(p);
}

/* ---- malformed files ---------------------------------------------------------- */

#if !defined(__SANITIZE_ADDRESS__)
/* Virtual memory of this process, bytes (from /proc/self/statm). */
static size_t vm_bytes(void)
{
  unsigned long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f && fscanf(f, "%lu", &pages) != 1) pages = 0;
  if (f) fclose(f);
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

/* The read's error code in a child whose address space may grow by 64 MB only; -1 if it
   died. Skipped (returns -2) under AddressSanitizer, which reserves terabytes of shadow. */
static int read_bounded(const char *path)
{
#if defined(__SANITIZE_ADDRESS__)
  (void)path;
  return -2;
#else
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = vm_bytes() + ((size_t)64 << 20);
    setrlimit(RLIMIT_AS, &lim);
    cpk_problem *p = NULL;
    int rc = cpk_problem_read_fclib(path, &p, NULL);
    cpk_problem_free(p);
    _exit(rc & 0x7f);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
#endif
}

static void test_malformed(void)
{
  for (int k = 0; k < FLAW_COUNT; k++) {
    const char *path = craft_local((enum flaw)k);
    cpk_problem *p = NULL;
    cpk_error err;
    int bounded = read_bounded(path);
    int rc = cpk_problem_read_fclib(path, &p, &err);
    if (k == OK_FILE) {
      t_ok(rc == CPK_OK && p && p->n == 3 && strcmp(p->name, "crafted") == 0 && bounded != -1,
           "the crafted file without a flaw is read: %s", rc ? err.message : "ok");
      cpk_problem_free(p);
      continue;
    }
    int says = rc && strncmp(err.message, path, strlen(path)) == 0 &&
               strstr(err.message, flaw_says[k]) != NULL;
    t_ok(rc == CPK_EPARSE && !p && says, "%s: refused with `%s`", flaw_name[k],
         rc ? err.message : "(accepted)");
    t_ok(bounded == CPK_EPARSE || bounded == -2,
         "%s: refused as well within 64 MB of address space (child: %d)", flaw_name[k], bounded);
    cpk_problem_free(p);
    cpk_contact_system *s = NULL;
    rc = cpk_contact_system_read_fclib(path, &s, &err);
    t_ok(rc == CPK_EPARSE && !s, "%s: refused as a contact system too", flaw_name[k]);
    cpk_contact_system_free(s);
  }
}

static void test_not_fclib(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  const char *path = tmp_path("other.hdf5");
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  h5_group(f, "/something_else");
  H5Fclose(f);
  int rc = cpk_problem_read_fclib(path, &p, &err);
  t_ok(rc == CPK_EPARSE && strstr(err.message, "not an FCLIB problem"),
       "an HDF5 file without FCLIB groups: %s", err.message);
  rc = cpk_problem_read_fclib(t_srcpath("data/fclib/README.md"), &p, &err);
  t_ok(rc == CPK_EIO && !p, "a text file: %s", err.message);
  rc = cpk_problem_read_fclib(tmp_path("missing.hdf5"), &p, &err);
  t_ok(rc == CPK_EIO && !p, "a missing file: %s", err.message);
}

/* ---- writing -------------------------------------------------------------------- */

static int same_problem(const cpk_problem *a, const cpk_problem *b)
{
  cpk_csc *A = NULL, *B = NULL;
  int same = a->n == b->n && a->nc == b->nc && a->cone_dim == b->cone_dim &&
             memcmp(a->q, b->q, a->n * sizeof *a->q) == 0 &&
             memcmp(a->mu, b->mu, a->nc * sizeof *a->mu) == 0 && !cpk_matrix_to_csc(a->M, &A) &&
             !cpk_matrix_to_csc(b->M, &B) && A->p[A->n] == B->p[B->n] &&
             memcmp(A->p, B->p, (size_t)(A->n + 1) * sizeof *A->p) == 0 &&
             memcmp(A->i, B->i, (size_t)A->p[A->n] * sizeof *A->i) == 0 &&
             memcmp(A->x, B->x, (size_t)A->p[A->n] * sizeof *A->x) == 0;
  cpk_csc_free(A);
  cpk_csc_free(B);
  return same;
}

static void test_round_trip_file(const char *rel)
{
  cpk_problem *p = NULL, *back = NULL;
  cpk_error err;
  const char *out = tmp_path("round.hdf5");
  int rc = cpk_problem_read_fclib(t_srcpath(rel), &p, &err);
  if (!rc) rc = cpk_problem_write_fclib(p, out, &err);
  if (!rc) rc = cpk_problem_read_fclib(out, &back, &err);
  t_ok(rc == CPK_OK && same_problem(p, back) && strcmp(p->name, back->name) == 0,
       "%s: write and read back gives the same W, q, mu, name exactly: %s", rel,
       rc ? err.message : "ok");
  cpk_problem_free(p);
  cpk_problem_free(back);
}

/* The written layout, read with the HDF5 API: what FCLIB's reader expects. */
static void test_layout(const char *path)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int32_t v[4] = {0, 0, 0, 0};
  const char *names[] = {"/fclib_local/spacedim", "/fclib_local/W/nz", "/fclib_local/W/m",
                         "/fclib_local/W/nzmax"};
  for (int k = 0; k < 4; k++) {
    hid_t d = H5Dopen2(f, names[k], H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v[k]);
    H5Dclose(d);
  }
  t_ok(v[0] == 2 && v[1] == -2 && v[2] == 4 && v[3] == 3,
       "layout: spacedim 2, W CSR (nz = -2), m = 4, nzmax = nnz = 3 (%d %d %d %d)", v[0], v[1],
       v[2], v[3]);
  hid_t d = H5Dopen2(f, "/fclib_local/W/i", H5P_DEFAULT), t = H5Dget_type(d);
  t_ok(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 4, "layout: W/i is int32");
  H5Tclose(t);
  H5Dclose(d);
  t_ok(H5Lexists(f, "/fclib_local/vectors/q", H5P_DEFAULT) > 0 &&
           H5Lexists(f, "/fclib_local/vectors/mu", H5P_DEFAULT) > 0 &&
           H5Lexists(f, "/fclib_local/info", H5P_DEFAULT) > 0,
       "layout: vectors/q, vectors/mu, info");
  H5Fclose(f);
}

/* Two planar contacts, W dense with zeros (dropped on writing), not symmetric. */
static void test_write_dense_2d(void)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL, *back = NULL;
  cpk_error err;
  double q[4] = {-1, 0.25, 1e-300, -0x1.23456789abcdep-3}, mu[2] = {0.5, 0};
  cpk_matrix_alloc_dense(4, 4, &W);
  gsl_matrix_set(W->dense, 0, 0, 2);
  gsl_matrix_set(W->dense, 1, 0, 0.1);
  gsl_matrix_set(W->dense, 3, 2, 1.0 / 3);
  cpk_problem_alloc_friction_cone(W, q, 2, mu, &p);
  const char *out = tmp_path("planar.hdf5");
  int rc = cpk_problem_write_fclib(p, out, &err);
  if (!rc) rc = cpk_problem_read_fclib(out, &back, &err);
  t_ok(rc == CPK_OK && same_problem(p, back) && back->name == NULL,
       "planar problem with a dense, non-symmetric W: exact round trip, no name: %s",
       rc ? err.message : "ok");
  test_layout(out);
  cpk_problem_free(back);
  cpk_problem_free(p);
  cpk_matrix_free(W);
}

static void test_write_refused(void)
{
  cpk_matrix *W = NULL;
  cpk_problem *p = NULL;
  cpk_error err;
  double q[4] = {0}, mu = 0.5;
  cpk_matrix_alloc_dense(4, 4, &W);
  cpk_problem_alloc_friction_cone(W, q, 4, &mu, &p);
  const char *out = tmp_path("refused.hdf5");
  int rc = cpk_problem_write_fclib(p, out, &err);
  t_ok(rc == CPK_EUNSUP && access(out, F_OK) != 0, "cone dimension 4 refused: %s", err.message);
  cpk_problem_free(p);
  cpk_problem_alloc_lcp(W, q, &p);
  rc = cpk_problem_write_fclib(p, out, &err);
  t_ok(rc == CPK_EUNSUP && access(out, F_OK) != 0, "an LCP refused: %s", err.message);
  cpk_problem_free(p);
  cpk_problem_alloc_friction_cone(W, q, 2, (double[]){0.5, -1}, &p);
  rc = cpk_problem_write_fclib(p, out, &err);
  t_ok(rc == CPK_EINVAL && access(out, F_OK) != 0, "a negative mu refused: %s", err.message);
  cpk_problem_free(p);
  cpk_problem_alloc_friction_cone(W, q, 2, (double[]){0.5, 1}, &p);
  rc = cpk_problem_write_fclib(p, "/nonexistent-dir/x.hdf5", &err);
  t_ok(rc == CPK_EIO, "an unwritable path: %s", err.message);
  cpk_problem_free(p);
  cpk_matrix_free(W);
}

static void test_read_any(void)
{
  cpk_problem *p = NULL;
  cpk_error err;
  int rc = cpk_problem_read_any(t_srcpath("data/fclib/Rover4396.hdf5"), &p, &err);
  t_ok(rc == CPK_OK && p->kind == CPK_KIND_FRICTION_CONE, "read_any: HDF5 signature -> FCLIB");
  cpk_problem_free(p);
  const char *txt = tmp_path("lcp.cpk");
  FILE *f = fopen(txt, "w");
  fputs("cpkit-problem 1\ntype lcp\nn 1\nM dense\n2\nq\n-1\nend\n", f);
  fclose(f);
  rc = cpk_problem_read_any(txt, &p, &err);
  t_ok(rc == CPK_OK && p->kind == CPK_KIND_LCP, "read_any: text -> text format");
  cpk_problem_free(p);
  t_ok(cpk_file_is_hdf5(t_srcpath("data/fclib/Rover4396.hdf5")) && !cpk_file_is_hdf5(txt) &&
           !cpk_file_is_hdf5(tmp_path("missing")),
       "cpk_file_is_hdf5");
}

int main(void)
{
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(tmpdir, sizeof tmpdir, "%s/t_fclibio_XXXXXX", base);
  if (!mkdtemp(tmpdir)) {
    t_ok(0, "cannot create a temporary directory");
    return t_done();
  }
  test_local_by_hand();
  test_local_samples();
  test_global_by_hand();
  test_global_sample();
  test_malformed();
  test_not_fclib();
  test_round_trip_file("data/fclib/Rover1040.hdf5");
  test_round_trip_file("data/fclib/local_problem_test.hdf5");
  test_round_trip_file("data/fclib/LMGC_GlobalFrictionContactProblem00046.hdf5");
  test_write_dense_2d();
  test_write_refused();
  test_read_any();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (getenv("T_KEEP")) /* to look at the crafted files */
    t_diag("kept %s", tmpdir);
  else if (system(cmd) != 0)
    t_diag("could not remove %s", tmpdir);
  return t_done();
}
#endif
