#!/bin/sh
# t_coneform_cli.sh: TAP tests of the cone form on the command line: `cpkit compile --form cone` (a local-form system that compiles back to the same problem), refusals, and `cpkit solve-system` with a cone solver (the cone form chosen by itself, impulses in the file's frame equal to the NCP form's).
#
# The harness exports CPKIT (the built binary) and CPK_TEST_SRCDIR (tests/).

srcdir=${CPK_TEST_SRCDIR:-.}
ex=$srcdir/../examples
. "$srcdir/tap.sh"
tap_init t_coneform_cli
# json_array KEY FILE: the numbers of the first array "KEY": [...], one per line.
json_array() {
  tr -d ' \n\t\r' <"$2" | awk -v key="\"$1\":[" '
    { i = index($0, key); if (!i) exit 1
      s = substr($0, i + length(key)); j = index(s, "]")
      n = split(substr(s, 1, j - 1), a, ","); for (k = 1; k <= n; k++) print a[k] }'
}
# impulses FILE: every contact's impulse (4 numbers each), one per line.
impulses() {
  tr -d ' \n\t\r' <"$1" | awk '{ s = $0
    while ((i = index(s, "\"impulse\":[")) > 0) {
      s = substr(s, i + 11); j = index(s, "]")
      n = split(substr(s, 1, j - 1), a, ","); for (k = 1; k <= n; k++) print a[k] } }'
}
# same_numbers A B TOL: files of numbers, one per line, equal within TOL.
same_numbers() {
  paste "$1" "$2" | awk -v t="$3" 'NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > t) bad = 1 }
    END { exit bad || NR == 0 }'
}

# ---- compile --form cone --------------------------------------------------------------
run compile "$ex/sphere-on-plane.json" --model elliptic-torsional --form cone -o "$tmp/sphere-cone.json"
check "compile --form cone: exit 0, a local-form system of dim 4" eval 'status_is 0 && has "\"form\": \"local\"" "$tmp/sphere-cone.json" && has "\"dim\": 4" "$tmp/sphere-cone.json"'
# seed 000 eq. (3): A = diag(1, 3.5, 3.5, 2.5); the twist row scaled by e_r^2 = 0.16: 0.4
check "W' = S A S: diag(1, 3.5, 3.5, 0.16 * 2.5)" eval 'has "\[4, 4, 0.4000000000000000" "$tmp/sphere-cone.json" && has "\[2, 2, 3.50000000000000" "$tmp/sphere-cone.json"'
run compile "$tmp/sphere-cone.json" --model elliptic-torsional --form cone -o "$tmp/again.json"
grep -v '"name"' "$tmp/sphere-cone.json" >"$tmp/a"
grep -v '"name"' "$tmp/again.json" >"$tmp/b"
check "compiled again, the cone system gives the same problem back" eval 'status_is 0 && cmp -s "$tmp/a" "$tmp/b"'
run compile "$ex/block-on-plane.json" --model point-coulomb --form cone
check "point-coulomb --form cone to stdout: dim 3" eval 'status_is 0 && has "\"dim\": 3" "$tmp/out"'
run compile "$ex/block-on-plane.json" --model polyhedral --form cone
check "polyhedral --form cone: exit 1 with the reason" eval 'status_is 1 && one_error_line && has "cone form" "$tmp/err"'
run compile "$ex/block-on-plane.json" --model point-coulomb --form conic
check "--form conic: usage error naming cone" eval 'status_is 2 && has "valid: reduced, mixed, cone" "$tmp/err"'

# ---- solve-system with a cone solver ------------------------------------------------
"$CPKIT" solvers >"$tmp/solvers" 2>/dev/null
cone_solver=
for s in nsgs nsn fcipm; do
  if grep -E -q "^$s +[a-z_,]*friction_cone" "$tmp/solvers" &&
     ! grep -E -q "^$s +[a-z_,]*nonlinear_mcp" "$tmp/solvers"; then cone_solver=$s; break; fi
done
if [ -z "$cone_solver" ]; then
  run solve-system "$ex/block-on-plane.json" --model point-coulomb --form cone
  check "no cone solver registered: exit 1 saying so" eval 'status_is 1 && one_error_line && has "no registered solver takes friction_cone" "$tmp/err"'
else
  for model in point-coulomb elliptic-torsional; do
    for sys in block-on-plane sphere-on-plane sphere-translating-h0; do
      run solve-system "$ex/$sys.json" --model $model --solver bdnewton --tol 1e-12 --json
      cp "$tmp/out" "$tmp/ncp.json"
      run solve-system "$ex/$sys.json" --model $model --solver $cone_solver --tol 1e-12 --json
      impulses "$tmp/ncp.json" >"$tmp/p_ncp"
      impulses "$tmp/out" >"$tmp/p_cone"
      json_array velocity "$tmp/ncp.json" >"$tmp/v_ncp"
      json_array velocity "$tmp/out" >"$tmp/v_cone"
      check "$sys, $model, $cone_solver: the cone form, solved, the NCP's next velocity" eval 'status_is 0 && has "\"form\": *\"cone\"" "$tmp/out" && has "\"status\": *\"solved\"" "$tmp/out" && same_numbers "$tmp/v_ncp" "$tmp/v_cone" 1e-7'
      # four coplanar corners share their load in many ways: impulses compared on one contact
      if [ "$sys" != block-on-plane ]; then
        check "$sys, $model: impulses (n, t, o, r) in the file's frame as the NCP's" same_numbers "$tmp/p_ncp" "$tmp/p_cone" 1e-7
      fi
      grep -o '"mode": *"[a-z]*"' "$tmp/ncp.json" >"$tmp/m_ncp"
      grep -o '"mode": *"[a-z]*"' "$tmp/out" >"$tmp/m_cone"
      check "$sys, $model: the same contact modes" cmp -s "$tmp/m_ncp" "$tmp/m_cone"
    done
  done
  run solve-system "$srcdir/data/fclib/Rover1040.hdf5" --model point-coulomb --solver $cone_solver --json
  check "an FCLIB file with $cone_solver: the cone form, with impulses per contact" eval 'status_is 0 && has "\"form\": *\"cone\"" "$tmp/out" && has "\"impulse\"" "$tmp/out"'
fi

# ---- the stepper on issue 14's scenes: the default solver (the cone form) -------------
if cpk_has_nsgs=$(grep -c "^nsgs " "$tmp/solvers") && [ "$cpk_has_nsgs" -gt 0 ]; then
  for sc in "$ex"/issue14-*.scene.json; do
    for model in point-coulomb elliptic-torsional; do
      run simulate "$sc" --model $model --strict -q --json
      check "$(basename "$sc" .scene.json), $model, default solver: completes, every check passes" eval 'status_is 0 && has "\"solver\": *\"automatic\"" "$tmp/out" && has "\"status\": *\"completed\"" "$tmp/out"'
    done
  done
  # a Newton method with a cone solver as fallback: the failed step is compiled again in the cone form
  run simulate "$ex/issue14-ball-backspin.scene.json" --solver fbnewton --fallback nsgs --strict -q
  check "fbnewton with nsgs as fallback (cone form for the failed steps): completes, checks pass" status_is 0
  grep "fallback" "$tmp/out" | diag
else
  skip "no nsgs: the stepper's cone default is not there"
fi

tap_done
