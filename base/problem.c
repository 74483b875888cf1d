/* problem.c: construction, copy, validation and naming of the problem objects (box MCPs and the friction-cone problem). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/problem.h>
#include <cpkit/util.h>

static int problem_new(cpk_problem_kind kind, size_t n, const double *lower, const double *upper,
                       cpk_problem **out)
{
  cpk_problem *p = calloc(1, sizeof *p);
  *out = NULL;
  if (!p) return CPK_ENOMEM;
  p->kind = kind;
  p->n = n;
  p->lower = cpk_alloc_array(n, sizeof *p->lower);
  p->upper = cpk_alloc_array(n, sizeof *p->upper);
  if (!p->lower || !p->upper) {
    cpk_problem_free(p);
    return CPK_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    p->lower[i] = lower ? lower[i] : 0.0;
    p->upper[i] = upper ? upper[i] : INFINITY;
  }
  *out = p;
  return CPK_OK;
}

static int problem_affine(cpk_problem_kind kind, const cpk_matrix *M, const double *q,
                          const double *lower, const double *upper, cpk_problem **out)
{
  *out = NULL;
  if (!M || !q || M->m != M->n) return CPK_EINVAL;
  int rc = problem_new(kind, M->n, lower, upper, out);
  if (rc) return rc;
  cpk_problem *p = *out;
  rc = cpk_matrix_copy(M, &p->M);
  p->q = cpk_alloc_array(M->n, sizeof *p->q);
  if (rc || !p->q) {
    cpk_problem_free(p);
    *out = NULL;
    return rc ? rc : CPK_ENOMEM;
  }
  memcpy(p->q, q, M->n * sizeof *q);
  return CPK_OK;
}

int cpk_problem_alloc_lcp(const cpk_matrix *M, const double *q, cpk_problem **out)
{
  return problem_affine(CPK_KIND_LCP, M, q, NULL, NULL, out);
}

int cpk_problem_alloc_affine_mcp(const cpk_matrix *M, const double *q, const double *lower,
                                 const double *upper, cpk_problem **out)
{
  return problem_affine(CPK_KIND_AFFINE_MCP, M, q, lower, upper, out);
}

int cpk_problem_alloc_nonlinear_mcp(size_t n, cpk_function F, cpk_jacobian jacobian,
                                    const cpk_csc *jac_pattern, void *params, const double *lower,
                                    const double *upper, cpk_problem **out)
{
  *out = NULL;
  if (!F || !jacobian || !jac_pattern || jac_pattern->m != (cpk_int)n ||
      jac_pattern->n != (cpk_int)n || cpk_csc_check(jac_pattern))
    return CPK_EINVAL;
  int rc = problem_new(CPK_KIND_NONLINEAR_MCP, n, lower, upper, out);
  if (rc) return rc;
  (*out)->F = F;
  (*out)->jacobian = jacobian;
  (*out)->params = params;
  rc = cpk_csc_copy(jac_pattern, &(*out)->jac_pattern);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}

int cpk_problem_alloc_friction_cone(const cpk_matrix *W, const double *q, size_t dim,
                                    const double *mu, cpk_problem **out)
{
  *out = NULL;
  if (!W || !q || !mu || W->m != W->n || dim < 2 || dim > CPK_CONE_DIM_MAX || W->n % dim)
    return CPK_EINVAL;
  size_t nc = W->n / dim;
  int rc = problem_affine(CPK_KIND_FRICTION_CONE, W, q, NULL, NULL, out);
  if (rc) return rc;
  cpk_problem *p = *out;
  p->nc = nc;
  p->cone_dim = dim;
  if (!(p->mu = cpk_alloc_array(nc, sizeof *p->mu))) {
    cpk_problem_free(p);
    *out = NULL;
    return CPK_ENOMEM;
  }
  memcpy(p->mu, mu, nc * sizeof *mu);
  for (size_t i = 0; i < p->n; i++) /* the box relaxation: r_n >= 0, r_T free */
    p->lower[i] = i % dim == 0 ? 0.0 : -INFINITY;
  return CPK_OK;
}

