#!/bin/sh
# t_cli.sh: TAP tests of the cpkit command: help/version, solvers, solve (report, JSON, -o, stdin, warm start), info, usage and input errors.
#
# The harness exports CPKIT (the built binary) and CPK_TEST_SRCDIR (tests/).
# Answers are checked against hand-solved problems in data/cli/, never
# against text copied from the program's own output.

srcdir=${CPK_TEST_SRCDIR:-.}
data=$srcdir/data/cli
. "$srcdir/tap.sh"
tap_init t_cli
# json_numbers KEY FILE: the numbers of the array "KEY": [...], one per line.
json_numbers() {
  awk -v key="\"$1\":[" '
    { s = s $0 }
    END {
      gsub(/[ \t\r\n]/, "", s)
      i = index(s, key)
      if (i == 0) exit 1
      s = substr(s, i + length(key))
      j = index(s, "]")
      if (j == 0) exit 1
      m = split(substr(s, 1, j - 1), a, ",")
      for (k = 1; k <= m; k++) print a[k]
    }' "$2"
}

# json_string KEY FILE: the value of "KEY": "value".
json_string() {
  awk -v key="\"$1\":\"" '
    { s = s $0 }
    END {
      gsub(/[ \t\r\n]/, "", s)
      i = index(s, key)
      if (i == 0) exit 1
      s = substr(s, i + length(key))
      print substr(s, 1, index(s, "\"") - 1)
    }' "$2"
}

# json_number KEY FILE: the value of "KEY": number.
json_number() {
  awk -v key="\"$1\":" '
    { s = s $0 }
    END {
      gsub(/[ \t\r\n]/, "", s)
      i = index(s, key)
      if (i == 0) exit 1
      s = substr(s, i + length(key))
      if (!match(s, /^[-+0-9.eE]+/)) exit 1
      print substr(s, 1, RLENGTH)
    }' "$2"
}

# near_all TOL "V1 V2 ...": the numbers on stdin are, in order and in number, within TOL of V1 V2 ...
near_all() {
  awk -v tol="$1" -v want="$2" '
    BEGIN { m = split(want, w, " ") }
    { k++; d = $1 - w[k]; if (d < 0) d = -d; if (!(d <= tol)) bad = 1 }
    END { exit (bad || k != m) }'
}

json_z_near() { json_numbers z "$1" | near_all "$2" "$3"; }
json_status_is() { test "$(json_string status "$1")" = "$2"; }

have_python=no
if command -v python3 >/dev/null 2>&1 && python3 -c 'import json' >/dev/null 2>&1; then
  have_python=yes
