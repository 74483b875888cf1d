/* fclib_h5.c: bounded reading of FCLIB HDF5 datasets: each dataset's size checked against its real storage and the file's size, then integers, vectors and sparse matrices read and checked. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifdef HAVE_HDF5
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/util.h>
#include "fclib_h5.h"

/* Deflate cannot shrink data by more than about 1032:1, so a filtered dataset
   declaring more than this many times its stored bytes is not real data. */
#define MAX_RATIO 1100
/* FCLIB sizes are int32: nothing in a file may declare more elements. */
#define MAX_ELEMENTS ((long long)INT32_MAX)
#define TITLE_MAX 4096

int fch5_bad(const fch5 *f, const char *fmt, ...)
{
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cpk_error_set(f->err, CPK_EPARSE, "%s: %s", f->path, what);
}

int fch5_open(fch5 *f, const char *path, cpk_error *err)
{
  struct stat st;
  memset(f, 0, sizeof *f);
  f->path = path;
  f->err = err;
  f->file = -1;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return cpk_error_set(err, CPK_EIO, "%s: cannot open (not a regular file)", path);
  f->file_bytes = (long long)st.st_size;
  /* HDF5 prints its error stack by default; keep stderr for our own message. */
  H5Eget_auto2(H5E_DEFAULT, &f->old_func, &f->old_data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  f->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f->file < 0) {
    H5Eset_auto2(H5E_DEFAULT, f->old_func, f->old_data);
    return cpk_error_set(err, CPK_EIO, "%s: cannot open as HDF5", path);
  }
  return CPK_OK;
}

void fch5_close(fch5 *f)
{
  if (f->file < 0) return;
  H5Fclose(f->file);
  f->file = -1;
  H5Eset_auto2(H5E_DEFAULT, f->old_func, f->old_data);
}

/* 1 when every component of the path is a hard link of this file, 0 when one is missing,
   -1 when one is a soft, external or user-defined link (never followed: an external link
   would read another file). */
static int walk_path(const fch5 *f, const char *name)
{
  /* H5Lexists fails on a missing intermediate group, so walk the path. */
  char buf[256];
  size_t len = strlen(name);
  if (len >= sizeof buf) return 0;
  memcpy(buf, name, len + 1);
  for (size_t k = 1; k <= len; k++)
    if (buf[k] == '/' || buf[k] == '\0') {
      H5L_info_t info;
      char c = buf[k];
      buf[k] = '\0';
      int ok = H5Lexists(f->file, buf, H5P_DEFAULT) > 0;
      int hard = ok && H5Lget_info(f->file, buf, &info, H5P_DEFAULT) >= 0 &&
                 info.type == H5L_TYPE_HARD;
      buf[k] = c;
      if (!ok) return 0;
      if (!hard) return -1;
    }
  return 1;
}

int fch5_exists(const fch5 *f, const char *name)
{
  return walk_path(f, name) != 0;
}

/* Layouts whose data lives in this file only (no external or virtual storage). */
static int local_layout(hid_t dcpl)
{
  H5D_layout_t lay = H5Pget_layout(dcpl);
  if (lay != H5D_COMPACT && lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED) return 0;
  return H5Pget_external_count(dcpl) == 0;
}

/* Element count of an open dataset of numbers, refused unless the file really stores it. */
static int backed_count(const fch5 *f, const char *name, hid_t d, long long *count)
{
  hid_t sp = H5Dget_space(d), t = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
  hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  size_t size = t >= 0 ? H5Tget_size(t) : 0;
  int local = dcpl >= 0 && local_layout(dcpl), filtered = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
  long long stored = (long long)H5Dget_storage_size(d);
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (np < 0 || (cls != H5T_INTEGER && cls != H5T_FLOAT) || size == 0 || size > 16)
    return fch5_bad(f, "%s: not an array of numbers", name);
  if (!local) return fch5_bad(f, "%s: external or virtual storage is not read", name);
  if ((long long)np > MAX_ELEMENTS)
    return fch5_bad(f, "%s: declares %lld values, more than FCLIB's int32 sizes allow", name,
                    (long long)np);
  long long need = (long long)np * (long long)size;
  if (stored > f->file_bytes)
    return fch5_bad(f, "%s: claims %lld bytes of storage in a file of %lld bytes", name, stored,
                    f->file_bytes);
  if (filtered ? stored * MAX_RATIO < need : stored < need)
    return fch5_bad(f, "%s: declares %lld values (%lld bytes) but the file stores only %lld bytes",
                    name, (long long)np, need, stored);
  *count = (long long)np;
  return CPK_OK;
}