static int copy_names(const cpk_problem *p, cpk_problem *c)
{
  int rc = cpk_problem_set_name(c, p->name);
  for (size_t i = 0; !rc && p->var_names && i < p->n; i++)
    if (p->var_names[i]) rc = cpk_problem_set_var_name(c, i, p->var_names[i]);
  return rc;
}

int cpk_problem_copy(const cpk_problem *p, cpk_problem **out)
{
  int rc;
  if (p->kind == CPK_KIND_NONLINEAR_MCP)
    rc = cpk_problem_alloc_nonlinear_mcp(p->n, p->F, p->jacobian, p->jac_pattern, p->params,
                                         p->lower, p->upper, out);
  else if (p->kind == CPK_KIND_FRICTION_CONE)
    rc = cpk_problem_alloc_friction_cone(p->M, p->q, p->cone_dim, p->mu, out);
  else
    rc = problem_affine(p->kind, p->M, p->q, p->lower, p->upper, out);
  if (!rc) rc = copy_names(p, *out);
  if (!rc && p->findex) rc = cpk_problem_set_friction_index(*out, p->findex, p->fcoef);
  if (!rc && p->row_scale) rc = cpk_problem_set_row_scale(*out, p->row_scale);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}

void cpk_problem_free(cpk_problem *p)
{
  if (!p) return;
  if (p->var_names)
    for (size_t i = 0; i < p->n; i++) free(p->var_names[i]);
  free(p->var_names);
  free(p->name);
  cpk_matrix_free(p->M);
  free(p->q);
  free(p->lower);
  free(p->upper);
  cpk_csc_free(p->jac_pattern);
  free(p->mu);
  free(p->findex);
  free(p->fcoef);
  free(p->row_scale);
  free(p);
}

int cpk_problem_set_name(cpk_problem *p, const char *name)
{
  char *copy = NULL;
  if (name && !(copy = cpk_strdup(name))) return CPK_ENOMEM;
  free(p->name);
  p->name = copy;
  return CPK_OK;
}

int cpk_problem_set_var_name(cpk_problem *p, size_t i, const char *name)
{
  if (i >= p->n) return CPK_EINVAL;
  if (!p->var_names && !(p->var_names = cpk_calloc_array(p->n, sizeof *p->var_names)))
    return CPK_ENOMEM;
  char *copy = NULL;
  if (name && !(copy = cpk_strdup(name))) return CPK_ENOMEM;
  free(p->var_names[i]);
  p->var_names[i] = copy;
  return CPK_OK;
}

const char *cpk_problem_kind_name(cpk_problem_kind kind)
{
  switch (kind) {
  case CPK_KIND_LCP: return "lcp";
  case CPK_KIND_AFFINE_MCP: return "affine_mcp";
  case CPK_KIND_NONLINEAR_MCP: return "nonlinear_mcp";
  case CPK_KIND_FRICTION_CONE: return "friction_cone";
  }
  return "unknown";
}

int cpk_problem_has_lcp_bounds(const cpk_problem *p)
{
  for (size_t i = 0; i < p->n; i++)
    if (p->lower[i] != 0.0 || p->upper[i] != INFINITY) return 0;
  return 1;
}

static int validate_bounds(const cpk_problem *p, cpk_error *err)
{
  for (size_t i = 0; i < p->n; i++) {
    double l = p->lower[i], u = p->upper[i];
    if (isnan(l) || isnan(u))
      return cpk_error_set(err, CPK_EINVAL, "bound of variable %zu (1-based) is NaN", i + 1);
    if (l > u)
      return cpk_error_set(err, CPK_EINVAL, "variable %zu (1-based): lower bound %g > upper bound %g", i + 1,
                           l, u);
    if (l == INFINITY || u == -INFINITY)
      return cpk_error_set(err, CPK_EINVAL, "variable %zu (1-based): infinite bound on the wrong side", i + 1);
  }
  if (p->kind == CPK_KIND_LCP && !cpk_problem_has_lcp_bounds(p))
    return cpk_error_set(err, CPK_EINVAL, "an LCP must have bounds 0 and +inf");
  return CPK_OK;
}

