/* implications.c: what the decided matrix classes guarantee for the LCP (existence, uniqueness, Lemke). */
#include <string.h>
#include <cpkit/check.h>

static int holds(const cpk_check_report *r, const char *name)
{
  const cpk_check_entry *e = cpk_check_report_find(r, name);
  return e && e->verdict == CPK_VERDICT_HOLDS;
}

static int add(cpk_check_report *r, const char *name, const char *text)
{
  return cpk_check_report_add(r, name, CPK_VERDICT_IMPLIES, "%s", text);
}

static int lcp_implications(cpk_check_report *r)
{
  int rc = 0, p = holds(r, "p_matrix"), psd = holds(r, "sym_psd");
  int scop = holds(r, "strictly_copositive"), cop = holds(r, "copositive");
  int cplus = holds(r, "copositive_plus"), r0 = holds(r, "r0"), p0 = holds(r, "p0_matrix");
  if (p)
    rc |= add(r, "implies_uniqueness",
              "a solution for every q, and exactly one (P-matrix: Samelson-Thrall-Wesler, Murty)");
  else if (psd)
    rc |= add(r, "implies_uniqueness",
              "w = Mz + q is the same at every solution and the solutions form a convex set (monotone)");
  if (!p && scop)
    rc |= add(r, "implies_existence", "a solution for every q (strictly copositive)");
  else if (!p && cop && r0)
    rc |= add(r, "implies_existence", "a solution for every q (copositive and R0)");
  else if (!p && p0 && r0)
    rc |= add(r, "implies_existence", "a solution for every q (P0 and R0, Aganagic-Cottle)");
  if (p || cplus)
    rc |= add(r, "implies_lemke",
              p ? "Lemke's method finds the solution (P-matrix)"
                : "Lemke's method finds a solution or proves there is none by a secondary ray "
                  "(copositive-plus)");
  else if (p0 && r0)
    rc |= add(r, "implies_lemke", "Lemke's method finds a solution (P0 and R0)");
  if (r0 && !p)
    rc |= add(r, "implies_bounded", "the solution set is bounded for every q (R0)");
  return rc ? CPK_ENOMEM : CPK_OK;
}

int cpk_check_implications(cpk_check_report *r, int lcp)
{
  if (!r) return CPK_EINVAL;
  if (lcp) return lcp_implications(r);
  int rc = 0;
  if (holds(r, "p_matrix"))
    rc |= add(r, "implies_uniqueness",
              "at most one solution for any bounds, exactly one (P-matrix: F is a uniform "
              "P-function on the box)");
  else if (holds(r, "sym_psd"))
    rc |= add(r, "implies_uniqueness", "the solutions form a convex set (monotone affine map)");
  if (!holds(r, "p_matrix"))
    rc |= add(r, "implies_note", "the LCP classes above concern M; with general bounds only P "
                                 "and monotonicity carry over");
  return rc ? CPK_ENOMEM : CPK_OK;
}
