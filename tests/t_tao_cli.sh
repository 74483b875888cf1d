#!/bin/sh
# t_tao_cli.sh: TAP tests of the TAO solvers through the command line: `cpkit solvers` lists them, `cpkit solve` and `cpkit bench --solvers` run them, and mpirun with 1 and 2 ranks (every rank solves the whole problem, rank 0 writes).
#
# The harness exports CPKIT and CPK_TEST_SRCDIR. The problem, data/cli/bounds5.cpk (M = 2 I,
# q = -1, one unknown of each bound pattern), has the hand-derived answer
# z = (0.5, 0.5, 1, 0.5, 0.5): 0.5 where the bounds allow it, the lower bound 1 on z3.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_tao_cli
problem=$srcdir/data/cli/bounds5.cpk

run solvers
if ! grep -q '^tao-ssils ' "$tmp/out"; then
  check "built without PETSc: no tao solver listed" test "$st" -eq 0
  tap_done
  exit $?
fi
check "cpkit solvers lists tao-ssils, tao-ssfls, tao-asils and tao-asfls" \
  test "$(grep -c -E '^tao-(ssils|ssfls|asils|asfls) +lcp,affine_mcp,nonlinear_mcp ' "$tmp/out")" -eq 4

if ! command -v python3 >/dev/null 2>&1; then
  skip "python3 not available"
  tap_done
  exit $?
fi

# answer FILES...: each JSON result solved, residual within its tolerance, z the hand answer.
answer() {
  python3 - "$@" <<'EOF'
import json, sys
want = [0.5, 0.5, 1.0, 0.5, 0.5]
for f in sys.argv[1:]:
    r = json.load(open(f))
    d = max(abs(a - b) for a, b in zip(r["z"], want))
    print("# %s: %s %s, residual %.3g, max |z - z*| %.3g" % (f.split("/")[-1], r["solver"], r["status"], r["residual"], d))
    if r["status"] != "solved" or r["residual"] > r["tolerance"] or len(r["z"]) != 5 or d > 1e-7:
        sys.exit(1)
EOF
}

for s in tao-ssils tao-ssfls tao-asils tao-asfls; do
  run solve "$problem" --solver "$s" --json -o "$tmp/$s.json"
  check "cpkit solve --solver $s: solved, the hand answer" answer "$tmp/$s.json"
done

run bench "$problem" --solvers bdnewton,tao-ssils,tao-asfls --repeat 1
check "cpkit bench --solvers bdnewton,tao-ssils,tao-asfls: each solves the problem (1 run, 1 solved)" \
  test "$(awk '($1 == "bdnewton" || $1 == "tao-ssils" || $1 == "tao-asfls") && $2 == 1 && $3 == 1' "$tmp/out" | wc -l)" -eq 3

if ! command -v mpirun >/dev/null 2>&1; then
  skip "mpirun not available"
  tap_done
  exit $?
fi
mpi_test_env # --oversubscribe: 2 ranks may share 1 core
for k in 1 2; do
  if mpirun -np "$k" --oversubscribe sh -c 'exec "$0" "$@" -o "'"$tmp/mpi$k"'.$OMPI_COMM_WORLD_RANK"' \
    "$CPKIT" solve "$problem" --solver tao-ssils --json >"$tmp/mpi.out" 2>"$tmp/mpi.err"; then
    # Every rank solves the whole problem; only rank 0 writes (doc/petsc.md).
    check "mpirun -np $k cpkit solve --solver tao-ssils: rank 0 solved, the hand answer" \
      answer "$tmp/mpi$k.0"
    if [ "$k" -gt 1 ]; then
      check "mpirun -np $k cpkit solve --solver tao-ssils: only rank 0 writes the result file" \
        test ! -e "$tmp/mpi$k.1"
    fi
  else
    fail "mpirun -np $k cpkit solve --solver tao-ssils exits 0"
    head -n 5 "$tmp/mpi.err" | diag
  fi
done
tap_done
