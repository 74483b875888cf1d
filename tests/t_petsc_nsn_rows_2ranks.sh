#!/bin/sh
# t_petsc_nsn_rows_2ranks.sh: t_petsc_nsn_rows with 2 MPI ranks under `timeout`: nsn-rows with each rank's rows of the problem and of the Newton matrix solves FCLIB files and a pile (checked by t_is_fc_solution on every rank, rank 0 reporting for both) and gives nsn's answer where it is unique.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_nsn_rows_2ranks
mpi_2ranks t_petsc_nsn_rows 19
tap_done
