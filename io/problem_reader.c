/* problem_reader.c: reader of the problem text format v1: tokenizer and one parser per section. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cpkit/io.h>
#include <cpkit/util.h>

#define TOKEN_MAX 255
/* An input of unknown size (a pipe) may declare at most this many numbers per section. */
#define UNSIZED_MAX_NUMBERS ((size_t)1 << 31)
/* First block for an input of unknown size; it then doubles as numbers arrive. */
#define FIRST_BLOCK 4096

enum { KW_NAME, KW_TYPE, KW_N, KW_DIM, KW_M, KW_Q, KW_LOWER, KW_UPPER, KW_MU, KW_END, KW_COUNT };
/* In the order they must appear. */
static const char *const keywords[KW_COUNT] = {"name", "type",  "n",     "dim", "M",
                                               "q",    "lower", "upper", "mu",  "end"};
/* 1: always required; 2: required with 'type friction_cone' and allowed only there. */
static const int required[KW_COUNT] = {0, 1, 1, 2, 1, 1, 0, 0, 2, 1};

enum { NUM_OK, NUM_BAD, NUM_NAN, NUM_RANGE };
enum { FINITE, MINUS_INF_OK, PLUS_INF_OK };

typedef struct lexer {
  FILE *f;            /* the source: a stream ... */
  const char *s;      /* ... or a NUL-terminated string */
  const char *name;   /* for messages */
  long line;          /* line of the last character read */
  int last;           /* last character read */
  char tok[TOKEN_MAX + 1];
  long tok_line;      /* line of tok, or of the end of input */
  int at_eof;         /* no more tokens: tok is empty */
  int sized;          /* the input's size is known (file, string) */
  size_t bytes;       /* that size */
  size_t budget;      /* most numbers a section may declare */
  cpk_error *err;
} lexer;

typedef struct triplets {
  cpk_int *i, *j;
  double *x;
  size_t cap;
} triplets;

typedef struct reader {
  lexer lx;
  cpk_problem_kind kind;
  size_t n;
  size_t dim;          /* friction_cone: unknowns per contact */
  long seen[KW_COUNT]; /* line of each keyword, 0 if not seen */
  int last_kw;         /* -1 before the first keyword */
  size_t expected;     /* how many numbers the last section held */
  char *name;
  /* M is assembled at 'end': for the coordinate form, the n+1 column pointers are
     backed by the input only once q has shown that n numbers are really there. */
  double *dense;       /* M dense: n*n values, row by row */
  triplets t;          /* M coord: nnz 0-based triplets */
  size_t nnz;
  double *q, *lower, *upper, *mu;
  const cpk_problem_scan *scan; /* cpk_problem_scan_file: M's entries go to it, nothing is built */
} reader;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(const lexer *lx, int code, const char *fmt, ...)
{
  char what[420];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cpk_error_set(lx->err, code, "%s:%ld: %s", lx->name, lx->tok_line, what);
}

/* Our own test: isspace() follows the program's LC_CTYPE. */
static int is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int lex_getc(lexer *lx)
{
  int c = lx->f ? getc(lx->f) : (*lx->s ? (unsigned char)*lx->s++ : EOF);
  if (c == EOF) return c;
  if (lx->last == '\n') lx->line++; /* a newline belongs to the line it ends */
  lx->last = c;
  return c;
}

static int skip_comment(lexer *lx)
{
  int c;
  while ((c = lex_getc(lx)) != '\n' && c != EOF) {}
  return c;
}

