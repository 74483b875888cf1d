/* t_lapack_equilibrate.c: the lapack backend's equilibration gives dgeequb's scalings bit for bit (random matrices, entries at and next to powers of two, zero rows and columns). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lapack_equilibrate.h"
#include "testlib.h"

/* LAPACK's routine, the reference (the backend no longer calls it). */
void dgeequb_(const int *m, const int *n, const double *a, const int *lda, double *r, double *c,
              double *rowcnd, double *colcnd, double *amax, int *info);

/* 1 when lapack_equilibrate and dgeequb agree on info, amax, and (info 0) every scale. */
static int agree(int n, const double *a)
{
  double r1[16], c1[16], r2[16], c2[16], rowcnd, colcnd, amax1, amax2;
  int info1 = 0;
  dgeequb_(&n, &n, a, &n, r1, c1, &rowcnd, &colcnd, &amax1, &info1);
  int info2 = lapack_equilibrate(n, a, r2, c2, &amax2);
  if (info1 != info2 || !(amax1 == amax2)) return 0;
  return info1 != 0 ||
         (memcmp(r1, r2, (size_t)n * sizeof *r1) == 0 && memcmp(c1, c2, (size_t)n * sizeof *c1) == 0);
}

/* An entry of random sign and magnitude 2^[-40, 40), at or next to a power of two on kind 1, 2. */
static double entry(int kind)
{
  double x = ldexp(1.0 + (double)rand() / RAND_MAX, rand() % 80 - 40);
  if (kind) x = ldexp(1.0, rand() % 80 - 40);
  if (kind == 2) x = nextafter(x, rand() % 2 ? 0.0 : INFINITY);
  return rand() % 2 ? x : -x;
}

static void test_random(int kind, const char *what)
{
  int bad = 0;
  for (int t = 0; t < 2000; t++) {
    int n = 1 + rand() % 16;
    double a[256];
    for (int k = 0; k < n * n; k++) a[k] = rand() % 3 ? entry(kind) : 0.0;
    for (int i = 0; i < n; i++) a[i + i * n] = entry(kind); /* no zero row or column */
    bad += !agree(n, a);
  }
  t_ok(bad == 0, "%s: 2000 matrices as dgeequb scales them (%d differ)", what, bad);
}

static void test_powers(void)
{
  int bad = 0;
  for (int e = -1070; e <= 1020; e++) /* every power of two and its neighbours, 1 x 1 */
    for (int side = -1; side <= 1; side++) {
      double x = ldexp(1.0, e);
      if (side) x = nextafter(x, side < 0 ? 0.0 : INFINITY);
      bad += !agree(1, &x);
    }
  t_ok(bad == 0, "1 x 1: every power of two and its neighbours as dgeequb (%d differ)", bad);
}

static void test_zero(void)
{
  double a[9] = {1, 0, 3, 0, 0, 0, 4, 0, 5}; /* column-major: row 1 and column 1 are zero */
  double r[3], c[3], amax;
  t_ok(lapack_equilibrate(3, a, r, c, &amax) == 2 && agree(3, a), "zero row 1: info 2, as dgeequb");
  double b[9] = {1, 2, 3, 0, 0, 0, 4, 5, 6}; /* column 1 zero */
  t_ok(lapack_equilibrate(3, b, r, c, &amax) == 5 && agree(3, b), "zero column 1: info 5, as dgeequb");
  double nan1[4] = {NAN, 1, 2, 3}, nan2[4] = {NAN, 0, 0, 3}; /* NaN skipped by the maxima */
  t_ok(agree(2, nan1) && agree(2, nan2), "NaN entries: as dgeequb");
  double d[4] = {1, INFINITY, 2, 3};
  t_ok(lapack_equilibrate(2, d, r, c, &amax) == 0 && isinf(amax), "an infinite entry: amax infinite");
}

int main(void)
{
  srand(12345);
  test_random(0, "random entries");
  test_random(1, "powers of two");
  test_random(2, "next to powers of two");
  test_powers();
  test_zero();
  return t_done();
}
