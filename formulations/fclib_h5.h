/* fclib_h5.h: internal to formulations/: bounded reading of FCLIB HDF5 files (every size checked against the file's real storage before anything is allocated). */
#ifndef CPK_FORMULATIONS_FCLIB_H5_H
#define CPK_FORMULATIONS_FCLIB_H5_H
#ifdef HAVE_HDF5
#include <hdf5.h>
#include <cpkit/errors.h>
#include <cpkit/matrix.h>

/* An open FCLIB file; messages read `path: what is wrong`. */
typedef struct fch5 {
  const char *path;
  hid_t file;
  long long file_bytes; /* size of the file on disk: no dataset can store more */
  cpk_error *err;
  H5E_auto2_t old_func; /* HDF5's error printer, silenced while the file is open */
  void *old_data;
} fch5;

/* The local problem as it is in the file, converted: W (CSC, sorted), q, mu. */
typedef struct fch5_local {
  size_t dim, nc;
  cpk_csc *W;
  double *q, *mu;
  char *title;
} fch5_local;

int fch5_open(fch5 *f, const char *path, cpk_error *err);
void fch5_close(fch5 *f);
/* Set err to CPK_EPARSE with `path: ` and the message; returns CPK_EPARSE. */
int fch5_bad(const fch5 *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int fch5_exists(const fch5 *f, const char *name);
/* One integer (a 1-element dataset) in [lo, hi]. */
int fch5_read_int(const fch5 *f, const char *name, long long lo, long long hi, long long *v);
/* Exactly n finite doubles; *out allocated here (n checked against storage first). */
int fch5_read_doubles(const fch5 *f, const char *name, size_t n, double **out);
/* Number of elements of dataset `name`, checked to be backed by the file's storage. */
int fch5_extent(const fch5 *f, const char *name, size_t *n);
/*
 * The sparse matrix in group `g` (FCLIB: m, n, nz, nzmax, p, i, x; nz = -1 CSC,
 * -2 CSR, >= 0 triplets with i = row, p = column) as a sorted CSC matrix with
 * duplicates summed. The caller passes the shape it expects, already backed by
 * other datasets (`from` says which, for the message), so nothing here is sized
 * by an unchecked header.
 */
int fch5_read_sparse(const fch5 *f, const char *g, cpk_int m, cpk_int n, const char *from,
                     cpk_csc **out);
/* mu (nc values): each >= 0 (NaN refused). */
int fch5_check_mu(const fch5 *f, const char *name, const double *mu, size_t nc);
/* m = length of qname, a positive multiple of dim, and nc = m / dim = length of muname. */
int fch5_contacts(const fch5 *f, const char *qname, const char *muname, size_t dim, size_t *m,
                  size_t *nc);
/* The scalar string info/title of group `root` (NULL when absent or not a short string). */
char *fch5_read_title(const fch5 *f, const char *root);
/* spacedim of group `root`, 2 or 3. */
int fch5_read_spacedim(const fch5 *f, const char *root, size_t *dim);

/* The local problem /fclib_local, every size and value checked. */
int fch5_read_local(const fch5 *f, fch5_local *L);
/* The global problem /fclib_global reduced to local form (fclib_global.c). */
int fch5_read_global(const fch5 *f, fch5_local *L);
void fch5_local_free(fch5_local *L);
#endif
#endif
