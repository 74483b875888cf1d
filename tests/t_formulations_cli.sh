#!/bin/sh
# t_formulations_cli.sh: TAP tests of `cpkit compile` and `cpkit solve-system` on the example systems (answers derived by hand in doc/formulations.md), usage and input errors.
#
# The harness exports CPKIT (the built binary) and CPK_TEST_SRCDIR (tests/).

srcdir=${CPK_TEST_SRCDIR:-.}
ex=$srcdir/../examples
. "$srcdir/tap.sh"
tap_init t_formcli
# json_array KEY FILE: the numbers of the first array "KEY": [...], one per line.
json_array() {
  tr -d ' \n\t\r' <"$2" | awk -v key="\"$1\":[" '
    { i = index($0, key); if (!i) exit 1
      s = substr($0, i + length(key)); j = index(s, "]")
      n = split(substr(s, 1, j - 1), a, ","); for (k = 1; k <= n; k++) print a[k] }'
}
# nth N: line N of standard input.
nth() { sed -n "${1}p"; }
# near X Y TOL: |X - Y| <= TOL.
near() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(d <= t) }'; }

nonlinear_solver=
"$CPKIT" solvers >"$tmp/solvers" 2>/dev/null
for s in bdnewton fbnewton ipm; do
  if grep -E -q "^$s +[a-z_,]*nonlinear_mcp" "$tmp/solvers"; then nonlinear_solver=$s; break; fi
done

# ---- help ---------------------------------------------------------------------
run compile --help
check "compile --help prints the usage" eval 'status_is 0 && has "^usage: cpkit compile SYSTEM --model NAME" "$tmp/out"'
run solve-system --help
check "solve-system --help prints the usage" eval 'status_is 0 && has "^usage: cpkit solve-system SYSTEM" "$tmp/out"'
run --help
check "cpkit --help lists both commands" eval 'has "^  compile " "$tmp/out" && has "^  solve-system " "$tmp/out"'

# ---- compile ------------------------------------------------------------------------
# Seed 000 eq. (5): 8 + 5 + 5 + 2 directions with twist, an LCP of size 22.
run compile "$ex/sphere-on-plane.json" --model polyhedral --directions 8:1:5 -o "$tmp/sphere.cpk"
check "compile sphere, eq. (5)-shaped directions, -o: exit 0, nothing on stdout" eval 'status_is 0 && test ! -s "$tmp/out" && test -s "$tmp/sphere.cpk"'
check "the file lists the unknowns and declares n 22" eval 'has "^# unknowns \(22\):" "$tmp/sphere.cpk" && has "^n 22" "$tmp/sphere.cpk" && has "p_d\[1,20\]" "$tmp/sphere.cpk"'
run solve "$tmp/sphere.cpk" --json
check "cpkit solve reads the compiled problem and solves it" eval 'status_is 0 && has "\"status\": *\"solved\"" "$tmp/out"'
# p_n = m g h = 0.6867 is the first unknown; the twist direction 20 carries mu p_n = 0.13734
pn=$(json_array z "$tmp/out" | nth 1)
p20=$(json_array z "$tmp/out" | nth 21)
check "the solution has p_n = m g h and p_d[1,20] = mu p_n" eval 'near "$pn" 0.6867 1e-12 && near "$p20" 0.13734 1e-12'

run compile "$ex/block-on-plane.json" --model polyhedral --form mixed
check "compile the block, mixed form, to stdout" eval 'status_is 0 && has "^type mcp" "$tmp/out" && has "^n 46" "$tmp/out"'
"$CPKIT" solve - --json <"$tmp/out" >"$tmp/solve.json" 2>"$tmp/err"
st=$?
check "the mixed problem solves from standard input" eval 'status_is 0 && has "\"status\": *\"solved\"" "$tmp/solve.json"'

run compile "$ex/sphere-on-plane.json" --model elliptic-torsional
check "a nonlinear model: exit 1, one line pointing to solve-system" eval 'status_is 1 && one_error_line && has "solve-system" "$tmp/err"'

# ---- solve-system ---------------------------------------------------------------------
run solve-system "$ex/block-on-plane.json" --model polyhedral --solver lemke --json
pt1=$(json_array impulse "$tmp/out" | nth 2)
check "block: solved, JSON with impulses per contact" eval 'status_is 0 && has "\"status\": *\"solved\"" "$tmp/out" && has "\"mode\": *\"sliding\"" "$tmp/out"'
vx=$(json_array velocity "$tmp/out" | nth 1)
check "block: v_x+ = 1 - mu g h = 0.97057" eval 'near "$vx" 0.97057 1e-12'
check "block: friction opposes the slip at contact 1" eval 'awk -v x="$pt1" "BEGIN { exit !(x < 0) }"'

