#!/bin/sh
# t_sim_seed002.sh: TAP tests of the reconstructed seed 002 plate/actuator jamming study: the three regimes' analytic checks and the (mu, F) grid, jammed exactly when mu > 0.5 and F > W.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_sim_seed002
ex=$srcdir/../examples

if ! command -v python3 >/dev/null 2>&1; then
  skip "python3 not found (needed to read the JSON summaries)"
  tap_done
  exit $?
fi

for s in stuck:3 slides:2 falls:2; do
  run simulate "$ex/seed002-jam-${s%:*}.scene.json" --strict --json -q
  check "${s%:*}: --strict exit 0" status_is 0
  check "${s%:*}: all ${s#*:} checks passed" python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["checks"]
sys.exit(0 if len(c) == int(sys.argv[2]) and all(k["passed"] for k in c) else 1)' "$tmp/out" "${s#*:}"
done

# The study of seed 002 section 4: mu in [0, 1], actuation F in [0, 200] N, plate weight W = 98.1 N.
# Each grid point is the 'stuck' scene with mu and F changed, run for 0.2 s; it is jammed when the plate
# never moves (largest speed <= 1e-6). Expected: jammed iff mu > tan(theta) = 0.5 and F > W
# (the grid avoids the boundaries mu = 0.5 and F = W, where the answer is degenerate).
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["duration"] = 0.2
for mu in (0, 0.25, 0.45, 0.55, 0.75, 1):
    for F in (0, 50, 90, 110, 150, 200):
        d["materials"][0]["mu"] = mu; d["bodies"][1]["force"][2] = F
        json.dump(d, open("%s/grid_%s_%s.scene.json" % (sys.argv[2], mu, F), "w"))' "$ex/seed002-jam-stuck.scene.json" "$tmp"
bad=0
for f in "$tmp"/grid_*.scene.json; do
  "$CPKIT" simulate "$f" --json -q >"$f.out" 2>"$tmp/err" || bad=$((bad + 1))
done
check "jamming grid: 36 runs completed" test $bad -eq 0
check "jamming grid: 36 points agree with mu > 0.5 and F > W" python3 -c 'import glob, json, sys
bad = 0
for f in sorted(glob.glob(sys.argv[1] + "/grid_*.scene.json.out")):
    mu, F = map(float, f.split("/")[-1][len("grid_"):-len(".scene.json.out")].split("_"))
    c = json.load(open(f))["checks"]
    got = [k["measured"] for k in c if k["quantity"] == "plate.speed"][0] <= 1e-6
    want = mu > 0.5 and F > 98.1
    print("# mu = %g F = %g jammed: %s (expected %s)" % (mu, F, got, want))
    bad += got != want
sys.exit(0 if bad == 0 and len(glob.glob(sys.argv[1] + "/grid_*.out")) == 36 else 1)' "$tmp"

# A wrong friction model must break the study: a single direction (up the slope) cannot hold the plate back.
run simulate "$ex/seed002-jam-stuck.scene.json" --directions 1 --strict -q
check "one friction direction (pointing up the slope only) cannot hold the plate (exit 3)" status_is 3
tap_done
