#!/bin/sh
# t_petsc_ranks_equal.sh: TAP tests that nsn's answer with 2 MPI ranks equals the 1-rank one (petsc and petsc-gmres) on a generated 3-D cone problem, re-checked by bench/fc_check.py, and that the file's triplet order (the reader's in-place CSC or its general assembly) changes nothing.
#
# The problem: 96 contacts on a 4x4x6 lattice, each coupled to its 6 lattice
# neighbours through full 3x3 blocks (W symmetric, strictly diagonally dominant,
# so positive definite: a unique r), written once in CSC order and once with its
# triplets reversed. With 2 ranks each holds 48 contacts and the couplings cross
# the cut. The answers of 1 and 2 ranks differ only by the ranks' summation
# order (MUMPS's distributed factors, block Jacobi's two blocks): 1e-9 of max |z|.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_petsc_ranks_equal

if ! command -v mpirun >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  skip "mpirun or python3 not available"
  tap_done
  exit $?
fi
mpi_test_env
checker=$srcdir/../bench/fc_check.py

python3 - "$tmp" <<'EOF'
import math, sys
d = sys.argv[1]
L = (4, 4, 6)
nc = L[0] * L[1] * L[2]
n = 3 * nc
def idx(x, y, z): return (z * L[1] + y) * L[0] + x
W = {}
for z in range(L[2]):
    for y in range(L[1]):
        for x in range(L[0]):
            c = idx(x, y, z)
            for a in range(3):
                W[(3 * c + a, 3 * c + a)] = 12.0 + a + 0.1 * math.sin(c)
            W[(3 * c, 3 * c + 1)] = W[(3 * c + 1, 3 * c)] = 0.3
            for dx, dy, dz in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
                if x + dx < L[0] and y + dy < L[1] and z + dz < L[2]:
                    e = idx(x + dx, y + dy, z + dz)
                    for a in range(3):
                        for b in range(3):
                            v = 0.25 * math.sin(1.3 * c + 0.7 * e + a + 2 * b)
                            W[(3 * c + a, 3 * e + b)] = W[(3 * e + b, 3 * c + a)] = v
q = []
for c in range(nc):
    q += [-1.0 - 0.5 * math.sin(0.9 * c), 0.6 * math.cos(1.1 * c), 0.6 * math.sin(1.7 * c)]
mu = [0.2 + 0.1 * (c % 3) for c in range(nc)]
entries = sorted(W.items(), key=lambda e: (e[0][1], e[0][0]))  # CSC order
for name, order in (("csc", entries), ("rev", entries[::-1])):
    with open("%s/pile96-%s.cpk" % (d, name), "w") as f:
        f.write("cpkit-problem 1\ntype friction_cone\nn %d\ndim 3\nM coord %d\n" % (n, len(order)))
        for (i, j), v in order:
            f.write("%d %d %.17g\n" % (i + 1, j + 1, v))
        f.write("q\n%s\nmu\n%s\nend\n" % (" ".join("%.17g" % x for x in q), " ".join("%.17g" % x for x in mu)))
EOF

# close A B TOL: z of A and B within TOL times max |z| (TOL 0: bit for bit).
close() {
  python3 - "$@" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
scale = max(1.0, max(abs(x) for x in a["z"]))
d = max(abs(x - y) for x, y in zip(a["z"], b["z"]))
print("# max |dz| %.3g (max |z| %.3g), statuses %s %s" % (d, scale, a["status"], b["status"]))
sys.exit(a["status"] != "solved" or b["status"] != "solved" or len(a["z"]) != len(b["z"])
         or not d <= float(sys.argv[3]) * scale)
EOF
}

# rechecked PROBLEM JSON: fc_check.py's natural residual within the driver's tolerance.
rechecked() {
  line=$(python3 "$checker" "$1" "$2") || return 1
  echo "# $line"
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tolerance']; sys.exit(not float(sys.argv[2]) <= t)" \
    "$2" "$(echo "$line" | sed -n 's/.* natural \([^ ]*\) .*/\1/p')"
}

for ls in petsc petsc-gmres; do
  for k in 1 2; do
    for f in csc rev; do
      out=$tmp/$ls.$k.$f
      mpirun -np "$k" --oversubscribe "$CPKIT" solve "$tmp/pile96-$f.cpk" --solver nsn --linsys "$ls" \
        --json -o "$out.json" >"$out.stdout" 2>"$out.stderr"
      st=$?
      if [ "$st" -ne 0 ] || [ ! -s "$out.json" ]; then
        fail "nsn --linsys $ls, $k rank(s), $f order: mpirun exits 0 with an answer"
        head -n 5 "$out.stderr" | diag
      fi
    done
    # 1 rank: bit for bit. 2 ranks: MUMPS's parallel schedule is not reproducible from run to
    # run (measured: 0 or 1.7e-18 of max |z|, half the runs each, with the same file), so
    # within 1e-14 of max |z| (a matrix changed by the order would differ far above it).
    bits=0
    [ "$k" -gt 1 ] && bits=1e-14
    check "nsn --linsys $ls, $k rank(s): the reversed file's answer is the CSC-ordered one's (within $bits of max |z|)" \
      close "$tmp/$ls.$k.csc.json" "$tmp/$ls.$k.rev.json" $bits
  done
  check "nsn --linsys $ls: 2 ranks' answer = 1 rank's (1e-9 of max |z|)" \
    close "$tmp/$ls.1.csc.json" "$tmp/$ls.2.csc.json" 1e-9
  check "nsn --linsys $ls, 2 ranks: residual re-checked by fc_check.py within tolerance" \
    rechecked "$tmp/pile96-csc.cpk" "$tmp/$ls.2.csc.json"
done
tap_done
