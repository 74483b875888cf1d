#!/bin/sh
# t_failalloc.sh: TAP tests of allocation failures: for every k, the k-th malloc/calloc/realloc of a cpkit run fails; every run must end cleanly.
#
# Each case first runs once without failures, counting the calls (K). Then for
# k = 1..K the k-th call fails (tests/failalloc.c, through LD_PRELOAD), and the run
# must either
#   - exit 0 with the same output as the clean run (timings aside): the
#     failure was absorbed, e.g. stdio went unbuffered; or
#   - exit 1 with a message on stderr and nothing on stdout (the commands
#     buffer their output and print it only on success);
# never crash (signal, sanitizer report), never print a contradictory or
# partial answer with exit 0, never exit non-zero without a message.
# `simulate` writes its report as the run goes, so after a failed step part of
# it may be on stdout (documented); its exit 1 still needs the message.
# One test per case, listing the k that misbehaved. FAILALLOC_ONLY='check*'
# runs only the cases whose description matches that shell pattern; the
# longer cases run with CPK_FAILALLOC_FULL=1 (t_failalloc_full.sh, make check-long).
#
# Under AddressSanitizer the shim forwards to ASan's allocator (see failalloc.c),
# so the runs also check for leaks on the error paths. If the sanitizer refuses
# the preload, the test is skipped.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_failalloc
top=$srcdir/..
lib=${CPK_FAILALLOC_LIB:-$(dirname "$CPKIT")/../tests/.libs/libfailalloc.so}

if [ ! -f "$lib" ]; then
  echo "1..0 # SKIP $lib not built"
  exit 0
fi
# ASan wants to come first among the libraries; the shim comes first instead and
# forwards to it, which it tolerates when told not to verify the order.
ASAN_OPTIONS="verify_asan_link_order=0:exitcode=86:${ASAN_OPTIONS:-}"
UBSAN_OPTIONS="exitcode=86:${UBSAN_OPTIONS:-}"
LSAN_OPTIONS="suppressions=$srcdir/failalloc.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# Timings differ from run to run; drop every line that holds one.
normalize() { grep -v -E 'time|_s"?:| per step' "$1"; }

failrun() { # K ARGS...: run cpkit with the K-th allocation failing (0: none), counting the calls
  k=$1
  shift
  CPK_FAILALLOC_N=$k CPK_FAILALLOC_COUNT="$tmp/count" LD_PRELOAD="$lib" \
    LD_LIBRARY_PATH="$libpath" "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
}

# Thousands of runs: call the binary behind libtool's wrapper script when it can
# be called directly (half the time of going through the script each run).
bin=$CPKIT
libpath=${LD_LIBRARY_PATH:-}
for b in "$(dirname "$CPKIT")/.libs/lt-cpkit" "$(dirname "$CPKIT")/.libs/cpkit"; do
  l=$(dirname "$CPKIT")/../.libs
  if [ -x "$b" ] && LD_LIBRARY_PATH="$l${libpath:+:$libpath}" "$b" --version >/dev/null 2>&1; then
    bin=$b
    libpath="$l${libpath:+:$libpath}"
    break
  fi
done

# The shim must work at all: a clean run under it counts its calls and succeeds.
failrun 0 solvers
if [ "$st" -ne 0 ] || [ ! -s "$tmp/count" ]; then
  if grep -q -i sanitizer "$tmp/err"; then
    echo "1..0 # SKIP the sanitizer runtime refuses the LD_PRELOAD allocation shim"
    exit 0
  fi
  fail "the allocation shim runs cpkit (exit $st)"
  head -n 5 "$tmp/err" | diag
  tap_done
  exit 1
fi
# An executable that carries its own allocator (clang links ASan's runtime
# statically) resolves malloc before any preloaded library: the shim then sees
# nothing, and every sweep below would pass over zero cases.
if [ "$(cat "$tmp/count")" -eq 0 ] 2>/dev/null; then
  echo "1..0 # SKIP the allocation shim sees no allocation (malloc resolved in the executable: clang's static ASan runtime; use gcc)"
  exit 0
