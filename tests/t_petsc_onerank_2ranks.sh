#!/bin/sh
# t_petsc_onerank_2ranks.sh: t_petsc_onerank with 2 MPI ranks under `timeout`: arguments refused and an allocation failing on one rank only end alike on both ranks (ranks out of step hang, and the timeout fails the test).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_onerank_2ranks
# rank 0 reports for both: 1 + 2 x 11 results, all ok
mpi_2ranks t_petsc_onerank 23
tap_done
