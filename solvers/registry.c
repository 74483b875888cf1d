/* registry.c: the list of built-in solvers, found by name. Adding a solver adds one line here. */
#include <config.h>
#include <string.h>
#include <cpkit/solver.h>

static const cpk_solver_type *const *const registry[] = {
    &cpk_solver_lemke,
    &cpk_solver_enum,
    &cpk_solver_bdnewton,
    &cpk_solver_fbnewton,
    &cpk_solver_pgs,
    &cpk_solver_ipm,
    &cpk_solver_nsgs,
    &cpk_solver_fcipm,
    &cpk_solver_nsn,
    &cpk_solver_fcprox,
#ifdef HAVE_PETSC /* PETSc TAO's complementarity solvers (solvers/tao.c) */
    &cpk_solver_tao_ssils, &cpk_solver_tao_ssfls, &cpk_solver_tao_asils, &cpk_solver_tao_asfls,
    &cpk_solver_nsn_rows, /* nsn on rows distributed over the ranks (solvers/nsn_rows.c) */
#endif
};

size_t cpk_solver_count(void) { return sizeof registry / sizeof registry[0]; }

const cpk_solver_type *cpk_solver_at(size_t i)
{
  return i < cpk_solver_count() ? *registry[i] : NULL;
}

const cpk_solver_type *cpk_solver_find(const char *name)
{
  for (size_t i = 0; name && i < cpk_solver_count(); i++)
    if (strcmp((*registry[i])->name, name) == 0) return *registry[i];
  return NULL;
}
