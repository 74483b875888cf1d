#!/bin/sh
# t_simulate_cli.sh: cpkit simulate and cpkit demo from the outside: outputs, overrides, checks, --strict, usage and input errors.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_simulate_cli

# A sphere spinning in place on a plane (seed 000 section 4.1.1): the friction
# moment mu m g e_r = 0.2 * 9.81 * 0.4 over the inertia 0.4 decelerates w_z at
# 1.962 rad/s^2, so w_z(0.49) = 1.962 (1 - 0.49) and it stops after 1.0 s
# (the first step ending at or after it: t = 15 h = 1.05).
cat >"$tmp/spin.scene.json" <<'JSON'
{"cpkit_scene": 1, "name": "spin", "step": 0.07, "duration": 1.2,
 "model": "elliptic-torsional",
 "bodies": [{"name": "ground", "kind": "fixed", "shape": "plane"},
            {"name": "ball", "shape": "sphere", "radius": 1, "mass": 1,
             "position": [0, 0, 1], "angular_velocity": [0, 0, 1.962]}],
 "materials": [{"mu": 0.2, "e_r": 0.4}],
 "checks": [{"label": "w_z at 0.49", "quantity": "ball.w[2]", "at": 0.49,
             "expected": 1.00062, "tol": 1e-6},
            {"label": "stops", "quantity": "ball.w[2]", "first": {"op": "<=", "value": 1e-6},
             "expected": 1.05, "tol": 1e-9}]}
JSON
run simulate "$tmp/spin.scene.json" -o "$tmp/t.csv" --contacts "$tmp/c.csv" --strict
check "spin: exit 0 with --strict (checks pass)" status_is 0
check "spin: report names the model and the steps" has "^model elliptic-torsional" "$tmp/out"
check "spin: 18 steps" has "^18 steps to t = 1.26" "$tmp/out"
check "spin: checks table, none failed" has "^2 checks, 0 failed" "$tmp/out"
check "trajectory: header and 19 rows" test "$(lines "$tmp/t.csv")" -eq 20
check "trajectory: w_z column" has "ball.wz" "$tmp/t.csv"
# column 14 is ball.wz: 1.962 - 0.13734 after one step
check "trajectory: w_z after one step is 1.962 - 1.962 h" \
  sh -c "sed -n 3p '$tmp/t.csv' | awk -F, '{ exit !(\$14 > 1.824659 && \$14 < 1.824661) }'"
check "contacts: one row per step" test "$(lines "$tmp/c.csv")" -eq 19
run simulate "$tmp/spin.scene.json" --json --model polyhedral --directions 8:1:5 --step 0.035
check "--json with overrides: exit 0" status_is 0
check "--json: step and model overridden" sh -c "grep -q '\"step\": 0.035' '$tmp/out' && grep -q '\"model\": \"polyhedral\"' '$tmp/out'"
check "--json: checks with measured values" has '"measured": ' "$tmp/out"
# a check the run cannot meet: --strict exits 3, without it 0
sed 's/"expected": 1.05/"expected": 2.0/' "$tmp/spin.scene.json" >"$tmp/wrong.scene.json"
run simulate "$tmp/wrong.scene.json" --strict
check "failed check: exit 3 with --strict" status_is 3
check "failed check: FAIL in the table" has "FAIL" "$tmp/out"
run simulate "$tmp/wrong.scene.json"
check "failed check: exit 0 without --strict" status_is 0
if command -v gnuplot >/dev/null 2>&1; then
  run simulate "$tmp/spin.scene.json" --plot "$tmp/p.svg" -q
  check "--plot: an SVG with the trajectory next to it" sh -c "test -s '$tmp/p.svg' && grep -q '<svg' '$tmp/p.svg' && test -s '$tmp/p.csv'"
else
  skip "--plot: gnuplot not installed"
fi
# demo over a directory of scenes
mkdir "$tmp/ex" && cp "$tmp/spin.scene.json" "$tmp/wrong.scene.json" "$tmp/ex/"
run demo "$tmp/ex"
check "demo: exit 0, table with both scenes" sh -c "test $st -eq 0 && test \$(grep -c '^spin ' '$tmp/out') -eq 4"
check "demo: counts the failed check" has "^1 check failed" "$tmp/out"
run demo "$tmp/ex" --strict --match wrong
check "demo --strict --match: exit 3" status_is 3
# seed 003's geometrically implicit compliant step (closest points as unknowns) reproduces
# the compliant disc's analytic checks of the explicit scenes, with and without the core
for sc in seed003-disc-no-core seed003-disc-core; do
  run simulate "$srcdir/../examples/$sc.scene.json" --model kelvin-voigt-implicit --strict -q
  check "kelvin-voigt-implicit: $sc passes its checks" status_is 0
done
# ... and refuses a rigid material
sed 's/"mu": 0.2, "e_r": 0.4/"mu": 0.2/' "$tmp/spin.scene.json" >"$tmp/rigid.scene.json"
run simulate "$tmp/rigid.scene.json" --model kelvin-voigt-implicit
check "kelvin-voigt-implicit: a rigid material is refused (exit 1, says why)" \
  sh -c "test $st -eq 1 && grep -q 'compliant material' '$tmp/err'"