/* Read the next token into lx->tok; at the end of input tok is empty and at_eof set. */
static int lex_next(lexer *lx)
{
  size_t len = 0;
  int c;
  do {
    c = lex_getc(lx);
    if (c == '#') c = skip_comment(lx);
  } while (c != EOF && is_space(c));
  lx->tok_line = lx->line;
  while (c != EOF && !is_space(c) && c != '#') {
    if (c == '\0') return fail(lx, CPK_EPARSE, "NUL byte in the input (not a text file?)");
    if (len == TOKEN_MAX) return fail(lx, CPK_EPARSE, "token longer than %d characters", TOKEN_MAX);
    lx->tok[len++] = (char)c;
    c = lex_getc(lx);
  }
  lx->tok[len] = '\0';
  if (c == '#') c = skip_comment(lx);
  lx->at_eof = len == 0;
  if (c == EOF && lx->f && ferror(lx->f)) return fail(lx, CPK_EIO, "read error");
  return CPK_OK;
}

static int keyword_of(const char *t)
{
  for (int k = 0; k < KW_COUNT; k++)
    if (strcmp(t, keywords[k]) == 0) return k;
  return -1;
}

/* What the current token is, for messages. */
static const char *tok_desc(const lexer *lx, char *buf, size_t size)
{
  if (lx->at_eof) return "the end of the input";
  snprintf(buf, size, "'%s'", lx->tok);
  return buf;
}

/* strtod over the whole token (inf, infinity, hexadecimal accepted); NaN and overflow refused. */
static int parse_double(const char *t, double *x)
{
  char *end;
  errno = 0;
  *x = strtod(t, &end);
  if (end == t || *end != '\0') return NUM_BAD;
  if (isnan(*x)) return NUM_NAN;
  if (isinf(*x) && errno == ERANGE) return NUM_RANGE;
  return NUM_OK;
}

static int parse_int(const char *t, long long *v)
{
  char *end;
  errno = 0;
  *v = strtoll(t, &end, 10);
  if (end == t || *end != '\0') return NUM_BAD;
  return errno == ERANGE ? NUM_RANGE : NUM_OK;
}

/* Next token as number k (0-based) of `count` in section `what`; a keyword or the end means
   too few numbers. */
static int next_number_token(reader *r, const char *what, size_t k, size_t count)
{
  lexer *lx = &r->lx;
  char buf[TOKEN_MAX + 3];
  int rc = lex_next(lx);
  if (rc) return rc;
  if (lx->at_eof || keyword_of(lx->tok) >= 0)
    return fail(lx, CPK_EPARSE, "too few numbers in '%s': expected %zu, found %zu before %s", what,
                count, k, tok_desc(lx, buf, sizeof buf));
  return CPK_OK;
}

static int read_value(reader *r, const char *what, size_t k, size_t count, int allow, double *x)
{
  static const char *const why[] = {"values must be finite", "a lower bound cannot be +inf",
                                    "an upper bound cannot be -inf"};
  lexer *lx = &r->lx;
  int rc = next_number_token(r, what, k, count);
  if (rc) return rc;
  switch (parse_double(lx->tok, x)) {
  case NUM_BAD: return fail(lx, CPK_EPARSE, "'%s' is not a number (in '%s')", lx->tok, what);
  case NUM_NAN: return fail(lx, CPK_EPARSE, "NaN is not allowed (in '%s')", what);
  case NUM_RANGE: return fail(lx, CPK_EPARSE, "'%s' is out of the range of a double", lx->tok);
  }
  if (isinf(*x) && !(allow == MINUS_INF_OK && *x < 0) && !(allow == PLUS_INF_OK && *x > 0))
    return fail(lx, CPK_EPARSE, "'%s' not allowed in '%s': %s", lx->tok, what, why[allow]);
  return CPK_OK;
}

/* A 1-based index in 1..n, returned 0-based. */
static int read_index(reader *r, size_t k, size_t count, cpk_int *idx)
{
  lexer *lx = &r->lx;
  long long v;
  int rc = next_number_token(r, "M coord", k, count);
  if (rc) return rc;
  int st = parse_int(lx->tok, &v);
  if (st == NUM_BAD) return fail(lx, CPK_EPARSE, "index '%s' is not an integer", lx->tok);
  if (st == NUM_RANGE || v < 1 || (unsigned long long)v > r->n)
    return fail(lx, CPK_EPARSE, "index %s out of range 1..%zu", lx->tok, r->n);
  *idx = (cpk_int)(v - 1);
  return CPK_OK;
}

