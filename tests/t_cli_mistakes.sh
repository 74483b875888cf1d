#!/bin/sh
# t_cli_mistakes.sh: TAP tests that every cpkit command answers the same kind of mistake with the same exit status and message (usage errors 2, bad input 1, names suggested, 1-based indices said so).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_cli_mistakes
ex=$srcdir/../examples
sys=$ex/sphere-on-plane.json
lcp=$ex/contact-lcp.cpk

# expect STATUS PATTERN DESC ARGS...: exit STATUS, one line on stderr matching PATTERN, nothing on stdout.
expect() {
  want=$1 pat=$2 desc=$3
  shift 3
  run "$@"
  check "$desc: exit $want, one line naming it" eval 'status_is $want && one_error_line && has "$pat" "$tmp/err"'
}

# The same mistake in every command.
for c in solve info solvers compile solve-system bench check simulate demo convert help; do
  expect 2 "^cpkit $c: unknown option '--bogus'" "$c --bogus" "$c" --bogus
done
for c in solve info compile solve-system bench check simulate; do
  expect 2 "^cpkit $c: missing " "$c without its file" "$c"
done
for c in solve info check; do
  expect 2 "^cpkit $c: unexpected argument" "$c with two files" "$c" "$lcp" "$lcp"
  expect 1 "^cpkit: $tmp/none.cpk" "$c on a missing file" "$c" "$tmp/none.cpk"
done
for c in compile solve-system; do
  expect 1 "^cpkit: $tmp/none.json" "$c on a missing file" "$c" "$tmp/none.json" --model polyhedral
done
expect 1 "^cpkit: $tmp/none.scene.json" "simulate on a missing file" simulate "$tmp/none.scene.json"

# A misspelled model: 2 everywhere, the valid names listed, the closest suggested.
for c in compile solve-system check simulate; do
  expect 2 "^cpkit $c: unknown model 'point-culomb'; did you mean 'point-coulomb'\? \(valid: point-coulomb, .*polyhedral" \
    "$c --model point-culomb" "$c" "$sys" --model point-culomb
done
# A misspelled solver.
expect 2 "unknown solver 'lemk'; did you mean 'lemke'\? \(valid: lemke, .*pgs" "solve --solver lemk" solve "$lcp" --solver lemk
for c in solve-system simulate; do
  expect 2 "^cpkit $c: unknown solver 'lemk'; did you mean 'lemke'" "$c --solver lemk" "$c" "$sys" --solver lemk --model polyhedral
done
expect 2 "^cpkit bench: unknown solver 'pgss'; did you mean 'pgs'" "bench --solvers pgss" bench tiny --solvers pgss
expect 2 "unknown linear solver 'umfpak'; did you mean 'umfpack'" "solve --linsys umfpak" solve "$lcp" --linsys umfpak
expect 2 "unknown linear solver 'umfpak'; did you mean 'umfpack'" "bench --linsys umfpak" bench "$lcp" --linsys umfpak
expect 2 "^cpkit bench: unknown suite 'lpc'; did you mean 'lcp'\? \(valid: .*murty" "bench lpc" bench lpc
expect 2 "^cpkit compile: unknown --form 'cones'; did you mean 'cone'" "compile --form cones" compile "$sys" --model polyhedral --form cones
expect 2 "^cpkit convert: unknown --to format 'fclb'; did you mean 'fclib'" "convert --to fclb" convert "$lcp" "$tmp/x" --to fclb
expect 2 "^cpkit: unknown command 'solv'; did you mean 'solve'\? \(valid: solve, info" "cpkit solv" solv
expect 2 "^cpkit help: unknown command 'chek'; did you mean 'check'" "cpkit help chek" help chek
# Nothing close: the names are listed, no guess.
expect 2 "unknown solver 'xyzzy' \(valid: lemke" "solve --solver xyzzy: no guess" solve "$lcp" --solver xyzzy
check "solve --solver xyzzy: no 'did you mean'" eval '! has "did you mean" "$tmp/err"'
# Bad numbers: 2 in every command.
expect 2 "^cpkit solve: --tol expects a finite number" "solve --tol abc" solve "$lcp" --tol abc
expect 2 "^cpkit check: --max-n expects an integer" "check --max-n 1.5" check "$lcp" --max-n 1.5
expect 2 "^cpkit simulate: --step expects a finite number" "simulate --step x" simulate "$ex/seed004-tripod.scene.json" --step x

# check on a contact system without --model says to give one (a usage error).
expect 2 "^cpkit check: .*sphere-on-plane.json is a contact system.*--model point-coulomb" "check SYSTEM without --model" check "$sys"
# demo --match with no match says so.
expect 1 "--match 'zzz-none': no \*\.scene\.json file name contains it" "demo --match zzz-none" demo "$ex" --match zzz-none

# Indices: 1-based ones say so, JSON array positions say they count from 0.
printf 'cpkit-problem 1\ntype mcp\nn 2\nM dense\n1 0 0 1\nq\n1 1\nlower\n0 2\nupper\n1 1\nend\n' >"$tmp/bounds.cpk"
expect 1 "variable 2 \(1-based\): upper bound" "problem file: bad bound of variable 2" solve "$tmp/bounds.cpk"
sed 's/"mu": 0.2/"mu": -1/' "$sys" >"$tmp/negmu.json"
expect 1 "contacts\[0\]\.mu: must be >= 0 \(array positions count from 0\)" "system file: negative mu" compile "$tmp/negmu.json" --model polyhedral

# JSON: counts are integers, times and residuals reals.
run solve "$lcp" --json
check "solve --json: stats counts are integers" eval 'status_is 0 && has "\"pivots\": [0-9]+,?$" "$tmp/out" && ! has "\"pivots\": [0-9]+\.0" "$tmp/out"'
check "solve --json: iterations an integer, times reals" eval 'has "\"iterations\": [0-9]+,$" "$tmp/out" && has "\"factor_time_s\": [0-9.e-]+" "$tmp/out"'

# The exit statuses are documented in the man page and in --help.
run --help
check "cpkit --help documents exit statuses 1, 2 and 3" eval 'status_is 0 && has "1 for bad" "$tmp/out" && has "2 for a usage error" "$tmp/out" && has "3 when simulate" "$tmp/out"'
check "cpkit.1 documents that the same mistake gives the same status" has 'The same mistake gives the same status in every command' "$srcdir/../doc/cpkit.1"
tap_done
