#!/bin/sh
# t_reliab_cli.sh: TAP tests of issue 16's smaller CLI defects: coordinate duplicates summing to infinity, solvers declining a problem under --json, an FCLIB file that crashes libhdf5.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_reliab_cli
d=$srcdir/data/reliab

run solve "$d/coord-overflow.cpk"
check "M coord duplicates summing to +inf: refused, exit 1, file:line message" \
  eval 'status_is 1 && one_error_line && has "coord-overflow.cpk:[0-9]+: .*not finite" "$tmp/err"'

# A solver that declines the problem answers --json with status invalid_input (exit 0).
run solve --solver enum --json "$srcdir/../examples/contact-lcp.cpk"
check "enum above n = 20 with --json: invalid_input result, exit 0" \
  eval 'status_is 0 && has "\"status\": *\"invalid_input\"" "$tmp/out" && has "enumeration limit" "$tmp/out"'
run solve --solver pgs --json "$d/zero-diagonal.cpk"
check "pgs on a zero diagonal with --json: invalid_input result, exit 0" \
  eval 'status_is 0 && has "\"status\": *\"invalid_input\"" "$tmp/out" && has "positive diagonal" "$tmp/out"'
run solve --solver pgs "$d/zero-diagonal.cpk"
check "pgs on a zero diagonal without --json: exit 1 with the reason" \
  eval 'status_is 1 && one_error_line && has "positive diagonal" "$tmp/err"'

# fclib-heap-size.hdf5: FrictionContact3D_1c with the data-segment size of the root
# group's local heap set to 2^64 - 1. libhdf5 1.10.8 trusts it: H5Lexists ->
# H5G__stab_lookup -> H5HL_protect copies with it and corrupts the heap or faults
# (the fuzzer's finding). Every command reads HDF5 files in a child process first
# (cpk_fclib_probe): one message, exit 1, nothing on stdout.
bad=$d/fclib-heap-size.hdf5
run info "$srcdir/data/fclib/FrictionContact3D_1c.hdf5"
if grep -q "without HDF5" "$tmp/err"; then
  skip "cpkit built without HDF5: no FCLIB file is read"
  tap_done
  exit $?
fi
for cmd in info solve check "compile --model polyhedral" "solve-system --model polyhedral"; do
  # shellcheck disable=SC2086
  run $cmd "$bad"
  check "$cmd on an FCLIB file that crashes libhdf5: exit 1, one message" \
    eval 'status_is 1 && one_error_line && has "fclib-heap-size.hdf5: .*the file is corrupt" "$tmp/err"'
done
run convert "$bad" "$tmp/out.cpk"
check "convert of that file: exit 1, one message, no output file" \
  eval 'status_is 1 && one_error_line && test ! -e "$tmp/out.cpk"'
run bench --solvers nsgs --repeat 1 "$bad" "$srcdir/data/fclib/FrictionContact3D_1c.hdf5"
check "bench: that file skipped with the reason, the next one benched (exit 0)" \
  eval 'status_is 0 && has "fclib-heap-size.hdf5: .*skipped" "$tmp/err" && has "FrictionContact3D_1c" "$tmp/out" && ! has "fclib-heap-size" "$tmp/out"'

tap_done
