#!/bin/sh
# t_petsc_dist.sh: TAP tests of `cpkit solve --linsys petsc` (and petsc-gmres) under mpirun with 1 and 2 ranks: rows split over the ranks, umfpack's answer, the same status on every rank, output from rank 0 alone.
#
# The harness exports CPKIT and CPK_TEST_SRCDIR. Each case is solved once without
# MPI with umfpack (the reference), then under `mpirun -np K` (K = 1, 2) with the
# petsc backend. The generated problems have 48 rows (16 three-row contacts for
# the cone problem), several contacts per rank, and couplings across the cut
# between the two ranks' rows, with a unique solution (symmetric positive
# definite, strictly diagonally dominant M; small mu), so the answers must agree
# entry by entry. Statuses: every rank's driver prints its summary line on
# stderr (-v); mpirun --tag-output says which rank printed it.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_dist

if ! command -v mpirun >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  skip "mpirun or python3 not available"
  tap_done
  exit $?
fi
mpi_test_env # root allowed (containers, CI), no leak check of Open MPI's start-up; --oversubscribe lets 2 ranks share 1 core

# The two generated problems: an LCP (chain with a coupling 7 rows away) and a cone problem.
python3 - "$tmp" <<'EOF'
import math, sys
d = sys.argv[1]
n = 48
def write(path, name, kind, entries, q, extra):
    with open(path, "w") as f:
        f.write("cpkit-problem 1\nname %s\ntype %s\nn %d\n%s" % (name, kind, n, extra.get("dim", "")))
        f.write("M coord %d\n" % len(entries))
        for (i, j), v in sorted(entries.items()):
            f.write("%d %d %.17g\n" % (i + 1, j + 1, v))
        f.write("q\n%s\n" % " ".join("%.17g" % x for x in q))
        if "mu" in extra:
            f.write("mu\n%s\n" % " ".join("%.17g" % x for x in extra["mu"]))
        f.write("end\n")
M = {}
for i in range(n):
    M[(i, i)] = 4.0
    for o, v in ((1, -1.0), (7, 0.5)):
        if i + o < n:
            M[(i, i + o)] = M[(i + o, i)] = v
write(d + "/lcp48.cpk", "lcp48", "lcp", M, [math.sin(1.7 * i) for i in range(n)], {})
W = {}
for c in range(16):
    for a, v in enumerate((3.0, 2.0, 2.0)):
        W[(3 * c + a, 3 * c + a)] = v
    W[(3 * c, 3 * c + 1)] = W[(3 * c + 1, 3 * c)] = 0.2
    for o in (1, 5):  # normal-normal couplings to contacts 1 and 5 further on
        if c + o < 16:
            W[(3 * c, 3 * (c + o))] = W[(3 * (c + o), 3 * c)] = -0.4
q = []
for c in range(16):
    q += [-1.0 - 0.5 * math.sin(c), 0.3 * math.cos(2.0 * c), 0.2 * math.sin(3.0 * c)]
write(d + "/cone16.cpk", "cone16", "friction_cone", W, q, {"dim": "dim 3\n", "mu": [0.3] * 16})
EOF

# near REF TOL FILE: FILE solved, residual within tolerance, z within TOL of REF's.
near() {
  python3 - "$@" <<'EOF'
import json, sys
ref, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[3]))
d = max(abs(a - b) for a, b in zip(ref["z"], r["z"]))
print("# %s, residual %.3g (tolerance %.3g), max |z - z_umfpack| %.3g" % (r["status"], r["residual"], r["tolerance"], d))
sys.exit(r["status"] != "solved" or not r["residual"] <= r["tolerance"]
         or len(r["z"]) != len(ref["z"]) or not d <= float(sys.argv[2]))
EOF
}

