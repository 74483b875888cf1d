#!/bin/sh
# t_seed004_tripod.sh: TAP tests of the modelable part of seed 004's tripod benchmark (three feet on the circle field's vertically vibrating plate): analytic forces and speed for the LCP and the NCP, and checks that bite.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_seed004_tripod
scene=$srcdir/../examples/seed004-tripod.scene.json

if ! command -v python3 >/dev/null 2>&1; then
  skip "python3 not found (needed to read the JSON summaries)"
  tap_done
  exit $?
fi

all_passed() {
  python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["checks"]
sys.exit(0 if len(c) == 5 and all(k["passed"] for k in c) else 1)' "$tmp/out"
}

# 0.1 s = 3.3 periods of the 33 Hz plate: both force extremes and the speed peak occur.
run simulate "$scene" --duration 0.1 --strict --json -q
check "32-direction LCP (lemke): --strict exit 0" status_is 0
check "32-direction LCP (lemke): the 5 analytic checks pass" all_passed
run simulate "$scene" --duration 0.1 --model point-coulomb --strict --json -q
check "quadratic-cone NCP (fbnewton): --strict exit 0" status_is 0
check "quadratic-cone NCP (fbnewton): the 5 analytic checks pass" all_passed
run simulate "$scene" --duration 0.1 --model point-coulomb --solver ipm --strict --json -q
check "quadratic-cone NCP (ipm): the 5 analytic checks pass" all_passed

# The checks must bite: a plate shaking 10 % harder changes the forces by 0.8 m_i = 0.013 N.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["bodies"][0]["motion"]["amplitude"] *= 1.1
json.dump(d, open(sys.argv[2], "w"))' "$scene" "$tmp/harder.scene.json"
run simulate "$tmp/harder.scene.json" --duration 0.1 --strict -q
check "a 10 % stronger plate motion fails the force checks (exit 3)" status_is 3
# ... and a step too coarse to sample the peaks (h = 2e-3: 15 steps per period) fails too.
run simulate "$scene" --duration 0.1 --step 2e-3 --strict -q
check "h = 2e-3 misses the force extremes (exit 3)" status_is 3
tap_done
