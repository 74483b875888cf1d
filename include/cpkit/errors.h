/** errors.h: error codes, their messages, and the re-entrant error-detail struct. @file */
#ifndef CPKIT_ERRORS_H
#define CPKIT_ERRORS_H
#include <cpkit/export.h>

CPK_BEGIN_DECLS

/**
 * Every error code, generated from one list. An error code means the *call*
 * failed; the outcome of a solve (solved, ray, iteration limit ...) is a status
 * in cpk_result, never an error code.
 */
#define CPK_ERRNO_MAP(X)                                                     \
  X(OK, 0, "success")                                                        \
  X(EINVAL, 1, "invalid argument")                                           \
  X(ENOMEM, 2, "out of memory")                                              \
  X(EPARSE, 3, "malformed input")                                            \
  X(EIO, 4, "input/output error")                                            \
  X(ESINGULAR, 5, "singular matrix")                                         \
  X(EBADMAT, 6, "invalid matrix structure")                                  \
  X(EUNSUP, 7, "operation not supported for this problem or solver")         \
  X(EBADFUNC, 8, "user function failed or returned a non-finite value")      \
  X(ENOTFOUND, 9, "not found")                                               \
  X(ELINSYS, 10, "linear solver failure")                                    \
  X(ETOOBIG, 11, "problem too large for this method")                        \
  X(EOVERFLOW, 12, "size overflow")                                         \
  X(ENOCONV, 13, "a solve inside the call did not succeed")

enum {
/** @cond */
#define CPK_ERRNO_ENUM_(name, value, text) CPK_##name = value,
  CPK_ERRNO_MAP(CPK_ERRNO_ENUM_)
#undef CPK_ERRNO_ENUM_
/** @endcond */
};

/** Message for an error code ("unknown error" for codes not in the list). */
CPK_API const char *cpk_strerror(int code);
/** Symbolic name of an error code ("CPK_EINVAL"), or "CPK_UNKNOWN". */
CPK_API const char *cpk_errname(int code);

/**
 * Detail of a failed call, filled by functions that take a `cpk_error *`
 * (NULL is always accepted and means "no detail wanted"). Parsers write
 * messages of the form `file:line: what is wrong`.
 */
typedef struct cpk_error {
  int code;           /**< the error code returned by the call */
  char message[512];  /**< human-readable detail, NUL-terminated */
} cpk_error;

/** Fill `err` (if not NULL) with `code` and a printf-style message; returns `code`. */
CPK_API int cpk_error_set(cpk_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Reset `err` (if not NULL) to CPK_OK with an empty message. */
CPK_API void cpk_error_clear(cpk_error *err);

CPK_END_DECLS
#endif
