/* fclib.c: reading the local problem (/fclib_local: W, q, mu) of an FCLIB HDF5 file as a local-form contact system; compiled out without HDF5. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>
#include <cpkit/util.h>

#ifndef HAVE_HDF5

int cpk_contact_system_read_fclib(const char *path, cpk_contact_system **out, cpk_error *err)
{
  *out = NULL;
  return cpk_error_set(err, CPK_EUNSUP, "%s: cpkit was built without HDF5: cannot read FCLIB files",
                       path);
}

#else
#include <hdf5.h>

#define MAX_DIM 100000000LL /* rows of W; a file claiming more is refused before allocating */

typedef struct fc {
  const char *path;
  hid_t file;
  cpk_error *err;
} fc;

static int bad(const fc *f, const char *what)
{
  return cpk_error_set(f->err, CPK_EPARSE, "%s: %s", f->path, what);
}

/* Number of elements of dataset `name`, or -1 when it does not exist. */
static long long extent(const fc *f, const char *name)
{
  if (H5Lexists(f->file, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t sp = H5Dget_space(d);
  long long n = sp < 0 ? -1 : (long long)H5Sget_simple_extent_npoints(sp);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return n;
}

/* Read exactly n values of dataset `name` converted to `type` into buf. */
static int read_data(const fc *f, const char *name, hid_t type, long long n, void *buf)
{
  char msg[200];
  long long have = extent(f, name);
  if (have != n) {
    snprintf(msg, sizeof msg, "%s: expected %lld values, found %lld", name, n, have);
    return bad(f, msg);
  }
  if (n == 0) return CPK_OK;
  hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT);
  herr_t st = d < 0 ? -1 : H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  if (d >= 0) H5Dclose(d);
  if (st < 0) {
    snprintf(msg, sizeof msg, "%s: cannot read", name);
    return bad(f, msg);
  }
  return CPK_OK;
}

static int read_int(const fc *f, const char *name, long long *v)
{
  int x = 0;
  int rc = read_data(f, name, H5T_NATIVE_INT, 1, &x);
  *v = x;
  return rc;
}

typedef struct wmat {
  long long m, n, nz, nzmax;
  int *p, *i;
  double *x;
} wmat;

static int read_w(const fc *f, wmat *w)
{
  int rc = read_int(f, "/fclib_local/W/m", &w->m);
  if (!rc) rc = read_int(f, "/fclib_local/W/n", &w->n);
  if (!rc) rc = read_int(f, "/fclib_local/W/nz", &w->nz);
  if (!rc) rc = read_int(f, "/fclib_local/W/nzmax", &w->nzmax);
  if (rc) return rc;
  if (w->m != w->n || w->m < 3 || w->m % 3 != 0 || w->m > MAX_DIM || w->nzmax < 0 || w->nz < -2)
    return bad(f, "W must be square with 3 rows per contact");
  long long np = w->nz == -2 ? w->m + 1 : w->nz == -1 ? w->n + 1 : w->nz;
  long long nx = w->nz >= 0 ? w->nz : w->nzmax;
  /* the datasets must hold what the header claims before anything is allocated */
  if (extent(f, "/fclib_local/W/p") != np || extent(f, "/fclib_local/W/i") < nx ||
      extent(f, "/fclib_local/W/x") < nx)
    return bad(f, "W: index arrays do not match m, n, nz, nzmax");
  w->p = cpk_alloc_array((size_t)np, sizeof *w->p);
  w->i = cpk_alloc_array((size_t)extent(f, "/fclib_local/W/i"), sizeof *w->i);
  w->x = cpk_alloc_array((size_t)extent(f, "/fclib_local/W/x"), sizeof *w->x);
  if (!w->p || !w->i || !w->x)
    return cpk_error_set(f->err, CPK_ENOMEM, "%s: out of memory", f->path);
  rc = read_data(f, "/fclib_local/W/p", H5T_NATIVE_INT, np, w->p);
  if (!rc)
    rc = read_data(f, "/fclib_local/W/i", H5T_NATIVE_INT, extent(f, "/fclib_local/W/i"), w->i);
  if (!rc)
    rc = read_data(f, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, extent(f, "/fclib_local/W/x"), w->x);
  return rc;
}

/* CSR (nz = -2), CSC (nz = -1) or triplets (nz >= 0; i = row, p = column as in CSparse). */
static int w_to_csc(const fc *f, const wmat *w, cpk_csc **out)
{
  long long nt = w->nz >= 0 ? w->nz : (w->nz == -2 ? w->p[w->m] : w->p[w->n]);
  long long outer = w->nz == -2 ? w->m : w->n;
  if (nt < 0 || nt > w->nzmax + (w->nz >= 0 ? nt : 0)) return bad(f, "W: bad pointer array");
  cpk_int *ti = cpk_alloc_array((size_t)nt, sizeof *ti),
          *tj = cpk_alloc_array((size_t)nt, sizeof *tj);
  int rc = ti && tj ? CPK_OK : CPK_ENOMEM;
  for (long long k = 0; !rc && w->nz >= 0 && k < nt; k++) {
    ti[k] = w->i[k];
    tj[k] = w->p[k];
  }
  for (long long c = 0; !rc && w->nz < 0 && c < outer; c++) {
    if (w->p[c] < 0 || w->p[c] > w->p[c + 1] || w->p[c + 1] > nt) rc = CPK_EPARSE;
    for (long long k = w->p[c]; !rc && k < w->p[c + 1]; k++) {
      ti[k] = w->nz == -2 ? (cpk_int)c : w->i[k];
      tj[k] = w->nz == -2 ? w->i[k] : (cpk_int)c;
    }
  }
  for (long long k = 0; !rc && k < nt; k++)
    if (ti[k] < 0 || ti[k] >= w->m || tj[k] < 0 || tj[k] >= w->n) rc = CPK_EPARSE;
  if (!rc) rc = cpk_csc_from_triplets(w->m, w->n, nt, ti, tj, w->x, out);
  free(ti);
  free(tj);
  if (rc == CPK_EPARSE) return bad(f, "W: index out of range");
  if (rc) return cpk_error_set(f->err, rc, "%s: %s", f->path, cpk_strerror(rc));
  return CPK_OK;
}

/* The title, when it is a fixed-length string (anything else is simply not used). */
static void read_title(const fc *f, cpk_contact_system *s)
{
  const char *name = "/fclib_local/info/title";
  if (H5Lexists(f->file, "/fclib_local/info", H5P_DEFAULT) <= 0 || extent(f, name) != 1) return;
  hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
  if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0) {
    size_t len = H5Tget_size(t);
    char *buf = len < 4096 ? calloc(len + 1, 1) : NULL;
    if (buf && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 && buf[0])
      cpk_contact_system_set_name(s, buf);
    free(buf);
  }
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
}

