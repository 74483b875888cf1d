/** io.h: the problem text format (v1) reader/writer, JSON results, warm-start files. @file */
#ifndef CPKIT_IO_H
#define CPKIT_IO_H
#include <stdio.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/problem.h>
#include <cpkit/result.h>

CPK_BEGIN_DECLS

/**
 * Read a problem in the text format v1 (doc/format.md). On failure returns
 * CPK_EPARSE (or CPK_EIO, CPK_ENOMEM, CPK_ETOOBIG) and err->message reads
 * `path:line: what is wrong`. Never allocates from a size the file cannot back.
 */
CPK_API int cpk_problem_read_file(const char *path, cpk_problem **out, cpk_error *err);
/** Same, from an open stream; `name` is used in messages. */
CPK_API int cpk_problem_read_stream(FILE *f, const char *name, cpk_problem **out, cpk_error *err);
/** Same, from a NUL-terminated string. */
CPK_API int cpk_problem_read_string(const char *text, const char *name, cpk_problem **out,
                                    cpk_error *err);

/**
 * Callbacks of cpk_problem_scan_file, which reads a problem file without building the
 * problem: M's entries are handed over one by one as they are read and none is kept, so
 * a caller keeping only some rows (cpk_fc_rows_read) holds O(its rows) of M. Each
 * callback returns 0 to go on; a nonzero value (a cpkit error code) stops the scan, which
 * then returns it (CPK_EINVAL for a value that is not a code) with a message.
 */
typedef struct cpk_problem_scan {
  /** At the start of M: the kind, n and the unknowns per contact (0 unless friction_cone). */
  int (*begin)(void *ctx, cpk_problem_kind kind, size_t n, size_t dim);
  /** One entry of M (0-based row and column), as the file gives it: a coordinate file's
   * duplicates come as separate entries (they sum), a dense M gives its nonzeros row by row. */
  int (*entry)(void *ctx, size_t i, size_t j, double x);
  /** At 'end', the file checked: q (n values) and mu (nc values, NULL unless friction_cone),
   * valid during the call only. */
  int (*end)(void *ctx, const double *q, const double *mu);
  void *ctx; /**< passed to each callback */
} cpk_problem_scan;

/**
 * Read the problem file at path (text format v1) with every check of
 * cpk_problem_read_file, handing M's entries, q and mu to `scan` instead of building
 * a problem. Besides what the callbacks keep it holds q, the bounds and mu (O(n)),
 * never M (a dense M is read whole, then handed over and freed).
 */
CPK_API int cpk_problem_scan_file(const char *path, const cpk_problem_scan *scan, cpk_error *err);

/** Write an affine problem (LCP, affine MCP or friction cone) in the text format v1, values exact (%.17g). */
CPK_API int cpk_problem_write(const cpk_problem *p, FILE *f, cpk_error *err);
/** Same, to the file at path. */
CPK_API int cpk_problem_write_file(const cpk_problem *p, const char *path, cpk_error *err);

/** Flags for cpk_result_write_json. */
#define CPK_JSON_COMPACT 1 /**< one line instead of indented */

/**
 * Write one JSON object: status, solver, n, iterations, residual, tolerance,
 * fclib_merit (friction-cone problems: cpk_fc_merit at z), time_s, z, w, stats, and when present basis, ray, solutions, message, problem
 * name and variable names (from p, which may be NULL).
 */
CPK_API int cpk_result_write_json(const cpk_result *r, const cpk_problem *p, FILE *f, int flags,
                                  cpk_error *err);

/**
 * Read a warm start for a problem of size n: either a JSON object with "z"
 * (and optionally "basis", as written by cpk_result_write_json) or plain text
 * with n numbers. z0 receives n values; basis0 (if not NULL) receives the basis
 * and *has_basis says whether the file had one.
 */
CPK_API int cpk_warm_start_read_file(const char *path, size_t n, double *z0, int *basis0,
                                     int *has_basis, cpk_error *err);

CPK_END_DECLS
#endif
