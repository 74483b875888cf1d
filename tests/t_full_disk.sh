#!/bin/sh
# t_full_disk.sh: TAP tests of full disks: every command writing to /dev/full (stdout or -o) exits 1 with a message, and leaves /dev/full a device.
#
# /dev/full accepts open() and fails every write with ENOSPC, the way a full
# disk does. A command that reports success there has lost its output without
# saying so. Output files are named through a link in the scratch directory,
# $tmp/full -> /dev/full: a command that renamed a temporary file over its
# output path (how `bench -o /dev/full` used to "succeed", replacing the
# device when run as root) replaces only that link, which is checked after
# every run.

srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_full_disk
top=$srcdir/..
ex=$top/examples

if [ ! -c /dev/full ]; then
  echo "1..0 # SKIP /dev/full is not a character device here"
  exit 0
fi

# full DESC ARGS...: cpkit ARGS with stdout on /dev/full; ARGS may name /dev/full too.
full() {
  desc=$1
  shift
  "$CPKIT" "$@" >/dev/full 2>"$tmp/err"
  st=$?
  judge "$desc"
}

# to_file DESC ARGS...: cpkit ARGS (naming /dev/full as an output) with stdout kept.
to_file() {
  desc=$1
  shift
  "$CPKIT" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
  judge "$desc"
}

judge() {
  if [ "$st" -eq 1 ] && grep -q '^cpkit' "$tmp/err" && [ -L "$full" ]; then
    pass "$1: exit 1 with a message"
  else
    fail "$1: exit $st (want 1 and a message)"
    head -n 3 "$tmp/err" | diag
    [ -L "$full" ] || echo "the link to /dev/full was replaced" | diag
    rm -f "$full"
    ln -s /dev/full "$full"
  fi
}

full=$tmp/full
ln -s /dev/full "$full" || { echo "Bail out! cannot make a link"; exit 1; }
lcp=$ex/contact-lcp.cpk
sys=$ex/block-on-plane.json
scene=$ex/seed000-translating-polyhedral.scene.json
bench="--solvers lemke --repeat 1 --time-limit 10"

full "--help" --help
full "--version" --version
full "help solve" help solve
full "solve --help" solve --help
full "solvers" solvers
full "info" info "$lcp"
full "check" check "$lcp"
full "check --json" check --json "$lcp"
full "solve" solve "$lcp"
full "solve --json" solve --json "$lcp"
to_file "solve -o /dev/full" solve -o "$full" "$lcp"
full "compile" compile --model polyhedral "$sys"
to_file "compile -o /dev/full" compile --model polyhedral -o "$full" "$sys"
full "solve-system" solve-system --model polyhedral "$sys"
full "solve-system --json" solve-system --model polyhedral --json "$sys"
to_file "solve-system -o /dev/full" solve-system --model polyhedral -o "$full" "$sys"
full "bench --list" bench --list
# shellcheck disable=SC2086
full "bench" bench $bench "$lcp"
# shellcheck disable=SC2086
full "bench --json" bench $bench --json "$lcp"
# shellcheck disable=SC2086
to_file "bench -o /dev/full" bench $bench -o "$full" "$lcp"
# shellcheck disable=SC2086
to_file "bench --json -o /dev/full" bench $bench --json -o "$full" "$lcp"
# shellcheck disable=SC2086
to_file "bench --resume -o /dev/full" bench $bench --resume -o "$full" "$lcp"
full "simulate" simulate -q --duration 0.01 "$scene"
full "simulate --json" simulate -q --json --duration 0.01 "$scene"
to_file "simulate -o /dev/full" simulate -q --duration 0.01 -o "$full" "$scene"
to_file "simulate --contacts /dev/full" simulate -q --duration 0.01 --contacts "$full" "$scene"

# Nothing was created beside the link (a temporary file left behind, say).
if ls "$tmp"/full?* >/dev/null 2>&1; then
  fail "no file left beside the output"
  ls "$tmp"/full?* | diag
else
  pass "no file left beside the output"
fi

# A link to a file and a pipe are written through, not replaced.
: >"$tmp/real"
ln -s "$tmp/real" "$tmp/link"
# shellcheck disable=SC2086
"$CPKIT" bench $bench -o "$tmp/link" "$lcp" >"$tmp/out" 2>"$tmp/err"
st=$?
check "bench -o LINK writes the records through the link" \
  sh -c "test $st -eq 0 && test -L '$tmp/link' && grep -q '^problem,' '$tmp/real' && grep -q 'contact-lcp' '$tmp/real'"
mkfifo "$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/piped" & # bounded: a bench that replaced the pipe never opens it
reader=$!
# Bounded too: a bench that closed the pipe after the header and opened it again for the
# records waited forever for a reader (cat had taken the close for the end of the file).
# shellcheck disable=SC2086
timeout 120 "$CPKIT" bench $bench -o "$tmp/fifo" "$lcp" >"$tmp/out" 2>"$tmp/err"
st=$?
wait "$reader"
check "bench -o FIFO writes the records into the pipe" \
  sh -c "test $st -eq 0 && test -p '$tmp/fifo' && grep -q 'contact-lcp' '$tmp/piped'"

tap_done
