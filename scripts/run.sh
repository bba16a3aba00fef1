#!/usr/bin/env bash
# Installs the dependencies, builds pmvp and runs the main job: pmvp-soc on
# its default scenario, or with the arguments given (pmvp-soc --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja
cmake --build build --target pmvp-soc
./build/platform/pmvp-soc "$@"