static int validate_cone(const cpk_problem *p, cpk_error *err)
{
  if (p->cone_dim < 2 || p->cone_dim > CPK_CONE_DIM_MAX || p->nc * p->cone_dim != p->n || !p->mu)
    return cpk_error_set(err, CPK_EINVAL, "friction-cone problem: n = %zu is not %zu contacts of %zu",
                         p->n, p->nc, p->cone_dim);
  for (size_t c = 0; c < p->nc; c++)
    if (!(p->mu[c] >= 0.0 && isfinite(p->mu[c])))
      return cpk_error_set(err, CPK_EINVAL, "contact %zu (1-based): friction coefficient %g must be finite and >= 0",
                           c + 1, p->mu[c]);
  return CPK_OK;
}

/* The conditions of cpk_problem_set_friction_index, on a candidate (findex, fcoef). */
static int findex_ok(const cpk_problem *p, const int *findex, const double *fcoef)
{
  if (p->kind != CPK_KIND_LCP && p->kind != CPK_KIND_AFFINE_MCP) return 0;
  for (size_t i = 0; i < p->n; i++) {
    int j = findex[i];
    if (j < 0) continue;
    if ((size_t)j >= p->n || (size_t)j == i || findex[j] >= 0 || !(p->lower[j] >= 0.0)) return 0;
    if (!(fcoef[i] >= 0.0 && isfinite(fcoef[i]))) return 0;
  }
  return 1;
}

int cpk_problem_set_friction_index(cpk_problem *p, const int *findex, const double *fcoef)
{
  if (!p || (p->kind != CPK_KIND_LCP && p->kind != CPK_KIND_AFFINE_MCP)) return CPK_EINVAL;
  if (!findex) {
    free(p->findex);
    free(p->fcoef);
    p->findex = NULL;
    p->fcoef = NULL;
    p->rev.bounds++;
    return CPK_OK;
  }
  if (!fcoef || !findex_ok(p, findex, fcoef)) return CPK_EINVAL;
  int *fi = cpk_alloc_array(p->n, sizeof *fi);
  double *fc = cpk_alloc_array(p->n, sizeof *fc);
  if (!fi || !fc) {
    free(fi);
    free(fc);
    return CPK_ENOMEM;
  }
  memcpy(fi, findex, p->n * sizeof *fi);
  for (size_t i = 0; i < p->n; i++) fc[i] = findex[i] >= 0 ? fcoef[i] : 0.0;
  free(p->findex);
  free(p->fcoef);
  p->findex = fi;
  p->fcoef = fc;
  p->kind = CPK_KIND_AFFINE_MCP;
  p->rev.bounds++;
  return CPK_OK;
}

int cpk_problem_validate(const cpk_problem *p, cpk_error *err)
{
  if (!p) return cpk_error_set(err, CPK_EINVAL, "no problem given");
  if (p->kind == CPK_KIND_NONLINEAR_MCP) {
    if (!p->F || !p->jacobian || !p->jac_pattern)
      return cpk_error_set(err, CPK_EINVAL, "nonlinear MCP without F, Jacobian or pattern");
  } else {
    if (!p->M || !p->q || p->M->m != p->n || p->M->n != p->n)
      return cpk_error_set(err, CPK_EINVAL, "M must be %zu-by-%zu", p->n, p->n);
    if (!cpk_matrix_is_finite(p->M))
      return cpk_error_set(err, CPK_EINVAL, "M has a NaN or infinite entry");
    for (size_t i = 0; i < p->n; i++)
      if (!isfinite(p->q[i]))
        return cpk_error_set(err, CPK_EINVAL, "q[%zu] is not finite", i + 1);
  }
  if (p->kind == CPK_KIND_FRICTION_CONE) return validate_cone(p, err);
  if (p->findex && (!p->fcoef || !findex_ok(p, p->findex, p->fcoef)))
    return cpk_error_set(err, CPK_EINVAL, "friction-index rows: an index out of range, a chain, "
                         "a scaling row with a negative lower bound or a bad coefficient");
  return validate_bounds(p, err);
}