# a fallback solver: fbnewton stops on the thrown rod's NCP at its touch-down (t = 0.486,
# max_iterations); with ipm as the fallback the run completes and says so. (This used the
# tripod with bdnewton until bdnewton completed it alone.)
tripod=$srcdir/../examples/seed004-tripod.scene.json
rod=$srcdir/../examples/issue14-rod-thrown.scene.json
# (the thrown rod, which fbnewton alone stopped on until its restarts were projected,
# no longer needs the fallback, nor ipm on seed 000's explicit two-sphere scene with
# point-coulomb since its watchdog: that scene with an iteration limit of 3 stops
# bdnewton at its first steps, and ipm, whose Newton polish is not counted in the
# limit, finishes them; that model fails 1 of the scene's 2 checks whatever the
# solver, so no --strict)
sed 's/"step": 0.1,/"step": 0.1, "max_iter": 3,/' "$srcdir/../examples/seed000-two-spheres-explicit.scene.json" \
  >"$tmp/spheres.scene.json"
spheres=$tmp/spheres.scene.json
run simulate "$spheres" --model point-coulomb --solver bdnewton -q
check "two spheres NCP, 3 iterations, with bdnewton alone: the run stops (exit 1)" status_is 1
run simulate "$spheres" --model point-coulomb --solver bdnewton --fallback ipm -q
check "... with --fallback ipm: completes" status_is 0
check "... and reports the fallback solves" has "solves finished by the fallback solver ipm" "$tmp/out"
run simulate "$tripod" --fallback nosuch
check "unknown fallback solver: usage error" status_is 2
# review findings: outputs checked before anything is truncated, no report then
printf 'keep\n' >"$tmp/keep.csv"
run simulate "$tmp/spin.scene.json" -o "$tmp/keep.csv" --contacts "$tmp/no/such/dir/c.csv"
check "unwritable --contacts: exit 1, one error line, -o file untouched, no report" \
  sh -c "test $st -eq 1 && test \$(wc -l <'$tmp/err') -eq 1 && test ! -s '$tmp/out' && grep -q keep '$tmp/keep.csv'"
# a state that overflows stops the run instead of reporting inf as completed
sed 's/"mass": 1,/"mass": 1e-300, "force": [1e300, 0, 0],/; s/"position": \[0, 0, 1\]/"position": [0, 0, 100]/' \
  "$tmp/spin.scene.json" >"$tmp/inf.scene.json"
run simulate "$tmp/inf.scene.json" --json
check "overflowing state: exit 1, 'no longer finite', JSON still valid" \
  sh -c "test $st -eq 1 && grep -q 'no longer finite' '$tmp/err' && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$tmp/out'"
# /dev/zero is refused at once, not after reading gigabytes
run simulate /dev/zero
check "/dev/zero: refused as not text (exit 1)" sh -c "test $st -eq 1 && grep -q 'NUL byte' '$tmp/err'"
run simulate "$tmp/spin.scene.json" --implicit 4294967296
check "--implicit beyond 1e6: usage error" status_is 2
run simulate "$tmp/spin.scene.json" --step 10 --duration 1e-9 -q
check "duration shorter than one step: one step" has "^1 steps" "$tmp/out"
# errors
run simulate "$tmp/missing.scene.json"
check "missing file: exit 1, one message" sh -c "test $st -eq 1 && test \$(wc -l <'$tmp/err') -eq 1"
printf '{"cpkit_scene": 1,\n "step": 0.1, "duration": 1,\n "bodies": [{"name": "b", "shape": "sphere", "radius": 1}]}\n' >"$tmp/bad.json"
run simulate "$tmp/bad.json"
check "malformed scene: file:line: path: message" has "bad.json:3: bodies\\[0\\]\\.mass: missing" "$tmp/err"
run simulate "$tmp/spin.scene.json" --step -1
check "--step -1: usage error, exit 2" status_is 2
run simulate "$tmp/spin.scene.json" --step 1e-300 --duration 1e300
check "1e600 steps: refused with a message (exit 1), no hang" sh -c "test $st -eq 1 && grep -q 'at most 1e12' '$tmp/err'"
run simulate "$tmp/spin.scene.json" --plot out.pdf
check "--plot out.pdf: usage error" status_is 2
run simulate "$tmp/spin.scene.json" --solver nosuch
check "unknown solver: usage error" status_is 2
run simulate
check "no scene: usage error" status_is 2
run simulate --help
check "--help: usage on stdout" sh -c "test $st -eq 0 && grep -q 'usage: cpkit simulate' '$tmp/out'"
# a failing solve stops the run with exit 1 and says why
run simulate "$tmp/spin.scene.json" --model polyhedral --solver pgs
check "solver that refuses the problem: exit 1, message names it" sh -c "test $st -eq 1 && grep -q pgs '$tmp/err'"
tap_done
