/* linsys_rows.h: the petsc backends' factorization of a matrix given by this rank's rows (cpk_linsys_factor_rows), declared without PETSc's headers for linsys.c. */
#ifndef CPK_LINSYS_ROWS_H
#define CPK_LINSYS_ROWS_H
#include <stddef.h>
#include <cpkit/matrix.h>

/* state: a petsc backend instance's; see cpk_linsys_factor_rows. CPK_EUNSUP without PETSc. */
int petsc_factor_rows(void *state, size_t row0, size_t row1, const cpk_int *rowptr, const cpk_int *col,
                      const double *val);
#endif