# ranks_agree K ERR: K summary lines in ERR, one per rank, with one status and one residual.
# mpirun tags every chunk it forwards, and stderr is unbuffered: a rank's line may come in
# several tagged chunks, interleaved with the other rank's, so each rank's text is rebuilt first.
ranks_agree() {
  python3 - "$@" <<'EOF'
import re, sys
k, text, seen = int(sys.argv[1]), {}, {}
parts = re.split(r"\[\d+,(\d+)\]<stderr>:", open(sys.argv[2]).read())
for rank, chunk in zip(parts[1::2], parts[2::2]):
    text[rank] = text.get(rank, "") + chunk
for rank, t in text.items():
    for m in re.finditer(r"\S+: (.+) after \d+ iterations, residual (\S+),", t):
        seen[rank] = (m.group(1), m.group(2))
print("# ranks: %s" % seen)
sys.exit(len(seen) != k or len(set(seen.values())) != 1 or list(seen.values())[0][0] != "solved")
EOF
}

# case_dist NAME FILE TOL ARGS...: umfpack alone, then $backend (petsc unless set) with 1 and 2 ranks.
backend=petsc
case_dist() {
  name=$1 file=$2 tol=$3
  shift 3
  run solve "$file" "$@" --linsys umfpack --json -o "$tmp/$name.ref"
  if [ "$st" -ne 0 ]; then
    fail "$name: the umfpack reference run"
    show_last
    return
  fi
  for k in 1 2; do
    out=$tmp/$name.$k
    if mpirun -np "$k" --oversubscribe --tag-output "$CPKIT" solve "$file" "$@" --linsys "$backend" \
      --json -v -o "$out.json" >"$out.stdout" 2>"$out.stderr"; then
      check "$name, $k rank(s): solved, z within $tol of umfpack's" near "$tmp/$name.ref" "$tol" "$out.json"
      check "$name, $k rank(s): every rank's driver says solved, with one residual" \
        ranks_agree "$k" "$out.stderr"
    else
      fail "$name: mpirun -np $k exits 0"
      grep -v "^\[.*iter" "$out.stderr" | head -n 5 | diag
    fi
  done
}

case_dist lemke-lcp48 "$tmp/lcp48.cpk" 1e-10 --solver lemke
case_dist ipm-lcp48 "$tmp/lcp48.cpk" 1e-6 --solver ipm
case_dist nsn-cone16 "$tmp/cone16.cpk" 1e-6 --solver nsn
case_dist fcipm-cone16 "$tmp/cone16.cpk" 1e-6 --solver fcipm
# petsc-gmres: GMRES + block-Jacobi ILU(0), one block per rank (with 2 ranks the
# preconditioner differs from the 1-rank one), the same answers.
backend=petsc-gmres
case_dist nsn-cone16-gmres "$tmp/cone16.cpk" 1e-6 --solver nsn
case_dist fcipm-cone16-gmres "$tmp/cone16.cpk" 1e-6 --solver fcipm
case_dist ipm-lcp48-gmres "$tmp/lcp48.cpk" 1e-6 --solver ipm
# The preconditioner chosen through PETSc's options database (doc/petsc.md): ASM with
# overlap 1 and GAMG; -cpk_ksp_view shows which one the KSP used.
for pc in asm gamg; do
  PETSC_OPTIONS="-cpk_pc_type $pc -cpk_ksp_view"
  export PETSC_OPTIONS
  case_dist nsn-cone16-gmres-$pc "$tmp/cone16.cpk" 1e-6 --solver nsn
  check "nsn-cone16-gmres-$pc, 2 ranks: the preconditioner is $pc" \
    grep -q "type: $pc" "$tmp/nsn-cone16-gmres-$pc.2.stdout"
done
unset PETSC_OPTIONS
backend=petsc

# Output from rank 0 alone: one report on stdout, no file from another rank.
mpirun -np 2 --oversubscribe "$CPKIT" solve "$tmp/lcp48.cpk" --solver ipm --linsys petsc \
  >"$tmp/two.out" 2>"$tmp/two.err"
st=$?
check "2 ranks without -o: exit 0, one report on stdout" \
  test "$st" -eq 0 -a "$(grep -c '^status:' "$tmp/two.out")" -eq 1
