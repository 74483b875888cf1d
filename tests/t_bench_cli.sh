#!/bin/sh
# t_bench_cli.sh: TAP tests of `cpkit bench`: usage errors, suites, CSV and JSON records, summary counts, resume after a cut, directory and FCLIB suites, plots with and without gnuplot.
#
# The harness exports CPKIT (the built binary) and CPK_TEST_SRCDIR (tests/).
# Counts are recomputed here from the records with awk, never copied from
# the program's own output.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_bench_cli
error_prefix="cpkit bench"

# The documented schema (doc/bench.md), written out here.
header='problem,suite,family,kind,n,size,nnz,seed,solver,expect,status,claimed,iterations,residual,tolerance,time_s,repeats,peak_mb,mem_mb,merit,message'

# successes SOLVER FILE: solved (on a problem not known infeasible) or no_solution (on one not known feasible).
successes() {
  awk -F, -v s="$1" 'NR > 1 && $9 == s && (($11 == "solved" && $10 != "none") ||
    ($11 == "no_solution" && $10 != "solution")) { k++ } END { print k + 0 }' "$2"
}
# Duplicate (problem, solver) pairs, one per line (none expected).
dup_pairs() { awk -F, 'NR > 1 { print $1 "," $9 }' "$1" | sort | uniq -d; }

# ---- usage --------------------------------------------------------------------

run bench --help
check "bench --help documents the options" \
  eval 'status_is 0 && has "--resume" "$tmp/out" && has "--plot DIR" "$tmp/out" && has "--solvers" "$tmp/out"'
run bench
check "no suite: usage error, one line" eval 'status_is 2 && one_error_line'
run bench no-such-suite
check "unknown suite: usage error" eval 'status_is 2 && one_error_line && has "no-such-suite" "$tmp/err"'
run bench tiny --solvers lemke,nosuch
check "unknown solver: usage error" eval 'status_is 2 && one_error_line && has "nosuch" "$tmp/err"'
run bench tiny --resume
check "--resume without -o: usage error" eval 'status_is 2 && one_error_line'
run bench tiny --repeat 0
check "--repeat 0: usage error" eval 'status_is 2 && one_error_line'
run bench --list
check "--list names the suites" \
  eval 'status_is 0 && has "^standard " "$tmp/out" && has "^tiny " "$tmp/out" && has "^delassus " "$tmp/out"'

# ---- a run, CSV ------------------------------------------------------------------

# tiny: 7 affine problems (and 2 nonlinear ones that lemke and pgs do not take)
run bench tiny --solvers lemke,pgs --repeat 1 --time-limit 20 -o "$tmp/t.csv"
check "bench tiny runs (exit 0, nothing on stderr without a terminal)" \
  eval 'status_is 0 && test ! -s "$tmp/err"'
check "CSV header is the documented schema" test "$(head -n 1 "$tmp/t.csv")" = "$header"
check "14 records: 2 solvers x 7 affine problems" test "$(lines "$tmp/t.csv")" -eq 15
check "each (problem, solver) pair once" test -z "$(dup_pairs "$tmp/t.csv")"
check "the tally says 14 runs and 4 pairs skipped by kind" \
  eval 'has "^14 runs; not run: 4 " "$tmp/out"'
for s in lemke pgs; do
  want=$(successes $s "$tmp/t.csv")
  got=$(awk -v s=$s '$1 == s && $2 == "7" { print $3 }' "$tmp/out")
  check "summary row of $s: 7 runs, $want successes as counted from the records" test "$got" = "$want"
done
check "the per-family table lists delassus" has "^delassus " "$tmp/out"

# ---- resume after a cut -----------------------------------------------------------

head -n 10 "$tmp/t.csv" >"$tmp/r.csv"
sed -n 11p "$tmp/t.csv" | cut -c1-25 | tr -d '\n' >>"$tmp/r.csv"
run bench tiny --solvers lemke,pgs --repeat 1 --time-limit 20 -o "$tmp/r.csv" --resume
check "resume: 9 records kept, the 5 missing pairs run" \
  eval 'status_is 0 && has "^5 runs, 9 taken from" "$tmp/out"'
check "resume: 14 records, the cut line gone, no duplicates" \
  eval 'test "$(lines "$tmp/r.csv")" -eq 15 && test -z "$(dup_pairs "$tmp/r.csv")" && test "$(tail -c 1 "$tmp/r.csv" | od -An -c | tr -d " ")" = "\\n"'
