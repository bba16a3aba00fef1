#!/usr/bin/env bash
# Installs the dependencies, builds pmvp and runs its test suite with CTest.
# With --sanitize, builds and runs the same suite under ASan and UBSan, with
# clang where it is installed (it builds the instrumented tree in about two
# thirds of gcc's time, and its programs run faster), else with gcc.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
build=build
flags=()
if [ "${1:-}" = "--sanitize" ]; then
  build=build-sanitize
  flags=(-DPMVP_SANITIZE=ON)
  if [ ! -f "$build/CMakeCache.txt" ] && command -v clang++ >/dev/null; then
    export CC=clang CXX=clang++
  fi
fi

cmake -S . -B "$build" -G Ninja "${flags[@]}"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
