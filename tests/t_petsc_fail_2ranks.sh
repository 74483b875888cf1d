#!/bin/sh
# t_petsc_fail_2ranks.sh: t_petsc_fail with 2 MPI ranks under `timeout`: a failure injected on one rank ends the solve with an error on both ranks, and the run ends (a deadlock fails the test instead of hanging it).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_fail_2ranks
# rank 0 reports for both: 1 + 2 x 6 results, + 1 (rank 0 ran nsn), all ok
mpi_2ranks t_petsc_fail 14
tap_done