run solve-system "$ex/sphere-translating-h0.json" --model point-coulomb --solver lemke
check "h = 0: forces and the acceleration a_x = -mu g" eval 'status_is 0 && has "^forces \(h = 0\)" "$tmp/out" && has "^acceleration" "$tmp/out" && has "v\[1\] = -1\.962$" "$tmp/out"'

run solve-system "$ex/compliant-particle.json" --model kelvin-voigt --json
pn=$(json_array impulse "$tmp/out" | nth 1)
vz=$(json_array velocity "$tmp/out" | nth 3)
check "compliant particle: core reached, P_n = 0.0481, v_z+ = -0.05" eval 'status_is 0 && has "\"core\": *true" "$tmp/out" && near "$pn" 0.0481 1e-12 && near "$vz" -0.05 1e-12'

if test -n "$nonlinear_solver"; then
  run solve-system "$ex/sphere-on-plane.json" --model elliptic-torsional --json
  pr=$(json_array impulse "$tmp/out" | nth 4)
  wz=$(json_array velocity "$tmp/out" | nth 6)
  check "spinning sphere, elliptic: p_r = -e_r mu m g h, omega_z+ = 1.82466" eval 'status_is 0 && near "$pr" -0.054936 1e-7 && near "$wz" 1.82466 1e-6 && has "\"mode\": *\"sliding\"" "$tmp/out"'
else
  skip "spinning sphere, elliptic: no nonlinear MCP solver registered"
fi

run solve-system "$ex/sphere-on-plane.json" --model elliptic-torsional --solver lemke
check "a solver that does not take the problem: exit 1" eval 'status_is 1 && one_error_line && has "does not take" "$tmp/err"'

run solve-system "$ex/two-spheres-local.json" --model polyhedral -o "$tmp/local.txt"
check "local form: report written with -o, no velocity section" eval 'status_is 0 && test ! -s "$tmp/out" && has "^status: +solved" "$tmp/local.txt" && ! has "next velocity" "$tmp/local.txt"'

run solve-system "$srcdir/data/fclib/Rover4396.hdf5" --model polyhedral
if status_is 0; then
  check "FCLIB local problem: solved" eval 'has "^status: +solved" "$tmp/out"'
else
  check "FCLIB without HDF5: exit 1, one line" eval 'status_is 1 && one_error_line && has "HDF5" "$tmp/err"'
fi

# ---- usage errors (exit 2) ----------------------------------------------------------------
for args in "compile $ex/block-on-plane.json" \
            "compile $ex/block-on-plane.json --model rigid" \
            "compile --model polyhedral" \
            "compile $ex/block-on-plane.json $ex/block-on-plane.json --model polyhedral" \
            "compile $ex/block-on-plane.json --model polyhedral --directions 0" \
            "compile $ex/block-on-plane.json --model polyhedral --directions 8:x:5" \
            "compile $ex/block-on-plane.json --model polyhedral --directions 8:1" \
            "compile $ex/block-on-plane.json --model polyhedral --form sideways" \
            "compile $ex/block-on-plane.json --model polyhedral --bogus" \
            "solve-system $ex/block-on-plane.json --model polyhedral --solver nosuch" \
            "solve-system $ex/block-on-plane.json --model polyhedral --tol -1" \
            "solve-system $ex/block-on-plane.json"; do
  # shellcheck disable=SC2086
  run $args
  check "usage error: cpkit $(echo "$args" | sed "s|$ex/||g")" eval 'status_is 2 && one_error_line && has "see .cpkit" "$tmp/err"'
done

# ---- bad input (exit 1) ------------------------------------------------------------------
run compile "$tmp/missing.json" --model polyhedral
check "missing file: exit 1 naming the file" eval 'status_is 1 && one_error_line && has "missing.json" "$tmp/err"'
printf '{"cpkit_contact_system": 1,\n "h": 0.01,\n "M": {"diagonal": [1, 1, 1]},\n "contacts": [{"rows": [1, 2, 3],\n   "W_n": [0, 0, 1], "mu": "high"}]}\n' >"$tmp/bad.json"
run solve-system "$tmp/bad.json" --model polyhedral
check "malformed system: exit 1 with file:line" eval 'status_is 1 && one_error_line && has "bad.json:5: contacts\[0\]\.mu" "$tmp/err"'
printf '{"cpkit_contact_system": 1,\n "h": 0.01,\n "M": {"diagonal": [1, 1, 1]\n' >"$tmp/trunc.json"
run compile "$tmp/trunc.json" --model polyhedral
check "truncated JSON: exit 1 with jansson's line" eval 'status_is 1 && one_error_line && has "trunc.json:[0-9]+:" "$tmp/err"'
run compile "$ex/sphere-translating-h0.json" --model kelvin-voigt
check "kelvin-voigt at h = 0: exit 1 with the reason" eval 'status_is 1 && one_error_line && has "h > 0" "$tmp/err"'

tap_done
