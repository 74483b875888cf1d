#!/bin/sh
# t_layering.sh: TAP tests of the module layering: base/, io/, linalg/, formulations/ and check/ include no solvers/ header, linalg/ none of the modules above it.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_layering
top=$(cd "$srcdir/.." && pwd)

# upward TOP MODULE ABOVE...: print every quoted #include in TOP/MODULE (sources and
# Makefile.am) that reaches a module of ABOVE: a path through it (../solvers/x.h,
# solvers/x.h), a bare name of one of its headers (found through an -I flag), or an
# -I flag to it in MODULE/Makefile.am. Prints nothing when the module keeps below them.
upward() {
  t=$1
  m=$2
  shift 2
  for a in "$@"; do
    for f in "$t/$m"/*.c "$t/$m"/*.h; do
      [ -f "$f" ] || continue
      sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do
          case $inc in
          */"$a"/* | "$a"/*) echo "$m/${f##*/}: #include \"$inc\"" ;;
          */*) ;;
          *) [ -f "$t/$a/$inc" ] && [ ! -f "$t/$m/$inc" ] && echo "$m/${f##*/}: #include \"$inc\" (from $a/)" ;;
          esac
        done
    done
    grep -n -- "-I[^ ]*/$a\\b" "$t/$m/Makefile.am" 2>/dev/null | sed "s|^|$m/Makefile.am:|"
  done
}

# layering TOP: every upward include of the tree at TOP, one per line.
layering() {
  for m in base io linalg formulations check; do upward "$1" "$m" solvers; done
  upward "$1" linalg formulations check sim
}

layering "$top" >"$tmp/found"
check "no module below solvers/ includes a solvers/ header, linalg/ none above it" is_empty "$tmp/found"
diag <"$tmp/found"
check "the linear-solver layer is in linalg/" test -f "$top/linalg/linsys.c" -a ! -f "$top/solvers/linsys.c"

# The check can fail: a copy of the tree with an upward include of each kind planted.
for m in base io linalg solvers formulations check sim; do
  mkdir -p "$tmp/tree/$m"
  cp "$top/$m"/*.c "$top/$m"/*.h "$top/$m/Makefile.am" "$tmp/tree/$m/" 2>/dev/null
done
layering "$tmp/tree" >"$tmp/clean"
check "the copied tree passes" is_empty "$tmp/clean"
echo '#include "../solvers/newton.h"' >>"$tmp/tree/formulations/delassus.c"
echo '#include "monitor.h"' >>"$tmp/tree/check/report.c"
echo 'AM_CPPFLAGS += -I$(top_srcdir)/solvers' >>"$tmp/tree/formulations/Makefile.am"
echo '#include "../formulations/compiled.h"' >>"$tmp/tree/linalg/linsys.c"
layering "$tmp/tree" >"$tmp/planted"
check "a path into solvers/ is found" has '^formulations/delassus.c: #include "../solvers/newton.h"' "$tmp/planted"
check "a bare solvers/ header name is found" has '^check/report.c: #include "monitor.h" \(from solvers/\)' "$tmp/planted"
check "an -I flag to solvers/ is found" has '^formulations/Makefile.am:' "$tmp/planted"
check "linalg/ reaching into formulations/ is found" has '^linalg/linsys.c: #include "../formulations/' "$tmp/planted"
tap_done
