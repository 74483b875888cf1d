#!/bin/sh
# t_plots.sh: TAP tests of the plots: a solver keeps its line type (colour and dash) in every bench figure and run, fitted scaling lines stay within the data, gnuplot's messages never reach stderr, `simulate --plot` labels axes with units, names the scene and draws impulses as steps.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_plots
# A stand-in gnuplot: answers --version, complains on stderr about every script (as a real one
# does about an empty range), and fails when $tmp/fail exists.
cat >"$tmp/fake-gnuplot" <<EOF2
#!/bin/sh
[ "\$1" = --version ] && { echo "gnuplot 5.4 (fake)"; exit 0; }
echo "\"\$1\" line 9: warning: Skipping data file with no valid points" >&2
[ -e "$tmp/fail" ] && exit 1
exit 0
EOF2
chmod +x "$tmp/fake-gnuplot"
export CPK_GNUPLOT="$tmp/fake-gnuplot"

# lt of solver S in script F (every plot command naming it).
lt_of() { grep -o "lt [0-9]* title '$2[ ']" "$1" | sed 's/^lt \([0-9]*\) .*/\1/' | sort -u | tr '\n' ' '; }
run bench tiny murty --solvers pgs,lemke --repeat 1 --plot "$tmp/a"
check "bench --plot (pgs,lemke): exit 0" status_is 0
check "gnuplot's warnings do not reach stderr" eval '! grep -q -i "warning" "$tmp/err"'
check "they are kept beside each script (profile-time-all.gp.log)" has "warning: Skipping" "$tmp/a/profile-time-all.gp.log"
run bench tiny murty --solvers lemke,pgs --repeat 1 --plot "$tmp/b"
check "bench --plot (lemke,pgs): exit 0" status_is 0
scripts=$(cd "$tmp/a" && ls ./*.gp)
check "several figures ($(echo $scripts | wc -w))" test "$(echo $scripts | wc -w)" -ge 3
lemke=$(lt_of "$tmp/a/profile-time-all.gp" lemke) pgs=$(lt_of "$tmp/a/profile-time-all.gp" pgs)
check "lemke and pgs have one line type each, not the same ($lemke/$pgs)" \
  eval 'test -n "$lemke" -a -n "$pgs" && test "$(echo $lemke | wc -w)" -eq 1 && test "$lemke" != "$pgs"'
same=1
for f in $scripts; do
  for d in a b; do
    [ -f "$tmp/$d/$f" ] || continue
    for s in lemke pgs; do
      want=$lemke; [ $s = pgs ] && want=$pgs
      got=$(lt_of "$tmp/$d/$f" $s)
      if [ -n "$got" ] && [ "$got" != "$want" ]; then same=0; echo "$d/$f: $s has lt $got, not $want" | diag; fi
    done
  done
done
check "each solver keeps its line type in every figure of both runs (whatever the --solvers order)" test $same -eq 1
check "the line types are defined alike in every script" \
  eval 'test "$(cat "$tmp"/a/*.gp "$tmp"/b/*.gp | grep "^set linetype" | sort | uniq -c | awk "{print \$1}" | sort -u | wc -l)" -eq 1'
check "no two line types share both colour and dash pattern" \
  eval 'test "$(grep "^set linetype" "$tmp/a/profile-time-all.gp" | sed "s/^set linetype [0-9]* //" | sort | uniq -d | wc -l)" -eq 0'
# Fits: each drawn only between its series' smallest and largest size.
g=$tmp/a/scaling-murty.gp
check "a scaling figure with fits" eval 'test -f "$g" && grep -q "exp(" "$g"'
awk '/^# / { if (s != "") print s, lo, hi; s = $2; lo = ""; hi = ""; next }
     NF == 2 { if (lo == "" || $1 < lo) lo = $1; if (hi == "" || $1 > hi) hi = $1 }
     END { if (s != "") print s, lo, hi }' "$tmp/a/scaling-murty.dat" >"$tmp/ranges"
ok=1
while read -r s lo hi; do
  grep "title '$s (slope" "$g" | grep -q "(x >= $lo && x <= $hi ? exp(" || { ok=0; echo "$s: fit not limited to [$lo, $hi]" | diag; }
done <"$tmp/ranges"
check "every fitted line stays within its data ($(lines "$tmp/ranges") series)" test $ok -eq 1 -a -s "$tmp/ranges"
# A failing gnuplot: one line naming the log, still nothing of gnuplot's on stderr.
touch "$tmp/fail"
run bench tiny --solvers lemke --repeat 1 --plot "$tmp/c"
check "gnuplot failing: the message names the log, gnuplot's text stays out of stderr" \
  eval 'has "gnuplot failed \(its messages: .*\.gp\.log\)" "$tmp/err" && ! has "Skipping" "$tmp/err"'
rm -f "$tmp/fail"

# simulate --plot: units, the scene's name, impulses per step as steps.
run simulate "$srcdir/../examples/seed000-translating-elliptic.scene.json" --plot "$tmp/sim.svg"
check "simulate --plot: exit 0, no gnuplot text on stderr" eval 'status_is 0 && ! has "Skipping" "$tmp/err"'
gp=$tmp/sim.gp
check "simulate --plot: time axis in seconds" has "^set xlabel 'time t \(s\)'" "$gp"
check "simulate --plot: velocities in m/s and rad/s" has "^set ylabel 'v \(m/s\), w \(rad/s\)'" "$gp"
check "simulate --plot: forces in N, moments in N m" has "^set ylabel 'P/h \(N; mr: N m\)'" "$gp"
check "simulate --plot: names the scene" has "title 'scene: seed000-translating-elliptic'" "$gp"
check "simulate --plot: impulses drawn as steps" has "ball\.fn .* with fsteps" "$gp"
check "simulate --plot: velocities drawn as lines" has "ball\.vx .* with lines" "$gp"
tap_done
