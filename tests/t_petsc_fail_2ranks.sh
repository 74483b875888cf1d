#!/bin/sh
# t_petsc_fail_2ranks.sh: t_petsc_fail with 2 MPI ranks under `timeout`: a failure injected on one rank ends the solve with an error on both ranks, and the run ends (a deadlock fails the test instead of hanging it).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_fail_2ranks

if ! command -v mpirun >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 || [ ! -x ./t_petsc_fail ]; then
  skip "mpirun, timeout or ./t_petsc_fail not available"
  tap_done
  exit $?
fi
mpi_test_env # root allowed, no leak check of Open MPI's start-up; --oversubscribe: 2 ranks may share 1 core

# Each case takes well under a second; 240 s only guards against a hang on a loaded machine.
timeout -k 10 240 mpirun -np 2 --oversubscribe ./t_petsc_fail >"$tmp/out" 2>"$tmp/err"
st=$?
check "2 ranks: the run ends before the timeout (no deadlock)" test "$st" -ne 124 -a "$st" -ne 137
check "2 ranks: exit 0" test "$st" -eq 0
grep -v '^1\.\.' "$tmp/out" | diag
# rank 0 reports for both: 1 + 2 x 6 results, + 1 (rank 0 ran nsn), all ok
check "2 ranks: 14 results from rank 0, none failed" \
  test "$(grep -c '^ok ' "$tmp/out")" -eq 14 -a "$(grep -c '^not ok' "$tmp/out")" -eq 0
tap_done
