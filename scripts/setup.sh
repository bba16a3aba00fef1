#!/usr/bin/env bash
# Installs what pmvp needs to build and test on Debian 12, from Debian's
# packages, and the extra packages named as arguments (scripts/compare-qemu.sh
# adds qemu-system-arm). Runs apt-get only for packages that are missing.
set -euo pipefail

packages=(cmake ninja-build pkg-config make g++ dpkg-dev googletest libgtest-dev libsystemc-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev gnuplot-nox
          libunicorn-dev libfdt-dev device-tree-compiler gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu clang clang-format libclang-rt-14-dev "$@")
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