run bench tiny --solvers lemke,pgs -o "$tmp/r.csv" --resume
check "resume of a complete file runs nothing" eval 'status_is 0 && has "^0 runs, 14 taken from" "$tmp/out"'

# ---- JSON ---------------------------------------------------------------------------

run bench tiny --solvers lemke --repeat 1 --json -o "$tmp/t.jsonl"
check "--json: JSON Lines file with a schema line and 7 records" \
  eval 'status_is 0 && test "$(lines "$tmp/t.jsonl")" -eq 8 && head -n 1 "$tmp/t.jsonl" | grep -q "\"schema\":\"cpkit-bench\",\"version\":1"'
check "--json: every record starts with the problem and names its status" \
  eval 'test "$(sed 1d "$tmp/t.jsonl" | grep -c "^{\"problem\":.*\"status\":\"[a-z_]*\"")" -eq 7'
check "--json: the summary on stdout is one JSON object with the solvers" \
  eval 'has "\"solvers\"" "$tmp/out" && has "\"families\"" "$tmp/out"'
if command -v python3 >/dev/null 2>&1; then
  check "--json: the summary and every record parse as JSON" \
    python3 -c 'import json,sys; json.load(open(sys.argv[1])); [json.loads(l) for l in open(sys.argv[2])]' \
    "$tmp/out" "$tmp/t.jsonl"
else
  skip "python3 not available to parse the JSON"
fi

# ---- a directory of problem files ----------------------------------------------------

mkdir "$tmp/probs"
cp "$srcdir/data/io-dense.cpk" "$srcdir/data/io-coord.cpk" "$tmp/probs/"
run bench "$tmp/probs" --solvers lemke --repeat 1 -o "$tmp/d.csv"
check "directory suite: one record per file, named by its path" \
  eval 'status_is 0 && test "$(lines "$tmp/d.csv")" -eq 3 && has "^$tmp/probs/io-dense.cpk,files,file," "$tmp/d.csv"'

# ---- FCLIB ------------------------------------------------------------------------------

fc="$srcdir/data/fclib/FrictionContact3D_1c.hdf5"
if test -f "$fc"; then
  run bench "$fc" --solvers fbnewton,lemke --repeat 1 -o "$tmp/fc.csv"
  if has "could not be built" "$tmp/out"; then
    skip "cpkit built without HDF5"
  else
    # point-coulomb (exact cone) for fbnewton; polyhedral (LCP) for both
    check "FCLIB file: the cone instance skipped by both, two compiled ones: 3 records" \
      eval 'status_is 0 && test "$(lines "$tmp/fc.csv")" -eq 4'
    merit_small() {
      awk -F, '$3 == "fclib-point-coulomb" && $11 == "solved" { ok = ($20 + 0 < 1e-8) } END { exit !ok }' "$1"
    }
    check "FCLIB merit of a solved exact-cone run is tiny" merit_small "$tmp/fc.csv"
  fi
else
  skip "FCLIB sample not found ($fc)"
fi

# ---- plots ------------------------------------------------------------------------------

env CPK_GNUPLOT=/nonexistent/gnuplot "$CPKIT" bench tiny --solvers lemke,pgs --repeat 1 \
  --plot "$tmp/noplot" >"$tmp/out" 2>"$tmp/err"
st=$?
check "without gnuplot: exit 0, a message, the scripts written" \
  eval 'status_is 0 && has "gnuplot not found" "$tmp/err" && test -f "$tmp/noplot/profile-time-all.gp" && test ! -f "$tmp/noplot/profile-time-all.png"'
if command -v gnuplot >/dev/null 2>&1; then
  run bench tiny murty --solvers lemke,pgs --repeat 1 --plot "$tmp/plots"
  png_magic() { test "$(od -An -c -N4 "$1" | tr -d ' ')" = '211PNG'; }
  check "with gnuplot: profiles as PNG and SVG" \
    eval 'status_is 0 && png_magic "$tmp/plots/profile-time-all.png" && png_magic "$tmp/plots/profile-iterations-all.png" && grep -q "<svg" "$tmp/plots/profile-time-all.svg"'
  check "with gnuplot: the scaling plot of murty (3 sizes)" png_magic "$tmp/plots/scaling-murty.png"
else
  skip "gnuplot not installed"
  skip "gnuplot not installed"
fi

tap_done