/* Refuse a declared count the input cannot hold, before anything is allocated for it. */
static int check_count(const reader *r, size_t count, const char *what)
{
  const lexer *lx = &r->lx;
  if (count <= lx->budget) return CPK_OK;
  if (lx->sized)
    return fail(lx, CPK_EPARSE,
                "'%s' declares %zu numbers but the input has only %zu bytes (a number takes 2 at "
                "least): wrong size or truncated input", what, count, lx->bytes);
  return fail(lx, CPK_ETOOBIG,
              "'%s' declares %zu numbers, more than the %zu accepted from an input of unknown size",
              what, count, lx->budget);
}

/* Capacity for `need` elements: all `limit` when the input's size backs it, else doubling,
   so that storage follows what a stream has supplied rather than what it declares. */
static size_t next_capacity(const lexer *lx, size_t cap, size_t need, size_t limit)
{
  size_t c = lx->sized ? limit : (cap ? 2 * cap : FIRST_BLOCK);
  if (c > limit) c = limit;
  return c < need ? need : c;
}

/* realloc to n elements; NULL on failure or overflow, the old block then still valid. */
static void *resize(void *p, size_t n, size_t size)
{
  size_t bytes;
  if (cpk_size_mul(n, size, &bytes)) return NULL;
  return realloc(p, bytes ? bytes : 1);
}

/* `count` numbers of section `what`; each upper bound is checked against `floor` if given. */
static int read_vector(reader *r, const char *what, size_t count, int allow, const double *floor,
                       double **out)
{
  double *v = NULL;
  size_t cap = 0;
  int rc = CPK_OK;
  for (size_t k = 0; !rc && k < count; k++) {
    if (k == cap) {
      size_t c = next_capacity(&r->lx, cap, k + 1, count);
      double *nv = resize(v, c, sizeof *v);
      if (!nv) {
        rc = fail(&r->lx, CPK_ENOMEM, "out of memory storing %zu numbers of '%s'", count, what);
        break;
      }
      v = nv;
      cap = c;
    }
    rc = read_value(r, what, k, count, allow, &v[k]);
    if (!rc && floor && v[k] < floor[k])
      rc = fail(&r->lx, CPK_EPARSE, "variable %zu (1-based): upper bound %s is below its lower bound %.17g",
                k + 1, r->lx.tok, floor[k]);
  }
  if (rc) {
    free(v);
    return rc;
  }
  r->expected = count;
  *out = v;
  return CPK_OK;
}

static int read_dense(reader *r)
{
  size_t count;
  if (cpk_size_mul(r->n, r->n, &count))
    return fail(&r->lx, CPK_ETOOBIG, "n*n = %zu*%zu overflows", r->n, r->n);
  int rc = check_count(r, count, "M dense");
  return rc ? rc : read_vector(r, "M", count, FINITE, NULL, &r->dense);
}

static int triplets_reserve(reader *r, triplets *t, size_t need, size_t limit)
{
  if (need <= t->cap) return CPK_OK;
  size_t c = next_capacity(&r->lx, t->cap, need, limit);
  cpk_int *ni = resize(t->i, c, sizeof *ni);
  if (ni) t->i = ni;
  cpk_int *nj = ni ? resize(t->j, c, sizeof *nj) : NULL;
  if (nj) t->j = nj;
  double *nx = nj ? resize(t->x, c, sizeof *nx) : NULL;
  if (!nx) return fail(&r->lx, CPK_ENOMEM, "out of memory storing %zu entries of M", limit);
  t->x = nx;
  t->cap = c;
  return CPK_OK;
}

/* A callback of cpk_problem_scan_file refused (nonzero): its code, or CPK_EINVAL. */
static int scan_refused(reader *r, int code)
{
  return fail(&r->lx, code > 0 ? code : CPK_EINVAL, "the reader's caller stopped the scan");
}

