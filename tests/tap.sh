# tap.sh: TAP helpers shared by the shell tests (sourced): scratch directory, test records, running cpkit.
# Use: srcdir=${CPK_TEST_SRCDIR:-.}; . "$srcdir/tap.sh"; tap_init NAME; ...; tap_done
: "${CPKIT:?CPKIT must name the cpkit binary}"

ntest=0
nfail=0

# tap_init NAME: a scratch directory $tmp, removed on exit.
tap_init() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
  trap 'rm -rf "$tmp"' 0
  trap 'exit 1' HUP INT TERM
}

pass() { ntest=$((ntest + 1)); echo "ok $ntest - $1"; }
fail() { ntest=$((ntest + 1)); nfail=$((nfail + 1)); echo "not ok $ntest - $1"; }
skip() { ntest=$((ntest + 1)); echo "ok $ntest # SKIP $1"; }
diag() { sed 's/^/# /'; }

# run ARGS...: run cpkit, keep stdout/stderr in $tmp/out, $tmp/err and the exit status in $st.
run() {
  "$CPKIT" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
}
run_stdin() {
  input=$1
  shift
  "$CPKIT" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  st=$?
}
show_last() {
  echo "exit status $st; stderr:" | diag
  head -n 5 "$tmp/err" | diag
}

# check DESC COMMAND...: one test, passing when COMMAND succeeds.
check() {
  desc=$1
  shift
  if "$@"; then pass "$desc"; else fail "$desc"; show_last; fi
}

lines() { wc -l <"$1" | tr -d ' '; }
is_empty() { test ! -s "$1"; }
status_is() { test "$st" -eq "$1"; }
has() { grep -E -q -- "$1" "$2"; }

# One error message: exactly one line on stderr starting with $error_prefix (default "cpkit"),
# nothing on stdout.
one_error_line() {
  is_empty "$tmp/out" && test "$(lines "$tmp/err")" -eq 1 && has "^${error_prefix:-cpkit}" "$tmp/err"
}

# mpi_test_env: what a test running mpirun needs: Open MPI refuses root (containers, CI) unless
# told; no leak check of Open MPI's own start-up allocations under ASan.
mpi_test_env() {
  if [ "$(id -u)" -eq 0 ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
  fi
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
  export ASAN_OPTIONS
}

# mpi_2ranks PROG N: ./PROG with 2 MPI ranks under `timeout`, so that ranks out of step (a
# deadlock) fail the test instead of hanging it; it must exit 0 with N results from rank 0
# (which reports for both ranks), none failed. Skipped without mpirun, timeout or PROG.
mpi_2ranks() {
  if ! command -v mpirun >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1 || [ ! -x "./$1" ]; then
    skip "mpirun, timeout or ./$1 not available"
    return
  fi
  mpi_test_env # --oversubscribe: 2 ranks may share 1 core
  # Each run takes seconds; 240 s only guards against a hang on a loaded machine.
  timeout -k 10 240 mpirun -np 2 --oversubscribe "./$1" >"$tmp/out" 2>"$tmp/err"
  st=$?
  check "2 ranks: the run ends before the timeout (no deadlock)" test "$st" -ne 124 -a "$st" -ne 137
  check "2 ranks: exit 0" test "$st" -eq 0
  grep -v '^1\.\.' "$tmp/out" | diag
  check "2 ranks: $2 results from rank 0, none failed" \
    test "$(grep -c '^ok ' "$tmp/out")" -eq "$2" -a "$(grep -c '^not ok' "$tmp/out")" -eq 0
}

tap_done() {
  echo "1..$ntest"
  test "$nfail" -eq 0
}
