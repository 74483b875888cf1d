#!/bin/sh
# tripod.sh: seed 004 section 3.4's benchmark: the tripod on the circle-field plate for DURATION seconds (default 5) at h = 1e-4, with the 32-direction LCP and the quadratic-cone NCP, every solver that takes them; wall time per run and per step.
# usage: bench/tripod.sh CPKIT SCENE [DURATION]
cpkit=${1:?usage: tripod.sh CPKIT SCENE [DURATION]}
scene=${2:?usage: tripod.sh CPKIT SCENE [DURATION]}
duration=${3:-5}
printf '%-22s %-10s %-10s %8s %10s %12s %s\n' formulation solver status steps "wall s" "ms/step" "final centre (cm)"
run() { # label model solver
  out=$("$cpkit" simulate "$scene" --duration "$duration" --model "$2" --solver "$3" --json -q 2>/dev/null)
  echo "$out" | python3 -c '
import json, sys
label, solver = sys.argv[1], sys.argv[2]
try:
    d = json.load(sys.stdin)
except ValueError:
    print("%-22s %-10s refused" % (label, solver)); sys.exit(0)
st = d["status"] if d["status"] == "completed" else "stopped at t = %g" % d["time"]
per = "%.3f" % (1e3 * d["wall_time_s"] / d["steps"]) if d["steps"] else "-"
print("%-22s %-10s %-10s %8d %10.2f %12s %s" % (label, solver, st, d["steps"], d["wall_time_s"],
      per, "(%.4f, %.4f)" % tuple(d["bodies"][0]["x"][:2])))' "$1" "$3"
}
for s in lemke ipm pgs; do run "32-direction LCP" polyhedral $s; done
for s in ipm fbnewton bdnewton; do run "quadratic-cone NCP" point-coulomb $s; done