/* cpk_problem_scan_file: each triplet to the caller as it is read, none kept. */
static int scan_triplets(reader *r, size_t nnz)
{
  size_t count = 3 * nnz;
  int rc = CPK_OK;
  for (size_t k = 0; !rc && k < nnz; k++) {
    cpk_int i, j;
    double x;
    rc = read_index(r, 3 * k, count, &i);
    if (!rc) rc = read_index(r, 3 * k + 1, count, &j);
    if (!rc) rc = read_value(r, "M coord", 3 * k + 2, count, FINITE, &x);
    if (!rc && (rc = r->scan->entry(r->scan->ctx, (size_t)i, (size_t)j, x))) rc = scan_refused(r, rc);
  }
  r->expected = count;
  return rc;
}

/* cpk_problem_scan_file with M dense: its nonzeros to the caller, then the n*n values freed. */
static int scan_dense(reader *r)
{
  int rc = CPK_OK;
  for (size_t i = 0; !rc && i < r->n; i++)
    for (size_t j = 0; !rc && j < r->n; j++)
      if (r->dense[i * r->n + j] != 0.0 && (rc = r->scan->entry(r->scan->ctx, i, j, r->dense[i * r->n + j])))
        rc = scan_refused(r, rc);
  free(r->dense);
  r->dense = NULL;
  return rc;
}

static int read_triplets(reader *r, size_t nnz)
{
  triplets *t = &r->t;
  if (r->scan) return scan_triplets(r, nnz);
  size_t count = 3 * nnz;
  int rc = CPK_OK;
  for (size_t k = 0; !rc && k < nnz; k++) {
    rc = triplets_reserve(r, t, k + 1, nnz);
    if (!rc) rc = read_index(r, 3 * k, count, &t->i[k]);
    if (!rc) rc = read_index(r, 3 * k + 1, count, &t->j[k]);
    if (!rc) rc = read_value(r, "M coord", 3 * k + 2, count, FINITE, &t->x[k]);
  }
  r->nnz = nnz;
  r->expected = count;
  return rc;
}

static int read_coord(reader *r)
{
  lexer *lx = &r->lx;
  long long nnz;
  int rc = lex_next(lx);
  if (rc) return rc;
  if (lx->at_eof || keyword_of(lx->tok) >= 0)
    return fail(lx, CPK_EPARSE, "missing the number of entries after 'M coord'");
  int st = parse_int(lx->tok, &nnz);
  if (st == NUM_BAD || nnz < 0)
    return fail(lx, CPK_EPARSE, "the number of entries must be an integer >= 0, not '%s'", lx->tok);
  if (st == NUM_RANGE || (unsigned long long)nnz > SIZE_MAX / 3)
    return fail(lx, CPK_ETOOBIG, "%s entries is too many", lx->tok);
  rc = check_count(r, 3 * (size_t)nnz, "M coord");
  return rc ? rc : read_triplets(r, (size_t)nnz);
}

static int parse_matrix(reader *r)
{
  lexer *lx = &r->lx;
  char buf[TOKEN_MAX + 3];
  int rc = lex_next(lx);
  if (rc) return rc;
  if (r->scan && (rc = r->scan->begin(r->scan->ctx, r->kind, r->n, r->dim))) return scan_refused(r, rc);
  if (strcmp(lx->tok, "dense") == 0) {
    rc = read_dense(r);
    return rc || !r->scan ? rc : scan_dense(r);
  }
  if (strcmp(lx->tok, "coord") == 0) return read_coord(r);
  return fail(lx, CPK_EPARSE, "expected 'dense' or 'coord' after 'M', found %s",
              tok_desc(lx, buf, sizeof buf));
}

