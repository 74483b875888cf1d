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
