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
check "a program using GSL's handler and the version macros links with pkg-config --libs cpkit alone" \
  sh -c "cc -Wall -Werror $top/examples/version_check.c \$($pkgc --cflags --libs cpkit) -o $prefix/vcheck && LD_LIBRARY_PATH=$prefix/usr/lib $prefix/vcheck"
check "pkg-config --static lists UMFPACK's companions" \
  sh -c "$pkgc --static --libs cpkit | grep -q -- '-lamd' && $pkgc --static --libs cpkit | grep -q -- '-lsuitesparseconfig'"
check "an outside CMake project builds with find_package(cpkit 0.5) and cpkit::cpkit, and runs" \
  sh -c "cmake -S $top/examples/cmake -B $prefix/cmake-build -DCMAKE_PREFIX_PATH=$prefix/usr >/dev/null && cmake --build $prefix/cmake-build >/dev/null && LD_LIBRARY_PATH=$prefix/usr/lib $prefix/cmake-build/solve_file $top/examples/contact-lcp.cpk | grep -q '^solved'"
mkdir -p "$prefix/v9" && printf 'cmake_minimum_required(VERSION 3.13)\nproject(v9 C)\nfind_package(cpkit 9.0 QUIET)\nif(cpkit_FOUND)\n  message(FATAL_ERROR "cpkit 9.0 accepted")\nendif()\n' >"$prefix/v9/CMakeLists.txt"
check "find_package(cpkit 9.0) is refused by the version file" \
  cmake -S "$prefix/v9" -B "$prefix/v9/build" -DCMAKE_PREFIX_PATH="$prefix/usr"
check "every experiment scene of examples/ is installed (Makefile.am examples_DATA)" \
  sh -c "test \$(ls $top/examples/*.scene.json | wc -l) -eq \$(ls $prefix/usr/share/cpkit/examples/*.scene.json | wc -l)"
check "the experiment scenes are installed and the installed cpkit runs them" \
  sh -c "LD_LIBRARY_PATH=$prefix/usr/lib $prefix/usr/bin/cpkit demo $prefix/usr/share/cpkit/examples --match seed000-spin --strict | grep -q '^0 checks failed'"
check "libcpkit.so exports only cpk_ symbols" \
  sh -c "! nm -D --defined-only $prefix/usr/lib/libcpkit.so | awk '\$2 ~ /^[TDBR]\$/ {print \$3}' | grep -v '^cpk_'"
# The Python package (when configure built it) must work from the prefix alone: it loads the
# prefix's libcpkit by path (python/Makefile.am writes cpkit/_libpath.py at install).
if grep -q "^CPK_HAVE_PYTHON='yes'" "$build/python/test-env.sh" 2>/dev/null; then
  py=$(sed -n "s/^CPK_PYTHON='\(.*\)'$/\1/p" "$build/python/test-env.sh")
  printf '%s\n' 'import sys, numpy as np, cpkit' \
    'r = cpkit.solve(np.eye(2), [-1.0, 1.0])' \
    'assert r.solved and np.allclose(r.z, [1.0, 0.0]), r.z' \
    'libs = [l.split()[-1] for l in open("/proc/self/maps") if "libcpkit" in l]' \
    'assert libs and all(p.startswith(sys.argv[1]) for p in libs), libs' >"$prefix/pycheck.py"
  check "the installed Python package runs without LD_LIBRARY_PATH, on the prefix's libcpkit" \
    sh -c "lp=\$(find $prefix/usr -name _libpath.py) && cd $prefix && env -u LD_LIBRARY_PATH PYTHONPATH=\$(dirname \$(dirname \$lp)) $py $prefix/pycheck.py $prefix/usr/lib/"
fi
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
