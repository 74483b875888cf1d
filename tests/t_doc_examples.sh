#!/bin/sh
# t_doc_examples.sh: TAP tests that the docs' example files are installed and named, the guide's solve_file.c listing is examples/solve_file.c, and the README's C program checks its return codes.
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_doc_examples
top=$srcdir/..
top_build=$(cd "$(dirname "$CPKIT")/.." && pwd)

# The example files each document uses: examples/NAME in the markdown, $ex/NAME in the man page.
grep -o 'examples/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$top/README.md" "$top/doc/guide.md" | cut -d: -f2 >"$tmp/used"
sed 's/\\-/-/g' "$top/doc/cpkit.1" | grep -o '\$ex/[A-Za-z0-9_./-]*[A-Za-z0-9_]' | sed 's|^\$ex/|examples/|' >>"$tmp/used"
sort -u "$tmp/used" -o "$tmp/used"
check "the docs use example files ($(lines "$tmp/used"))" test "$(lines "$tmp/used")" -ge 8
# What make install puts in PREFIX/share/cpkit/examples: the *_DATA lists of Makefile.am.
sed -n '/^examples\(cmake\)\{0,1\}_DATA *=/,/^[^	]/p' "$top/Makefile.am" |
  grep -o 'examples/[A-Za-z0-9_./-]*' | sort -u >"$tmp/installed"
while read -r f; do
  case $f in examples/) continue ;; esac
  if [ -d "$top/$f" ]; then continue; fi
  check "$f exists and is installed" sh -c "test -f '$top/$f' && grep -qx '$f' '$tmp/installed'"
done <"$tmp/used"
for d in README.md doc/guide.md doc/cpkit.1; do
  check "$d names the installed examples directory" has 'share/cpkit/examples' "$top/$d"
done

# The guide's listing is the file itself, so the two cannot drift apart.
awk '/^```c$/ { inside = 1; n = 0; next } /^```$/ { if (inside && keep) exit; inside = 0; next }
     inside && n++ == 0 && /^\/\* solve_file\.c:/ { keep = 1 } inside && keep { print }' \
  "$top/doc/guide.md" >"$tmp/listing.c"
check "doc/guide.md's solve_file.c listing equals examples/solve_file.c" cmp -s "$tmp/listing.c" "$top/examples/solve_file.c"
cmp "$tmp/listing.c" "$top/examples/solve_file.c" 2>&1 | diag

# The README's C program, compiled as printed against this build.
awk '/^```c$/ { inside = 1; next } /^```$/ { if (inside) exit } inside { print }' "$top/README.md" >"$tmp/readme.c"
cc=$(sed -n 's/^CC = //p' "$top_build/Makefile")
san=$(sed -n 's/^CPK_SAN_FLAGS = //p' "$top_build/Makefile")
gsl=$(sed -n 's/^GSL_LIBS = //p' "$top_build/Makefile")
# shellcheck disable=SC2086 # word splitting of the flags is wanted
if ${cc:-cc} -std=c99 -Wall -Wextra -Werror $san -I"$top/include" -I"$top_build/include" "$tmp/readme.c" \
     -o "$tmp/readme" -L"$top_build/.libs" -lcpkit $gsl >"$tmp/cc.err" 2>&1; then
  pass "the README's C program compiles with -Wall -Wextra -Werror"
  export LD_LIBRARY_PATH="$top_build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  (cd "$tmp" && ./readme >out 2>err); st=$?
  check "README program, problem.cpk missing: exit 1 with the reader's message (no crash)" \
    sh -c "test $st -eq 1 && grep -q 'problem.cpk' '$tmp/err' && test ! -s '$tmp/out'"
  cp "$top/examples/contact-lcp.cpk" "$tmp/problem.cpk"
  (cd "$tmp" && ./readme >out 2>err); st=$?
  check "README program on examples/contact-lcp.cpk: exit 0, solved" \
    sh -c "test $st -eq 0 && grep -q '^solved, residual' '$tmp/out'"
  # examples/solve_file.c, built the same way, solves the same file.
  if ${cc:-cc} -std=c99 -Wall -Wextra -Werror $san -I"$top/include" -I"$top_build/include" \
       "$top/examples/solve_file.c" -o "$tmp/solve_file" -L"$top_build/.libs" -lcpkit $gsl 2>"$tmp/cc.err"; then
    "$tmp/solve_file" "$tmp/problem.cpk" >"$tmp/out" 2>&1; st=$?
    check "examples/solve_file.c solves contact-lcp.cpk" sh -c "test $st -eq 0 && grep -q '^solved' '$tmp/out'"
    "$tmp/solve_file" "$tmp/nothing.cpk" >"$tmp/out" 2>&1; st=$?
    check "examples/solve_file.c on a missing file: exit 1" status_is 1
  else
    fail "examples/solve_file.c compiles"; diag <"$tmp/cc.err"
  fi
else
  fail "the README's C program compiles"; head -n 10 "$tmp/cc.err" | diag
fi
tap_done
