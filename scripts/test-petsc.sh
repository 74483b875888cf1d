#!/bin/sh
# test-petsc.sh: install PETSc and Open MPI (Debian/Ubuntu, when missing), build cpkit with PETSc in its
# own directory (default _build-petsc: --without-siconos --with-petsc) and run its PETSc tests
# (`make check-petsc`: every test named *petsc* or *tao*). Ends with "N passed, N failed".
# Usage: scripts/test-petsc.sh [BUILDDIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-_build-petsc}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
fail() { echo "test-petsc: $*"; echo "0 passed, 1 failed"; exit 1; }

# libpetsc-real-dev pulls Open MPI's headers and libraries (libopenmpi-dev); mpirun is openmpi-bin.
missing=
for p in libpetsc-real-dev openmpi-bin; do installed "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  echo "test-petsc: installing$missing"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null; } ||
    fail "cannot install$missing"
fi

# The only alternative the PETSc packages switch that a build reads: libhdf5-mpi-dev and
# libhdf5-openmpi-dev offer hdf5-mpi.pc (priority 35) and hdf5-openmpi.pc (30) for hdf5.pc,
# above libhdf5-dev's hdf5-serial.pc (20), so every later configure would link the FCLIB
# reader against the MPI HDF5. Headers need nothing (each variant has its own directory,
# hdf5/serial and hdf5/openmpi, named by its .pc file). Back to the serial one, pinned:
serial=$(ls /usr/lib/*/pkgconfig/hdf5-serial.pc 2>/dev/null | head -1)
if [ -n "$serial" ] && update-alternatives --query hdf5.pc >/dev/null 2>&1 &&
  [ "$(readlink -f "$(dirname "$serial")/hdf5.pc")" != "$serial" ]; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO update-alternatives --set hdf5.pc "$serial" >/dev/null || fail "cannot set hdf5.pc to $serial"
  echo "test-petsc: hdf5.pc set back to $serial"
fi

echo "== build (petsc, $dir)"
"$top/scripts/build.sh" "$dir" --without-siconos --with-petsc || fail "build failed"
grep -q '^#define HAVE_PETSC 1' "$top/$dir/config.h" || fail "configure did not find PETSc (see $dir/config.log)"
echo "== make check-petsc"
( cd "$top/$dir/tests" && make -j"$(nproc 2>/dev/null || echo 2)" check-petsc >check-petsc.out 2>&1 )
log="$top/$dir/tests/test-suite.log"
grep '^check-petsc:' "$top/$dir/tests/check-petsc.out" | sed 's/^/   /'
grep -E '^# (TOTAL|PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' "$log" 2>/dev/null | sed 's/^/   [petsc] /'
grep -E '^(FAIL|ERROR)' "$top/$dir/tests/check-petsc.out" | sed 's/^/   [petsc] /' | head -40
[ -f "$log" ] || fail "no test-suite.log (see $dir/tests/check-petsc.out)"
pass=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
total=$(sed -n 's/^# TOTAL: *//p' "$log" | head -1)
fail=$((${f:-0} + ${e:-0}))
[ "${total:-0}" -gt 0 ] || fail=$((fail + 1)) # no PETSc test ran: that is a failure too
echo "${pass:-0} passed, $fail failed"
[ "$fail" -eq 0 ]
