/* friction_bound.c: seed 000 Theorem 1 (A): friction bounds for sliding contacts at the acceleration level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <cpkit/check.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "check_internal.h"

/* Friction bounds need one generalized eigenproblem per principal subset: keep that cheap. */
#define CHK_FRICTION_MAX_SUBSET 10

/* ---- part (A): friction bounds at the acceleration level ---------------------------------- */

/*
 * The normal-force problem with sliding friction substituted: contact j in K either slides
 * (its friction is -mu_j c_jn D_j, D_j the maximum-dissipation direction of its slip) or is
 * frictionless, so the normal accelerations of K are (S0 - S1 diag(mu)) c_n + q with
 * S0 = A_nn and S1_ij = A_{n_i, (t,o,r)_j} D_j. Rolling contacts with friction are not in K.
 */
typedef struct fb_data {
  size_t k, nrolling, nsliding;
  size_t *idx;  /* the contacts in K */
  double *mu;   /* their friction coefficients */
  gsl_matrix *S0, *S1;
  char rolling[96]; /* the rolling contacts with friction (1-based), for the report */
} fb_data;

static void fb_free(fb_data *f)
{
  free(f->idx);
  free(f->mu);
  gsl_matrix_free(f->S0);
  gsl_matrix_free(f->S1);
}

/* Maximum-dissipation direction of contact c's slip W'v (ellipsoid metric); returns the slip speed. */
static double slip_direction(const cpk_contact_system *s, size_t c, double D[3])
{
  const cpk_contact_params *p = &s->contacts[c];
  double u[3] = {0, 0, 0}, e2[3] = {p->e_t * p->e_t, p->e_o * p->e_o, p->e_r * p->e_r}, sp = 0;
  for (size_t k = s->wptr[c]; k < s->wptr[c + 1]; k++)
    for (int a = 0; a < 3; a++) u[a] += s->wval[4 * k + a + 1] * s->v[s->wrow[k]];
  for (int a = 0; a < 3; a++) sp += e2[a] * u[a] * u[a];
  sp = sqrt(sp);
  for (int a = 0; a < 3; a++) D[a] = sp > 0 ? e2[a] * u[a] / sp : 0.0;
  return sp;
}

static int fb_select(const cpk_contact_system *s, fb_data *f, double (*D)[3])
{
  size_t used = 0;
  f->idx = cpk_alloc_array(s->nc, sizeof *f->idx);
  f->mu = cpk_alloc_array(s->nc, sizeof *f->mu);
  if (!f->idx || !f->mu) return CPK_ENOMEM;
  for (size_t c = 0; c < s->nc; c++) {
    double Dc[3], sp = slip_direction(s, c, Dc);
    if (sp > 1e-9 || s->contacts[c].mu == 0) {
      if (sp <= 1e-9) Dc[0] = Dc[1] = Dc[2] = 0.0;
      f->nsliding += sp > 1e-9;
      memcpy(D[f->k], Dc, sizeof Dc);
      f->mu[f->k] = s->contacts[c].mu;
      f->idx[f->k++] = c;
    } else {
      f->nrolling++;
      if (used + 12 < sizeof f->rolling)
        used += (size_t)snprintf(f->rolling + used, sizeof f->rolling - used, "%s%zu",
                                 used ? "," : "", c + 1);
    }
  }
  return CPK_OK;
}

/* S0 and S1 read straight from the sparse A: only normal rows and the columns of K are touched. */
static int fb_build(const cpk_contact_system *s, const cpk_csc *A, fb_data *f)
{
  double (*D)[3] = cpk_alloc_array(s->nc, sizeof *D);
  size_t *pos = cpk_alloc_array(s->nc, sizeof *pos);
  int rc = D && pos ? fb_select(s, f, D) : CPK_ENOMEM;
  if (!rc && f->k) {
    f->S0 = gsl_matrix_calloc(f->k, f->k);
    f->S1 = gsl_matrix_calloc(f->k, f->k);
    if (!f->S0 || !f->S1) rc = CPK_ENOMEM;
  }
  for (size_t c = 0; !rc && c < s->nc; c++) pos[c] = (size_t)-1;
  for (size_t i = 0; !rc && i < f->k; i++) pos[f->idx[i]] = i;
  for (size_t col = 0; !rc && f->k && col < 4 * s->nc; col++) {
    size_t jj = pos[col / 4], a = col % 4;
    if (jj == (size_t)-1) continue;
    for (cpk_int p = A->p[col]; p < A->p[col + 1]; p++) {
      size_t row = (size_t)A->i[p], ii = pos[row / 4];
      if (row % 4 || ii == (size_t)-1) continue;
      if (a == 0) gsl_matrix_set(f->S0, ii, jj, A->x[p]);
      else *gsl_matrix_ptr(f->S1, ii, jj) += A->x[p] * D[jj][a - 1];
    }
  }
  free(D);
  free(pos);
  return rc;
}

