/* contact_system.c: the contact system object: construction (body and local form), contacts, validation, rigid-body wrenches. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/contact.h>
#include <cpkit/util.h>

void cpk_contact_params_default(cpk_contact_params *p)
{
  memset(p, 0, sizeof *p);
  p->e_t = 1.0;
  p->e_o = 1.0;
  p->delta_max = INFINITY;
}

static int all_finite(const double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* Grow an array to hold at least `need` items of `size` bytes (doubling). */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap) return CPK_OK;
  size_t c = *cap ? *cap : 32, bytes; /* 32: a stepper's few contacts (their 6-12 rows each) in one go */
  while (c < need) {
    if (c > ((size_t)-1) / 2) return CPK_EOVERFLOW;
    c *= 2;
  }
  if (cpk_size_mul(c, size, &bytes)) return CPK_EOVERFLOW;
  void *p = realloc(*arr, bytes);
  if (!p) return CPK_ENOMEM;
  *arr = p;
  *cap = c;
  return CPK_OK;
}

static int check_params(const cpk_contact_params *p, size_t i, cpk_error *err)
{
  if (!isfinite(p->psi) || !isfinite(p->mu) || p->mu < 0)
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): psi must be finite and mu >= 0", i + 1);
  if (!(p->e_t > 0) || !(p->e_o > 0) || !(p->e_r >= 0) || !isfinite(p->e_t) || !isfinite(p->e_o) ||
      !isfinite(p->e_r))
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): need e_t > 0, e_o > 0, e_r >= 0", i + 1);
  if (!all_finite(p->drift, 4))
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): drift must be finite", i + 1);
  if (p->ndirections > 0 && (!p->directions || !all_finite(p->directions, 3 * p->ndirections)))
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): directions missing or not finite", i + 1);
  if (p->ndirections > 1000000)
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): too many directions", i + 1);
  if (!p->compliant) return CPK_OK;
  if (!all_finite(p->K, 9) || !all_finite(p->C, 9) || !all_finite(p->delta_prev, 3) ||
      !(p->delta_max > 0))
    return cpk_error_set(err, CPK_EINVAL,
                         "contact %zu (1-based): compliance needs finite K, C, delta_prev and delta_max > 0",
                         i + 1);
  return CPK_OK;
}

static cpk_contact_system *system_new(cpk_system_form form, double h)
{
  cpk_contact_system *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->form = form;
  s->h = h;
  s->wptr = calloc(1, sizeof *s->wptr);
  if (!s->wptr) {
    free(s);
    return NULL;
  }
  return s;
}

static int symmetric(const cpk_csc *M)
{
  for (cpk_int j = 0; j < M->n; j++)
    for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++) {
      cpk_int i = M->i[k], lo = M->p[i], hi = M->p[i + 1] - 1;
      double other = 0.0;
      while (lo <= hi) { /* binary search for (j, i) in column i */
        cpk_int mid = lo + (hi - lo) / 2;
        if (M->i[mid] == j) {
          other = M->x[mid];
          break;
        }
        if (M->i[mid] < j)
          lo = mid + 1;
        else
          hi = mid - 1;
      }
      double a = fabs(M->x[k]), b = fabs(other);
      double scale = a > b ? a : b; /* fmax without its library call (M is finite here) */
      if (fabs(M->x[k] - other) > 1e-12 * scale) return 0;
    }
  return 1;
}

static int check_mass(size_t nv, const cpk_csc *M, cpk_error *err)
{
  if (!M || M->m != (cpk_int)nv || M->n != (cpk_int)nv || cpk_csc_check(M))
    return cpk_error_set(err, CPK_EINVAL, "M must be a valid %zu x %zu sorted CSC matrix", nv, nv);
  if (!all_finite(M->x, (size_t)M->p[M->n]))
    return cpk_error_set(err, CPK_EINVAL, "M has a non-finite entry");
  if (!symmetric(M)) return cpk_error_set(err, CPK_EINVAL, "M is not symmetric");
  for (cpk_int j = 0; j < M->n; j++) {
    double d = 0.0;
    for (cpk_int k = M->p[j]; k < M->p[j + 1]; k++)
      if (M->i[k] == j) d = M->x[k];
    if (!(d > 0))
      return cpk_error_set(err, CPK_EINVAL, "M(%lld,%lld) = %g: the diagonal must be positive",
                           (long long)j + 1, (long long)j + 1, d);
  }
  return CPK_OK;
}

