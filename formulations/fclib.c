/* fclib.c: reading an FCLIB HDF5 file (local, or global reduced to local form) as a friction-cone problem or as a local-form contact system; compiled out without HDF5. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>
#include <cpkit/fclib.h>
#include <cpkit/util.h>

#ifndef HAVE_HDF5

static int no_hdf5(const char *path, cpk_error *err)
{
  return cpk_error_set(err, CPK_EUNSUP, "%s: cpkit was built without HDF5: cannot read FCLIB files",
                       path ? path : "(null)");
}

int cpk_contact_system_read_fclib(const char *path, cpk_contact_system **out, cpk_error *err)
{
  *out = NULL;
  return no_hdf5(path, err);
}

int cpk_problem_read_fclib(const char *path, cpk_problem **out, cpk_error *err)
{
  *out = NULL;
  return no_hdf5(path, err);
}

#else
#include "fclib_h5.h"

/* The local problem of the file: /fclib_local as it is, /fclib_global reduced. */
static int read_file(const char *path, fch5_local *L, cpk_error *err)
{
  fch5 f;
  cpk_error_clear(err);
  if (!path) return cpk_error_set(err, CPK_EINVAL, "no path given");
  int rc = fch5_open(&f, path, err);
  if (rc) return rc;
  if (fch5_exists(&f, "/fclib_local"))
    rc = fch5_read_local(&f, L);
  else if (fch5_exists(&f, "/fclib_global"))
    rc = fch5_read_global(&f, L);
  else if (fch5_exists(&f, "/fclib_global_rolling"))
    rc = fch5_bad(&f, "/fclib_global_rolling (rolling friction) is not supported");
  else
    rc = fch5_bad(&f, "neither /fclib_local nor /fclib_global: not an FCLIB problem");
  fch5_close(&f);
  return rc;
}

int cpk_problem_read_fclib(const char *path, cpk_problem **out, cpk_error *err)
{
  fch5_local L;
  cpk_matrix *W = NULL;
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  int rc = read_file(path, &L, err);
  if (rc) return rc;
  rc = cpk_matrix_from_csc(L.W, &W);
  if (!rc) rc = cpk_problem_alloc_friction_cone(W, L.q, L.dim, L.mu, out);
  if (!rc) rc = cpk_problem_set_name(*out, L.title);
  cpk_matrix_free(W);
  fch5_local_free(&L);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
    return cpk_error_set(err, rc, "%s: %s", path, cpk_strerror(rc));
  }
  return CPK_OK;
}

int cpk_contact_system_read_fclib(const char *path, cpk_contact_system **out, cpk_error *err)
{
  fch5_local L;
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  int rc = read_file(path, &L, err);
  if (rc) return rc;
  if (L.dim != 3) {
    size_t dim = L.dim;
    fch5_local_free(&L);
    return cpk_error_set(err, CPK_EPARSE,
                         "%s: spacedim %zu: only 3D problems are read as contact systems", path,
                         dim);
  }
  rc = cpk_contact_system_alloc_local(L.nc, 3, L.W, L.q, L.mu, 1.0, out, err);
  if (!rc && L.title) rc = cpk_contact_system_set_name(*out, L.title);
  fch5_local_free(&L);
  if (rc) {
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err ? err->message : cpk_strerror(rc));
    cpk_contact_system_free(*out);
    *out = NULL;
    return cpk_error_set(err, rc, "%s: %s", path, why);
  }
  return CPK_OK;
}
#endif
