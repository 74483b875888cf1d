#!/bin/sh
# examples_matrix.sh: runs `cpkit simulate SCENE --model M [--solver S]` over scenes x models x solvers with a time limit per run and prints the rows of doc/experiments.md's tables.
#
# usage: sh bench/examples_matrix.sh [-c CPKIT] [-d DIRS] [-t SECONDS] [-o RAW]
#                                    [-m MODELS] [-S SOLVERS] [SCENE...]
#   -c CPKIT    the cpkit program (default: cpkit on PATH)
#   -d DIRS     colon-separated directories searched for SCENE.scene.json (default: examples/
#               beside this script; bench/issue14 holds the scenes of the first table of
#               doc/experiments.md that are not examples)
#   -t SECONDS  wall-clock limit per run (default 60)
#   -o RAW      raw results, one line per run, kept between calls: runs already in RAW
#               are not run again, so subsets can run one after another (or in the
#               background); the table of the scenes, models and solvers asked is printed
#               from what RAW holds
#               (default: a temporary file)
#   -m MODELS   comma-separated models (default point-coulomb,elliptic-torsional,kelvin-voigt)
#   -S SOLVERS  comma-separated solvers; "default" names no solver, so the scene's own
#               solver or the stepper's default runs
#               (default default,bdnewton,fbnewton,ipm,nsgs,fcipm,nsn)
#   SCENE       scene names (file names without .scene.json); default every scene in the first of DIRS
#
# A row: | scene | model (F/N) | cell per solver |, F the number of the scene's checks that
# fail in the best completed run of the row, N the number of checks. A cell: "ok" (the run
# completed with no more failed checks than F), "ok, K more checks fail", "ok (K steps by
# S)" when the fallback solved K steps, "stops t = T" (a step's solve failed), "stops t = T
# (physical check)" (a step's answer failed the physical check), "n/a" (the solver does not
# take the model's problem), "time limit" (killed after SECONDS). The last line totals the
# runs that apply: completed / stopped per solver.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cpkit=cpkit dir="$here/../examples" limit=60 raw=""
models=point-coulomb,elliptic-torsional,kelvin-voigt
solvers=default,bdnewton,fbnewton,ipm,nsgs,fcipm,nsn
while getopts c:d:t:o:m:S: opt; do
  case $opt in
  c) cpkit=$OPTARG ;;
  d) dir=$OPTARG ;;
  t) limit=$OPTARG ;;
  o) raw=$OPTARG ;;
  m) models=$OPTARG ;;
  S) solvers=$OPTARG ;;
  *) sed -n '3,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
command -v jq >/dev/null || { echo "examples_matrix.sh: needs jq" >&2; exit 2; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -n "$raw" ] || raw="$tmp/raw"
touch "$raw" || exit 1
if [ $# -eq 0 ]; then
  set -- $(cd "${dir%%:*}" && ls *.scene.json | sed 's/\.scene\.json$//')
fi
models=$(echo "$models" | tr , ' ')
solvers=$(echo "$solvers" | tr , ' ')

# The cell of one finished run (its JSON summary in $1, its exit status in $2), then a tab,
# the number of failed checks (or -) and the number of checks.
cell() {
  jq -r --arg rc "$2" '
    (.checks // []) as $c
    | ([$c[] | select(.passed | not)] | length) as $f
    | if .status == "completed" then
        (if (.fallbacks // 0) > 0 then "ok (\(.fallbacks) steps by \(.fallback // "the fallback"))" else "ok" end)
        + "\t\($f)\t\($c | length)"
      elif ((.error // "") | test("does not accept")) then "n/a\t-\t\($c | length)"
      elif ((.error // "") | test("physical check")) then "stops t = \(.time) (physical check)\t-\t\($c | length)"
      else "stops t = \(.time)\t-\t\($c | length)" end' "$1" 2>/dev/null
}

# The file of scene $1: the first DIRS entry that has it.
scene_file() {
  (
    IFS=:
    for d in $dir; do
      [ -f "$d/$1.scene.json" ] && { echo "$d/$1.scene.json"; exit 0; }
    done
    exit 1
  )
}

# Run one scene/model/solver unless RAW has it; append "scene model solver cell failed nchecks".
run() {
  key=$(printf '%s\t%s\t%s\t' "$1" "$2" "$3")
  grep -qF "$key" "$raw" && return 0
  opt=""
  [ "$3" = default ] || opt="--solver $3"
  f=$(scene_file "$1") || { printf '%sno scene file\t-\t-\n' "$key" >>"$raw"; return 0; }
  timeout -k 5 "$limit" "$cpkit" simulate "$f" --model "$2" $opt --json -q \
    >"$tmp/out.json" 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    c="time limit	-	-"
  else
    c=$(cell "$tmp/out.json" $rc)
    [ -n "$c" ] || c="error: $(head -c 200 "$tmp/err" | tr '\t\n' '  ')	-	-"
  fi
  printf '%s%s\n' "$key" "$c" >>"$raw"
}

for s in "$@"; do
  for m in $models; do
    for v in $solvers; do run "$s" "$m" "$v"; done
  done
done

# The table from RAW, rows in the order asked, "ok" cells compared with the row's best run.
{
  printf '| scene | model |'
  for v in $solvers; do printf ' %s |' "$v"; done
  echo
  printf '|---|---|'
  for v in $solvers; do printf -- '---|'; done
  echo
  for s in "$@"; do
    for m in $models; do
      awk -F '\t' -v s="$s" -v m="$m" -v list="$solvers" '
        $1 == s && $2 == m { cell[$3] = $4; f[$3] = $5; if ($6 != "-") n = $6 }
        END {
          k = split(list, v, " "); best = -1
          for (i = 1; i <= k; i++)
            if ((v[i] in f) && f[v[i]] != "-" && (best < 0 || f[v[i]] + 0 < best)) best = f[v[i]] + 0
          printf "| %s | %s (%s/%s) |", s, m, best < 0 ? "-" : best, n == "" ? "-" : n
          for (i = 1; i <= k; i++) {
            c = (v[i] in cell) ? cell[v[i]] : "not run"
            if (c ~ /^ok/ && f[v[i]] + 0 > best) c = c ", " f[v[i]] - best " more checks fail"
            printf " %s |", c
          }
          printf "\n"
        }' "$raw"
    done
  done
  # totals per solver over the runs that apply
  for s in "$@"; do for m in $models; do for v in $solvers; do
    printf '%s\t%s\t%s\t\n' "$s" "$m" "$v"
  done; done; done >"$tmp/keys"
  awk -F '\t' -v list="$solvers" '
    NR == FNR { want[$1 FS $2 FS $3] = 1; next }
    ($1 FS $2 FS $3) in want {
      if ($4 ~ /^ok/) ok[$3]++; else if ($4 ~ /^(stops|time limit)/) stop[$3]++
    }
    END {
      k = split(list, v, " "); line = "Totals (completed / stopped):"
      for (i = 1; i <= k; i++) {
        line = line sprintf(" %s %d / %d", v[i], ok[v[i]], stop[v[i]]) (i < k ? "," : "")
        tot += ok[v[i]] + stop[v[i]]; tok += ok[v[i]]
      }
      print line "; " tok " of " tot " runs that apply complete."
    }' "$tmp/keys" "$raw"
}