static double *copy_or_zero(const double *x, size_t n)
{
  double *y = cpk_calloc_array(n, sizeof *y);
  if (y && x) memcpy(y, x, n * sizeof *x);
  return y;
}

/* The data of a body-form system, checked (cpk_contact_system_alloc_body's rules). */
static int check_body(size_t nv, const cpk_csc *M, const double *v, const double *k, double h,
                      cpk_error *err)
{
  if (nv == 0 || nv > ((size_t)1 << 40))
    return cpk_error_set(err, CPK_EINVAL, "nv = %zu is out of range", nv);
  if (!(h >= 0) || !isfinite(h)) return cpk_error_set(err, CPK_EINVAL, "h must be finite and >= 0");
  int rc = check_mass(nv, M, err);
  if (rc) return rc;
  if ((v && !all_finite(v, nv)) || (k && !all_finite(k, nv)))
    return cpk_error_set(err, CPK_EINVAL, "v and k must be finite");
  return CPK_OK;
}

int cpk_contact_system_alloc_body(size_t nv, const cpk_csc *M, const double *v, const double *k,
                                  double h, cpk_contact_system **out, cpk_error *err)
{
  *out = NULL;
  int rc = check_body(nv, M, v, k, h, err);
  if (rc) return rc;
  cpk_contact_system *s = system_new(CPK_SYSTEM_BODY, h);
  if (!s) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->nv = nv;
  rc = cpk_csc_copy(M, &s->M);
  s->v = copy_or_zero(v, nv);
  s->k = copy_or_zero(k, nv);
  if (rc || !s->v || !s->k) {
    cpk_contact_system_free(s);
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  }
  *out = s;
  return CPK_OK;
}

static int same_pattern(const cpk_csc *A, const cpk_csc *B)
{
  return A->m == B->m && A->n == B->n && A->p[A->n] == B->p[B->n] &&
         memcmp(A->p, B->p, ((size_t)A->n + 1) * sizeof *A->p) == 0 &&
         memcmp(A->i, B->i, (size_t)A->p[A->n] * sizeof *A->i) == 0;
}

/* y = x, or zeros when x is NULL (copy_or_zero into an existing array). */
static void copy_into(double *y, const double *x, size_t n)
{
  if (x)
    memcpy(y, x, n * sizeof *x);
  else
    memset(y, 0, n * sizeof *y);
}

/* No contacts, directions, name or influence matrix, as a new system; arrays kept. */
static void forget_contacts(cpk_contact_system *s)
{
  s->nc = 0;
  s->wptr[0] = 0;
  s->ndirs_total = 0;
  free(s->name);
  cpk_csc_free(s->influence);
  free(s->u0);
  s->name = NULL;
  s->influence = NULL;
  s->u0 = NULL;
}

int cpk_contact_system_reset_body(cpk_contact_system *s, size_t nv, const cpk_csc *M,
                                  const double *v, const double *k, double h, cpk_error *err)
{
  if (!s || s->form != CPK_SYSTEM_BODY)
    return cpk_error_set(err, CPK_EINVAL, "only a body-form system is reset");
  int rc = check_body(nv, M, v, k, h, err);
  if (rc) return rc;
  int keep_M = s->M && same_pattern(M, s->M), keep_v = nv == s->nv;
  cpk_csc *M2 = NULL; /* everything new is allocated before s changes */
  double *v2 = keep_v ? NULL : cpk_alloc_array(nv, sizeof *v2);
  double *k2 = keep_v ? NULL : cpk_alloc_array(nv, sizeof *k2);
  if ((!keep_M && cpk_csc_copy(M, &M2)) || (!keep_v && (!v2 || !k2))) {
    cpk_csc_free(M2);
    free(v2);
    free(k2);
    return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  }
  if (keep_M) memcpy(s->M->x, M->x, (size_t)M->p[M->n] * sizeof *M->x);
  else {
    cpk_csc_free(s->M);
    s->M = M2;
  }
  if (!keep_v) {
    free(s->v);
    free(s->k);
    s->v = v2;
    s->k = k2;
  }
  copy_into(s->v, v, nv);
  copy_into(s->k, k, nv);
  s->nv = nv;
  s->h = h;
  forget_contacts(s);
  return CPK_OK;
}

