#!/bin/sh
# check-install.sh: install a build into a temporary prefix, build examples/solve_file.c against it
# with pkg-config (static and shared), run it, and check that libcpkit exports only cpk_ symbols.
# Prints TAP lines and a "N passed, N failed" line; exits non-zero on failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
n=0 failed=0
check() { # description, command...
  desc=$1
  shift
  n=$((n + 1))
  if "$@" >"$prefix/out.txt" 2>&1; then echo "ok $n - $desc"; else
    echo "not ok $n - $desc"; sed 's/^/# /' "$prefix/out.txt" | head -20; failed=$((failed + 1)); fi
}
check "make install into a temporary prefix" make -C "$build" install prefix="$prefix/usr"
export PKG_CONFIG_PATH="$prefix/usr/lib/pkgconfig"
# The .pc file carries the configured prefix; point it at the temporary one.
pkgc="pkg-config --define-variable=prefix=$prefix/usr"
check "pkg-config finds cpkit" pkg-config --exists cpkit
check "headers installed under include/cpkit" test -f "$prefix/usr/include/cpkit/cpkit.h"
check "an outside program builds with pkg-config --cflags --libs cpkit" \
  sh -c "cc -Wall -Werror $top/examples/solve_file.c \$($pkgc --cflags --libs cpkit) -o $prefix/demo"
check "and runs against the shared library (solves the example)" \
  sh -c "LD_LIBRARY_PATH=$prefix/usr/lib $prefix/demo $top/examples/contact-lcp.cpk | grep -q '^solved'"
check "an outside program links statically with pkg-config --static" \
  sh -c "cc $top/examples/solve_file.c \$($pkgc --cflags cpkit) $prefix/usr/lib/libcpkit.a \$($pkgc --static --libs cpkit | sed 's/-lcpkit//') -o $prefix/demo-static && $prefix/demo-static $top/examples/contact-lcp.cpk | grep -q '^solved'"
check "every experiment scene of examples/ is installed (Makefile.am examples_DATA)" \
  sh -c "test \$(ls $top/examples/*.scene.json | wc -l) -eq \$(ls $prefix/usr/share/cpkit/examples/*.scene.json | wc -l)"
check "the experiment scenes are installed and the installed cpkit runs them" \
  sh -c "LD_LIBRARY_PATH=$prefix/usr/lib $prefix/usr/bin/cpkit demo $prefix/usr/share/cpkit/examples --match seed000-spin --strict | grep -q '^0 checks failed'"
check "libcpkit.so exports only cpk_ symbols" \
  sh -c "! nm -D --defined-only $prefix/usr/lib/libcpkit.so | awk '\$2 ~ /^[TDBR]\$/ {print \$3}' | grep -v '^cpk_'"
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
