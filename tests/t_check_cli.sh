#!/bin/sh
# t_check_cli.sh: TAP tests of `cpkit check`: the Painleve cases, JSON output, --max-n, usage and input errors.
: "${CPKIT:?CPKIT must name the cpkit binary}"
srcdir=${CPK_TEST_SRCDIR:-.}
d=$srcdir/data/check
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t_checkcli.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
trap 'rm -rf "$tmp"' 0
n=0
nfail=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else nfail=$((nfail + 1)); echo "not ok $n - $1"; fi; }

"$CPKIT" check "$d/painleve_peg.cpk" >"$tmp/out" 2>"$tmp/err"; st=$?
ok "painleve peg: exit 0" 'test $st -eq 0'
ok "painleve peg: no solution" 'grep -q "^holds *solution count: none" "$tmp/out"'
ok "painleve peg: not P (negative 2x2 minor)" 'grep -q "^fails *P-matrix" "$tmp/out"'
"$CPKIT" check "$d/sliding_rod.cpk" >"$tmp/out" 2>&1; st=$?
ok "sliding rod: several solutions" 'test $st -eq 0 && grep -q "solution count: several" "$tmp/out"'
ok "sliding rod: two solutions listed" 'test "$(grep -c "^solution [0-9]" "$tmp/out")" -eq 2'
"$CPKIT" check --json "$d/sliding_rod.cpk" >"$tmp/out" 2>&1; st=$?
ok "--json: one object with entries" 'test $st -eq 0 && grep -q "\"entries\"" "$tmp/out" && grep -q "\"verdict\": \"holds\"" "$tmp/out"'
"$CPKIT" check --max-n 1 "$d/painleve_peg.cpk" >"$tmp/out" 2>&1; st=$?
ok "--max-n 1: count not decided" 'test $st -eq 0 && grep -q "^not decided *solution count" "$tmp/out"'
"$CPKIT" check "$tmp/missing.cpk" >"$tmp/out" 2>"$tmp/err"; st=$?
ok "missing file: exit 1, message" 'test $st -eq 1 && test -s "$tmp/err" && test ! -s "$tmp/out"'
"$CPKIT" check --bogus >"$tmp/out" 2>"$tmp/err"; st=$?
ok "unknown option: exit 2" 'test $st -eq 2'
"$CPKIT" check --help >"$tmp/out" 2>&1; st=$?
ok "--help: usage" 'test $st -eq 0 && grep -q "usage: cpkit check" "$tmp/out"'
echo "1..$n"
test $nfail -eq 0