static int local_defaults(cpk_contact_system *s, size_t nc, const double *mu, cpk_error *err)
{
  s->contacts = cpk_alloc_array(nc, sizeof *s->contacts);
  size_t *wptr = realloc(s->wptr, (nc + 1) * sizeof *wptr);
  if (wptr) s->wptr = wptr; /* on failure the old block stays s's, freed with it */
  if (!s->contacts || !wptr) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->cap_contacts = nc;
  s->nc = nc;
  for (size_t i = 0; i <= nc; i++) s->wptr[i] = 0;
  for (size_t i = 0; i < nc; i++) {
    cpk_contact_params_default(&s->contacts[i]);
    if (mu) s->contacts[i].mu = mu[i];
    if (!(s->contacts[i].mu >= 0) || !isfinite(s->contacts[i].mu))
      return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): mu must be finite and >= 0", i + 1);
  }
  return CPK_OK;
}

int cpk_contact_system_alloc_local(size_t nc, size_t dim, const cpk_csc *W, const double *q,
                                   const double *mu, double h, cpk_contact_system **out,
                                   cpk_error *err)
{
  size_t m;
  *out = NULL;
  if (dim != 3 && dim != 4) return cpk_error_set(err, CPK_EINVAL, "dim must be 3 or 4");
  if (nc == 0 || cpk_size_mul(nc, dim, &m) || m > ((size_t)1 << 40))
    return cpk_error_set(err, CPK_EINVAL, "number of contacts %zu out of range", nc);
  if (!(h > 0) || !isfinite(h)) return cpk_error_set(err, CPK_EINVAL, "h must be finite and > 0");
  if (!W || W->m != (cpk_int)m || W->n != (cpk_int)m || cpk_csc_check(W))
    return cpk_error_set(err, CPK_EINVAL, "W must be a valid %zu x %zu sorted CSC matrix", m, m);
  if (!all_finite(W->x, (size_t)W->p[W->n]) || !q || !all_finite(q, m))
    return cpk_error_set(err, CPK_EINVAL, "W and q must be finite");
  cpk_contact_system *s = system_new(CPK_SYSTEM_LOCAL, h);
  if (!s) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s->dim = dim;
  int rc = local_defaults(s, nc, mu, err);
  if (!rc && (cpk_csc_copy(W, &s->W) || !(s->q = copy_or_zero(q, m))))
    rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
  if (rc) {
    cpk_contact_system_free(s);
    return rc;
  }
  *out = s;
  return CPK_OK;
}

/* Store the contact's directions in s->dirs; a reallocation moves every contact's pointer along. */
static int store_directions(cpk_contact_system *s, cpk_contact_params *dst,
                            const cpk_contact_params *src)
{
  dst->directions = NULL;
  dst->ndirections = src->ndirections;
  if (src->ndirections == 0) return CPK_OK;
  size_t need = s->ndirs_total + 3 * src->ndirections, old_cap = s->cap_dirs;
  double *old = s->dirs;
  const double *from = src->directions;
  /* The caller may pass a contact's own params back: its directions live in s->dirs. */
  uintptr_t a = (uintptr_t)from, lo = (uintptr_t)old, hi = (uintptr_t)(old + s->ndirs_total);
  size_t inside = old && a >= lo && a < hi ? (size_t)(from - old) : (size_t)-1;
  int rc = grow((void **)&s->dirs, &s->cap_dirs, need, sizeof *s->dirs);
  if (rc) return rc;
  if (inside != (size_t)-1) from = s->dirs + inside;
  if (s->dirs != old && old_cap > 0)
    for (size_t c = 0; c < s->nc; c++)
      if (&s->contacts[c] != dst && s->contacts[c].ndirections > 0)
        s->contacts[c].directions = s->dirs + (s->contacts[c].directions - old);
  memcpy(s->dirs + s->ndirs_total, from, 3 * src->ndirections * sizeof *s->dirs);
  dst->directions = s->dirs + s->ndirs_total;
  s->ndirs_total = need;
  return CPK_OK;
}

int cpk_contact_set_params(cpk_contact_system *s, size_t i, const cpk_contact_params *params,
                           cpk_error *err)
{
  if (!s || !params || i >= s->nc) return cpk_error_set(err, CPK_EINVAL, "no contact %zu (1-based)", i + 1);
  int rc = check_params(params, i, err);
  if (rc) return rc;
  cpk_contact_params copy = *params;
  rc = store_directions(s, &copy, params);
  if (rc) return cpk_error_set(err, rc, "contact %zu (1-based): %s", i + 1, cpk_strerror(rc));
  s->contacts[i] = copy;
  return CPK_OK;
}

