/* linsys_umfpack.c: PLACEHOLDER, being written. */
#include <cpkit/linsys.h>
static int a_(void **s, size_t n) { (void)s; (void)n; return CPK_EUNSUP; }
static int f_(void *s, const cpk_csc *A) { (void)s; (void)A; return CPK_EUNSUP; }
static int s_(void *s, double *x, int t) { (void)s; (void)x; (void)t; return CPK_EUNSUP; }
static void st_(const void *s, cpk_linsys_stats *st) { (void)s; (void)st; }
static void fr_(void *s) { (void)s; }
static const cpk_linsys_type t_ = {"umfpack", a_, f_, s_, NULL, st_, fr_};
const cpk_linsys_type *cpk_linsys_umfpack = &t_;