/* what = 0: lowest eigenvalue of the symmetric B, 1: largest, 2: largest singular value of B. */
static int spectral(const gsl_matrix *B, int what, double *out)
{
  size_t n = B->size1;
  gsl_matrix *C = gsl_matrix_alloc(n, n), *V = gsl_matrix_alloc(n, n);
  gsl_vector *ev = gsl_vector_alloc(n);
  gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
  int rc = C && V && ev && w ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    gsl_matrix_memcpy(C, B);
    if (what == 2) {
      /* Jacobi: GSL's Golub-Reinsch SVD allocates inside, unchecked (see r0.c) */
      gsl_linalg_SV_decomp_jacobi(C, V, ev);
      *out = gsl_vector_max(ev);
    } else {
      gsl_eigen_symm(C, ev, w);
      *out = what == 0 ? gsl_vector_min(ev) : gsl_vector_max(ev);
    }
  }
  gsl_matrix_free(C);
  gsl_matrix_free(V);
  gsl_vector_free(ev);
  gsl_eigen_symm_free(w);
  return rc;
}

/* Largest uniform mu keeping sym(S0 - mu S1) PD: 1 / the largest eigenvalue of sym(S1) x = l S0 x. */
static int bound_pd(const fb_data *f, double *mu)
{
  size_t k = f->k;
  gsl_matrix *P = gsl_matrix_alloc(k, k), *Q = gsl_matrix_alloc(k, k);
  gsl_vector *ev = gsl_vector_alloc(k);
  gsl_eigen_gensymm_workspace *w = gsl_eigen_gensymm_alloc(k);
  int rc = P && Q && ev && w ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    for (size_t i = 0; i < k; i++)
      for (size_t j = 0; j < k; j++)
        gsl_matrix_set(P, i, j, 0.5 * (gsl_matrix_get(f->S1, i, j) + gsl_matrix_get(f->S1, j, i)));
    gsl_matrix_memcpy(Q, f->S0);
    if (gsl_eigen_gensymm(P, Q, ev, w)) rc = CPK_ESINGULAR;
    double lmax = rc ? 0.0 : gsl_vector_max(ev);
    *mu = lmax > 0 ? 1.0 / lmax : INFINITY;
  }
  gsl_matrix_free(P);
  gsl_matrix_free(Q);
  gsl_vector_free(ev);
  gsl_eigen_gensymm_free(w);
  return rc;
}

/*
 * Smallest mu > 0 at which det((S0 - mu S1)_aa) = 0, i.e. 1/l for the real l > 0 of S1 x = l S0 x.
 * A nearly real pair (rounding of a double root) counts as real: that errs towards a smaller bound.
 */
static int subset_first_zero(const gsl_matrix *S0a, const gsl_matrix *S1a, double *mu)
{
  size_t k = S0a->size1;
  gsl_matrix *P = gsl_matrix_alloc(k, k), *Q = gsl_matrix_alloc(k, k);
  gsl_vector_complex *alpha = gsl_vector_complex_alloc(k);
  gsl_vector *beta = gsl_vector_alloc(k);
  gsl_eigen_gen_workspace *w = gsl_eigen_gen_alloc(k);
  int rc = P && Q && alpha && beta && w ? CPK_OK : CPK_ENOMEM;
  if (!rc) {
    gsl_matrix_memcpy(P, S1a);
    gsl_matrix_memcpy(Q, S0a);
    if (gsl_eigen_gen(P, Q, alpha, beta, w)) rc = CPK_ESINGULAR;
    for (size_t i = 0; !rc && i < k; i++) {
      gsl_complex a = gsl_vector_complex_get(alpha, i);
      double b = gsl_vector_get(beta, i), re = GSL_REAL(a), im = GSL_IMAG(a);
      if (re * b > 0 && fabs(im) <= 1e-6 * fabs(re) && b / re < *mu) *mu = b / re;
    }
  }
  gsl_matrix_free(P);
  gsl_matrix_free(Q);
  gsl_vector_complex_free(alpha);
  gsl_vector_free(beta);
  gsl_eigen_gen_free(w);
  return rc;
}

