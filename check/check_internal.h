/* check_internal.h: helpers shared by the files of the check module (not installed). */
#ifndef CPKIT_CHECK_INTERNAL_H
#define CPKIT_CHECK_INTERNAL_H
#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <cpkit/check.h>

/* The data every class test reads: M and its symmetric part, dense, and the absolute tolerance. */
typedef struct chk_data {
  size_t n;
  gsl_matrix *M;   /* dense copy of M */
  gsl_matrix *S;   /* (M + M') / 2 */
  double norm;     /* ||M||_inf */
  double tol;      /* rel_tol * ||M||_inf */
  size_t max_n;
} chk_data;

/* Verdicts decided so far, so later tests can use cheaper sufficient conditions. */
typedef struct chk_known {
  int sym_pd, sym_psd, p, copositive, strictly_copositive; /* 1 holds, 0 fails, -1 unknown */
} chk_known;

/* Format the indices set in the bit mask (1-based) as "{1,3}" into buf. */
void chk_format_set(char *buf, size_t size, unsigned long mask, size_t n);
/* Format a vector (up to 8 entries) as "(0.5, 1)" into buf. */
void chk_format_vec(char *buf, size_t size, const double *x, size_t n);
/* Copy the principal submatrix of A on the indices in mask into the top-left of B (k x k). */
size_t chk_principal(const gsl_matrix *A, unsigned long mask, gsl_matrix *B, size_t *idx);

int chk_copositivity(const chk_data *d, chk_known *k, cpk_check_report *r);
int chk_copositive_plus(const chk_data *d, const chk_known *k, cpk_check_report *r);
int chk_r0(const chk_data *d, const chk_known *k, cpk_check_report *r);

/* Contact conditions (friction_bound.c, rolling_condition.c, stewart_trinkle.c). */
int chk_theorem1_a(const cpk_contact_system *sys, const cpk_csc *A, const double *b, int pd,
                   const cpk_check_settings *s, cpk_check_report *r);
int chk_theorem1_b(const cpk_contact_system *sys, const double *b, size_t nsliding, int pd,
                   cpk_check_report *r);
int chk_stewart_trinkle(const cpk_contact_system *sys, cpk_check_report *r);

#endif
