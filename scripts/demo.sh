#!/bin/sh
# demo.sh: the main job: install dependencies, build, solve the bundled contact LCP, and reproduce the source papers' experiments (cpkit demo: analytic vs simulated).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" _build
echo "== cpkit solve examples/contact-lcp.cpk (Stewart-Trinkle LCP of a box sliding on a plane)"
"$top/_build/tools/cpkit" solve "$top/examples/contact-lcp.cpk"
echo "== cpkit demo examples (the source papers' experiments: analytic or published value vs simulated)"
"$top/_build/tools/cpkit" demo "$top/examples" --strict