/* Exact uniform P bound: the first zero of any principal minor of S0 - mu S1 (all positive at 0). */
static int bound_p(const fb_data *f, double *mu)
{
  size_t k = f->k, *idx = cpk_alloc_array(k, sizeof *idx);
  gsl_matrix *B0 = gsl_matrix_alloc(k, k), *B1 = gsl_matrix_alloc(k, k);
  int rc = idx && B0 && B1 ? CPK_OK : CPK_ENOMEM;
  *mu = INFINITY;
  for (unsigned long m = 1; !rc && m < 1UL << k; m++) {
    size_t a = chk_principal(f->S0, m, B0, idx);
    chk_principal(f->S1, m, B1, idx);
    gsl_matrix_view v0 = gsl_matrix_submatrix(B0, 0, 0, a, a);
    gsl_matrix_view v1 = gsl_matrix_submatrix(B1, 0, 0, a, a);
    rc = subset_first_zero(&v0.matrix, &v1.matrix, mu);
  }
  free(idx);
  gsl_matrix_free(B0);
  gsl_matrix_free(B1);
  return rc;
}

/* 1 if S0 - S1 diag(mu) is P at the system's own mu, 0 if not, -1 not decided; how in *how. */
static int actual_is_p(const fb_data *f, const cpk_check_settings *s, const char **how, int *rc)
{
  size_t k = f->k;
  cpk_matrix *M = NULL;
  cpk_check_report *r = NULL;
  *rc = cpk_matrix_alloc_dense(k, k, &M);
  if (!*rc) *rc = cpk_check_report_alloc(&r);
  int res = -1;
  if (!*rc) {
    for (size_t i = 0; i < k; i++)
      for (size_t j = 0; j < k; j++)
        gsl_matrix_set(M->dense, i, j,
                       gsl_matrix_get(f->S0, i, j) - gsl_matrix_get(f->S1, i, j) * f->mu[j]);
    cpk_check_settings def = *s;
    def.count_solutions = 0;
    *rc = cpk_check_matrix_classes(M, &def, r, NULL);
    const cpk_check_entry *e = cpk_check_report_find(r, "p_matrix");
    const cpk_check_entry *pd = cpk_check_report_find(r, "sym_pd");
    res = !e || e->verdict == CPK_VERDICT_NOT_DECIDED ? -1 : e->verdict == CPK_VERDICT_HOLDS;
    *how = pd && pd->verdict == CPK_VERDICT_HOLDS ? "its symmetric part is positive definite"
           : res == 1 ? "every principal minor is positive" : "a principal minor is not positive";
  }
  cpk_check_report_free(r);
  cpk_matrix_free(M);
  return res;
}

static const char *fmt_mu(char *buf, size_t size, double mu)
{
  if (isinf(mu)) snprintf(buf, size, "unbounded");
  else snprintf(buf, size, "%.6g", mu);
  return buf;
}

static int report_bounds(const fb_data *f, double mbox, double mpd, double mp, int have_p,
                         cpk_check_report *r)
{
  char b1[32], b2[32], b3[32];
  int rc = cpk_check_report_add(
      r, "friction_bound", CPK_VERDICT_HOLDS,
      "mu_bar = %s: for any mu_i in [0, mu_bar] on the %zu sliding contact(s) the sliding-contact "
      "matrix S0 - S1 diag(mu) has a positive definite symmetric part (mu_bar = lambda_min(S0) / "
      "||S1||_2, sufficient)", fmt_mu(b1, sizeof b1, mbox), f->nsliding);
  rc |= cpk_check_report_add(r, "friction_bound_pd", CPK_VERDICT_HOLDS,
                             "uniform mu: the symmetric part of S0 - mu S1 stays positive definite "
                             "for mu < %s (largest generalized eigenvalue of sym(S1) x = l S0 x)",
                             fmt_mu(b2, sizeof b2, mpd));
  if (have_p)
    rc |= cpk_check_report_add(r, "friction_bound_p", CPK_VERDICT_HOLDS,
                               "uniform mu: S0 - mu S1 is a P-matrix exactly for mu < %s (first "
                               "zero of a principal minor, over %lu subsets)",
                               fmt_mu(b3, sizeof b3, mp), (1UL << f->k) - 1);
  else
    rc |= cpk_check_report_add(r, "friction_bound_p", CPK_VERDICT_NOT_DECIDED,
                               "uniform mu: exact P bound not decided (%zu contacts in the "
                               "normal problem > %d)", f->k, CHK_FRICTION_MAX_SUBSET);
  return rc;
}

