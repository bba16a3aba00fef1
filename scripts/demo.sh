#!/usr/bin/env bash
# Installs the dependencies, builds pmvp and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja
cmake --build build --target pmvp-demo
./build/platform/pmvp-demo "$@"
