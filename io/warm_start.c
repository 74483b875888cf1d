/* warm_start.c: warm-start files: a JSON result (z, optional basis) or plain text, n numbers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <cpkit/io.h>
#include <cpkit/util.h>

#define TOKEN_MAX 255

/* What is being read, and where the values go until the whole file has been accepted. */
typedef struct warm {
  const char *path;
  char *text; /* the whole file */
  size_t len;
  size_t n;
  double *z;
  int *basis;
  int has_basis;
  cpk_error *err;
} warm;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(const warm *w, int code, long line, const char *fmt, ...)
{
  char what[420];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cpk_error_set(w->err, code, "%s:%ld: %s", w->path, line, what);
}

static int is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The whole file in memory, NUL-terminated (the size is the file's, so it is backed). */
static int slurp(warm *w)
{
  FILE *f = fopen(w->path, "rb");
  if (!f) return cpk_error_set(w->err, CPK_EIO, "%s: cannot open: %s", w->path, strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  int rc = CPK_OK;
  for (;;) {
    if (len + 1 >= cap) {
      size_t c = cap ? 2 * cap : 4096;
      char *nb = c > cap ? realloc(buf, c) : NULL;
      if (!nb) {
        rc = cpk_error_set(w->err, CPK_ENOMEM, "%s: out of memory", w->path);
        break;
      }
      buf = nb;
      cap = c;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    len += got;
    if (got == 0) break;
  }
  if (!rc && ferror(f)) rc = cpk_error_set(w->err, CPK_EIO, "%s: read error", w->path);
  fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[len] = '\0';
  w->text = buf;
  w->len = len;
  return CPK_OK;
}

/* Line of `"key":` in the text, for messages about its value (jansson keeps no positions). */
static long key_line(const warm *w, const char *key)
{
  size_t klen = strlen(key);
  long line = 1;
  for (size_t k = 0; k < w->len; k++) {
    if (w->text[k] == '\n') line++;
    if (w->text[k] != '"' || k + klen + 2 > w->len || memcmp(w->text + k + 1, key, klen) != 0 ||
        w->text[k + klen + 1] != '"')
      continue;
    size_t e = k + klen + 2;
    while (e < w->len && is_space((unsigned char)w->text[e])) e++;
    if (e < w->len && w->text[e] == ':') return line;
  }
  return 1;
}

static int json_z(warm *w, const json_t *root)
{
  const json_t *z = json_object_get(root, "z");
  long line = key_line(w, "z");
  if (!json_is_array(z)) return fail(w, CPK_EPARSE, line, "no \"z\" array in the JSON object");
  if (json_array_size(z) != w->n)
    return fail(w, CPK_EPARSE, line, "\"z\" has %zu values, expected %zu",
                json_array_size(z), w->n);
  for (size_t i = 0; i < w->n; i++) {
    const json_t *v = json_array_get(z, i);
    if (json_is_null(v))
      return fail(w, CPK_EPARSE, line, "z[%zu] (1-based) is null (a value that was not finite)", i + 1);
    if (!json_is_number(v)) return fail(w, CPK_EPARSE, line, "z[%zu] (1-based) is not a number", i + 1);
    w->z[i] = json_number_value(v);
  }
  return CPK_OK;
}

/* A basis entry: "lower", "upper", "basic" or the cpk_var_state numbers 0, 1, 2. */
static int basis_entry(const json_t *v, int *state)
{
  if (json_is_integer(v)) {
    json_int_t k = json_integer_value(v);
    *state = (int)k;
    return k >= CPK_VAR_AT_LOWER && k <= CPK_VAR_BASIC;
  }
  for (int s = CPK_VAR_AT_LOWER; s <= CPK_VAR_BASIC; s++)
    if (json_is_string(v) && strcmp(json_string_value(v), cpk_var_state_name(s)) == 0) {
      *state = s;
      return 1;
    }
  return 0;
}

static int json_basis(warm *w, const json_t *root)
{
  const json_t *b = json_object_get(root, "basis");
  long line = key_line(w, "basis");
  if (!b || json_is_null(b)) return CPK_OK;
  if (!json_is_array(b)) return fail(w, CPK_EPARSE, line, "\"basis\" is not an array");
  if (json_array_size(b) != w->n)
    return fail(w, CPK_EPARSE, line, "\"basis\" has %zu entries, expected %zu",
                json_array_size(b), w->n);
  for (size_t i = 0; i < w->n; i++)
    if (!basis_entry(json_array_get(b, i), &w->basis[i]))
      return fail(w, CPK_EPARSE, line, "basis[%zu] (1-based) is not lower, upper, basic, 0, 1 or 2", i + 1);
  w->has_basis = 1;
  return CPK_OK;
}

static int read_json(warm *w)
{
  json_error_t jerr;
  json_t *root = json_loadb(w->text, w->len, 0, &jerr);
  if (!root) return fail(w, CPK_EPARSE, jerr.line > 0 ? jerr.line : 1, "%s", jerr.text);
  int rc = json_is_object(root) ? json_z(w, root)
                                : fail(w, CPK_EPARSE, 1, "the JSON value is not an object");
  if (!rc) rc = json_basis(w, root);
  json_decref(root);
  return rc;
}

/* Next white-space separated token from *pos ('#' comments skipped): its full length (0 at
   the end), of which at most TOKEN_MAX characters are copied to tok. */
static size_t next_token(const warm *w, size_t *pos, long *line, char *tok, long *tok_line)
{
  size_t k = *pos, len = 0;
  for (; k < w->len && (is_space((unsigned char)w->text[k]) || w->text[k] == '#'); k++) {
    if (w->text[k] == '#')
      while (k + 1 < w->len && w->text[k + 1] != '\n') k++;
    else if (w->text[k] == '\n') (*line)++;
  }
  *tok_line = *line;
  for (; k < w->len && !is_space((unsigned char)w->text[k]) && w->text[k] != '#'; k++, len++)
    if (len < TOKEN_MAX) tok[len] = w->text[k];
  tok[len < TOKEN_MAX ? len : TOKEN_MAX] = '\0';
  *pos = k;
  return len;
}

static int read_text(warm *w)
{
  char tok[TOKEN_MAX + 1], *end;
  size_t pos = 0, count = 0;
  long line = 1, tok_line;
  /* The end of the input is reported on the last line, not after its newline. */
  long last_line = 1;
  for (size_t k = 0; k + 1 < w->len; k++) last_line += w->text[k] == '\n';
  size_t len;
  while ((len = next_token(w, &pos, &line, tok, &tok_line)) > 0) {
    if (len > TOKEN_MAX)
      return fail(w, CPK_EPARSE, tok_line, "token longer than %d characters", TOKEN_MAX);
    if (count == w->n)
      return fail(w, CPK_EPARSE, tok_line, "more than the %zu numbers expected", w->n);
    double x = strtod(tok, &end);
    if (end == tok || *end != '\0')
      return fail(w, CPK_EPARSE, tok_line, "'%s' is not a number", tok);
    if (!isfinite(x))
      return fail(w, CPK_EPARSE, tok_line, "'%s': warm-start values must be finite", tok);
    w->z[count++] = x;
  }
  if (count < w->n)
    return fail(w, CPK_EPARSE, last_line, "found %zu numbers, expected %zu", count, w->n);
  return CPK_OK;
}

/* JSON when the first character that is not white space is '{'; plain text otherwise. */
static int is_json(const warm *w)
{
  size_t k = 0;
  while (k < w->len && is_space((unsigned char)w->text[k])) k++;
  return k < w->len && w->text[k] == '{';
}

static int read_warm(warm *w)
{
  if (memchr(w->text, '\0', w->len)) return fail(w, CPK_EPARSE, 1, "NUL byte: not a text file");
  locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t old = c ? uselocale(c) : (locale_t)0;
  int rc = is_json(w) ? read_json(w) : read_text(w);
  if (c) {
    uselocale(old);
    freelocale(c);
  }
  return rc;
}

int cpk_warm_start_read_file(const char *path, size_t n, double *z0, int *basis0, int *has_basis,
                             cpk_error *err)
{
  warm w = {path, NULL, 0, n, NULL, NULL, 0, err};
  cpk_error_clear(err);
  if (has_basis) *has_basis = 0;
  if (!path || (!z0 && n > 0)) return cpk_error_set(err, CPK_EINVAL, "no path or no z0 given");
  int rc = slurp(&w);
  if (rc) return rc;
  w.z = cpk_alloc_array(n, sizeof *w.z);
  w.basis = cpk_alloc_array(n, sizeof *w.basis);
  if (!w.z || !w.basis) rc = cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", path);
  if (!rc) rc = read_warm(&w);
  if (!rc) { /* the caller's arrays change only when the whole file is good */
    if (n > 0) memcpy(z0, w.z, n * sizeof *z0);
    if (basis0 && w.has_basis && n > 0) memcpy(basis0, w.basis, n * sizeof *basis0);
    if (has_basis) *has_basis = w.has_basis;
  }
  free(w.text);
  free(w.z);
  free(w.basis);
  return rc;
}