static int parse_n(reader *r)
{
  lexer *lx = &r->lx;
  long long v;
  int rc = lex_next(lx);
  if (rc) return rc;
  if (lx->at_eof) return fail(lx, CPK_EPARSE, "missing the value after 'n'");
  int st = parse_int(lx->tok, &v);
  if (st == NUM_BAD || v <= 0)
    return fail(lx, CPK_EPARSE, "n must be a positive integer, not '%s'", lx->tok);
  if (st == NUM_RANGE || (unsigned long long)v > SIZE_MAX)
    return fail(lx, CPK_ETOOBIG, "n = %s is too large", lx->tok);
  r->n = (size_t)v;
  return check_count(r, r->n, "n");
}

static int parse_word(reader *r, int kw)
{
  lexer *lx = &r->lx;
  int rc = lex_next(lx);
  if (rc) return rc;
  if (lx->at_eof) return fail(lx, CPK_EPARSE, "missing the value after '%s'", keywords[kw]);
  if (kw == KW_NAME) {
    r->name = cpk_strdup(lx->tok);
    return r->name ? CPK_OK : fail(lx, CPK_ENOMEM, "out of memory");
  }
  if (strcmp(lx->tok, "lcp") == 0) r->kind = CPK_KIND_LCP;
  else if (strcmp(lx->tok, "mcp") == 0) r->kind = CPK_KIND_AFFINE_MCP;
  else if (strcmp(lx->tok, "friction_cone") == 0) r->kind = CPK_KIND_FRICTION_CONE;
  else
    return fail(lx, CPK_EPARSE, "unknown type '%s' (expected lcp, mcp or friction_cone)", lx->tok);
  return CPK_OK;
}

static int parse_bounds(reader *r, int kw)
{
  if (r->kind != CPK_KIND_AFFINE_MCP)
    return fail(&r->lx, CPK_EPARSE, "'%s' is only allowed with 'type mcp'", keywords[kw]);
  if (kw == KW_LOWER) return read_vector(r, "lower", r->n, MINUS_INF_OK, NULL, &r->lower);
  return read_vector(r, "upper", r->n, PLUS_INF_OK, r->lower, &r->upper);
}

static int is_required(const reader *r, int kw)
{
  return required[kw] == 1 || (required[kw] == 2 && r->kind == CPK_KIND_FRICTION_CONE);
}

/* Keywords come once each, in the order of `keywords`, and required ones cannot be skipped. */
static int check_order(const reader *r, int kw)
{
  const lexer *lx = &r->lx;
  if (required[kw] == 2 && r->seen[KW_TYPE] && r->kind != CPK_KIND_FRICTION_CONE)
    return fail(lx, CPK_EPARSE, "'%s' is only allowed with 'type friction_cone'", keywords[kw]);
  if (r->seen[kw])
    return fail(lx, CPK_EPARSE, "'%s' repeated (first given on line %ld)", keywords[kw],
                r->seen[kw]);
  for (int k = kw + 1; k < KW_COUNT; k++)
    if (r->seen[k])
      return fail(lx, CPK_EPARSE, "'%s' out of order: it must come before '%s' (line %ld)",
                  keywords[kw], keywords[k], r->seen[k]);
  for (int k = 0; k < kw; k++)
    if (is_required(r, k) && !r->seen[k])
      return fail(lx, CPK_EPARSE, "missing '%s' before '%s'", keywords[k], keywords[kw]);
  return CPK_OK;
}

/* dim: 2..4 unknowns per contact, dividing n. */
static int parse_dim(reader *r)
{
  lexer *lx = &r->lx;
  long long v;
  int rc = lex_next(lx);
  if (rc) return rc;
  if (lx->at_eof) return fail(lx, CPK_EPARSE, "missing the value after 'dim'");
  int st = parse_int(lx->tok, &v);
  if (st != NUM_OK || v < 2 || v > CPK_CONE_DIM_MAX)
    return fail(lx, CPK_EPARSE, "dim must be 2, 3 or 4 (unknowns per contact), not '%s'", lx->tok);
  if (r->n % (size_t)v != 0)
    return fail(lx, CPK_EPARSE, "n = %zu is not a multiple of dim %lld", r->n, v);
  r->dim = (size_t)v;
  return CPK_OK;
}

