#!/bin/sh
# Installs the Debian packages etkit builds and tests with, if any is missing,
# without recommended packages (`--no-install-recommends`): exactly this list
# and what it depends on.  Every package is needed by `make check`; a
# package that cannot be installed fails the script (and so CI).
#
#   build          build-essential cmake pkg-config clang-format
#   libraries      libzip-dev libjansson-dev zlib1g-dev libgraphviz-dev
#   test oracle    flatbuffers-compiler (flatc decodes what we write)
#   clang builds   clang libclang-rt-14-dev (CI's clang -Werror build and
#                  the libFuzzer targets)
#   Cortex-M       gcc-arm-none-eabi libnewlib-arm-none-eabi
#                  libstdc++-arm-none-eabi-newlib (the C++ adapter's
#                  Cortex-M build, scripts/cross-build-adapter.sh)
#   aarch64        g++-aarch64-linux-gnu (the adapter's Linux/Android-like
#                  cross build there; Debian has no Android NDK)
#   Python         python3 python3-dev python3-numpy python3-pandas
#                  python3-pytest (the package and its tests, for
#                  /usr/bin/python3); python3-tabulate (the renderers'
#                  oracle: upstream's table is tabulate's); python3-yaml
#                  (the selective-build oracle: yaml.safe_dump)
#   emulated boards qemu-system-arm (the firmware's Cortex-M boards
#                  mps2-an385/386 and mps3-an547, run by etkit run --target)
#   run history    libsqlite3-dev libpq-dev postgresql (etkit store; its
#                  PostgreSQL tests start a throw-away server)
#   graph view     libgraphviz-dev (libgvc: the graph view's layout)
#   HTML pages     chromium (headless screenshots and page tests) and
#                  fonts-dejavu-core (text in those screenshots)
set -eu
packages="build-essential cmake pkg-config clang-format
libzip-dev libjansson-dev zlib1g-dev libgraphviz-dev
libsqlite3-dev libpq-dev postgresql
flatbuffers-compiler
clang libclang-rt-14-dev
gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
g++-aarch64-linux-gnu
qemu-system-arm
python3 python3-dev python3-numpy python3-pandas python3-pytest python3-tabulate python3-yaml
chromium fonts-dejavu-core"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing$missing"
$SUDO apt-get update -q
# shellcheck disable=SC2086 # one word per package
$SUDO apt-get install -y -q --no-install-recommends $missing