fi
pass "the allocation shim runs cpkit and counts its allocations ($(cat "$tmp/count") in 'cpkit solvers')"

# One verdict for run k against the clean output in $tmp/ref.
judge() {
  # ASan's runtime reads its own thread's stack bounds through glibc, which
  # allocates (fopen, getline) at moments that vary from run to run; when the
  # shim fails that, ASan stops with a CHECK failure of its own: not cpkit's.
  if grep -q 'CHECK failed: sanitizer_linux_libcdep.*pthread_getattr_np' "$tmp/err"; then
    nsan=$((nsan + 1))
    return 0
  fi
  if [ "$st" -eq 0 ]; then
    normalize "$tmp/out" >"$tmp/out.n"
    cmp -s "$tmp/ref" "$tmp/out.n" && return 0
    echo "k=$k: exit 0 but the output differs from the clean run" >>"$tmp/bad"
    diff "$tmp/ref" "$tmp/out.n" | head -n 4 >>"$tmp/bad"
  elif [ "$st" -eq 1 ] && [ -s "$tmp/err" ] && { [ -n "$sweep_partial" ] || [ ! -s "$tmp/out" ]; } &&
    ! grep -q -E 'Sanitizer|runtime error' "$tmp/err"; then
    return 0
  else
    echo "k=$k: exit $st, stdout $(wc -c <"$tmp/out") bytes; stderr:" >>"$tmp/bad"
    head -n 3 "$tmp/err" >>"$tmp/bad"
  fi
  return 1
}

# sweep DESC ARGS...: one test over every k of the run's allocations.
sweep() {
  desc=$1
  shift
  case $desc in ${FAILALLOC_ONLY:-*}) ;; *) return ;; esac
  failrun 0 "$@"
  if [ "$st" -ne 0 ]; then
    fail "$desc: the clean run fails (exit $st)"
    head -n 3 "$tmp/err" | diag
    return
  fi
  normalize "$tmp/out" >"$tmp/ref"
  total=$(cat "$tmp/count")
  : >"$tmp/bad"
  nbad=0
  nsan=0
  k=1
  while [ "$k" -le "$total" ]; do
    failrun "$k" "$@"
    judge || nbad=$((nbad + 1))
    k=$((k + 1))
  done
  if [ "$nbad" -eq 0 ]; then
    pass "$desc: each of the $total allocations failing ends cleanly ($nsan left to the sanitizer runtime)"
  else
    fail "$desc: $nbad of the $total allocations failing end badly"
    head -n 40 "$tmp/bad" | diag
  fi
}

ex=$top/examples
cli=$srcdir/data/cli
chk=$srcdir/data/check
ray=$srcdir/data/reliab/infeasible2-coord.cpk
sweep "solve (lemke, text)" solve "$ex/contact-lcp.cpk"
sweep "solve --json, lemke's secondary ray" solve --json "$ray"
sweep "check (painleve)" check "$chk/painleve_peg.cpk"
sweep "info" info "$cli/lcp2-coord.cpk"
sweep "solve-system --json" solve-system --json --model polyhedral "$ex/two-spheres-local.json"
sweep "solve (nsgs, a 4x4 contact)" solve --solver nsgs "$srcdir/data/cone/one-contact-dim4.cpk"
sweep_partial=1
sweep "simulate" simulate -q --duration 0.002 "$ex/seed000-translating-polyhedral.scene.json"
sweep_partial=
if [ -n "${CPK_FAILALLOC_FULL:-}" ]; then
  sweep "solve --json, ipm's certificate" solve --json --solver ipm "$ray"
  sweep "solve -o FILE" solve -o "$tmp/solve.txt" "$cli/multi3.cpk"
  sweep "check --json" check --json "$chk/sliding_rod.cpk"
  sweep "check (contact system)" check --model polyhedral "$chk/sliding_block_h0.json"
  sweep "solve-system (text)" solve-system --model point-coulomb "$ex/sphere-on-plane.json"
  sweep "compile" compile --model polyhedral "$ex/sphere-on-plane.json"
else
  skip "the longer sweeps (check --json, contact systems, compile, ipm): make check-long"
fi

tap_done
