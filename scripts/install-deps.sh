#!/bin/sh
# install-deps.sh: install cpkit's build dependencies on Debian/Ubuntu (as root, or through sudo).
set -e
pkgs="build-essential autoconf automake libtool pkg-config libgsl-dev libsuitesparse-dev liblapack-dev libjansson-dev libhdf5-dev gnuplot-nox python3 cmake python3-dev python3-numpy python3-scipy python3-pytest"
# Optional (configure finds them or goes without): Siconos Numerics, for `cpkit bench` comparisons;
# doxygen, for the API reference (`make doc`); Bullet, for contrib/bullet (cpkit behind btMLCPSolver)
# and its scene test.
optional="libsiconos-numerics-dev doxygen libbullet-dev"
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=
missing_optional=
for p in $pkgs; do installed "$p" || missing="$missing $p"; done
for p in $optional; do installed "$p" || missing_optional="$missing_optional $p"; done
[ -z "$missing$missing_optional" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
# An optional package the distribution lacks must not stop the build.
for p in $missing_optional; do
  echo "install-deps: installing optional $p"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$p" >/dev/null ||
    echo "install-deps: optional $p not installed (cpkit builds without it)"
done
