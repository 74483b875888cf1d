#!/bin/sh
# t_bench_fclib_cli.sh: TAP tests of `cpkit bench fclib`: the suite on the sample files, the merit table and counts, --compare, and the Siconos entries when configured.
#
# The counts are recomputed here from the CSV records with awk.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_bench_fclib_cli
error_prefix="cpkit bench"
export CPK_FCLIB_DIR="$srcdir/data/fclib"

# at_most FILE SOLVER X: the solver's runs with merit <= X (field 20), from the records.
at_most() { awk -F, -v s="$2" -v x="$3" 'NR > 1 && $9 == s && $20 != "nan" && $20 + 0 <= x { k++ } END { print k + 0 }' "$1"; }

run bench fclib --solvers lemke --repeat 1 --compare -o "$tmp/fc.csv"
if has "could not be built" "$tmp/out"; then
  skip "cpkit built without HDF5"
  tap_done
  exit
fi
check "fclib suite: lemke on the 7 polyhedral instances, 7 records" \
  eval 'status_is 0 && test "$(awk -F, '"'"'NR > 1 && $3 == "fclib-polyhedral"'"'"' "$tmp/fc.csv" | wc -l)" -eq 7'
check "the summary has FCLIB's merit per run" \
  eval 'has "FCLIB merit per run" "$tmp/out" && has "^Rover4396.hdf5:polyhedral " "$tmp/out"'
tight=$(at_most "$tmp/fc.csv" lemke 1e-8)
loose=$(at_most "$tmp/fc.csv" lemke 1e-6)
check "the counts at 1e-8 and 1e-6 are those of the records ($tight, $loose)" \
  eval 'grep -Eq "^lemke +7 +$tight +$loose\$" "$tmp/out"'
check "--compare: a row per file and the totals" \
  eval 'has "^FC3D_Example1_SBM.hdf5 .*lemke \\(polyhedral\\)" "$tmp/out" && grep -Eq "^cpkit +7 +$tight +$loose " "$tmp/out"'

run bench fclib --solvers siconos-nsgs,lemke --repeat 1 --compare -o "$tmp/sc.csv"
if test "$st" -eq 2 && has "unknown solver" "$tmp/err"; then
  skip "cpkit configured without Siconos Numerics"
else
  solved=$(awk -F, 'NR > 1 && $9 == "siconos-nsgs" && $11 == "solved"' "$tmp/sc.csv" | wc -l)
  check "siconos-nsgs runs on the 7 cone instances only, judged by cpkit ($solved solved)" \
    eval 'status_is 0 && test "$(awk -F, '"'"'NR > 1 && $9 == "siconos-nsgs" && $3 == "fclib-cone"'"'"' "$tmp/sc.csv" | wc -l)" -eq 7 && test "$(awk -F, '"'"'NR > 1 && $9 == "siconos-nsgs"'"'"' "$tmp/sc.csv" | wc -l)" -eq 7 && test "$solved" -ge 5'
  check "--compare: the Siconos side names its best entry" \
    eval 'has "siconos-nsgs \\(cone\\)" "$tmp/out" && has "ratio of the sums" "$tmp/out"'
fi
tap_done
