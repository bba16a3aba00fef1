#!/usr/bin/env bash
# Installs the dependencies, builds pmvp and runs its test suite with CTest.
# With --sanitize, builds and runs the same suite under ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
flags=()
if [ "${1:-}" = "--sanitize" ]; then
  build=build-sanitize
  flags=(-DPMVP_SANITIZE=ON)
fi

bash scripts/setup.sh
cmake -S . -B "$build" -G Ninja "${flags[@]}"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
