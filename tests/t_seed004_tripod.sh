#!/bin/sh
# t_seed004_tripod.sh: TAP tests of seed 004's tripod on the circle-field plate (a body on three feet, plate rotating and heaving): analytic normal forces and height for the LCP and the NCP, and checks that bite.
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
sys.exit(0 if len(c) == 4 and all(k["passed"] for k in c) else 1)' "$tmp/out"
}

# 0.1 s = 3.3 periods of the 33 Hz plate: both force extremes occur.
run simulate "$scene" --strict --json -q
check "32-direction LCP (lemke): --strict exit 0" status_is 0
check "32-direction LCP (lemke): the 4 analytic checks pass" all_passed
run simulate "$scene" --model point-coulomb --solver ipm --strict --json -q
check "quadratic-cone NCP (ipm): the 4 analytic checks pass" sh -c "test $st -eq 0 && $(command -v python3) -c 'import json,sys; c=json.load(open(sys.argv[1]))[\"checks\"]; sys.exit(0 if all(k[\"passed\"] for k in c) else 1)' '$tmp/out'"
run simulate "$scene" --model elliptic-torsional --solver ipm --strict -q
check "elliptic NCP without torsion (ipm): the checks pass too" status_is 0

# The checks must bite: heaving 10 % harder moves the force extremes by 0.1 m 800 = 4000 dyn.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["bodies"][0]["motion"]["linear_amplitude"] *= 1.1
json.dump(d, open(sys.argv[2], "w"))' "$scene" "$tmp/harder.scene.json"
run simulate "$tmp/harder.scene.json" --strict -q
check "a 10 % stronger heave fails the force checks (exit 3)" status_is 3
# ... and feet that do not touch the plate at the start land on it: a force spike.
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["bodies"][1]["position"][2] += 0.005
json.dump(d, open(sys.argv[2], "w"))' "$scene" "$tmp/dropped.scene.json"
run simulate "$tmp/dropped.scene.json" --strict -q
check "a tripod dropped from 0.05 mm fails the force checks (exit 3)" status_is 3
tap_done
