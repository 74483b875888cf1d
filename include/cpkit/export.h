/** export.h: the CPK_API symbol-visibility macro used by every public header. @file */
#ifndef CPKIT_EXPORT_H
#define CPKIT_EXPORT_H

/* The library is built with -fvisibility=hidden; only CPK_API symbols are exported. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define CPK_API __attribute__((visibility("default")))
#else
#define CPK_API
#endif

#ifdef __cplusplus
#define CPK_BEGIN_DECLS extern "C" {
#define CPK_END_DECLS }
#else
#define CPK_BEGIN_DECLS
#define CPK_END_DECLS
#endif

#endif
