#!/usr/bin/env bash
# Installs the dependencies, builds pmvp optimised (Release), and runs the
# benchmarks: Google Benchmark's output, then a table of each figure beside
# its target, in host time and in host instructions (callgrind)
# (bench/README.md, docs/PERFORMANCE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh valgrind
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPMVP_BUILD_TESTS=OFF
cmake --build build-release --target pmvp-bench
bash scripts/linux-image.sh >/dev/null  # figure 10's image set (docs/LINUX.md)
./build-release/bench/pmvp-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --instructions "$@"
