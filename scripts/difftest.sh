#!/usr/bin/env bash
# Runs N differential scenarios (kernel against the per-cycle reference)
# from seed S: scripts/difftest.sh [SEED] [COUNT]. Exits non-zero at the
# first divergence and prints the seed that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target pmvp-difftest >/dev/null
./build/tests/pmvp-difftest --seed "${1:-1}" --count "${2:-10000}"
