#!/bin/sh
# t_petsc_fc_rows_2ranks.sh: t_fc_rows with 2 MPI ranks under `timeout`: each rank reads its own block of contacts from FCLIB and text files and a generated pile, and the residual and merit reduced over the ranks equal the replicated ones (rank 0 reports for both).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_fc_rows_2ranks
# 8 files x 6 results + 1 (the pile written) + 2 (the text edge cases)
mpi_2ranks t_fc_rows 51
tap_done
