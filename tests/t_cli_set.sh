#!/bin/sh
# t_cli_set.sh: TAP tests of --set NAME=VALUE (cpkit solve, bench, simulate) and `cpkit solvers --settings`: settings reach the solver (their effect is seen), mistakes are usage errors naming what is wrong.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_cli_set
ex=$srcdir/../examples
lcp=$ex/contact-lcp.cpk # n = 24, lemke takes 12 pivots
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$tmp/out" "$1"; }

expect_usage() {
  pat=$1 desc=$2
  shift 2
  run "$@"
  check "$desc: exit 2, one line naming it" eval 'status_is 2 && one_error_line && has "$pat" "$tmp/err"'
}

# The table: every solver setting listed once with its default.
run solvers --settings
check "solvers --settings lists common and solver settings with defaults" \
  eval 'status_is 0 && has "^tol +number +1e-08" "$tmp/out" && has "^nsn.rho +integer" "$tmp/out" && has "^fcprox.sigma +number +0.01" "$tmp/out"'

# A common setting and a solver's own change the solve.
run solve "$lcp" --solver lemke --json
base_it=$(field iterations)
run solve "$lcp" --solver lemke --set max_iter=3 --json
check "solve --set max_iter=3: lemke stops at 3 pivots (default run: $base_it)" \
  eval 'status_is 0 && test "$(field status)" = max_iterations && test "$(field iterations)" -le 3'
run solve "$lcp" --solver enum --set enum.max_n=10 --json
check "solve --set enum.max_n=10: enum refuses the 24-unknown problem" \
  eval 'status_is 0 && test "$(field status)" = invalid_input'
run solve "$lcp" --solver lemke --set lemke.pivot_tol=1e-12 --set tol=1e-10 --json
check "two --set, then solved (residual recomputed <= 1e-10 x scale)" \
  eval 'status_is 0 && test "$(field status)" = solved'

# Mistakes.
expect_usage "unknown setting 'nsn.foo' \\(nsn has: rho, nonmonotone" "an unknown solver setting lists the solver's" \
  solve "$lcp" --set nsn.foo=1
expect_usage "'bogus' in 'bogus.rho'" "an unknown solver prefix" solve "$lcp" --set bogus.rho=1
expect_usage "unknown setting 'tolerance'" "an unknown common setting" solve "$lcp" --set tolerance=1
expect_usage "'abc' is not a number" "a value that is not a number" solve "$lcp" --set tol=abc
expect_usage "'1.5' is not a whole number" "a fraction for an integer" solve "$lcp" --set nsn.restart_sweeps=1.5
expect_usage "relaxation factor must be in \\(0, 2\\) \\(got 3\\)" "a value out of range (cpk_settings_validate)" solve "$lcp" --set nsgs.omega=3
expect_usage "unknown setting 'nsn.tol' .*common ones go without a solver: tol=" "a common setting under a solver's name" \
  solve "$lcp" --set nsn.tol=1e-6
expect_usage "' 1' is not a whole number" "a value with a leading blank" solve "$lcp" --set "nsn.rho= 1"
expect_usage "expected NAME=VALUE" "no '='" solve "$lcp" --set nsn.rho
expect_usage "the common settings go by this command's own options" "bench refuses a common setting" \
  bench "$lcp" --set tol=1e-6
expect_usage "unknown setting 'nsn.foo'" "simulate checks at once" \
  simulate "$ex/seed004-tripod.scene.json" --set nsn.foo=1

# bench: a solver's own setting reaches every run (enum declines above max_n; the file has n = 7).
small=$srcdir/data/lemke/scaled-1e9.cpk
run bench "$small" --solvers enum --repeat 1
check "bench without --set: enum runs on the 7-unknown file" eval 'status_is 0 && has "^1 runs" "$tmp/out"'
run bench "$small" --solvers enum --repeat 1 --set enum.max_n=5
check "bench --set enum.max_n=5: enum declines it" \
  eval 'status_is 0 && has "^0 runs; not run: 0 \\(solver does not take the problem kind\\), 1 \\(solver declined" "$tmp/out"'

# simulate: the scene's solver settings follow --set (max_iter 1: nsn stops short on the tripod).
run simulate "$ex/seed004-tripod.scene.json" --model point-coulomb --solver nsn --duration 0.002 -q --json
check "simulate without --set: the tripod's steps complete" status_is 0
run simulate "$ex/seed004-tripod.scene.json" --model point-coulomb --solver nsn --duration 0.002 -q \
  --no-physics-finish --set max_iter=1 --set tol=1e-14
check "simulate --set max_iter=1 --set tol=1e-14: a step stops short (exit 1, nsn named)" \
  eval 'status_is 1 && has "nsn" "$tmp/err"'
tap_done
