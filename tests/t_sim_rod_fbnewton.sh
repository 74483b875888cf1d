#!/bin/sh
# t_sim_rod_fbnewton.sh: the thrown rod of issue 14 completes with fbnewton in the three nonlinear models and ends lying on the floor (it stopped at t = 0.486: fbnewton's iterates, outside the bounds with sigma < 0, crept toward a local minimum of its merit; the restarts now search with projected trial points).
srcdir=${CPK_TEST_SRCDIR:-.}
. "$srcdir/tap.sh"
tap_init t_sim_rod_fbnewton
ex=$srcdir/../examples/issue14-rod-thrown.scene.json

# Completing means every step was solved and passed the physical check (the
# stepper stops otherwise); the scene's check (centre at the rod's radius at
# the end) is measured on the trajectory.
for m in point-coulomb elliptic-torsional kelvin-voigt; do
  run simulate "$ex" --model $m --solver fbnewton --strict -q
  check "$m, fbnewton: completes, --strict exit 0" status_is 0
  check "$m, fbnewton: 1 checks, 0 failed" has "1 checks, 0 failed" "$tmp/out"
done
tap_done
