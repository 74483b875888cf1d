#!/bin/sh
# t_petsc_stop_2ranks.sh: t_petsc_stop with 2 MPI ranks under `timeout`: a stop or a refused factorization on one rank only ends alike on both ranks (ranks out of step hang, and the timeout fails the test).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_stop_2ranks
# rank 0 reports for both: 1 + 2 x 18 results, all ok
mpi_2ranks t_petsc_stop 37
tap_done
