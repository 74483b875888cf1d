/* cmd_info.c: `cpkit info`, a description of a problem file: size, sparsity, bounds, norms, symmetry and a quick definiteness check. */
#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_vector.h>
#include "cli.h"

/* Above this size the eigenvalue check would cost more than a quick look is worth. */
#define INFO_EIGEN_MAX_N 200

static int run(int argc, char **argv);

const cli_command cli_cmd_info = {
    "info", "describe a problem file: size, sparsity, bounds, norms, symmetry",
    "usage: cpkit info FILE\n"
    "\n"
    "Describe the problem in FILE (text format v1, or an FCLIB HDF5 file read as\n"
    "a friction-cone problem; '-' reads standard input, text only): name, kind,\n"
    "n, matrix storage, nonzeros and density, how many variables are of LCP type\n"
    "(l = 0, u = inf), free, bounded below only, above only, or on both sides\n"
    "(for a friction-cone problem: contacts, cone dimension, range of mu),\n"
    "||q||_inf, ||M||_inf, whether M is exactly symmetric and, for n <= 200, a\n"
    "quick eigenvalue check of the symmetric part (M + M')/2.\n"
    "\n"
    "Options:\n"
    "  -h, --help   show this help\n",
    run};

/* Bound pattern counts over the variables. */
typedef struct bound_counts {
  size_t lcp, free_, lower_only, upper_only, boxed;
} bound_counts;

static void count_bounds(const cpk_problem *p, bound_counts *c)
{
  memset(c, 0, sizeof *c);
  for (size_t i = 0; i < p->n; i++) {
    int has_l = isfinite(p->lower[i]), has_u = isfinite(p->upper[i]);
    if (has_l && !has_u && p->lower[i] == 0.0)
      c->lcp++;
    else if (has_l && has_u)
      c->boxed++;
    else if (has_l)
      c->lower_only++;
    else if (has_u)
      c->upper_only++;
    else
      c->free_++;
  }
}

typedef void (*entry_fn)(size_t i, size_t j, double x, void *data);

/* Visit every stored entry of M, dense or CSC, in storage order. */
static void for_each_entry(const cpk_matrix *M, entry_fn fn, void *data)
{
  if (M->format == CPK_MATRIX_DENSE) {
    for (size_t i = 0; i < M->m; i++)
      for (size_t j = 0; j < M->n; j++) fn(i, j, gsl_matrix_get(M->dense, i, j), data);
    return;
  }
  const cpk_csc *A = M->csc;
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++)
      fn((size_t)A->i[k], (size_t)j, A->x[k], data);
}

static void count_nonzero(size_t i, size_t j, double x, void *data)
{
  (void)i;
  (void)j;
  if (x != 0.0) ++*(size_t *)data;
}

typedef struct symmetry_probe {
  const cpk_matrix *M;
  int symmetric;
} symmetry_probe;

/* Exact comparison on purpose: a file either stores a symmetric matrix or it does not. */
static void compare_transpose(size_t i, size_t j, double x, void *data)
{
  symmetry_probe *s = data;
  if (s->symmetric && i != j && cpk_matrix_get(s->M, j, i) != x) s->symmetric = 0;
}

static void add_symmetric_part(size_t i, size_t j, double x, void *data)
{
  gsl_matrix *S = data;
  *gsl_matrix_ptr(S, i, j) += 0.5 * x;
  *gsl_matrix_ptr(S, j, i) += 0.5 * x;
}

/* Eigenvalue range of (M + M')/2 by gsl_eigen_symm: CPK_OK, CPK_ENOMEM, or -1 when GSL fails. */
static int symmetric_part_eigen_range(const cpk_matrix *M, double *lo, double *hi)
{
  size_t n = M->n;
  gsl_matrix *S = gsl_matrix_calloc(n, n);
  gsl_vector *eval = gsl_vector_alloc(n);
  gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(n);
  int rc = !S || !eval || !ws ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    for_each_entry(M, add_symmetric_part, S);
    rc = gsl_eigen_symm(S, eval, ws) ? -1 : CPK_OK;
  }
  if (!rc) {
    *lo = gsl_vector_min(eval);
    *hi = gsl_vector_max(eval);
  }
  gsl_eigen_symm_free(ws);
  gsl_vector_free(eval);
  gsl_matrix_free(S);
  return rc;
}

/* One line that says what the eigenvalues suggest and that it is only a quick check. */
static int print_definiteness(FILE *f, const cpk_matrix *M)
{
  const char *label = "symmetric part:";
  double lo, hi;
  if (M->n == 0 || M->n > INFO_EIGEN_MAX_N) {
    fprintf(f, "%-20s not checked (quick check only for 1 <= n <= %d)\n", label,
            INFO_EIGEN_MAX_N);
    return CPK_OK;
  }
  int rc = symmetric_part_eigen_range(M, &lo, &hi);
  if (rc == CPK_ENOMEM) return rc; /* a report with a hole is not a report */
  if (rc) {
    fprintf(f, "%-20s not checked (eigenvalue computation failed)\n", label);
    return CPK_OK;
  }
  /* Rounding in the eigen-solver is about n * eps * ||S||; inside it we cannot tell 0 from tiny. */
  double slack = 100.0 * (double)M->n * DBL_EPSILON * fmax(fabs(lo), fabs(hi));
  const char *verdict = lo > slack      ? "positive definite"
                        : lo >= -slack  ? "positive semidefinite, singular"
                        : hi > slack    ? "indefinite"
                                        : "negative semidefinite";
  fprintf(f, "%-20s %s (quick check: eigenvalues of (M+M')/2 in [%.6g, %.6g])\n", label, verdict,
          lo, hi);
  return CPK_OK;
}

