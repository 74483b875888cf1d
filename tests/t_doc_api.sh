#!/bin/sh
# t_doc_api.sh: TAP tests of the API reference: doxygen reads the public headers without a warning, writes the section-3 pages, and documents the version macros.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_doc_api
# The build tree is the one whose cpkit we test (CPKIT = TOP_BUILDDIR/tools/cpkit).
top_build=$(cd "$(dirname "$CPKIT")/.." && pwd)
doxyfile=$top_build/doc/Doxyfile
doxygen=$(sed -n 's/^DOXYGEN = //p' "$top_build/Makefile")
if [ -z "$doxygen" ] || ! command -v "$doxygen" >/dev/null 2>&1; then
  skip "doxygen not found by configure (apt-get install doxygen)"
  tap_done
  exit
fi
# The configured Doxyfile, with its outputs redirected here (later settings win).
{ cat "$doxyfile"; echo "OUTPUT_DIRECTORY = $tmp/api"; echo "WARN_LOGFILE = $tmp/warnings.log"; } >"$tmp/Doxyfile"
mkdir -p "$tmp/api"
"$doxygen" "$tmp/Doxyfile" >"$tmp/out" 2>"$tmp/err"
st=$?
check "doxygen runs (exit 0)" status_is 0
check "no warning about the header comments" is_empty "$tmp/warnings.log"
if [ -s "$tmp/warnings.log" ]; then head -n 20 "$tmp/warnings.log" | diag; fi
m=$tmp/api/man/man3
check "HTML index written" test -s "$tmp/api/html/index.html"
check "a page per header (problem.h, solver.h, version.h)" \
  test -s "$m/problem.h.3" -a -s "$m/solver.h.3" -a -s "$m/version.h.3"
check "a page per function: cpk_solve links to solver.h" has '^\.so man3/solver\.h\.3$' "$m/cpk_solve.3"
for mac in CPK_VERSION_MAJOR CPK_VERSION_MINOR CPK_VERSION_PATCH; do
  check "$mac is defined and documented" has "$mac" "$m/version.h.3"
done
# Every public function of the headers has a page: count the declarations against the pages.
missing=
for f in $(sed -n 's/^CPK_API [^(]*[ *]\(cpk_[a-z0-9_]*\)(.*/\1/p' "$srcdir"/../include/cpkit/*.h); do
  test -s "$m/$f.3" || missing="$missing $f"
done
check "every CPK_API function has a man page${missing:+ (missing:$missing)}" test -z "$missing"
tap_done
