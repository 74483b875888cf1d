/* fclib_write.c: writing a friction-cone problem as an FCLIB local problem (/fclib_local: W in CSR with int32 indices, q, mu, info/title), the layout FCLIB's own tools and Siconos read. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/fclib.h>
#include <cpkit/util.h>

/* Refuse what FCLIB cannot hold, before touching any file. */
static int check_writable(const cpk_problem *p, const char *path, cpk_error *err)
{
  if (!p) return cpk_error_set(err, CPK_EINVAL, "no problem given");
  if (!path) return cpk_error_set(err, CPK_EINVAL, "no path given");
  if (p->kind != CPK_KIND_FRICTION_CONE)
    return cpk_error_set(err, CPK_EUNSUP, "FCLIB holds friction-cone problems; this one is %s",
                         cpk_problem_kind_name(p->kind));
  if (p->cone_dim != 2 && p->cone_dim != 3)
    return cpk_error_set(err, CPK_EUNSUP,
                         "FCLIB holds cones of dimension 2 or 3 (spacedim); this one has %zu",
                         p->cone_dim);
  int rc = cpk_problem_validate(p, err);
  if (rc) return rc;
  if (p->n == 0 || p->n > INT32_MAX - 1 || cpk_matrix_nnz(p->M) > INT32_MAX)
    return cpk_error_set(err, CPK_ETOOBIG, "W does not fit FCLIB's int32 sizes");
  return CPK_OK;
}

#ifndef HAVE_HDF5

int cpk_problem_write_fclib(const cpk_problem *p, const char *path, cpk_error *err)
{
  cpk_error_clear(err);
  int rc = check_writable(p, path, err);
  if (rc) return rc;
  return cpk_error_set(err, CPK_EUNSUP,
                       "%s: cpkit was built without HDF5: cannot write FCLIB files", path);
}

#else
#include <hdf5.h>

/* W in compressed rows (nz = -2) as every FCLIB file we know stores it: the CSC of W'. */
typedef struct csr32 {
  int32_t m, nnz;
  int32_t *p, *i;
  double *x;
} csr32;

static int make_csr(const cpk_matrix *W, csr32 *R)
{
  cpk_csc *A = NULL, *T = NULL;
  cpk_int *tj = NULL;
  int rc = cpk_matrix_to_csc(W, &A);
  cpk_int nnz = rc ? 0 : A->p[A->n];
  if (!rc && !(tj = cpk_alloc_array(nnz ? (size_t)nnz : 1, sizeof *tj))) rc = CPK_ENOMEM;
  for (cpk_int c = 0; !rc && c < A->n; c++)
    for (cpk_int e = A->p[c]; e < A->p[c + 1]; e++) tj[e] = c;
  if (!rc) rc = cpk_csc_from_triplets(A->n, A->m, nnz, tj, A->i, A->x, &T);
  if (!rc) {
    R->m = (int32_t)T->n;
    R->nnz = (int32_t)T->p[T->n];
    R->p = cpk_alloc_array((size_t)R->m + 1, sizeof *R->p);
    R->i = cpk_alloc_array(R->nnz ? (size_t)R->nnz : 1, sizeof *R->i);
    R->x = cpk_alloc_array(R->nnz ? (size_t)R->nnz : 1, sizeof *R->x);
    if (!R->p || !R->i || !R->x) rc = CPK_ENOMEM;
  }
  for (int32_t r = 0; !rc && r <= R->m; r++) R->p[r] = (int32_t)T->p[r];
  for (int32_t e = 0; !rc && e < R->nnz; e++) {
    R->i[e] = (int32_t)T->i[e];
    R->x[e] = T->x[e];
  }
  cpk_csc_free(A);
  cpk_csc_free(T);
  free(tj);
  return rc;
}

static void csr_free(csr32 *R)
{
  free(R->p);
  free(R->i);
  free(R->x);
}

