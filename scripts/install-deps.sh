#!/bin/sh
# Installs the Debian packages etkit builds and tests with, if any is missing.
# Required: compiler, CMake, pkg-config, libzip, jansson, flatc (test oracle),
# clang-format (make check fails on a file that is not formatted), libsqlite3,
# libpq and the postgresql server (etkit store and its PostgreSQL tests).
# Optional (skipped quietly when unavailable): clang + its runtime for the
# libFuzzer build, the Cortex-M cross compiler, and pandas + tabulate + numpy
# for the renderers' oracle test (tests/oracle); python3-dev, python3-numpy,
# python3-pandas and python3-pytest for the etkit Python package and its tests;
# chromium for the screenshot tests of the HTML pages (skipped without it).
set -eu
required="build-essential cmake pkg-config libzip-dev libjansson-dev zlib1g-dev flatbuffers-compiler python3 clang-format libsqlite3-dev libpq-dev postgresql"
optional="clang libclang-rt-14-dev gcc-arm-none-eabi libnewlib-arm-none-eabi python3-pandas python3-tabulate python3-numpy python3-dev python3-pytest chromium"

missing=""
for p in $required; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
missing_opt=""
for p in $optional; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_opt="$missing_opt $p"
done
[ -z "$missing$missing_opt" ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
if [ -n "$missing" ]; then
  $SUDO apt-get install -y -q $missing
fi
for p in $missing_opt; do
  $SUDO apt-get install -y -q "$p" || echo "install-deps: optional package $p not installed"
done