/* mu: one friction coefficient >= 0 per contact. */
static int parse_mu(reader *r)
{
  size_t nc = r->n / r->dim;
  int rc = read_vector(r, "mu", nc, FINITE, NULL, &r->mu);
  for (size_t c = 0; !rc && c < nc; c++)
    if (r->mu[c] < 0)
      rc = fail(&r->lx, CPK_EPARSE, "mu of contact %zu is %.17g (contacts counted from 1): a friction coefficient must be >= 0",
                c + 1, r->mu[c]);
  return rc;
}

static int parse_section(reader *r, int kw)
{
  switch (kw) {
  case KW_NAME:
  case KW_TYPE: return parse_word(r, kw);
  case KW_N: return parse_n(r);
  case KW_DIM: return parse_dim(r);
  case KW_MU: return parse_mu(r);
  case KW_M: return parse_matrix(r);
  case KW_Q: return read_vector(r, "q", r->n, FINITE, NULL, &r->q);
  case KW_LOWER:
  case KW_UPPER: return parse_bounds(r, kw);
  }
  return CPK_OK; /* end */
}

/* A token where a keyword should be: extra numbers of the last section, or a bad word. */
static int unexpected(const reader *r)
{
  const lexer *lx = &r->lx;
  double x;
  if (parse_double(lx->tok, &x) == NUM_BAD)
    return fail(lx, CPK_EPARSE, "unknown keyword '%s'", lx->tok);
  if (r->last_kw >= KW_M && r->last_kw <= KW_MU)
    return fail(lx, CPK_EPARSE, "too many numbers in '%s': expected %zu", keywords[r->last_kw],
                r->expected);
  return fail(lx, CPK_EPARSE, "unexpected number '%s'", lx->tok);
}

static int missing_at_eof(const reader *r)
{
  for (int k = 0; k < KW_COUNT; k++)
    if (is_required(r, k) && !r->seen[k])
      return fail(&r->lx, CPK_EPARSE, "unexpected end of the input: missing '%s'", keywords[k]);
  return CPK_OK;
}

static int parse_header(reader *r)
{
  lexer *lx = &r->lx;
  char buf[TOKEN_MAX + 3];
  int rc = lex_next(lx);
  if (rc) return rc;
  if (strcmp(lx->tok, "cpkit-problem") != 0)
    return fail(lx, CPK_EPARSE, "not a cpkit problem: expected 'cpkit-problem 1', found %s",
                tok_desc(lx, buf, sizeof buf));
  if ((rc = lex_next(lx))) return rc;
  if (lx->at_eof) return fail(lx, CPK_EPARSE, "missing the format version after 'cpkit-problem'");
  if (strcmp(lx->tok, "1") != 0)
    return fail(lx, CPK_EPARSE, "unsupported format version '%s' (this reader reads version 1)",
                lx->tok);
  return CPK_OK;
}

static int parse(reader *r)
{
  lexer *lx = &r->lx;
  char buf[TOKEN_MAX + 3];
  int rc = parse_header(r);
  for (int kw = -1; !rc && kw != KW_END;) {
    if ((rc = lex_next(lx))) break;
    if (lx->at_eof) return missing_at_eof(r);
    if ((kw = keyword_of(lx->tok)) < 0) return unexpected(r);
    if ((rc = check_order(r, kw))) break;
    r->seen[kw] = lx->tok_line;
    r->last_kw = kw;
    rc = parse_section(r, kw);
  }
  if (!rc && !(rc = lex_next(lx)) && !lx->at_eof)
    rc = fail(lx, CPK_EPARSE, "unexpected %s after 'end'", tok_desc(lx, buf, sizeof buf));
  return rc;
}

