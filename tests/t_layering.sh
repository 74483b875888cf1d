#!/bin/sh
# t_layering.sh: TAP tests of the module layering: base/, io/, linalg/, formulations/ and check/ include no solvers/ header, linalg/ none of the modules above it, no module another's private header.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_layering
st=0
: >"$tmp/err" # tap.sh's show_last reads it on a failure
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

# foreign TOP MODULE ALLOWED...: print every quoted #include in TOP/MODULE that is not a
# header of MODULE itself or of an ALLOWED module (a private header of another module).
foreign() {
  t=$1
  m=$2
  shift 2
  for f in "$t/$m"/*.c "$t/$m"/*.h; do
    [ -f "$f" ] || continue
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
      while read -r inc; do
        found=no
        case $inc in
        */*) ;; # a path into another folder is never the module's own header
        *) for d in "$m" "$@"; do [ -f "$t/$d/$inc" ] && found=yes; done ;;
        esac
        [ $found = yes ] || echo "$m/${f##*/}: #include \"$inc\" (not in $m/ $*)"
      done
  done
}

# layering TOP: every upward include of the tree at TOP, one per line.
layering() {
  for m in base io linalg formulations check; do upward "$1" "$m" solvers; done
  upward "$1" linalg formulations check sim
}

# private TOP: every include of another module's private header. base/'s headers are every
# module's (common.am puts base/ on the path); linalg/'s linsys_refine.h is for solvers/.
private() {
  for m in base io linalg formulations check sim; do foreign "$1" "$m" base; done
  foreign "$1" solvers base linalg
}

layering "$top" >"$tmp/found"
check "no module below solvers/ includes a solvers/ header, linalg/ none above it" is_empty "$tmp/found"
diag <"$tmp/found"
private "$top" >"$tmp/private"
check "no module includes another's private header (base/ and, for solvers/, linalg/ aside)" is_empty "$tmp/private"
diag <"$tmp/private"
check "the linear-solver layer is in linalg/" test -f "$top/linalg/linsys.c" -a ! -f "$top/solvers/linsys.c"

# The checks can fail: a copy of the tree with an upward or private include of each kind planted.
for m in base io linalg solvers formulations check sim; do
  mkdir -p "$tmp/tree/$m"
  cp "$top/$m"/*.c "$top/$m"/*.h "$top/$m/Makefile.am" "$tmp/tree/$m/" 2>/dev/null
done
{ layering "$tmp/tree"; private "$tmp/tree"; } >"$tmp/clean"
check "the copied tree passes" is_empty "$tmp/clean"
echo '#include "../solvers/newton.h"' >>"$tmp/tree/formulations/delassus.c"
echo '#include "monitor.h"' >>"$tmp/tree/check/report.c"
echo 'AM_CPPFLAGS += -I$(top_srcdir)/solvers' >>"$tmp/tree/formulations/Makefile.am"
echo '#include "../formulations/compiled.h"' >>"$tmp/tree/linalg/linsys.c"
echo '#include "assemble.h"' >>"$tmp/tree/formulations/compiler.c"
echo '#include "linsys_refine.h"' >>"$tmp/tree/formulations/cone_form.c"
layering "$tmp/tree" >"$tmp/planted"
private "$tmp/tree" >"$tmp/private"
check "a path into solvers/ is found" has '^formulations/delassus.c: #include "../solvers/newton.h"' "$tmp/planted"
check "a bare solvers/ header name is found" has '^check/report.c: #include "monitor.h" \(from solvers/\)' "$tmp/planted"
check "an -I flag to solvers/ is found" has '^formulations/Makefile.am:' "$tmp/planted"
check "linalg/ reaching into formulations/ is found" has '^linalg/linsys.c: #include "../formulations/' "$tmp/planted"
check "a private header of sim/ in formulations/ is found" has '^formulations/compiler.c: #include "assemble.h"' "$tmp/private"
check "a linalg/ header outside solvers/ is found" has '^formulations/cone_form.c: #include "linsys_refine.h"' "$tmp/private"
check "a path out of the module is a private header too" has '^linalg/linsys.c: #include' "$tmp/private"
tap_done
