#!/bin/sh
# t_fc_check.sh: TAP tests of bench/fc_check.py, the re-check of a cone answer outside cpkit: a solved answer passes, hand-made wrong ones fail (mu = 0 separation, a huge r, a NaN).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_fc_check
checker=$srcdir/../bench/fc_check.py
if ! command -v python3 >/dev/null 2>&1; then
  skip "python3 not found"
  tap_done
  exit
fi
# natural FILE.cpk Z: the natural residual fc_check.py prints for answer Z (JSON array)
natural() {
  echo "{\"z\": $2, \"status\": \"solved\", \"residual\": 0}" >"$tmp/z.json"
  python3 "$checker" "$1" "$tmp/z.json" | sed -n 's/.* natural \([^ ]*\) .*/\1/p'
}
below() { python3 -c "import sys; sys.exit(0 if float('$1') <= $2 else 1)"; }
above() { python3 -c "import sys; sys.exit(0 if float('$1') >= $2 else 1)"; }
# one contact, W = c I, q = (1, 0, 0), friction MU
one_contact() {
  printf 'cpkit 1\ntype friction_cone\nn 3\ndim 3\nM coord 3\n1 1 %s\n2 2 %s\n3 3 %s\nq\n1 0 0\nmu\n%s\nend\n' \
    "$1" "$1" "$1" "$2" >"$tmp/p.cpk"
}
one_contact 1 0
r=$(natural "$tmp/p.cpk" "[0, 0, 0]")
check "mu = 0, separating, r = 0 solves it (natural $r)" below "$r" 0
r=$(natural "$tmp/p.cpk" "[0.5, 0, 0]")
check "mu = 0, pushing a separating contact fails (natural $r)" above "$r" 0.5
one_contact 1e-30 0.5
r=$(natural "$tmp/p.cpk" "[1e17, 0, 0]")
check "a huge r with u_n = 1 fails, not rounded away (natural $r)" above "$r" 1
one_contact 1 0.5
r=$(natural "$tmp/p.cpk" "[NaN, 0, 0]")
check "a NaN answer fails (natural $r)" test "$r" = inf
# an answer solved by cpkit passes the outside check
run solve "$srcdir/data/cone/two-contacts.cpk" --solver nsn --json -o "$tmp/s.json"
python3 "$checker" "$srcdir/data/cone/two-contacts.cpk" "$tmp/s.json" >"$tmp/c" 2>&1
r=$(sed -n 's/.* natural \([^ ]*\) .*/\1/p' "$tmp/c")
check "nsn's answer on two-contacts passes (natural $r <= 1e-8)" below "${r:-1}" 1e-8
tap_done
