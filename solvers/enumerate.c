/* enumerate.c: PLACEHOLDER, being written. */
#include <cpkit/solver.h>
static int a_(void **st, const cpk_problem *p, const cpk_settings *s, cpk_error *e) { (void)st; (void)p; (void)s; (void)e; return CPK_EUNSUP; }
static int s_(void *st, const cpk_problem *p, const cpk_settings *s, cpk_monitor *m, cpk_result *r) { (void)st; (void)p; (void)s; (void)m; (void)r; return CPK_EUNSUP; }
static void f_(void *st) { (void)st; }
static const cpk_solver_type t_ = {"enum", "placeholder", CPK_KIND_LCP, NULL, a_, s_, f_};
const cpk_solver_type *cpk_solver_enum = &t_;
