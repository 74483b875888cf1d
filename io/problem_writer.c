/* problem_writer.c: writer of the problem text format v1, with %.17g so files read back exactly. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/io.h>

/* 17 significant digits identify every double; infinities get the reader's spelling. */
static void put_number(FILE *f, double x, const char *sep)
{
  if (isinf(x)) fprintf(f, "%s%s", x > 0 ? "inf" : "-inf", sep);
  else fprintf(f, "%.17g%s", x, sep);
}

static void put_vector(FILE *f, const char *keyword, const double *v, size_t n)
{
  fprintf(f, "%s\n", keyword);
  for (size_t i = 0; i < n; i++) put_number(f, v[i], i + 1 < n ? " " : "\n");
}

/* The name is one token: blanks, control characters and '#' would split or end it. */
static void put_name(FILE *f, const char *name)
{
  if (!name || !name[0]) return;
  fputs("name ", f);
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    fputc(*c <= ' ' || *c == '#' || *c == 127 ? '_' : *c, f);
  fputc('\n', f);
}

static void put_matrix(FILE *f, const cpk_matrix *M)
{
  if (M->format == CPK_MATRIX_DENSE) {
    fputs("M dense\n", f);
    for (size_t i = 0; i < M->m; i++)
      for (size_t j = 0; j < M->n; j++)
        put_number(f, gsl_matrix_get(M->dense, i, j), j + 1 < M->n ? " " : "\n");
    return;
  }
  const cpk_csc *C = M->csc;
  fprintf(f, "M coord %" PRId64 "\n", C->p[C->n]);
  for (cpk_int j = 0; j < C->n; j++)
    for (cpk_int k = C->p[j]; k < C->p[j + 1]; k++) {
      fprintf(f, "%" PRId64 " %" PRId64 " ", C->i[k] + 1, j + 1);
      put_number(f, C->x[k], "\n");
    }
}

static void put_problem(const cpk_problem *p, FILE *f)
{
  int mcp = p->kind == CPK_KIND_AFFINE_MCP, cone = p->kind == CPK_KIND_FRICTION_CONE;
  fputs("cpkit-problem 1\n", f);
  put_name(f, p->name);
  fprintf(f, "type %s\nn %zu\n", mcp ? "mcp" : cone ? "friction_cone" : "lcp", p->n);
  if (cone) fprintf(f, "dim %zu\n", p->cone_dim);
  put_matrix(f, p->M);
  put_vector(f, "q", p->q, p->n);
  if (mcp) {
    put_vector(f, "lower", p->lower, p->n);
    put_vector(f, "upper", p->upper, p->n);
  }
  if (cone) put_vector(f, "mu", p->mu, p->nc);
  fputs("end\n", f);
}

/* Refuse what the format cannot hold or the reader would reject, before touching any file. */
static int check_writable(const cpk_problem *p, cpk_error *err)
{
  if (!p) return cpk_error_set(err, CPK_EINVAL, "no problem given");
  if (p->kind == CPK_KIND_NONLINEAR_MCP)
    return cpk_error_set(err, CPK_EUNSUP, "the text format holds affine problems (LCP, affine "
                         "MCP, friction cone) only; this problem is a nonlinear MCP");
  if (p->n == 0) return cpk_error_set(err, CPK_EINVAL, "the text format needs n >= 1");
  return cpk_problem_validate(p, err);
}

static int write_checked(const cpk_problem *p, FILE *f, cpk_error *err)
{
  /* Thread-local switch: '.' as the decimal point whatever the program's locale. */
  locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t old = c ? uselocale(c) : (locale_t)0;
  put_problem(p, f);
  if (c) {
    uselocale(old);
    freelocale(c);
  }
  if (fflush(f) != 0 || ferror(f)) return cpk_error_set(err, CPK_EIO, "write error");
  return CPK_OK;
}

int cpk_problem_write(const cpk_problem *p, FILE *f, cpk_error *err)
{
  cpk_error_clear(err);
  if (!f) return cpk_error_set(err, CPK_EINVAL, "no stream given");
  int rc = check_writable(p, err);
  return rc ? rc : write_checked(p, f, err);
}

int cpk_problem_write_file(const cpk_problem *p, const char *path, cpk_error *err)
{
  cpk_error_clear(err);
  if (!path) return cpk_error_set(err, CPK_EINVAL, "no path given");
  int rc = check_writable(p, err);
  if (rc) return rc;
  FILE *f = fopen(path, "w");
  if (!f)
    return cpk_error_set(err, CPK_EIO, "%s: cannot open for writing: %s", path, strerror(errno));
  rc = write_checked(p, f, err);
  if (fclose(f) != 0) rc = CPK_EIO;
  if (rc) {
    struct stat st; /* no half-written problem left behind; a device (/dev/full) is not ours to remove */
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) remove(path);
    return cpk_error_set(err, CPK_EIO, "%s: write error", path);
  }
  return CPK_OK;
}