static int read_local(const fc *f, cpk_contact_system **out)
{
  wmat w = {0};
  cpk_csc *W = NULL;
  double *q = NULL, *mu = NULL;
  long long dim = 0;
  if (H5Lexists(f->file, "/fclib_local", H5P_DEFAULT) <= 0)
    return bad(f, "no /fclib_local group (only FCLIB local problems are read)");
  int rc = read_int(f, "/fclib_local/spacedim", &dim);
  if (!rc && dim != 3) rc = bad(f, "only 3D problems (spacedim 3) are read");
  if (!rc) rc = read_w(f, &w);
  if (!rc) rc = w_to_csc(f, &w, &W);
  if (!rc) {
    q = cpk_alloc_array((size_t)w.m, sizeof *q);
    mu = cpk_alloc_array((size_t)(w.m / 3), sizeof *mu);
    rc = q && mu ? CPK_OK : cpk_error_set(f->err, CPK_ENOMEM, "%s: out of memory", f->path);
  }
  if (!rc) rc = read_data(f, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, w.m, q);
  if (!rc) rc = read_data(f, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, w.m / 3, mu);
  if (!rc && cpk_contact_system_alloc_local((size_t)(w.m / 3), 3, W, q, mu, 1.0, out, f->err)) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", f->err ? f->err->message : "invalid data");
    rc = bad(f, msg);
  }
  if (!rc) read_title(f, *out);
  free(w.p);
  free(w.i);
  free(w.x);
  cpk_csc_free(W);
  free(q);
  free(mu);
  return rc;
}

int cpk_contact_system_read_fclib(const char *path, cpk_contact_system **out, cpk_error *err)
{
  H5E_auto2_t func = NULL;
  void *data = NULL;
  fc f = {path, -1, err};
  *out = NULL;
  /* HDF5 prints its error stack by default; keep stderr for our own message. */
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  f.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int rc = f.file < 0 ? cpk_error_set(err, CPK_EIO, "%s: cannot open as HDF5", path)
                      : read_local(&f, out);
  if (f.file >= 0) H5Fclose(f.file);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  if (rc) {
    cpk_contact_system_free(*out);
    *out = NULL;
  }
  return rc;
}
#endif
