#!/bin/sh
# t_check_cli.sh: TAP tests of `cpkit check`: the Painleve cases, JSON output, --max-n, contact systems with --model, usage and input errors.
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
# contact systems: hand-derived block (A_nn = 1 + 1/0.4 = 3.5, A_nt = 1/0.4 = 2.5, bound 3.5/2.5)
"$CPKIT" check "$d/sliding_block_h0.json" --model point-coulomb >"$tmp/out" 2>"$tmp/err"; st=$?
ok "--model: exit 0, Theorem 1 lines first" 'test $st -eq 0 && head -1 "$tmp/out" | grep -q "^holds *full column rank of J"'
ok "--model: friction bound 1.4" 'grep -q "^holds *mu_bar = 1.4:" "$tmp/out"'
ok "--model: system's mu 0.3 below the bound" 'grep -q "^holds *mu = 0.3 <= mu_bar = 1.4" "$tmp/out"'
ok "--model: the compiled problem is checked too" 'grep -q "P-matrix" "$tmp/out"'
sed 's/"mu": 0.3/"mu": 1.5/' "$d/sliding_block_h0.json" >"$tmp/fast.json"
"$CPKIT" check "$tmp/fast.json" --model point-coulomb >"$tmp/out" 2>&1; st=$?
ok "--model: mu 1.5 above the bound fails" 'test $st -eq 0 && grep -q "^fails *mu = 1.5 > mu_bar = 1.4" "$tmp/out"'
"$CPKIT" check --json "$d/sphere_penetrating.json" --model polyhedral >"$tmp/out" 2>&1; st=$?
ok "--model --json: penetrating contact named" 'test $st -eq 0 && grep -q "\"stewart_trinkle\"" "$tmp/out" && grep -q "contact 1 (1-based) penetrates" "$tmp/out"'
"$CPKIT" check "$d/sliding_block_h0.json" --model nosuch >"$tmp/out" 2>"$tmp/err"; st=$?
ok "--model unknown: usage error (exit 2) with a message" 'test $st -eq 2 && test -s "$tmp/err"'
echo "1..$n"
test $nfail -eq 0
