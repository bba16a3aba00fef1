#!/usr/bin/env bash
# Installs what pmvp needs to build and test on Debian 12, from Debian's
# packages, and the extra packages named as arguments (scripts/compare-qemu.sh
# adds qemu-system-arm). Runs apt-get only for packages that are missing.
#
# Unicorn 2.1 or later, which Debian 12 does not have, is the exception: it
# is not installed. Unless the system has it (or its apt offers it), Debian
# 13's libunicorn-dev 2.1.1 is downloaded and unpacked into pmvp's cache,
# ${PMVP_CACHE:-~/.cache/pmvp}/unicorn, by scripts/debian-packages.sh, where
# the build finds it (cmake/unicorn.cmake): the system's sources, packages
# and libunicorn2 stay as they were.
set -euo pipefail

packages=(cmake ninja-build pkg-config make g++ dpkg-dev googletest libgtest-dev libsystemc-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev gnuplot-nox
          libfdt-dev device-tree-compiler gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu clang clang-format libclang-rt-14-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

cache=${PMVP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmvp}
have=$(pkg-config --modversion unicorn 2>/dev/null || true)
offered=$(apt-cache policy libunicorn-dev 2>/dev/null | awk '/Candidate:/ { print $2 }')
if [ -n "$have" ] && dpkg --compare-versions "$have" ge 2.1; then
  :  # the system's
elif [ -n "$offered" ] && [ "$offered" != "(none)" ] && dpkg --compare-versions "$offered" ge 2.1; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq libunicorn-dev
elif [ ! -f "$cache/unicorn/usr/include/unicorn/unicorn.h" ]; then
  bash "$(dirname "$0")/debian-packages.sh" trixie "$(dpkg --print-architecture)" "$cache/unicorn" \
    libunicorn-dev libunicorn2t64
fi
