#!/bin/sh
# t_reliab_cli.sh: TAP tests of issue 16's smaller CLI defects: coordinate duplicates summing to infinity, solvers declining a problem under --json.

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

tap_done
