/* seed001-rod.c: seed 001 section 2.4 (Figure 4): energy dissipated by the falling rod's impact against restitution, Newton/Poisson/Stronge. */
/*
 * Build against an installed cpkit:
 *   cc seed001-rod.c $(pkg-config --cflags --libs cpkit) -lm -o seed001-rod
 * or in the tree: make -C bench seed001_rod.
 * Usage: seed001-rod [MU] [--data FILE]
 * The rod of seed 001 section 2.4: unit mass and length, I = 1/12, at 45
 * degrees, no spin, contact velocity (S0, C0) = (0.6, -1) against the fixed
 * ground; its lower end trails (r = (-sqrt 2/4, -sqrt 2/4)), so the slip
 * stops during compression and reverses for MU < 0.6 (the paper's case (a),
 * plotted in its Figure 4) and sticks for MU > 0.6. The paper does not give
 * the MU of Figure 4; the default 0.5 is one value of case (a).
 * Columns: e, then for each hypothesis D/D(e=0) and D_n/D_n(e=0), the paper's
 * normalisation. With --data the same table goes to FILE for
 * examples/seed001-rod.gp (gnuplot).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/cpkit.h>

static const double PI = 3.14159265358979323846;

static cpk_impact_body paper_rod(void)
{
  double c = 0.5 * cos(PI / 4);
  cpk_impact_body b = {1.0, 1.0 / 12.0, {-c, -c}, {0.6, -1.0}, 0.0};
  return b;
}

/* D and D_n of one impact; returns 0 on success. */
static int dissipation(double mu, double e, cpk_impact_law law, double *D, double *Dn,
                       cpk_impact_case *kase)
{
  cpk_impact_body rod = paper_rod();
  cpk_impact_result r;
  cpk_error err;
  if (cpk_impact_solve(&rod, NULL, mu, e, law, &r, &err)) {
    fprintf(stderr, "seed001-rod: %s\n", err.message);
    return 1;
  }
  *D = r.D;
  *Dn = r.D_n;
  *kase = r.kase;
  return 0;
}

static int table(double mu, FILE *out, int header)
{
  double D0[CPK_IMPACT_LAW_COUNT], Dn0[CPK_IMPACT_LAW_COUNT];
  cpk_impact_case kase;
  for (int l = 0; l < CPK_IMPACT_LAW_COUNT; l++)
    if (dissipation(mu, 0, (cpk_impact_law)l, &D0[l], &Dn0[l], &kase)) return 1;
  if (header) {
    fprintf(out, "# seed 001 Figure 4: rod at 45 deg, S0 = 0.6, C0 = -1, mu = %g (case %c)\n",
            mu, "abcde-"[kase]);
    fprintf(out, "# D(e=0) = %.6f, D_n(e=0) = %.6f (same for the three laws)\n", D0[0], Dn0[0]);
    fprintf(out, "#   e   newton:D  newton:Dn  poisson:D poisson:Dn stronge:D stronge:Dn\n");
  }
  for (int k = 0; k <= 10; k++) {
    double e = 0.1 * k;
    fprintf(out, "%5.2f", e);
    for (int l = 0; l < CPK_IMPACT_LAW_COUNT; l++) {
      double D, Dn;
      if (dissipation(mu, e, (cpk_impact_law)l, &D, &Dn, &kase)) return 1;
      fprintf(out, " %10.5f %10.5f", D / D0[l], Dn / Dn0[l]);
    }
    fputc('\n', out);
  }
  return 0;
}

int main(int argc, char **argv)
{
  double mu = 0.5;
  const char *data = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      data = argv[++i];
    } else {
      char *end;
      mu = strtod(argv[i], &end);
      if (*end || !(mu >= 0)) {
        fprintf(stderr, "usage: seed001-rod [MU] [--data FILE]\n");
        return 2;
      }
    }
  }
  if (table(mu, stdout, 1)) return 1;
  if (data) {
    FILE *f = fopen(data, "w");
    if (!f) {
      perror(data);
      return 1;
    }
    int rc = table(mu, f, 1);
    if (fclose(f) || rc) return 1;
  }
  return 0;
}
