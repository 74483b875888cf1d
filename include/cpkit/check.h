/** check.h: existence and uniqueness checks: matrix classes, what they imply, solution counts, contact conditions. @file */
#ifndef CPKIT_CHECK_H
#define CPKIT_CHECK_H
#include <stddef.h>
#include <stdio.h>
#include <cpkit/export.h>
#include <cpkit/errors.h>
#include <cpkit/matrix.h>
#include <cpkit/problem.h>
#include <cpkit/contact.h>

CPK_BEGIN_DECLS

/** Verdict on one condition. "implies" lines state a consequence of verdicts above them. */
typedef enum cpk_verdict {
  CPK_VERDICT_HOLDS = 0,       /**< "holds": the condition was decided true */
  CPK_VERDICT_FAILS = 1,       /**< "fails": decided false (the reason names a witness) */
  CPK_VERDICT_NOT_DECIDED = 2, /**< "not decided": too large, or a degenerate case the test cannot settle */
  CPK_VERDICT_IMPLIES = 3      /**< "implies": a guarantee that follows from the verdicts above */
} cpk_verdict;

/** "holds", "fails", "not decided", "implies". */
CPK_API const char *cpk_verdict_name(cpk_verdict v);

/** One line of the report. `name` is a stable identifier (e.g. "p_matrix"), `reason` one line for a person. */
typedef struct cpk_check_entry {
  char name[40];       /**< stable identifier, e.g. "p_matrix" */
  cpk_verdict verdict;  /**< what the check decided */
  char reason[320];    /**< one line for a person */
} cpk_check_entry;

/**
 * A report: the entries in the order they were decided, and, when the
 * solution count ran, the solutions found (nsolutions * n values, row-major).
 */
typedef struct cpk_check_report {
  size_t count, /**< entries used */ capacity; /**< entries allocated */
  cpk_check_entry *entries; /**< count entries, in the order they were decided */
  size_t n;             /**< size of the checked matrix/problem (0 before any check) */
  size_t nsolutions;    /**< solutions found by the count (0 when it did not run) */
  double *solutions;    /**< nsolutions * n values, row-major */
  double time_s;        /**< wall time of the checks */
} cpk_check_report;

/** Settings of the checks: fill with cpk_check_settings_default(). */
typedef struct cpk_check_settings {
  size_t max_n;      /**< exponential tests (P, P0, copositivity, R0, enumeration) refuse n > max_n; default 20 */
  double rel_tol;    /**< tolerance relative to ||M||: eigenvalues, pivots, signs; default 1e-10 */
  int count_solutions; /**< 1 (default): count the solutions of the problem by enumeration when n <= max_n */
} cpk_check_settings;

/** Defaults: max_n 20, rel_tol 1e-10, count_solutions 1. */
CPK_API void cpk_check_settings_default(cpk_check_settings *s);

/** An empty report (CPK_ENOMEM when out of memory). */
CPK_API int cpk_check_report_alloc(cpk_check_report **out);
/** Free (NULL is a no-op). */
CPK_API void cpk_check_report_free(cpk_check_report *r);
/** Append one entry (the reason is printf-formatted and truncated to one line). */
CPK_API int cpk_check_report_add(cpk_check_report *r, const char *name, cpk_verdict v,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/** The first entry called `name`, or NULL. */
CPK_API const cpk_check_entry *cpk_check_report_find(const cpk_check_report *r, const char *name);

/**
 * Matrix classes of the n-by-n M: diagonal dominance, symmetric part PD/PSD,
 * P, P0, copositive, strictly copositive, copositive-plus, R0. Entries named
 * "diag_dominant", "sym_pd", "sym_psd", "p_matrix", "p0_matrix", "copositive",
 * "strictly_copositive", "copositive_plus", "r0". s may be NULL (defaults).
 */
CPK_API int cpk_check_matrix_classes(const cpk_matrix *M, const cpk_check_settings *s,
                                     cpk_check_report *r, cpk_error *err);

/**
 * What the verdicts already in r guarantee for LCP(q, M) ("lcp" = 1) or the
 * box MCP ("lcp" = 0): entries "implies_existence", "implies_uniqueness",
 * "implies_lemke" (only the ones that follow are added).
 */
CPK_API int cpk_check_implications(cpk_check_report *r, int lcp);

/**
 * Exact solution count of an affine problem by the `enum` solver: entry
 * "solution_count" holds with reason "none", "exactly one" or "several (k)";
 * the solutions go to r->solutions. Not decided for n > max_n.
 */
CPK_API int cpk_check_solution_count(const cpk_problem *p, const cpk_check_settings *s,
                                     cpk_check_report *r, cpk_error *err);

/** All checks of an affine problem: classes of M, implications, solution count. */
CPK_API int cpk_check_problem(const cpk_problem *p, const cpk_check_settings *s,
                              cpk_check_report *r, cpk_error *err);

/**
 * Seed 000 Theorem 1 conditions on a contact system in body form: rank of J
 * (all wrench columns), PD of A = J' M^-1 J; at h = 0 the friction bounds of
 * part (A) on the sliding-contact matrix and part (B) when every contact
 * rolls; for model "polyhedral" at h > 0 the Stewart-Trinkle sign condition;
 * then the problem compiled with `model` (may be NULL) is checked like
 * cpk_check_problem. Entries "jacobian_rank", "delassus_pd", "theorem1_a",
 * "friction_bound", "friction_bound_pd", "friction_bound_p", "friction_check",
 * "theorem1_b", "stewart_trinkle" (see doc/check.md). s may be NULL.
 */
CPK_API int cpk_check_contact(const cpk_contact_system *sys, const char *model,
                              const cpk_check_settings *s, cpk_check_report *r, cpk_error *err);

/** Print one line per entry, verdict first, then the solutions found. */
CPK_API int cpk_check_report_print(FILE *f, const cpk_check_report *r);
/** The report as one JSON object (malloc'd string, caller frees): {"n", "entries": [{name, verdict, reason}], "solutions"}. */
CPK_API int cpk_check_report_json(const cpk_check_report *r, char **out);

CPK_END_DECLS
#endif
