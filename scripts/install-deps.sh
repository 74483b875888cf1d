#!/bin/sh
# install-deps.sh: install cpkit's build dependencies on Debian/Ubuntu (as root, or through sudo).
set -e
pkgs="build-essential autoconf automake libtool pkg-config libgsl-dev libsuitesparse-dev libjansson-dev libhdf5-dev gnuplot-nox python3 cmake python3-dev python3-numpy python3-scipy python3-pytest"
missing=
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
