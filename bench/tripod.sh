#!/bin/sh
# tripod.sh: seed 004 section 3.4's benchmark: the tripod on the circle-field plate for DURATION seconds (default 5) at h = 1e-4, with the 32-direction LCP and the quadratic-cone NCP (its MCP and cone forms), every solver that takes them (A+B: B is the fallback); CPU and wall time per run and CPU per step, and with OLD_CPKIT set the same runs of that build and the CPU ratio.
# usage: [OLD_CPKIT=path] [TRIPOD_QUICK=1] bench/tripod.sh CPKIT SCENE [DURATION]
# TRIPOD_QUICK=1 leaves out the LCP with ipm (about 4 minutes for 5 s).
# CPU time (user + system of the run) is the figure to compare on a shared machine: wall
# time also counts the time other processes held the cores.
cpkit=${1:?usage: tripod.sh CPKIT SCENE [DURATION]}
scene=${2:?usage: tripod.sh CPKIT SCENE [DURATION]}
duration=${3:-5}
python3 - "$cpkit" "$scene" "$duration" "${OLD_CPKIT:-}" "${TRIPOD_QUICK:-0}" <<'EOF'
import json, resource, subprocess, sys
cpkit, scene, duration, old, quick = sys.argv[1:6]
runs = [("32-direction LCP", "polyhedral", "lemke", ""), ("32-direction LCP", "polyhedral", "ipm", ""),
        ("32-direction LCP", "polyhedral", "pgs", ""),
        ("quadratic-cone NCP", "point-coulomb", "ipm", "mcp"),
        ("quadratic-cone NCP", "point-coulomb", "fbnewton", "mcp"),
        ("quadratic-cone NCP", "point-coulomb", "bdnewton", "mcp"),
        ("quadratic-cone NCP", "point-coulomb", "fbnewton+ipm", "mcp"),  # ipm when fbnewton fails
        ("quadratic-cone NCP", "point-coulomb", "nsn", "cone"),
        ("quadratic-cone NCP", "point-coulomb", "", "cone")]  # the stepper's default (nsgs, fcipm)

def run(binary, model, solver):
    """(json or None, CPU seconds of the child)"""
    args = [binary, "simulate", scene, "--duration", duration, "--model", model, "--json", "-q"]
    if solver:
        args += ["--solver", solver.split("+")[0]]
    if "+" in solver:
        args += ["--fallback", solver.split("+")[1]]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        return json.loads(p.stdout), cpu
    except ValueError:
        return None, cpu

print("%-20s %-20s %-18s %7s %8s %8s %9s %s%s" % ("formulation", "solver", "status", "steps",
      "CPU s", "wall s", "CPU ms/st", "final centre (cm)", "   old CPU s  old/new" if old else ""))
for label, model, solver, form in runs:
    if quick == "1" and model == "polyhedral" and solver == "ipm":
        continue
    name = (solver or "default") + (" (%s)" % form if form else "")
    d, cpu = run(cpkit, model, solver)
    if d is None:
        print("%-20s %-20s refused" % (label, name))
        continue
    st = "completed" if d["status"] == "completed" else "stopped t = %g" % d["time"]
    per = "%.4f" % (1e3 * cpu / d["steps"]) if d["steps"] else "-"
    line = "%-20s %-20s %-18s %7d %8.2f %8.2f %9s (%.4f, %.4f)" % (label, name, st, d["steps"], cpu,
           d["wall_time_s"], per, d["bodies"][0]["x"][0], d["bodies"][0]["x"][1])
    if old:
        od, ocpu = run(old, model, solver)
        ok = od is not None and od["status"] == "completed"
        line += "   %9.2f  %7s" % (ocpu, "%.2f" % (ocpu / cpu) if ok and cpu > 0 else "(" +
                                   ("refused" if od is None else "stopped") + ")")
    print(line, flush=True)
EOF
