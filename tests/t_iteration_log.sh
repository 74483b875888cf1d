#!/bin/sh
# t_iteration_log.sh: TAP tests of `cpkit solve -v`: every solver prints the one iteration-log table (same header, one row per iteration, the figures its method has) on stderr, never on stdout.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_iteration_log
lcp=$srcdir/../examples/contact-lcp.cpk
header='^[a-z]+: +iter +residual +merit +comp +step +active +changes +time$'

# log_ok SOLVER FILE COLUMNS: solve -v --json; COLUMNS = which of residual merit comp step active
# the method must fill (a number) on its rows.
log_ok() {
  s=$1 f=$2 cols=$3
  "$CPKIT" solve "$f" --solver "$s" -v --json >"$tmp/out" 2>"$tmp/err"
  st=$?
  check "$s: exit 0, stdout is the JSON result only" eval 'status_is 0 && head -c 1 "$tmp/out" | grep -q "{" && ! grep -q -E "$header|^$s: " "$tmp/out"'
  check "$s: one header line, the same for every solver" eval 'test "$(grep -c -E "$header" "$tmp/err")" -eq 1 && head -n 1 "$tmp/err" | grep -q "^$s: "'
  grep -E "^$s: +[0-9]+ " "$tmp/err" >"$tmp/rows"
  iters=$(sed -n 's/^  "iterations": \([0-9]*\),$/\1/p' "$tmp/out")
  check "$s: rows of 9 columns, iterations increasing, as many as the result's ($iters)" awk -v want="$iters" -v s="$s:" '
    $1 != s || NF != 9 { bad = 1 } NR > 1 && $2 <= last { bad = 1 } { last = $2; n++ }
    END { exit bad || n == 0 || n > want + 1 || n < want - 1 }' "$tmp/rows"
  for c in $cols; do
    k=$(echo "residual merit comp step active" | tr ' ' '\n' | grep -n -x "$c" | cut -d: -f1)
    check "$s: column $c filled with numbers" awk -v k=$((k + 2)) '$k !~ /^[0-9.e+-]+$/ || $k == "-" { bad = 1 } END { exit bad }' "$tmp/rows"
  done
  # Columns the method does not have are '-', not a made-up 0.
  check "$s: a summary line ends the log" eval 'tail -n 1 "$tmp/err" | grep -q "^$s: [a-z_]* after"'
}
log_ok lemke "$lcp" "merit"
log_ok bdnewton "$lcp" "residual merit step active"
log_ok fbnewton "$lcp" "residual merit step active"
log_ok ipm "$lcp" "residual comp step active"
# pgs needs a positive diagonal: a small symmetric PD LCP.
printf 'cpkit-problem 1\ntype lcp\nn 3\nM dense\n4 1 0\n1 4 1\n0 1 4\nq\n-1 2 -3\nend\n' >"$tmp/pd.cpk"
log_ok pgs "$tmp/pd.cpk" "residual active"
# lemke has no residual per pivot: '-' there, not 0.
"$CPKIT" solve "$lcp" --solver lemke -v >/dev/null 2>"$tmp/err"
check "lemke: residual column is '-'" awk '/^lemke: +[0-9]+ / && $3 != "-" { bad = 1 } END { exit bad }' "$tmp/err"
# active <= n and changes <= n (n = 24), changes '-' on the first row only.
"$CPKIT" solve "$lcp" --solver bdnewton -v >/dev/null 2>"$tmp/err"
check "bdnewton: 0 <= active, changes <= n; changes '-' on the first row only" awk '
  /^bdnewton: +[0-9]+ / { r++; if ($7 > 24 || $7 < 0) bad = 1; if (r == 1 && $8 != "-") bad = 1; if (r > 1 && ($8 == "-" || $8 > 24)) bad = 1 }
  END { exit bad || r == 0 }' "$tmp/err"
fc=$srcdir/data/fclib/Rover1040.hdf5
if "$CPKIT" info "$fc" >/dev/null 2>&1; then
  log_ok nsgs "$fc" "residual step active"
  log_ok nsn "$fc" "residual merit active"
  log_ok fcipm "$fc" "residual comp step"
else
  skip "cone solvers: no FCLIB (HDF5) support in this build"
fi
# Without -v nothing goes to stderr.
"$CPKIT" solve "$lcp" --solver bdnewton >/dev/null 2>"$tmp/err"
check "without -v: stderr empty" is_empty "$tmp/err"
tap_done
