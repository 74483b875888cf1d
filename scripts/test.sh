#!/bin/sh
# test.sh: install dependencies, build, and run the whole test suite (make check and the long
# experiment runs of make check-long): plain, under AddressSanitizer + UndefinedBehaviorSanitizer,
# and make distcheck; then the PETSc build's tests (scripts/test-petsc.sh, unless CPK_WITH_PETSC=0).
# Ends with "N passed, N failed", the sum of all.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh" || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
status=0
run_suite() { # builddir, label, configure options
  dir=$1 label=$2
  shift 2
  echo "== build ($label)"
  "$top/scripts/build.sh" "$dir" "$@" || { status=1; return; }
  echo "== make check ($label)"
  ( cd "$top/$dir" && make -j"$jobs" check >check.out 2>&1 ) || status=1
  cp "$top/$dir/tests/test-suite.log" "$top/$dir/tests/check-suite.log" 2>/dev/null
  report "$dir" "$label" check
  echo "== make check-long ($label)"
  ( cd "$top/$dir" && make -j"$jobs" check-long >check-long.out 2>&1 ) || status=1
  cp "$top/$dir/tests/test-suite.log" "$top/$dir/tests/check-long-suite.log" 2>/dev/null
  report "$dir" "$label" check-long
}
report() { # builddir, label, target: the totals and the failures of one run
  grep -E '^(# (TOTAL|PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):)' "$top/$1/tests/$3-suite.log" 2>/dev/null \
    | sed "s/^/   [$2, $3] /"
  grep -E '^(FAIL|ERROR)' "$top/$1/$3.out" | sed "s/^/   [$2, $3] /" | head -40
}
run_suite _build plain
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite _build-san "asan+ubsan" --enable-sanitizers
echo "== make distcheck"
( cd "$top/_build" && make -j"$jobs" distcheck >distcheck.out 2>&1 ) \
  && echo "   distcheck passed" || { echo "   distcheck FAILED"; tail -30 "$top/_build/distcheck.out"; status=1; }
echo "== install and use through pkg-config"
"$top/scripts/check-install.sh" "$top/_build" >"$top/_build/install-check.out" 2>&1 || status=1
sed 's/^/   /' "$top/_build/install-check.out"
# Last, because installing PETSc changes the machine (test-petsc.sh pins hdf5.pc back to serial).
if [ "${CPK_WITH_PETSC:-1}" != 0 ]; then
  echo "== PETSc build and its tests (scripts/test-petsc.sh; CPK_WITH_PETSC=0 skips them)"
  "$top/scripts/test-petsc.sh" >"$top/_build/test-petsc.out" 2>&1 || status=1
  sed 's/^/   /' "$top/_build/test-petsc.out"
fi
pass=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$top/_build/install-check.out")
fail=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$top/_build/install-check.out")
pass=${pass:-0} fail=${fail:-1}
for log in "$top/_build/tests/check-suite.log" "$top/_build/tests/check-long-suite.log" \
  "$top/_build-san/tests/check-suite.log" "$top/_build-san/tests/check-long-suite.log"; do
  [ -f "$log" ] || { fail=$((fail + 1)); continue; }
  p=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
  f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
  e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
  pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0} + ${e:-0}))
done
if [ "${CPK_WITH_PETSC:-1}" != 0 ]; then
  p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$top/_build/test-petsc.out" | tail -1)
  f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$top/_build/test-petsc.out" | tail -1)
  pass=$((pass + ${p:-0})) fail=$((fail + ${f:-1}))
fi
[ "$fail" -gt 0 ] && status=1
echo "$pass passed, $fail failed"
exit $status
