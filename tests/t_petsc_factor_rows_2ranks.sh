#!/bin/sh
# t_petsc_factor_rows_2ranks.sh: t_petsc_factor_rows with 2 MPI ranks under `timeout`: each rank gives only its rows of the matrix, the solution is checked on every rank (rank 0 reports for both), and a bad call on one rank is refused on both.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_factor_rows_2ranks
mpi_2ranks t_petsc_factor_rows 12
tap_done
