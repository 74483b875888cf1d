/* system_json_write.c: writing a contact system as JSON in the schema the reader takes (values exact, %.17g). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <cpkit/contact.h>

/* %.17g is exact; "-0" would read back as the integer 0, so a negative zero stays a real. */
static void number(FILE *f, double x)
{
  if (x == 0.0 && signbit(x))
    fputs("-0.0", f);
  else
    fprintf(f, "%.17g", x);
}

static void numbers(FILE *f, const double *x, size_t n, size_t stride)
{
  fputc('[', f);
  for (size_t k = 0; k < n; k++) {
    if (k) fputs(", ", f);
    number(f, x[k * stride]);
  }
  fputc(']', f);
}

static void matrix3(FILE *f, const char *key, const double M[9])
{
  fprintf(f, "\"%s\": [", key);
  for (int a = 0; a < 3; a++) {
    if (a) fputs(", ", f);
    numbers(f, M + 3 * a, 3, 1);
  }
  fputc(']', f);
}

static void params(FILE *f, const cpk_contact_params *p)
{
  double e[3] = {p->e_t, p->e_o, p->e_r};
  fputs("\"psi\": ", f);
  number(f, p->psi);
  fputs(", \"mu\": ", f);
  number(f, p->mu);
  fputs(", \"e\": ", f);
  numbers(f, e, 3, 1);
  if (p->drift[0] != 0 || p->drift[1] != 0 || p->drift[2] != 0 || p->drift[3] != 0) {
    fputs(", \"drift\": ", f);
    numbers(f, p->drift, 4, 1);
  }
  if (p->ndirections > 0) {
    fputs(",\n     \"directions\": [", f);
    for (size_t j = 0; j < p->ndirections; j++) {
      if (j) fputs(", ", f);
      numbers(f, p->directions + 3 * j, 3, 1);
    }
    fputc(']', f);
  }
  if (!p->compliant) return;
  fputs(",\n     \"compliance\": {", f);
  matrix3(f, "K", p->K);
  fputs(", ", f);
  matrix3(f, "C", p->C);
  if (isfinite(p->delta_max)) {
    fputs(", \"delta_max\": ", f);
    number(f, p->delta_max);
  }
  fputs(", \"delta_prev\": ", f);
  numbers(f, p->delta_prev, 3, 1);
  fputc('}', f);
}

static void body_contact(FILE *f, const cpk_contact_system *s, size_t c)
{
  static const char *const wk[4] = {"W_n", "W_t", "W_o", "W_r"};
  size_t first = s->wptr[c], n = s->wptr[c + 1] - first;
  fputs("    {", f);
  params(f, &s->contacts[c]);
  fputs(",\n     \"rows\": [", f);
  for (size_t k = 0; k < n; k++)
    fprintf(f, "%s%lld", k ? ", " : "", (long long)s->wrow[first + k] + 1);
  fputc(']', f);
  for (int a = 0; a < 4; a++) {
    fprintf(f, ",\n     \"%s\": ", wk[a]);
    numbers(f, s->wval + 4 * first + a, n, 4);
  }
  fputc('}', f);
}

static void triplets(FILE *f, const char *key, const cpk_csc *A)
{
  fprintf(f, "  \"%s\": {\"triplets\": [", key);
  for (cpk_int j = 0; j < A->n; j++)
    for (cpk_int k = A->p[j]; k < A->p[j + 1]; k++) {
      fprintf(f, "%s\n    [%lld, %lld, ", k ? "," : "", (long long)A->i[k] + 1, (long long)j + 1);
      number(f, A->x[k]);
      fputc(']', f);
    }
  fputs("]},\n", f);
}

static void header(FILE *f, const cpk_contact_system *s)
{
  fputs("{\n  \"cpkit_contact_system\": 1,\n", f);
  if (s->name) {
    json_t *js = json_string(s->name);
    char *q = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    if (q) fprintf(f, "  \"name\": %s,\n", q);
    free(q);
    json_decref(js);
  }
  fprintf(f, "  \"form\": \"%s\",\n  \"h\": ", s->form == CPK_SYSTEM_BODY ? "body" : "local");
  number(f, s->h);
  fputs(",\n", f);
}

int cpk_contact_system_write_json(const cpk_contact_system *s, FILE *f, cpk_error *err)
{
  int rc = cpk_contact_system_validate(s, err);
  if (rc) return rc;
  header(f, s);
  if (s->form == CPK_SYSTEM_BODY) {
    fprintf(f, "  \"nv\": %zu,\n", s->nv);
    triplets(f, "M", s->M);
    fputs("  \"v\": ", f);
    numbers(f, s->v, s->nv, 1);
    fputs(",\n  \"k\": ", f);
    numbers(f, s->k, s->nv, 1);
    fputs(",\n", f);
  } else {
    fprintf(f, "  \"dim\": %zu,\n", s->dim);
    triplets(f, "W", s->W);
    fputs("  \"q\": ", f);
    numbers(f, s->q, s->dim * s->nc, 1);
    fputs(",\n", f);
  }
  fputs("  \"contacts\": [\n", f);
  for (size_t c = 0; c < s->nc; c++) {
    if (s->form == CPK_SYSTEM_BODY) {
      body_contact(f, s, c);
    } else {
      fputs("    {", f);
      params(f, &s->contacts[c]);
      fputc('}', f);
    }
    fputs(c + 1 < s->nc ? ",\n" : "\n", f);
  }
  if (s->influence) { /* distributed compliance; triplets() ends its line with a comma */
    fputs("  ],\n", f);
    triplets(f, "influence", s->influence);
    fputs("  \"u0\": ", f);
    numbers(f, s->u0, 3 * s->nc, 1);
    fputs("\n}\n", f);
  } else {
    fputs("  ]\n}\n", f);
  }
  if (ferror(f)) return cpk_error_set(err, CPK_EIO, "write error");
  return CPK_OK;
}
