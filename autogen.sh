#!/bin/sh
# Regenerate the build system (configure, Makefile.in, build-aux/) from configure.ac.
set -e
cd "$(dirname "$0")"
autoreconf -fi
