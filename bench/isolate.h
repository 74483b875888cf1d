/* isolate.h: run one benchmark measurement in a forked child, so its time and peak memory are its own. */
#ifndef CPK_BENCH_ISOLATE_H
#define CPK_BENCH_ISOLATE_H
#include <stddef.h>

/** A measurement: reads `args`, fills `record` (a plain struct, no pointers). */
typedef void (*cpk_bench_job)(const void *args, void *record);

/**
 * Run job(args, record) in a child process; the child's record (`size` bytes)
 * comes back through a pipe together with the child's peak resident memory
 * (*peak_mb). Returns 0, or -1 if the child could not run or did not finish.
 */
int cpk_bench_isolated(cpk_bench_job job, const void *args, void *record, size_t size,
                       double *peak_mb);

/** Least-squares slope of log(y) against log(x) (NaN for fewer than 2 points). */
double cpk_bench_loglog_slope(const double *x, const double *y, size_t m);
#endif
