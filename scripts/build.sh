#!/bin/sh
# build.sh: configure and build cpkit in a build directory (default _build), regenerating configure if needed.
# Usage: scripts/build.sh [BUILDDIR] [configure options...]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-_build}
[ $# -gt 0 ] && shift
cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null 2>&1 || ./autogen.sh
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ]; then
  ../configure --enable-werror "$@" >configure.out 2>&1 || { cat configure.out; exit 1; }
fi
make -j"$(nproc 2>/dev/null || echo 2)" >make.out 2>&1 || { tail -50 make.out; exit 1; }