/*
 * Triplets already in CSC order (columns ascending, rows strictly ascending
 * within a column, as cpkit's writer puts them) are a CSC matrix once their
 * column pointers are counted: p (n + 1) beside the triplets, where the general
 * assembly needs a transposed copy and the result (two more copies: 56 bytes
 * per entry with the triplets, against 32 with the problem's own copy).
 * 0 (p untouched) if they are not in that order or out of range.
 */
static int csc_order_pointers(const reader *r, cpk_int *p)
{
  const cpk_int *ti = r->t.i, *tj = r->t.j;
  cpk_int n = (cpk_int)r->n;
  for (size_t k = 0; k < r->nnz; k++) {
    if (ti[k] < 0 || ti[k] >= n || tj[k] < 0 || tj[k] >= n) return 0;
    if (k > 0 && (tj[k] < tj[k - 1] || (tj[k] == tj[k - 1] && ti[k] <= ti[k - 1]))) return 0;
  }
  memset(p, 0, ((size_t)n + 1) * sizeof *p);
  for (size_t k = 0; k < r->nnz; k++) p[tj[k] + 1]++;
  for (cpk_int j = 0; j < n; j++) p[j + 1] += p[j];
  return 1;
}

static int build_matrix(const reader *r, cpk_matrix **M)
{
  if (!r->dense) return cpk_matrix_from_triplets(r->n, r->n, r->nnz, r->t.i, r->t.j, r->t.x, M);
  gsl_matrix_const_view view = gsl_matrix_const_view_array(r->dense, r->n, r->n);
  return cpk_matrix_from_gsl(&view.matrix, M);
}

static int build_finish(reader *r, cpk_problem **out, int rc);

/* The problem from its parts, M given (copied by the constructor). */
static int build_problem(const reader *r, const cpk_matrix *M, cpk_problem **out)
{
  if (r->kind == CPK_KIND_LCP) return cpk_problem_alloc_lcp(M, r->q, out);
  if (r->kind == CPK_KIND_FRICTION_CONE)
    return cpk_problem_alloc_friction_cone(M, r->q, r->dim, r->mu, out);
  return cpk_problem_alloc_affine_mcp(M, r->q, r->lower, r->upper, out);
}

/*
 * Triplets in CSC order: the problem copies a view of them, and the column
 * indices go first. 0 if the triplets are not in that order (or on failure,
 * with *rc set).
 */
static int build_from_csc_order(reader *r, cpk_problem **out, int *rc)
{
  if (r->dense || r->nnz == 0 || r->n >= (size_t)INT64_MAX) return 0;
  cpk_int *p = cpk_alloc_array(r->n + 1, sizeof *p);
  if (!p || !csc_order_pointers(r, p)) {
    free(p);
    return 0;
  }
  free(r->t.j);
  r->t.j = NULL;
  cpk_csc view = {(cpk_int)r->n, (cpk_int)r->n, p, r->t.i, r->t.x};
  cpk_matrix M = {CPK_MATRIX_CSC, r->n, r->n, NULL, &view};
  *rc = build_problem(r, &M, out);
  free(p);
  return 1;
}

static int build(reader *r, cpk_problem **out)
{
  cpk_matrix *M = NULL;
  int rc = CPK_OK;
  if (build_from_csc_order(r, out, &rc)) return build_finish(r, out, rc);
  rc = build_matrix(r, &M);
  free(r->dense); /* the values now live in M: keep the peak at two copies */
  r->dense = NULL;
  if (!rc && !cpk_matrix_is_finite(M)) { /* each value was finite; duplicates summed may not be */
    cpk_matrix_free(M);
    return fail(&r->lx, CPK_EPARSE, "M coord: duplicate entries sum to a value that is not finite");
  }
  if (!rc) rc = build_problem(r, M, out);
  cpk_matrix_free(M);
  return build_finish(r, out, rc);
}