static int open_dataset(const fch5 *f, const char *name, hid_t *d)
{
  int there = walk_path(f, name);
  *d = -1;
  if (there == 0) return fch5_bad(f, "%s: missing", name);
  if (there < 0)
    return fch5_bad(f, "%s: goes through a soft or external link (not followed)", name);
  *d = H5Dopen2(f->file, name, H5P_DEFAULT);
  return *d < 0 ? fch5_bad(f, "%s: not a dataset", name) : CPK_OK;
}

int fch5_extent(const fch5 *f, const char *name, size_t *n)
{
  hid_t d;
  long long c = 0;
  int rc = open_dataset(f, name, &d);
  if (rc) return rc;
  rc = backed_count(f, name, d, &c);
  H5Dclose(d);
  *n = (size_t)c;
  return rc;
}

/* Read all `n` values of `name` converted to `mem` (n already checked by backed_count). */
static int read_all(const fch5 *f, const char *name, hid_t mem, size_t n, void *buf)
{
  hid_t d;
  long long have = 0;
  int rc = open_dataset(f, name, &d);
  if (!rc) rc = backed_count(f, name, d, &have);
  if (!rc && (size_t)have != n)
    rc = fch5_bad(f, "%s: expected %zu values, found %lld", name, n, have);
  if (!rc && n > 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = fch5_bad(f, "%s: cannot read", name);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* An integer dataset only: a float index would be converted silently. */
static int require_integer(const fch5 *f, const char *name)
{
  hid_t d;
  int rc = open_dataset(f, name, &d);
  if (rc) return rc;
  hid_t t = H5Dget_type(d);
  if (t < 0 || H5Tget_class(t) != H5T_INTEGER) rc = fch5_bad(f, "%s: not an integer dataset", name);
  if (t >= 0) H5Tclose(t);
  H5Dclose(d);
  return rc;
}

int fch5_read_int(const fch5 *f, const char *name, long long lo, long long hi, long long *v)
{
  long long x = 0;
  int rc = require_integer(f, name);
  if (!rc) rc = read_all(f, name, H5T_NATIVE_LLONG, 1, &x);
  if (!rc && (x < lo || x > hi))
    rc = fch5_bad(f, "%s = %lld is out of range %lld..%lld", name, x, lo, hi);
  *v = x;
  return rc;
}

static int read_indices(const fch5 *f, const char *name, size_t n, cpk_int **out)
{
  *out = NULL;
  int rc = require_integer(f, name);
  if (rc) return rc;
  cpk_int *v = cpk_alloc_array(n ? n : 1, sizeof *v);
  if (!v) return cpk_error_set(f->err, CPK_ENOMEM, "%s: %s: out of memory", f->path, name);
  rc = read_all(f, name, H5T_NATIVE_INT64, n, v);
  if (rc) free(v);
  else *out = v;
  return rc;
}

int fch5_read_doubles(const fch5 *f, const char *name, size_t n, double **out)
{
  *out = NULL;
  double *v = cpk_alloc_array(n ? n : 1, sizeof *v);
  if (!v) return cpk_error_set(f->err, CPK_ENOMEM, "%s: %s: out of memory", f->path, name);
  int rc = read_all(f, name, H5T_NATIVE_DOUBLE, n, v);
  for (size_t k = 0; !rc && k < n; k++)
    if (!isfinite(v[k])) rc = fch5_bad(f, "%s[%zu] = %g is not finite", name, k, v[k]);
  if (rc) free(v);
  else *out = v;
  return rc;
}

int fch5_read_spacedim(const fch5 *f, const char *root, size_t *dim)
{
  char name[128];
  long long d = 0;
  snprintf(name, sizeof name, "%s/spacedim", root);
  int rc = fch5_read_int(f, name, INT32_MIN, INT32_MAX, &d);
  if (!rc && d != 2 && d != 3) rc = fch5_bad(f, "%s = %lld: only 2 or 3 are read", name, d);
  *dim = (size_t)d;
  return rc;
}

/* ---- sparse matrices ----------------------------------------------------- */

typedef struct sparse_hdr {
  const char *g;
  long long m, n, nz, nzmax;
  size_t np, ni, nx; /* extents of p, i, x */
} sparse_hdr;

static int sparse_name(char *buf, size_t size, const char *g, const char *what)
{
  return snprintf(buf, size, "%s/%s", g, what) < (int)size ? CPK_OK : CPK_EINVAL;
}

/* Every declared size against the shape expected and the datasets' real extents. */
static int sparse_header(const fch5 *f, sparse_hdr *h, cpk_int m, cpk_int n, const char *from)
{
  char nm[4][160], np[160], ni[160], nx[160];
  const char *keys[4] = {"m", "n", "nz", "nzmax"};
  long long *vals[4] = {&h->m, &h->n, &h->nz, &h->nzmax};
  const long long lo[4] = {0, 0, -2, 0};
  int rc = CPK_OK;
  for (int k = 0; !rc && k < 4; k++) {
    rc = sparse_name(nm[k], sizeof nm[k], h->g, keys[k]);
    if (!rc) rc = fch5_read_int(f, nm[k], lo[k], INT32_MAX, vals[k]);
  }
  if (rc) return rc;
  if (h->m != m || h->n != n)
    return fch5_bad(f, "%s is declared %lld x %lld, but %s makes it %lld x %lld", h->g, h->m, h->n,
                    from, (long long)m, (long long)n);
  sparse_name(np, sizeof np, h->g, "p");
  sparse_name(ni, sizeof ni, h->g, "i");
  sparse_name(nx, sizeof nx, h->g, "x");
  if ((rc = fch5_extent(f, np, &h->np)) || (rc = fch5_extent(f, ni, &h->ni)) ||
      (rc = fch5_extent(f, nx, &h->nx)))
    return rc;
  if (h->nz >= 0) {
    if ((long long)h->np < h->nz || (long long)h->ni < h->nz || (long long)h->nx < h->nz)
      return fch5_bad(f, "%s: nz = %lld triplets declared, but p, i, x hold %zu, %zu, %zu", h->g,
                      h->nz, h->np, h->ni, h->nx);
    if (h->nzmax < h->nz)
      return fch5_bad(f, "%s: nzmax = %lld is below nz = %lld", h->g, h->nzmax, h->nz);
    return CPK_OK;
  }
  long long outer = h->nz == -2 ? h->m : h->n;
  if ((long long)h->np != outer + 1)
    return fch5_bad(f, "%s: p holds %zu pointers, %s needs %lld", h->g, h->np,
                    h->nz == -2 ? "CSR (nz = -2) with m rows" : "CSC (nz = -1) with n columns",
                    outer + 1);
  if (h->ni != h->nx)
    return fch5_bad(f, "%s: i holds %zu indices but x holds %zu values", h->g, h->ni, h->nx);
  if ((long long)h->ni != h->nzmax)
    return fch5_bad(f, "%s: nzmax = %lld, but i and x hold %zu entries", h->g, h->nzmax, h->ni);
  return CPK_OK;
}

/* Compressed form: p[0] = 0, non-decreasing, last pointer within nzmax and the arrays. */
static int check_pointers(const fch5 *f, const sparse_hdr *h, const cpk_int *p, cpk_int *nnz)
{
  size_t outer = h->np - 1;
  if (p[0] != 0) return fch5_bad(f, "%s/p[0] = %lld, must be 0", h->g, (long long)p[0]);
  for (size_t k = 0; k < outer; k++)
    if (p[k + 1] < p[k])
      return fch5_bad(f, "%s/p is not monotone: p[%zu] = %lld > p[%zu] = %lld", h->g, k,
                      (long long)p[k], k + 1, (long long)p[k + 1]);
  if (p[outer] > h->nzmax || (size_t)p[outer] > h->ni)
    return fch5_bad(f, "%s/p[%zu] = %lld entries, but nzmax = %lld and i, x hold %zu", h->g, outer,
                    (long long)p[outer], h->nzmax, h->ni);
  *nnz = p[outer];
  return CPK_OK;
}

/* Row and column of every entry, each checked against the shape. */
static int entry_indices(const fch5 *f, const sparse_hdr *h, const cpk_int *p, const cpk_int *i,
                         cpk_int nnz, cpk_int *ti, cpk_int *tj)
{
  for (cpk_int k = 0; h->nz >= 0 && k < nnz; k++) { /* triplets: i = row, p = column */
    ti[k] = i[k];
    tj[k] = p[k];
  }
  for (size_t c = 0; h->nz < 0 && c + 1 < h->np; c++)
    for (cpk_int k = p[c]; k < p[c + 1]; k++) {
      ti[k] = h->nz == -2 ? (cpk_int)c : i[k];
      tj[k] = h->nz == -2 ? i[k] : (cpk_int)c;
    }
  for (cpk_int k = 0; k < nnz; k++)
    if (ti[k] < 0 || ti[k] >= h->m || tj[k] < 0 || tj[k] >= h->n)
      return fch5_bad(f, "%s: entry %lld at (%lld, %lld) is outside the %lld x %lld matrix", h->g,
                      (long long)k, (long long)ti[k], (long long)tj[k], h->m, h->n);
  return CPK_OK;
}

static int sparse_values(const fch5 *f, const sparse_hdr *h, cpk_int **p, cpk_int **i,
                         double **x, cpk_int *nnz)
{
  char np[160], ni[160], nx[160];
  sparse_name(np, sizeof np, h->g, "p");
  sparse_name(ni, sizeof ni, h->g, "i");
  sparse_name(nx, sizeof nx, h->g, "x");
  int rc = read_indices(f, np, h->np, p);
  if (!rc && h->nz < 0) rc = check_pointers(f, h, *p, nnz);
  if (!rc && h->nz >= 0) *nnz = (cpk_int)h->nz;
  if (!rc) rc = read_indices(f, ni, h->ni, i);
  if (!rc) rc = fch5_read_doubles(f, nx, h->nx, x);
  return rc;
}

int fch5_read_sparse(const fch5 *f, const char *g, cpk_int m, cpk_int n, const char *from,
                          cpk_csc **out)
{
  sparse_hdr h = {g, 0, 0, 0, 0, 0, 0, 0};
  cpk_int *p = NULL, *i = NULL, *ti = NULL, *tj = NULL, nnz = 0;
  double *x = NULL;
  *out = NULL;
  int rc = sparse_header(f, &h, m, n, from);
  if (!rc) rc = sparse_values(f, &h, &p, &i, &x, &nnz);
  if (!rc) {
    ti = cpk_alloc_array(nnz ? (size_t)nnz : 1, sizeof *ti);
    tj = cpk_alloc_array(nnz ? (size_t)nnz : 1, sizeof *tj);
    rc = ti && tj ? entry_indices(f, &h, p, i, nnz, ti, tj) : CPK_ENOMEM;
  }
  if (!rc) rc = cpk_csc_from_triplets(m, n, nnz, ti, tj, x, out);
  for (cpk_int k = 0; !rc && k < (*out)->p[n]; k++)
    if (!isfinite((*out)->x[k]))
      rc = fch5_bad(f, "%s: duplicate entries sum to %g", g, (*out)->x[k]);
  if (rc) {
    cpk_csc_free(*out);
    *out = NULL;
  }
  if (rc == CPK_ENOMEM) cpk_error_set(f->err, rc, "%s: %s: out of memory", f->path, g);
  else if (rc && rc != CPK_EPARSE) rc = fch5_bad(f, "%s: %s", g, cpk_strerror(rc));
  free(p);
  free(i);
  free(x);
  free(ti);
  free(tj);
  return rc;
}

/* ---- the title ------------------------------------------------------------ */

/* A copy of s without trailing blanks or NULs (fixed-length strings are padded). */
static char *trimmed(const char *s, size_t len)
{
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\0')) len--;
  char *c = malloc(len + 1);
  if (!c) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

static char *read_string(hid_t d, hid_t t)
{
  char *out = NULL;
  if (H5Tis_variable_str(t) > 0) {
    char *s = NULL;
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (mt >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 &&
        H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) >= 0 && s) {
      out = trimmed(s, strnlen(s, TITLE_MAX));
      H5free_memory(s);
    }
    if (mt >= 0) H5Tclose(mt);
    return out;
  }
  size_t len = H5Tget_size(t);
  char *buf = len > 0 && len < TITLE_MAX ? calloc(len + 1, 1) : NULL;
  if (buf && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
    out = trimmed(buf, strlen(buf));
  free(buf);
  return out;
}

char *fch5_read_title(const fch5 *f, const char *root)
{
  char name[128];
  char *out = NULL;
  snprintf(name, sizeof name, "%s/info/title", root);
  if (walk_path(f, name) != 1) return NULL;
  hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT);
  hid_t t = d >= 0 ? H5Dget_type(d) : -1, sp = d >= 0 ? H5Dget_space(d) : -1;
  if (t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_STRING && H5Sget_simple_extent_npoints(sp) == 1)
    out = read_string(d, t);
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  if (out && !out[0]) {
    free(out);
    out = NULL;
  }
  return out;
}

void fch5_local_free(fch5_local *L)
{
  cpk_csc_free(L->W);
  free(L->q);
  free(L->mu);
  free(L->title);
  memset(L, 0, sizeof *L);
}

/* mu: finite and >= 0 (NaN fails both tests). */
int fch5_check_mu(const fch5 *f, const char *name, const double *mu, size_t nc)
{
  for (size_t c = 0; c < nc; c++)
    if (!(mu[c] >= 0.0))
      return fch5_bad(f, "%s[%zu] = %g: a friction coefficient must be >= 0", name, c, mu[c]);
  return CPK_OK;
}

/* The number of contacts of a vector of m = dim * nc values, mu holding nc. */
int fch5_contacts(const fch5 *f, const char *qname, const char *muname, size_t dim, size_t *m,
                  size_t *nc)
{
  size_t nmu = 0;
  int rc = fch5_extent(f, qname, m);
  if (!rc) rc = fch5_extent(f, muname, &nmu);
  if (rc) return rc;
  if (*m == 0 || *m % dim != 0)
    return fch5_bad(f, "%s holds %zu values, not a positive multiple of spacedim %zu", qname, *m,
                    dim);
  if (nmu != *m / dim)
    return fch5_bad(f, "%s holds %zu coefficients but %s has %zu contacts of %zu", muname, nmu,
                    qname, *m / dim, dim);
  *nc = nmu;
  return CPK_OK;
}

int fch5_read_local(const fch5 *f, fch5_local *L)
{
  const char *q = "/fclib_local/vectors/q", *mu = "/fclib_local/vectors/mu";
  size_t m = 0;
  memset(L, 0, sizeof *L);
  if (fch5_exists(f, "/fclib_local/R") || fch5_exists(f, "/fclib_local/V"))
    return fch5_bad(f, "/fclib_local has R and V (equality constraints): not supported");
  int rc = fch5_read_spacedim(f, "/fclib_local", &L->dim);
  if (!rc) rc = fch5_contacts(f, q, mu, L->dim, &m, &L->nc);
  if (!rc)
    rc = fch5_read_sparse(f, "/fclib_local/W", (cpk_int)m, (cpk_int)m,
                               "the length of /fclib_local/vectors/q", &L->W);
  if (!rc) rc = fch5_read_doubles(f, q, m, &L->q);
  if (!rc) rc = fch5_read_doubles(f, mu, L->nc, &L->mu);
  if (!rc) rc = fch5_check_mu(f, mu, L->mu, L->nc);
  if (!rc) L->title = fch5_read_title(f, "/fclib_local");
  if (rc) fch5_local_free(L);
  return rc;
}
#endif