static int report_actual(const fb_data *f, const cpk_check_settings *s, double mbox, double mp,
                         cpk_check_report *r)
{
  char cmp[128], b1[32], b2[32];
  const char *how = "";
  double mu = 0;
  int rc = CPK_OK;
  for (size_t i = 0; i < f->k; i++) mu = fmax(mu, f->mu[i]);
  int res = actual_is_p(f, s, &how, &rc);
  if (rc) return rc;
  if (mu <= mbox) snprintf(cmp, sizeof cmp, "mu = %.6g <= mu_bar = %s", mu, fmt_mu(b1, sizeof b1, mbox));
  else snprintf(cmp, sizeof cmp, "mu = %.6g > mu_bar = %s; uniform P bound %s", mu,
                fmt_mu(b1, sizeof b1, mbox), isnan(mp) ? "not computed" : fmt_mu(b2, sizeof b2, mp));
  if (f->nrolling)
    return cpk_check_report_add(r, "friction_check", CPK_VERDICT_NOT_DECIDED,
                                "%s; the rolling contacts {%s} have friction and are not covered "
                                "by this test", cmp, f->rolling);
  if (res == 1)
    return cpk_check_report_add(r, "friction_check", CPK_VERDICT_HOLDS,
                                "%s: at the system's mu the sliding-contact matrix is P (%s): "
                                "exactly one solution for any applied force", cmp, how);
  if (res == 0)
    return cpk_check_report_add(r, "friction_check", CPK_VERDICT_FAILS,
                                "%s: at the system's mu the sliding-contact matrix is not P (%s): "
                                "existence and uniqueness are not guaranteed", cmp, how);
  return cpk_check_report_add(r, "friction_check", CPK_VERDICT_NOT_DECIDED,
                              "%s: P at the system's mu not decided (too many contacts)", cmp);
}

static int friction_bounds(const fb_data *f, const cpk_check_settings *s, cpk_check_report *r)
{
  double lmin = 0, smax = 0, mpd = INFINITY, mp = NAN;
  int have_p = f->k <= CHK_FRICTION_MAX_SUBSET;
  int rc = spectral(f->S0, 0, &lmin);
  if (!rc) rc = spectral(f->S1, 2, &smax);
  if (!rc) rc = bound_pd(f, &mpd);
  if (!rc && have_p) rc = bound_p(f, &mp);
  if (rc) return rc;
  double mbox = smax > 1e-12 * lmin ? lmin / smax : INFINITY;
  if (report_bounds(f, mbox, mpd, mp, have_p, r)) return CPK_ENOMEM;
  return report_actual(f, s, mbox, mp, r);
}

int chk_theorem1_a(const cpk_contact_system *sys, const cpk_csc *A, const double *b, int pd,
                  const cpk_check_settings *s, cpk_check_report *r)
{
  fb_data f;
  memset(&f, 0, sizeof f);
  int rc = fb_build(sys, A, &f);
  if (!rc && pd && f.nsliding) rc = friction_bounds(&f, s, r);
  else if (!rc && pd)
    rc = cpk_check_report_add(r, "friction_bound", CPK_VERDICT_NOT_DECIDED,
                              "no contact slides (W'v = 0 at every contact): the bound of part "
                              "(A) concerns sliding contacts; see part (B)");
  if (!rc) rc = chk_theorem1_b(sys, b, f.nsliding, pd, r);
  fb_free(&f);
  return rc ? CPK_ENOMEM : CPK_OK;
}