/* A 1-D dataset of n values of file type ft; returns 0 or -1. */
static int put_array(hid_t loc, const char *name, hid_t ft, hid_t mt, hsize_t n, const void *v)
{
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t d = sp >= 0 ? H5Dcreate2(loc, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  herr_t st = d < 0 ? -1 : n == 0 ? 0 : H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  if (d >= 0) H5Dclose(d);
  if (sp >= 0) H5Sclose(sp);
  return d < 0 || st < 0 ? -1 : 0;
}

static int put_ints(hid_t loc, const char *name, hsize_t n, const int32_t *v)
{
  return put_array(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, n, v);
}

static int put_int(hid_t loc, const char *name, int32_t v)
{
  return put_ints(loc, name, 1, &v);
}

static int put_doubles(hid_t loc, const char *name, hsize_t n, const double *v)
{
  return put_array(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
}

/* A scalar fixed-length NUL-terminated string, as FCLIB's H5LTmake_dataset_string writes. */
static int put_string(hid_t loc, const char *name, const char *s)
{
  hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
  int ok = t >= 0 && sp >= 0 && H5Tset_size(t, strlen(s) + 1) >= 0 &&
           H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0;
  hid_t d = ok ? H5Dcreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  ok = d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0;
  if (d >= 0) H5Dclose(d);
  if (sp >= 0) H5Sclose(sp);
  if (t >= 0) H5Tclose(t);
  return ok ? 0 : -1;
}

static int put_group(hid_t file, const char *name)
{
  hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return -1;
  H5Gclose(g);
  return 0;
}

static int put_w(hid_t file, const csr32 *R)
{
  hid_t g = H5Gopen2(file, "/fclib_local/W", H5P_DEFAULT);
  if (g < 0) return -1;
  int bad = put_int(g, "m", R->m) || put_int(g, "n", R->m) || put_int(g, "nz", -2) ||
            put_int(g, "nzmax", R->nnz) || put_ints(g, "p", (hsize_t)R->m + 1, R->p) ||
            put_ints(g, "i", (hsize_t)R->nnz, R->i) || put_doubles(g, "x", (hsize_t)R->nnz, R->x);
  H5Gclose(g);
  return bad ? -1 : 0;
}

static int put_problem(hid_t file, const cpk_problem *p, const csr32 *R)
{
  if (put_group(file, "/fclib_local") || put_group(file, "/fclib_local/W") ||
      put_group(file, "/fclib_local/vectors") || put_group(file, "/fclib_local/info"))
    return -1;
  return put_int(file, "/fclib_local/spacedim", (int32_t)p->cone_dim) || put_w(file, R) ||
         put_doubles(file, "/fclib_local/vectors/q", p->n, p->q) ||
         put_doubles(file, "/fclib_local/vectors/mu", p->nc, p->mu) ||
         (p->name && p->name[0] && put_string(file, "/fclib_local/info/title", p->name)) ||
         put_string(file, "/fclib_local/info/description", "written by cpkit");
}

int cpk_problem_write_fclib(const cpk_problem *p, const char *path, cpk_error *err)
{
  csr32 R = {0, 0, NULL, NULL, NULL};
  H5E_auto2_t func = NULL;
  void *data = NULL;
  cpk_error_clear(err);
  int rc = check_writable(p, path, err);
  if (rc) return rc;
  if ((rc = make_csr(p->M, &R))) {
    csr_free(&R);
    return cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc));
  }
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our message, not HDF5's stack */
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int bad = file < 0 || put_problem(file, p, &R);
  if (file >= 0 && H5Fclose(file) < 0) bad = 1;
  H5Eset_auto2(H5E_DEFAULT, func, data);
  csr_free(&R);
  if (bad) {
    if (file >= 0) remove(path); /* no half-written problem left behind */
    return cpk_error_set(err, CPK_EIO, "%s: cannot write the FCLIB file", path);
  }
  return CPK_OK;
}
#endif
