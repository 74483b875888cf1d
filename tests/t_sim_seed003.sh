#!/bin/sh
# t_sim_seed003.sh: TAP tests of the seed 003 experiments (compliant disc with and without the rigid core, spinning ellipsoid): scene checks, wrong models that must fail, O(h) energy loss.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_sim_seed003
ex=$srcdir/../examples

command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 is needed to read the JSON output"; exit 0; }

# all_passed FILE: the --json summary has checks and every one passed.
all_passed() {
  python3 - "$1" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get("checks", [])
bad = [k["label"] for k in c if not k.get("passed")]
for b in bad: print("# failed check:", b)
sys.exit(0 if c and not bad else 1)
EOF
}

# measured FILE LABEL: the measured value of one check of a --json summary.
measured() {
  python3 -c 'import json, sys
for k in json.load(open(sys.argv[1]))["checks"]:
    if k["label"] == sys.argv[2]: print(repr(k["measured"]))' "$1" "$2"
}

for s in disc-no-core disc-core ellipsoid-flat ellipsoid-flat-implicit ellipsoid-tilted; do
  run simulate "$ex/seed003-$s.scene.json" --strict --json -q
  cp "$tmp/out" "$tmp/$s.json"
  check "$s: runs to the end, exit 0 with --strict" status_is 0
  check "$s: every analytic check passes" all_passed "$tmp/$s.json"
done

# A wrong model must break the checks: each variant changes one physical
# ingredient and --strict must report a failed check (exit 3).
wrong() { # DESC SCENE SED-EXPRESSION [extra options]
  desc=$1 scene=$2 expr=$3
  shift 3
  sed "$expr" "$ex/seed003-$scene.scene.json" >"$tmp/wrong.json"
  run simulate "$tmp/wrong.json" --strict -q "$@"
  check "wrong model fails: $desc" status_is 3
}
wrong "no core (delta_max 1) in the core scene" disc-core 's/"delta_max": 0.05/"delta_max": 1/'
wrong "damped spring in the energy-conserving scene" disc-no-core 's/"damping": 0/"damping": 2/'
wrong "stiffer layer (k = 2000)" disc-no-core 's/"stiffness": 1000/"stiffness": 2000/'
wrong "rigid contact (elliptic-torsional) instead of the compliant layer" disc-core 's/"kelvin-voigt"/"elliptic-torsional"/'
wrong "friction halved (mu 0.2): the spin lasts twice as long" ellipsoid-flat 's/"mu": 0.4/"mu": 0.2/'
wrong "half the critical damping" ellipsoid-flat 's/"damping": \[[^]]*\]/"damping": [189.7366596101028, 89.44271909999159]/'

# Energy is conserved up to O(h): the loss after one bounce halves with h.
for h in 2e-4 1e-4 5e-5; do
  run simulate "$ex/seed003-disc-no-core.scene.json" --step $h --duration 0.6 --json -q
  e=$(measured "$tmp/out" "energy after the bounce (J)")
  echo "$h $e" >>"$tmp/loss"
done
sed 's/^/h, E(0.6) = /' "$tmp/loss" | diag
order_ok() {
  python3 - "$tmp/loss" <<'EOF'
import math, sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
loss = [(h, 9.81 * 1.5 - e) for h, e in pts]     # E0 = m g z0 = 14.715 J
n = len(loss); xs = [math.log(h) for h, _ in loss]; ys = [math.log(l) for _, l in loss]
mx, my = sum(xs) / n, sum(ys) / n
p = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print("# energy loss %s: fitted order %.3f" % (["%.4g" % l for _, l in loss], p))
# implicit Euler damps the spring-mass oscillation at rate h omega^2: the loss is first order
sys.exit(0 if all(l > 0 for _, l in loss) and 0.85 <= p <= 1.15 else 1)
EOF
}
check "energy loss of the undamped bounce is O(h) (fitted order in [0.85, 1.15])" order_ok

tap_done