static int build_finish(reader *r, cpk_problem **out, int rc)
{
  if (!rc) rc = cpk_problem_set_name(*out, r->name);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
    return fail(&r->lx, rc, "cannot build the problem: %s", cpk_strerror(rc));
  }
  return CPK_OK;
}

/* Parse and build, reading numbers in the C locale whatever the program set (thread-local). */
static int read_problem(lexer *lx, const cpk_problem_scan *scan, cpk_problem **out)
{
  reader r;
  memset(&r, 0, sizeof r);
  r.lx = *lx;
  r.lx.line = 1;
  r.lx.budget = lx->sized ? lx->bytes / 2 : UNSIZED_MAX_NUMBERS;
  r.last_kw = -1;
  locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t old = c ? uselocale(c) : (locale_t)0;
  r.scan = scan;
  int rc = parse(&r);
  if (!rc && scan && (rc = scan->end(scan->ctx, r.q, r.mu))) rc = scan_refused(&r, rc);
  else if (!rc && !scan) rc = build(&r, out);
  if (c) {
    uselocale(old);
    freelocale(c);
  }
  free(r.name);
  free(r.dense);
  free(r.t.i);
  free(r.t.j);
  free(r.t.x);
  free(r.q);
  free(r.lower);
  free(r.upper);
  free(r.mu);
  return rc;
}

/* A stream's lexer: its size known when it is a regular file (the reader's bound on counts). */
static void stream_lexer(lexer *lx, FILE *f, const char *name, cpk_error *err)
{
  struct stat st;
  lx->f = f;
  lx->name = name ? name : "<stream>";
  lx->err = err;
  int fd = fileno(f);
  /* Size 0 is taken as unknown: some regular files (/proc) report 0 and still have content. */
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    lx->sized = 1;
    lx->bytes = (uintmax_t)st.st_size > SIZE_MAX ? SIZE_MAX : (size_t)st.st_size;
  }
}

int cpk_problem_read_stream(FILE *f, const char *name, cpk_problem **out, cpk_error *err)
{
  lexer lx = {0};
  cpk_error_clear(err);
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  if (!f) return cpk_error_set(err, CPK_EINVAL, "no stream given");
  stream_lexer(&lx, f, name, err);
  return read_problem(&lx, NULL, out);
}

int cpk_problem_scan_file(const char *path, const cpk_problem_scan *scan, cpk_error *err)
{
  lexer lx = {0};
  cpk_error_clear(err);
  if (!path || !scan || !scan->begin || !scan->entry || !scan->end)
    return cpk_error_set(err, CPK_EINVAL, "no path or no scan callbacks given");
  FILE *f = fopen(path, "r");
  if (!f) return cpk_error_set(err, CPK_EIO, "%s: cannot open: %s", path, strerror(errno));
  stream_lexer(&lx, f, path, err);
  int rc = read_problem(&lx, scan, NULL);
  fclose(f);
  return rc;
}

int cpk_problem_read_string(const char *text, const char *name, cpk_problem **out, cpk_error *err)
{
  lexer lx = {0};
  cpk_error_clear(err);
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  if (!text) return cpk_error_set(err, CPK_EINVAL, "no text given");
  lx.s = text;
  lx.name = name ? name : "<string>";
  lx.err = err;
  lx.sized = 1;
  lx.bytes = strlen(text);
  return read_problem(&lx, NULL, out);
}

int cpk_problem_read_file(const char *path, cpk_problem **out, cpk_error *err)
{
  cpk_error_clear(err);
  if (!out) return cpk_error_set(err, CPK_EINVAL, "no output pointer given");
  *out = NULL;
  if (!path) return cpk_error_set(err, CPK_EINVAL, "no path given");
  FILE *f = fopen(path, "r");
  if (!f) return cpk_error_set(err, CPK_EIO, "%s: cannot open: %s", path, strerror(errno));
  int rc = cpk_problem_read_stream(f, path, out, err);
  fclose(f);
  return rc;
}
