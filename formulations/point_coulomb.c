/* point_coulomb.c: point contacts with the quadratic Coulomb cone and maximum dissipation (seed 004 eq. (9); at h = 0 seed 001 section 3). */
#include "compiled.h"

/* The isotropic cone is the ellipsoid with e_t = e_o = 1 and no moment: the
 * rows are seed 004 eq. (9) exactly, mu p_n U_t + p_t sigma = 0, etc. */
static int setup_point(cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                       cpk_error *err)
{
  static const double e[3] = {1.0, 1.0, 0.0};
  for (size_t c = 0; c < s->nc; c++) {
    int rc = cvm_setup_ellipsoid(C, s, c, e, 0, o->rolling_tol, err);
    if (rc) return rc;
  }
  return CPK_OK;
}

int cpk_compile_point_coulomb(const cpk_contact_system *s, const cpk_compile_options *o,
                              cpk_problem **problem, cpk_varmap **map, cpk_error *err)
{
  return cvm_compile(s, CPK_MODEL_POINT_COULOMB, o, setup_point, cvm_rows_ellipsoid, problem, map,
                     err);
}
