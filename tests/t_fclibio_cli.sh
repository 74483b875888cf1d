#!/bin/sh
# t_fclibio_cli.sh: TAP tests of the cpkit command on friction-cone problems: info and solve read FCLIB files (local and global) and the text format's friction_cone; convert between the two formats exactly; malformed FCLIB files give one error line and exit 1.
#
# The harness exports CPKIT (the built binary) and CPK_TEST_SRCDIR (tests/). Expected
# sizes come from the collection's MANIFEST.tsv and from reading the files, not from
# the program's own output.

srcdir=${CPK_TEST_SRCDIR:-.}
fclib=$srcdir/data/fclib
. "$srcdir/tap.sh"
tap_init t_fclibio_cli

# field NAME: the value after "NAME:" in the info report.
field() { sed -n "s/^$1: *//p" "$tmp/out"; }

run info "$fclib/Rover1040.hdf5"
if grep -q "without HDF5" "$tmp/err"; then
  skip "cpkit built without HDF5"
  tap_done
  exit $?
fi
check "info on an FCLIB local file: exit 0" status_is 0
check "info: kind friction_cone, 5 contacts of 3, n 15, the title as name" \
  test "$(field kind)" = friction_cone -a "$(field contacts)" = 5 -a "$(field n)" = 15 \
  -a "$(field name)" = Rover1040 -a "$(field 'cone dimension')" = "3 (normal first)"
check "info: W stored sparse with 225 entries (MANIFEST: nnz 225)" has "^nnz: +225 " "$tmp/out"

run info "$fclib/LMGC_GlobalFrictionContactProblem00046.hdf5"
check "info on an FCLIB global file: reduced to 9 contacts, n 27 (H is 162 x 27)" \
  test "$st" -eq 0 -a "$(field contacts)" = 9 -a "$(field n)" = 27

run info "$srcdir/data/cone/two-contacts.cpk"
check "info on a text friction_cone file: 2 contacts, mu from 0.3 to 0.5" \
  test "$st" -eq 0 -a "$(field contacts)" = 2 -a "$(field mu)" = "0.29999999999999999 .. 0.5"

run solve "$fclib/Rover1040.hdf5" --solver lemke
check "solve: an MCP solver refuses the cone problem, exit 1, one line" \
  test "$st" -eq 1 -a "$(lines "$tmp/err")" -eq 1
check "solve: the message names the file and the kind" has "Rover1040.hdf5.*friction_cone" "$tmp/err"

run solve "$fclib/Rover1040.hdf5" --json
check "solve without --solver on a cone problem: nsn is chosen and the JSON says solved with merit <= 1e-8" \
  sh -c "test $st -eq 0 && grep -q '\"solver\": *\"nsn\"' '$tmp/out' && grep -q '\"status\": *\"solved\"' '$tmp/out' &&
    python3 -c 'import json,sys; sys.exit(0 if json.load(open(\"$tmp/out\"))[\"fclib_merit\"] <= 1e-8 else 1)'"

run check "$fclib/Rover1040.hdf5"
check "check on a cone problem: one line saying to use --model, exit 1" \
  test "$st" -eq 1 -a "$(lines "$tmp/err")" -eq 1 -a -n "$(grep -e '--model point-coulomb' "$tmp/err")"

run solve "$srcdir/data/bad/fclib-hollow-x.hdf5"
check "solve: a file declaring 1e8 values it does not store is refused, exit 1" one_error_line
check "solve: status 1 and the message says what is wrong" \
  test "$st" -eq 1 -a -n "$(grep 'fclib-hollow-x.hdf5: /fclib_local/W/x: declares 100000000 values' "$tmp/err")"
run info "$srcdir/data/bad/fclib-mu-negative.hdf5"
check "info: a negative mu is refused with its place" \
  test "$st" -eq 1 -a -n "$(grep 'vectors/mu\[0\] = -0.5' "$tmp/err")"

# Text -> FCLIB -> text gives the same file; FCLIB -> text -> FCLIB the same problem.
run convert "$srcdir/data/cone/two-contacts.cpk" "$tmp/a.hdf5"
check "convert text -> FCLIB: exit 0, nothing printed" test "$st" -eq 0 -a ! -s "$tmp/out"
run convert "$tmp/a.hdf5" "$tmp/a.cpk"
run convert "$tmp/a.cpk" "$tmp/b.hdf5"
run convert "$tmp/b.hdf5" "$tmp/b.cpk"
check "convert: text -> FCLIB -> text -> FCLIB -> text, the texts are identical" \
  cmp -s "$tmp/a.cpk" "$tmp/b.cpk"
check "convert: the text holds type friction_cone, dim 3 and mu" \
  test -n "$(grep -x 'type friction_cone' "$tmp/a.cpk")" -a -n "$(grep -x 'dim 3' "$tmp/a.cpk")" \
  -a -n "$(grep -x '0.5 0.29999999999999999' "$tmp/a.cpk")"
run convert "$fclib/local_problem_test.hdf5" "$tmp/c.cpk"
"$CPKIT" convert "$tmp/c.cpk" "$tmp/c.hdf5" >/dev/null 2>&1
# (the text format's name is one token: the title's blank becomes '_')
"$CPKIT" info "$fclib/local_problem_test.hdf5" | grep -v -e '^file:' -e '^name:' >"$tmp/i1"
"$CPKIT" info "$tmp/c.hdf5" | grep -v -e '^file:' -e '^name:' >"$tmp/i2"
check "convert: FCLIB -> text -> FCLIB, info reports the same problem" cmp -s "$tmp/i1" "$tmp/i2"

run convert "$srcdir/data/cli/lcp2.cpk" "$tmp/lcp.hdf5"
check "convert: an LCP cannot go to FCLIB, exit 1, no file left" \
  test "$st" -eq 1 -a ! -e "$tmp/lcp.hdf5"
run convert "$srcdir/data/cli/lcp2.cpk" "$tmp/lcp.out" --to fclib
check "convert --to fclib whatever the name: refused the same way" test "$st" -eq 1
run convert "$srcdir/data/cli/lcp2.cpk"
check "convert with one file: usage error, exit 2" test "$st" -eq 2
run convert a b --to xml
check "convert --to xml: usage error, exit 2" test "$st" -eq 2

tap_done