fi
python3_quiet() { python3 "$@" 2>/dev/null; }
valid_json() {
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# ---- help, version, solvers ------------------------------------------------

run --help
check "--help exits 0 and lists the commands" \
  eval 'status_is 0 && has "solve" "$tmp/out" && has "info" "$tmp/out" && has "solvers" "$tmp/out" && is_empty "$tmp/err"'
run -h
check "-h is --help" eval 'status_is 0 && has "solvers" "$tmp/out"'
run help
check "help with no command is --help" eval 'status_is 0 && has "info" "$tmp/out"'
run --version
check "--version exits 0 and prints 'cpkit X.Y'" \
  eval 'status_is 0 && has "^cpkit [0-9]+\.[0-9]+" "$tmp/out" && is_empty "$tmp/err"'
run help solve
check "help solve shows the solve options" eval 'status_is 0 && has "--tol" "$tmp/out" && has "--warm-start" "$tmp/out"'
run solve --help
check "solve --help shows the solve options" eval 'status_is 0 && has "--solver" "$tmp/out" && has "--json" "$tmp/out"'
run info --help
check "info --help exits 0 with text" eval 'status_is 0 && has "usage: cpkit info" "$tmp/out"'
run solvers --help
check "solvers --help exits 0 with text" eval 'status_is 0 && has "usage: cpkit solvers" "$tmp/out"'
run solvers
check "solvers lists lemke and enum" \
  eval 'status_is 0 && has "^lemke[[:space:]]" "$tmp/out" && has "^enum[[:space:]]" "$tmp/out"'
check "solvers says lemke takes LCPs" eval 'grep "^lemke" "$tmp/out" | grep -q "lcp"'

# ---- solve: the hand-solved LCP M = [[2,1],[1,2]], q = (-5,-6), z = (4/3, 7/3), w = 0 ----

lcp2=$data/lcp2.cpk
Z43_73="1.3333333333333333333 2.3333333333333333333"

run solve "$lcp2" --json
cp "$tmp/out" "$tmp/lcp2.json"
check "solve --json exits 0 with nothing on stderr" eval 'status_is 0 && is_empty "$tmp/err"'
check "solve --json: status solved" json_status_is "$tmp/lcp2.json" solved
check "solve --json: z = (4/3, 7/3)" json_z_near "$tmp/lcp2.json" 1e-8 "$Z43_73"
check "solve --json: w = Mz + q = 0" eval 'json_numbers w "$tmp/lcp2.json" | near_all 1e-8 "0 0"'
check "solve --json: reported residual <= 1e-8" \
  eval 'json_number residual "$tmp/lcp2.json" | awk "{ exit !(\$1 + 0 <= 1e-8) }"'
check "solve --json: n = 2" eval 'test "$(json_number n "$tmp/lcp2.json")" = 2'
if [ $have_python = yes ]; then
  check "solve --json output is valid JSON" valid_json "$tmp/lcp2.json"
else
  skip "python3 not available to validate JSON"
fi

run solve "$lcp2"
check "solve report: exit 0, status solved" eval 'status_is 0 && has "^status:[[:space:]]+solved" "$tmp/out"'
check "solve report: shows z = 4/3 and 7/3" eval 'has "1\.33333333" "$tmp/out" && has "2\.33333333" "$tmp/out"'
check "solve report: names the solver and n" eval 'has "^solver:[[:space:]]+lemke" "$tmp/out" && has "^n:[[:space:]]+2$" "$tmp/out"'

run solve "$lcp2" --json -o "$tmp/o.json"
check "-o FILE: exit 0 and nothing on stdout" eval 'status_is 0 && is_empty "$tmp/out"'
check "-o FILE: the file holds the JSON result" eval 'json_status_is "$tmp/o.json" solved && json_z_near "$tmp/o.json" 1e-8 "$Z43_73"'
run solve "$lcp2" --output "$tmp/o.txt"
check "--output FILE writes the report" eval 'status_is 0 && is_empty "$tmp/out" && has "^status:[[:space:]]+solved" "$tmp/o.txt"'

run_stdin "$lcp2" solve - --json
check "FILE '-' reads standard input" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "$Z43_73"'

run solve "$lcp2" --linsys dense --json
check "--linsys dense solves" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "$Z43_73"'
run solve "$lcp2" --tol 1e-12 --time-limit 10 --max-iter 100 --json
check "--tol/--time-limit/--max-iter accepted and solved" eval 'status_is 0 && json_status_is "$tmp/out" solved && json_z_near "$tmp/out" 1e-10 "$Z43_73"'
run solve "$lcp2" --max-iter 1 --json
check "--max-iter 1 still exits 0 with a status word" \
  eval 'status_is 0 && json_string status "$tmp/out" | grep -E -q "^(solved|max_iterations|stalled)$"'
run solve "$lcp2" -v -v --json
check "--verbose keeps stdout pure JSON" eval 'status_is 0 && json_status_is "$tmp/out" solved'
if [ $have_python = yes ]; then
  check "--verbose --json output is valid JSON" valid_json "$tmp/out"
else
  skip "python3 not available to validate JSON"
fi

printf '1 2\n' >"$tmp/ws.txt"
run solve "$lcp2" --warm-start "$tmp/ws.txt" --json
check "--warm-start plain text: solved" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "$Z43_73"'
run solve "$lcp2" --warm-start "$tmp/lcp2.json" --json
check "--warm-start from a --json result: solved" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "$Z43_73"'

run solve "$lcp2" --solver enum --json
check "--solver enum solves lcp2" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "$Z43_73"'

# M = [[1,2],[0,1]] (coordinate form), q = (-1,-1): unique solution z = (0,1).
run solve "$data/lcp2-coord.cpk" --linsys umfpack --json
check "sparse file with --linsys umfpack: z = (0, 1)" eval 'status_is 0 && json_z_near "$tmp/out" 1e-8 "0 1"'

# Box MCP, M = 2I, q = -1, one variable per bound pattern: z = (.5, .5, 1, .5, .5).
run solve "$data/bounds5.cpk" --json
check "box MCP: z = (0.5, 0.5, 1, 0.5, 0.5)" \
  eval 'status_is 0 && json_status_is "$tmp/out" solved && json_z_near "$tmp/out" 1e-8 "0.5 0.5 1 0.5 0.5"'

# M = [[1,2],[2,1]], q = (-1,-1): exactly the solutions (1,0), (0,1), (1/3,1/3).
run solve "$data/multi3.cpk" --solver enum --json
cp "$tmp/out" "$tmp/multi3.json"
if [ $have_python = yes ]; then
  check "enum finds the three solutions of multi3" python3_quiet - "$tmp/multi3.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
M, q = [[1.0, 2.0], [2.0, 1.0]], [-1.0, -1.0]
zs = [s["z"] if isinstance(s, dict) else s for s in r.get("solutions", [])]
ok = len(zs) == 3
for z in zs:
    w = [M[i][0] * z[0] + M[i][1] * z[1] + q[i] for i in range(2)]
    ok = ok and min(z + w) >= -1e-9 and max(abs(z[i] * w[i]) for i in range(2)) <= 1e-9
for e in ([1.0, 0.0], [0.0, 1.0], [1 / 3, 1 / 3]):
    ok = ok and any(max(abs(z[0] - e[0]), abs(z[1] - e[1])) < 1e-9 for z in zs)
sys.exit(0 if ok else 1)
EOF
else
  skip "python3 not available to read the list of solutions"
fi
run solve "$data/multi3.cpk" --solver enum
check "enum report lists three solutions" eval 'status_is 0 && test "$(grep -c "^solution [0-9]* of 3:" "$tmp/out")" -eq 3'

# n = 1, M = -1, q = -1: no z >= 0 gives w = -z - 1 >= 0.
run solve "$data/infeasible1.cpk" --solver enum --json
check "infeasible LCP, enum: exit 0, status no_solution" eval 'status_is 0 && json_status_is "$tmp/out" no_solution'
run solve "$data/infeasible1.cpk" --json
check "infeasible LCP, lemke: exit 0, no solution claimed" \
  eval 'status_is 0 && json_string status "$tmp/out" | grep -E -q "^(ray_termination|no_solution)$"'
run solve "$data/infeasible1.cpk"
check "infeasible LCP, lemke report: exit 0, not solved" eval 'status_is 0 && has "^status:" "$tmp/out" && ! has "^status:[[:space:]]+solved" "$tmp/out"'

# ---- info -----------------------------------------------------------------

# value KEY: the text after "KEY:" in the info output.
value() { sed -n "s/^$1:[[:space:]]*//p" "$tmp/out"; }

run info "$lcp2"
check "info lcp2: exit 0" eval 'status_is 0 && is_empty "$tmp/err"'
check "info lcp2: name, kind, n" eval 'test "$(value name)" = cli-lcp2 && test "$(value kind)" = lcp && test "$(value n)" = 2'
check "info lcp2: ||q||_inf = 6, ||M||_inf = 3" \
  eval 'awk -v a="$(value "||q||_inf")" -v b="$(value "||M||_inf")" "BEGIN { exit !(a == 6 && b == 3) }"'
check "info lcp2: symmetric, positive definite (eigenvalues 1 and 3)" \
  eval 'value symmetric | grep -q "^yes" && value "symmetric part" | grep -q "^positive definite"'
check "info lcp2: 2 lcp-type variables" eval 'test "$(value "lcp-type variables")" = 2 && test "$(value boxed)" = 0'

run info "$data/lcp2-coord.cpk"
check "info coord: not symmetric, 3 nonzeros, density 0.75" \
  eval 'status_is 0 && value symmetric | grep -q "^no" && value nnz | grep -q "^3" && test "$(value density)" = 0.75'
check "info coord: symmetric part semidefinite, not definite (eigenvalues 0 and 2)" \
  eval 'value "symmetric part" | grep -q "^positive semidefinite"'

run info "$data/multi3.cpk"
check "info multi3: symmetric part indefinite (eigenvalues 3 and -1)" \
  eval 'status_is 0 && value "symmetric part" | grep -q "^indefinite"'

run info "$data/bounds5.cpk"
one_of_each() {
  for k in "lcp-type variables" "free variables" lower-only upper-only boxed; do
    test "$(value "$k")" = 1 || return 1
  done
}
check "info bounds5: one variable of each bound pattern" eval 'status_is 0 && one_of_each'

run_stdin "$lcp2" info -
check "info - reads standard input" eval 'status_is 0 && test "$(value n)" = 2'

# ---- usage errors: exit 2, one line on stderr, nothing on stdout ------------

usage_error() {
  desc=$1
  shift
  run "$@"
  if status_is 2 && one_error_line; then pass "usage error: $desc"; else fail "usage error: $desc"; show_last; fi
}

usage_error "no command"
usage_error "unknown command" frobnicate
usage_error "unknown global option" --frobnicate
usage_error "--version with an argument" --version extra
usage_error "help for an unknown command" help frobnicate
usage_error "solve without FILE" solve
usage_error "solve with two files" solve "$lcp2" "$lcp2"
usage_error "unknown long option" solve "$lcp2" --frobnicate
usage_error "unknown short option" solve "$lcp2" -x
usage_error "--tol abc" solve "$lcp2" --tol abc
usage_error "--tol -1" solve "$lcp2" --tol -1
usage_error "--tol 0" solve "$lcp2" --tol 0
usage_error "--tol nan" solve "$lcp2" --tol nan
usage_error "--tol inf" solve "$lcp2" --tol inf
usage_error "--tol 1e999 (overflow)" solve "$lcp2" --tol 1e999
usage_error "--tol empty" solve "$lcp2" --tol ""
usage_error "--tol '1e-8x'" solve "$lcp2" --tol 1e-8x
usage_error "--tol without a value" solve "$lcp2" --tol
usage_error "--max-iter 1.5" solve "$lcp2" --max-iter 1.5
usage_error "--max-iter -1" solve "$lcp2" --max-iter -1
usage_error "--max-iter abc" solve "$lcp2" --max-iter abc
usage_error "--max-iter 1e3" solve "$lcp2" --max-iter 1e3
usage_error "--max-iter too large" solve "$lcp2" --max-iter 99999999999999999999999
usage_error "--time-limit -1" solve "$lcp2" --time-limit -1
usage_error "--time-limit x" solve "$lcp2" --time-limit x
usage_error "--json=1" solve "$lcp2" --json=1
usage_error "-o without a value" solve "$lcp2" -o
usage_error "bad option before a missing file" solve "$tmp/no-such-file.cpk" --tol abc
usage_error "info without FILE" info
usage_error "info with two files" info "$lcp2" "$lcp2"
usage_error "info unknown option" info --frobnicate "$lcp2"
usage_error "solvers with an argument" solvers extra
usage_error "solvers unknown option" solvers --frobnicate

run solve "$lcp2" --solver frobnicate
check "unknown solver: exit 2, message lists lemke and enum" \
  eval 'status_is 2 && one_error_line && has "lemke" "$tmp/err" && has "enum" "$tmp/err"'
run solve "$lcp2" --linsys frobnicate
check "unknown linsys: exit 2, message lists dense and umfpack" \
  eval 'status_is 2 && one_error_line && has "dense" "$tmp/err" && has "umfpack" "$tmp/err"'

# ---- bad input: exit 1, one "cpkit: FILE:LINE: ..." line, nothing on stdout --

input_error() {
  desc=$1
  pattern=$2
  shift 2
  run "$@"
  if status_is 1 && one_error_line && has "$pattern" "$tmp/err"; then
    pass "bad input: $desc"
  else
    fail "bad input: $desc"
    show_last
  fi
}

input_error "solve, nonexistent file" "^cpkit: .*no-such-file\.cpk" solve "$tmp/no-such-file.cpk"
input_error "info, nonexistent file" "^cpkit: .*no-such-file\.cpk" info "$tmp/no-such-file.cpk"
for name in bad-magic bad-nan bad-index bad-short bad-bounds bad-empty; do
  f=$data/$name.cpk
  input_error "solve $name.cpk gives file:line" "^cpkit: .*$name\.cpk:[0-9]+: " solve "$f"
  input_error "info $name.cpk gives file:line" "^cpkit: .*$name\.cpk:[0-9]+: " info "$f"
done
input_error "bad header reported on line 1" "bad-magic\.cpk:1: " info "$data/bad-magic.cpk"
input_error "NaN reported on its line (8)" "bad-nan\.cpk:8: " info "$data/bad-nan.cpk"
input_error "index out of range reported on its line (6)" "bad-index\.cpk:6: " info "$data/bad-index.cpk"
input_error "standard input is named in the message" "^cpkit: <stdin>:8: " solve - <"$data/bad-nan.cpk"

input_error "nonexistent warm-start file" "^cpkit: .*no-such-ws" \
  solve "$lcp2" --warm-start "$tmp/no-such-ws.txt"
printf '1 abc\n' >"$tmp/ws-bad.txt"
input_error "malformed warm-start file" "^cpkit: .*ws-bad\.txt" solve "$lcp2" --warm-start "$tmp/ws-bad.txt"
input_error "-o into a missing directory" "^cpkit: .*no-such-dir" solve "$lcp2" -o "$tmp/no-such-dir/out.txt"
check "-o failure creates no file" test ! -e "$tmp/no-such-dir/out.txt"

# Every malformed file of the io tests: a message, never a crash or a signal.
if [ -d "$srcdir/data/bad" ]; then
  for f in "$srcdir"/data/bad/*.cpk; do
    [ -e "$f" ] || continue
    for cmd in info solve; do
      run "$cmd" "$f"
      if [ "$st" -ge 1 ] && [ "$st" -le 2 ] && one_error_line && has '^cpkit: ' "$tmp/err"; then
        pass "data/bad/$(basename "$f"): $cmd exits $st with one message"
      else
        fail "data/bad/$(basename "$f"): $cmd exits $st (expected 1 or 2 and one message)"
        show_last
      fi
    done
  done
else
  skip "tests/data/bad/ does not exist yet"
fi

tap_done