/* Copy the contact's rows sorted, with their four values, after the existing ones. The
 * rows are distinct (check_rows) and few: sorted by insertion, which costs less than
 * qsort's calls for a stepper's 6-12 rows and is no worse than the quadratic loops
 * around it for many. */
static void store_rows(cpk_contact_system *s, size_t nrows, const cpk_int *rows, const double *w[4])
{
  size_t base = s->wptr[s->nc];
  cpk_int *out = s->wrow + base;
  for (size_t k = 0; k < nrows; k++) {
    size_t at = k;
    for (; at > 0 && out[at - 1] > rows[k]; at--) out[at] = out[at - 1];
    out[at] = rows[k];
  }
  for (size_t k = 0; k < nrows; k++) {
    size_t src = 0;
    while (rows[src] != s->wrow[base + k]) src++; /* rows are few per contact */
    for (int a = 0; a < 4; a++) s->wval[4 * (base + k) + a] = w[a] ? w[a][src] : 0.0;
  }
}

static int check_rows(const cpk_contact_system *s, size_t nrows, const cpk_int *rows,
                      const double *w[4], cpk_error *err)
{
  size_t c = s->nc + 1;
  if (nrows == 0 || !rows || !w[0])
    return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): at least one row, and W_n, are required",
                         c);
  for (size_t k = 0; k < nrows; k++) {
    if (rows[k] < 0 || (size_t)rows[k] >= s->nv)
      return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): row %lld out of range 1..%zu", c,
                           (long long)rows[k] + 1, s->nv);
    for (size_t l = 0; l < k; l++)
      if (rows[l] == rows[k])
        return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): row %lld given twice", c,
                             (long long)rows[k] + 1);
    for (int a = 0; a < 4; a++)
      if (w[a] && !isfinite(w[a][k]))
        return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): non-finite wrench entry", c);
  }
  return CPK_OK;
}

int cpk_contact_system_add_contact(cpk_contact_system *s, const cpk_contact_params *params,
                                   size_t nrows, const cpk_int *rows, const double *wn,
                                   const double *wt, const double *wo, const double *wr,
                                   cpk_error *err)
{
  const double *w[4] = {wn, wt, wo, wr};
  if (!s || !params || s->form != CPK_SYSTEM_BODY)
    return cpk_error_set(err, CPK_EINVAL, "contacts are added to body-form systems only");
  if (nrows > s->nv) return cpk_error_set(err, CPK_EINVAL, "contact has more rows than nv");
  int rc = check_rows(s, nrows, rows, w, err);
  if (!rc) rc = check_params(params, s->nc, err);
  if (rc) return rc;
  size_t need_rows = s->wptr[s->nc] + nrows, cap_rows = s->cap_rows, cap_c = s->cap_contacts;
  rc = grow((void **)&s->contacts, &s->cap_contacts, s->nc + 1, sizeof *s->contacts);
  if (!rc) rc = grow((void **)&s->wrow, &cap_rows, need_rows, sizeof *s->wrow);
  if (!rc) rc = grow((void **)&s->wval, &s->cap_rows, need_rows, 4 * sizeof *s->wval);
  if (!rc && s->cap_contacts != cap_c) {
    size_t *p = realloc(s->wptr, (s->cap_contacts + 1) * sizeof *p);
    if (p)
      s->wptr = p;
    else
      rc = CPK_ENOMEM;
  }
  if (!rc && cap_rows != s->cap_rows) rc = CPK_ENOMEM; /* both arrays grow in step */
  cpk_contact_params copy = *params;
  if (!rc) rc = store_directions(s, &copy, params);
  if (rc) return cpk_error_set(err, rc, "adding contact %zu (1-based): %s", s->nc + 1, cpk_strerror(rc));
  store_rows(s, nrows, rows, w);
  s->contacts[s->nc] = copy;
  s->wptr[s->nc + 1] = need_rows;
  s->nc++;
  return CPK_OK;
}

int cpk_contact_system_set_name(cpk_contact_system *s, const char *name)
{
  char *copy = NULL;
  if (name && !(copy = cpk_strdup(name))) return CPK_ENOMEM;
  free(s->name);
  s->name = copy;
  return CPK_OK;
}