static double vector_norm_inf(const double *v, size_t n)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

static int print_matrix_facts(FILE *f, const cpk_problem *p)
{
  const cpk_matrix *M = p->M;
  size_t nonzeros = 0;
  double norm;
  if (cpk_matrix_norm_inf_checked(M, &norm)) return CPK_ENOMEM;
  symmetry_probe sym = {M, 1};
  for_each_entry(M, count_nonzero, &nonzeros);
  for_each_entry(M, compare_transpose, &sym);
  double cells = (double)M->m * (double)M->n;
  fprintf(f, "%-20s %s\n", "matrix:", M->format == CPK_MATRIX_DENSE ? "dense" : "sparse (CSC)");
  fprintf(f, "%-20s %zu (stored entries: %zu)\n", "nnz:", nonzeros, cpk_matrix_nnz(M));
  if (cells > 0)
    fprintf(f, "%-20s %.4g\n", "density:", (double)nonzeros / cells);
  else
    fprintf(f, "%-20s -\n", "density:");
  fprintf(f, "%-20s %.17g\n", "||q||_inf:", vector_norm_inf(p->q, p->n));
  fprintf(f, "%-20s %.17g\n", "||M||_inf:", norm);
  fprintf(f, "%-20s %s (exact comparison)\n", "symmetric:", sym.symmetric ? "yes" : "no");
  return print_definiteness(f, M);
}

/* A cone problem has contacts and friction coefficients where the MCP has bounds. */
static void print_contacts(FILE *f, const cpk_problem *p)
{
  double lo = INFINITY, hi = -INFINITY;
  for (size_t c = 0; c < p->nc; c++) {
    lo = fmin(lo, p->mu[c]);
    hi = fmax(hi, p->mu[c]);
  }
  fprintf(f, "%-20s %zu\n", "contacts:", p->nc);
  fprintf(f, "%-20s %zu (normal first)\n", "cone dimension:", p->cone_dim);
  if (p->nc > 0) fprintf(f, "%-20s %.17g .. %.17g\n", "mu:", lo, hi);
}

static void print_bounds(FILE *f, const cpk_problem *p)
{
  bound_counts c;
  count_bounds(p, &c);
  fprintf(f, "%-20s %zu\n", "lcp-type variables:", c.lcp);
  fprintf(f, "%-20s %zu\n", "free variables:", c.free_);
  fprintf(f, "%-20s %zu\n", "lower-only:", c.lower_only);
  fprintf(f, "%-20s %zu\n", "upper-only:", c.upper_only);
  fprintf(f, "%-20s %zu\n", "boxed:", c.boxed);
}

/* CPK_OK, or CPK_ENOMEM when a fact could not be computed. */
static int print_info(FILE *f, const char *path, const cpk_problem *p)
{
  fprintf(f, "%-20s %s\n", "file:", strcmp(path, "-") == 0 ? "<stdin>" : path);
  fprintf(f, "%-20s %s\n", "name:", p->name ? p->name : "(unnamed)");
  fprintf(f, "%-20s %s\n", "kind:", cpk_problem_kind_name(p->kind));
  fprintf(f, "%-20s %zu\n", "n:", p->n);
  if (p->kind == CPK_KIND_FRICTION_CONE)
    print_contacts(f, p);
  else
    print_bounds(f, p);
  if (p->M && p->q) return print_matrix_facts(f, p);
  fprintf(f, "%-20s none (F is given by a function)\n", "matrix:");
  return CPK_OK;
}

static int parse_options(int argc, char **argv, const char **path)
{
  static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c = cli_getopt(&cli_cmd_info, argc, argv, ":h", longopts);
  if (c == 'h') return cli_print_usage(&cli_cmd_info);
  if (c != -1) return CLI_EXIT_USAGE;
  if (optind == argc) return cli_usage_error(&cli_cmd_info, "missing FILE");
  if (optind + 1 < argc)
    return cli_usage_error(&cli_cmd_info, "unexpected argument '%s'", argv[optind + 1]);
  *path = argv[optind];
  return CLI_CONTINUE;
}

static int run(int argc, char **argv)
{
  const char *path = NULL;
  cpk_problem *p = NULL;
  cli_output out;
  int status = parse_options(argc, argv, &path);
  if (status != CLI_CONTINUE) return status;
  if ((status = cli_read_problem(path, &p)) != CLI_CONTINUE) return status;
  if ((status = cli_output_open(&out)) == CLI_CONTINUE) {
    if (print_info(out.f, path, p)) {
      cli_output_discard(&out);
      status = cli_error("%s: out of memory", path);
    } else {
      status = cli_output_commit(&out, NULL);
    }
  }
  cpk_problem_free(p);
  return status;
}