CPK_OUT=$tmp/own
export CPK_OUT
# Each rank asked for its own file: only rank 0's is written.
mpirun -np 2 --oversubscribe sh -c 'exec "$0" "$@" -o "$CPK_OUT.$OMPI_COMM_WORLD_RANK"' \
  "$CPKIT" solve "$tmp/lcp48.cpk" --solver ipm --linsys petsc --json >"$tmp/two.out" 2>"$tmp/two.err"
st=$?
check "2 ranks, -o FILE.RANK: exit 0, FILE.0 written, FILE.1 not" \
  test "$st" -eq 0 -a -s "$tmp/own.0" -a ! -e "$tmp/own.1"

# cpkit bench under 2 ranks: one summary, rank 0's results file only.
mpirun -np 2 --oversubscribe sh -c 'exec "$0" "$@" -o "$CPK_OUT.bench.$OMPI_COMM_WORLD_RANK"' \
  "$CPKIT" bench murty --solvers lemke >"$tmp/bench.out" 2>"$tmp/bench.err"
st=$?
check "bench, 2 ranks: exit 0, one summary, rank 0's results file only" \
  test "$st" -eq 0 -a "$(grep -c ' runs; ' "$tmp/bench.out")" -eq 1 -a -s "$tmp/own.bench.0" \
  -a ! -e "$tmp/own.bench.1"

# cpkit bench --linsys petsc: on one rank (each solve in its forked child) ipm and nsn solve;
# under mpirun every rank runs each solve in its own process (a forked child cannot join the
# MPI job), collectively; rank 0 writes the records; --resume is refused there (exit 2).
run bench "$tmp/lcp48.cpk" "$tmp/cone16.cpk" --solvers ipm,nsn --linsys petsc --repeat 1 \
  -o "$tmp/benchls.csv"
check "bench --linsys petsc, 1 rank: exit 0, ipm on the LCP and nsn on the cone problem solved" \
  test "$st" -eq 0 -a "$(grep -c ',solved,solved,' "$tmp/benchls.csv" 2>/dev/null)" -eq 2
for ls in petsc petsc-gmres; do
  timeout 300 mpirun -np 2 --oversubscribe sh -c 'exec "$0" "$@" -o "$CPK_OUT.bls.$OMPI_COMM_WORLD_RANK"' \
    "$CPKIT" bench "$tmp/lcp48.cpk" "$tmp/cone16.cpk" --solvers ipm,nsn --linsys $ls --repeat 3 \
    >"$tmp/benchls.out" 2>"$tmp/benchls.err"
  st=$?
  check "bench --linsys $ls under mpirun -np 2: exit 0, both solved and verified, rank 0's file only" \
    test "$st" -eq 0 -a "$(grep -c ',solved,solved,' "$tmp/own.bls.0" 2>/dev/null)" -eq 2 \
    -a ! -e "$tmp/own.bls.1"
  rm -f "$tmp/own.bls.0"
done
mpirun -np 2 --oversubscribe "$CPKIT" bench "$tmp/lcp48.cpk" --solvers ipm --linsys petsc \
  -o "$tmp/resume.csv" --resume >"$tmp/benchls.out" 2>"$tmp/benchls.err"
st=$?
check "bench --linsys petsc --resume under mpirun -np 2: refused, exit 2, saying why" \
  test "$st" -eq 2 -a "$(grep -c 'ranks would skip different runs' "$tmp/benchls.err")" -ge 1

fclib=$srcdir/data/fclib/OneObject-i1028-138.hdf5
run info "$fclib"
if grep -q "without HDF5" "$tmp/err"; then
  skip "cpkit built without HDF5: no FCLIB case"
else
  # Its r is not unique: nsn stops at another admissible point with each backend
  # (max |dz| 0.015 measured, residuals 5e-10), so only the residual is compared.
  case_dist nsn-oneobject "$fclib" inf --solver nsn
fi
tap_done