void cpk_contact_system_free(cpk_contact_system *s)
{
  if (!s) return;
  free(s->name);
  free(s->contacts);
  cpk_csc_free(s->M);
  free(s->v);
  free(s->k);
  free(s->wptr);
  free(s->wrow);
  free(s->wval);
  cpk_csc_free(s->W);
  free(s->q);
  cpk_csc_free(s->influence);
  free(s->u0);
  free(s->dirs);
  free(s);
}

/* The influence matrix must follow nc: contacts added after it was set make it stale. */
static int check_influence(const cpk_contact_system *s, const cpk_csc *G, const double *u0,
                           cpk_error *err)
{
  size_t m;
  if (cpk_size_mul(s->nc, 3, &m) || !G || G->m != (cpk_int)m || G->n != (cpk_int)m ||
      cpk_csc_check(G))
    return cpk_error_set(err, CPK_EINVAL,
                         "the influence matrix must be a valid %zu x %zu sorted CSC matrix "
                         "(3 rows and columns per contact)",
                         3 * s->nc, 3 * s->nc);
  if (!all_finite(G->x, (size_t)G->p[G->n]) || (u0 && !all_finite(u0, m)))
    return cpk_error_set(err, CPK_EINVAL, "the influence matrix and u0 must be finite");
  return CPK_OK;
}

int cpk_contact_system_set_compliance_matrix(cpk_contact_system *s, const cpk_csc *G,
                                             const double *u0, cpk_error *err)
{
  cpk_csc *copy = NULL;
  double *u = NULL;
  if (!s) return cpk_error_set(err, CPK_EINVAL, "no system");
  if (G) {
    int rc = check_influence(s, G, u0, err);
    if (rc) return rc;
    if (cpk_csc_copy(G, &copy) || !(u = copy_or_zero(u0, 3 * s->nc))) {
      cpk_csc_free(copy);
      return cpk_error_set(err, CPK_ENOMEM, "out of memory");
    }
  }
  cpk_csc_free(s->influence);
  free(s->u0);
  s->influence = copy;
  s->u0 = u;
  return CPK_OK;
}

int cpk_contact_system_validate(const cpk_contact_system *s, cpk_error *err)
{
  if (!s) return cpk_error_set(err, CPK_EINVAL, "no system");
  if (!(s->h >= 0) || !isfinite(s->h)) return cpk_error_set(err, CPK_EINVAL, "h must be >= 0");
  if (s->form == CPK_SYSTEM_LOCAL) {
    size_t m = s->dim * s->nc;
    if ((s->dim != 3 && s->dim != 4) || !s->W || s->W->n != (cpk_int)m || !s->q || !(s->h > 0))
      return cpk_error_set(err, CPK_EINVAL, "inconsistent local-form system");
  } else {
    int rc = check_mass(s->nv, s->M, err);
    if (rc) return rc;
    if (!all_finite(s->v, s->nv) || !all_finite(s->k, s->nv))
      return cpk_error_set(err, CPK_EINVAL, "v and k must be finite");
  }
  for (size_t i = 0; i < s->nc; i++) {
    int rc = check_params(&s->contacts[i], i, err);
    if (rc) return rc;
  }
  if (s->influence && (!s->u0 || check_influence(s, s->influence, s->u0, NULL)))
    return cpk_error_set(err, CPK_EINVAL,
                         "the influence matrix does not match the %zu contacts (set it after "
                         "the last contact)",
                         s->nc);
  return CPK_OK;
}

static void cross(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void wrench(const double d[3], const double r[3], double w[6])
{
  w[0] = d[0];
  w[1] = d[1];
  w[2] = d[2];
  cross(r, d, w + 3);
}

int cpk_rigid_contact_wrenches(const double r[3], const double n[3], const double t[3],
                               double wn[6], double wt[6], double wo[6], double wr[6])
{
  double o[3], nn = 0, tt = 0, nt = 0;
  for (int a = 0; a < 3; a++) {
    nn += n[a] * n[a];
    tt += t[a] * t[a];
    nt += n[a] * t[a];
  }
  if (fabs(nn - 1) > 1e-9 || fabs(tt - 1) > 1e-9 || fabs(nt) > 1e-9 || !all_finite(r, 3))
    return CPK_EINVAL;
  cross(n, t, o);
  wrench(n, r, wn);
  wrench(t, r, wt);
  wrench(o, r, wo);
  for (int a = 0; a < 3; a++) {
    wr[a] = 0.0;
    wr[3 + a] = n[a];
  }
  return CPK_OK;
}
