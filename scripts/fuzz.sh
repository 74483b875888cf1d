#!/bin/sh
# fuzz.sh: CI's bounded fuzzing: a clang build with the library instrumented (coverage for libFuzzer, ASan + UBSan) in _build-fuzz, then every reader's harness FUZZ_SECONDS s (default 25, `make fuzz-short`); exit 1 on a finding.
# Usage: scripts/fuzz.sh [SECONDS]. A finding is kept in _build-fuzz/tests/fuzz-findings/.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-25}
"$top/scripts/install-deps.sh"
if ! command -v clang >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  echo "fuzz: installing clang (libFuzzer)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
fi
"$top/scripts/build.sh" _build-fuzz CC=clang CFLAGS="-g -O1 -fsanitize=fuzzer-no-link" \
  --enable-sanitizers
make -C "$top/_build-fuzz/tests" fuzz-short FUZZ_SHORT_SECONDS="$seconds"
