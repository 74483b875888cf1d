#!/bin/sh
# t_python.sh: the Python package's pytest suite (python/tests) as TAP, one line per test; skipped when configure left the Python package out or pytest is missing.
#
# Sources ../python/test-env.sh (written by configure). --capture=sys lets a sanitizer's
# report (written to file descriptor 2) reach the log. In the sanitizer build the
# extension needs the ASan/UBSan runtimes preloaded into the (uninstrumented) python3;
# leak detection is off there, since CPython itself leaves memory at exit.

srcdir=$(cd "${CPK_TEST_SRCDIR:-.}" && pwd)
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

test -f ../python/test-env.sh || skip_all "no python/test-env.sh (run configure)"
. ../python/test-env.sh
test "$CPK_HAVE_PYTHON" = yes || skip_all "Python package not built (configure found no python3 with headers and NumPy)"
"$CPK_PYTHON" -c "import pytest" 2>/dev/null || skip_all "pytest not installed for $CPK_PYTHON (Debian: python3-pytest)"

preload=
if test -n "$CPK_SAN_FLAGS"; then
  for lib in libasan.so libubsan.so; do
    path=$($CPK_CC -print-file-name=$lib 2>/dev/null)
    test -f "$path" || skip_all "sanitizer build: $lib not found to preload into python3"
    preload="$preload${preload:+:}$(readlink -f "$path")"
  done
  ASAN_OPTIONS=detect_leaks=0
  export ASAN_OPTIONS
  # Preloaded into python3 only: other tools (awk) must not run under the runtime.
  env LD_PRELOAD="$preload" "$CPK_PYTHON" -c "import sys" 2>/dev/null ||
    skip_all "sanitizer build: python3 does not start with the ASan runtime preloaded"
fi

PYTHONPATH=$CPK_ABS_TOP_BUILDDIR/python${PYTHONPATH:+:$PYTHONPATH}
# The module's rpath is the install's libdir: the build tree's libcpkit comes first.
LD_LIBRARY_PATH=$CPK_ABS_TOP_BUILDDIR/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
CPK_TEST_DATA=$srcdir/data
PYTHONDONTWRITEBYTECODE=1 # the source tree may be read-only (make distcheck)
export PYTHONPATH LD_LIBRARY_PATH CPK_TEST_DATA PYTHONDONTWRITEBYTECODE

out=$(mktemp "${TMPDIR:-/tmp}/t_python.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
trap 'rm -f "$out"' 0
trap 'exit 1' HUP INT TERM
cd "$CPK_ABS_TOP_SRCDIR/python/tests" || { echo "Bail out! no python/tests"; exit 1; }
env ${preload:+LD_PRELOAD="$preload"} "$CPK_PYTHON" -m pytest -v --capture=sys -p no:cacheprovider -o console_output_style=classic . >"$out" 2>&1
st=$?

# "file::test PASSED" lines become TAP; everything else goes out as diagnostics. An expected
# failure (pytest XFAIL) is TAP's "not ok ... # TODO", which the driver counts as XFAIL.
awk -v st="$st" '
  / PASSED$/ { n++; print "ok " n " - " $1; next }
  / SKIPPED/ { n++; print "ok " n " - " $1 " # SKIP"; next }
  / (FAILED|ERROR)$/ { n++; bad++; print "not ok " n " - " $1; next }
  / XFAIL/ { n++; print "not ok " n " - " $1 " # TODO expected failure"; next }
  / XPASS/ { n++; bad++; print "not ok " n " - " $1 " (passed but marked as an expected failure)"; next }
  { print "# " $0 }
  END {
    if (st != 0 && bad == 0) { n++; print "not ok " n " - pytest exit status " st }
    if (n == 0) { n++; print "not ok 1 - pytest ran no test" }
    print "1.." n
  }' "$out"
