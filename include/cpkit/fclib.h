/** fclib.h: FCLIB HDF5 files as friction-cone problems (read local and global problems, write local ones) and the reader that picks FCLIB or the text format by the file's signature. @file */
#ifndef CPKIT_FCLIB_H
#define CPKIT_FCLIB_H
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/problem.h>

CPK_BEGIN_DECLS

/**
 * Read an FCLIB problem file as a friction-cone problem
 * (cpk_problem_alloc_friction_cone): cone dimension = spacedim (2 or 3),
 * W sparse (CSC), q, mu, and the name from info/title when there is one.
 *
 * - A local problem (/fclib_local: W, q, mu) is read as it is. W may be stored
 *   in compressed columns (nz = -1), compressed rows (nz = -2) or triplets
 *   (nz >= 0, i = row, p = column); duplicates are summed.
 * - A global problem (/fclib_global: M, H, f, w, mu, with M v = H r + f and
 *   u = H' v + w) is reduced to local form, W = H' M^-1 H and
 *   q = H' M^-1 f + w, with one sparse LU factorization of M (UMFPACK). An M
 *   whose off-diagonal entries are all on one side of the diagonal is read as
 *   one triangle of FCLIB's symmetric M and mirrored (the LMGC dumps store M
 *   so). When M is exactly symmetric, W is built exactly symmetric.
 *
 * Refused with CPK_EPARSE and a message `path: what is wrong`, before anything
 * is allocated from it: any declared size (m, n, nz, nzmax, dataset extents)
 * that disagrees with another or with the storage the file really has (a
 * dataset cannot declare more bytes than it stores, nor store more than the
 * file holds); spacedim other than 2 or 3; index arrays out of range or
 * pointers not monotone; NaN or infinite W, q, M, H, f, w (also duplicates
 * summing to infinity); negative or NaN mu; datasets reached through soft or
 * external links; equality constraints (/fclib_local R, V; /fclib_global G, b)
 * and rolling friction (/fclib_global_rolling), which the cone problem cannot
 * hold; a singular M, or one whose reduction overflows. CPK_EIO when the file cannot be opened as HDF5, CPK_ETOOBIG when
 * the reduced W would exceed 2^26 entries, CPK_EUNSUP when cpkit was built
 * without HDF5.
 */
CPK_API int cpk_problem_read_fclib(const char *path, cpk_problem **out, cpk_error *err);

/**
 * Write a friction-cone problem of cone dimension 2 or 3 as an FCLIB local
 * problem: /fclib_local/spacedim, W in compressed rows (nz = -2, nzmax = nnz,
 * int32 p and i, float64 x), vectors/q, vectors/mu, info/title (the problem's
 * name, when it has one) and info/description. This is the layout of the
 * FCLIB collection, read by FCLIB's fclib_read_local and by Siconos. Values are
 * stored as IEEE doubles, so cpk_problem_read_fclib gives back the same W, q
 * and mu exactly. The file is replaced if it exists and removed if writing
 * fails. CPK_EUNSUP for another kind of problem, for cone dimension 4 (FCLIB
 * has no torsion) or without HDF5; CPK_EINVAL for a problem that fails
 * cpk_problem_validate; CPK_EIO when the file cannot be written.
 */
CPK_API int cpk_problem_write_fclib(const cpk_problem *p, const char *path, cpk_error *err);

/**
 * Read the FCLIB file at path once in a child process (fork) and report
 * whether that process survived. libhdf5 trusts a file's internal metadata
 * (object headers, B-trees, local heaps) and can crash on a corrupt file
 * inside its own calls (1.10.8 segfaults in H5Lexists on a mutated local
 * heap), before any check of cpkit's can run and where no check from outside
 * HDF5 can see. A caller that reads files it does not trust calls this first
 * and reads the file itself only on CPK_OK: the readers then make the same
 * HDF5 calls on the same bytes as the child did.
 *
 * CPK_OK when the child finished, whether or not the file is a valid FCLIB
 * problem (the reader then gives the message); CPK_EPARSE with `path: the
 * HDF5 library crashed reading this file (signal ...)` when it died;
 * CPK_ENOMEM or CPK_EIO when no process could be started. Costs one more read
 * of the file. The readers never call it (a fork is the caller's choice: not
 * for multithreaded callers, whose other threads do not exist in the child);
 * the `cpkit` command and the bench's file suites do, for every HDF5 file.
 * CPK_OK at once when cpkit was built without HDF5.
 */
CPK_API int cpk_fclib_probe(const char *path, cpk_error *err);

/** 1 if the file at path starts with the HDF5 signature, else 0 (also when it cannot be read). */
CPK_API int cpk_file_is_hdf5(const char *path);

/**
 * Read a problem file of either kind: an HDF5 file (by its signature) as an
 * FCLIB problem (cpk_problem_read_fclib), anything else in the text format v1
 * (cpk_problem_read_file).
 */
CPK_API int cpk_problem_read_any(const char *path, cpk_problem **out, cpk_error *err);

CPK_END_DECLS
#endif
