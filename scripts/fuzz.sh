#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan, UBSan and
# libFuzzer's coverage on every source) and runs each for a while from its
# seed corpus (tests/fuzz/README.md). Without clang it says so and exits 0.
#   bash scripts/fuzz.sh                 every target, 10 s each (CI)
#   bash scripts/fuzz.sh --time 600      every target, 10 minutes each
#   bash scripts/fuzz.sh --time 600 fuzz_kernel
# A finding stops the run with the target's report and a crash-* file in
# build-fuzz/findings/<target>/; the exit status is then 1.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) seconds="$2"; shift 2 ;;
    fuzz_*) targets+=("$1"); shift ;;
    *) echo "usage: $0 [--time SECONDS] [fuzz_kernel|fuzz_x86|fuzz_scenario|fuzz_tlm|fuzz_core_file|fuzz_elf|fuzz_checkpoint|fuzz_virt_devices ...]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_kernel fuzz_x86 fuzz_scenario fuzz_tlm fuzz_core_file fuzz_elf fuzz_checkpoint fuzz_virt_devices)

bash scripts/setup.sh
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found: the fuzz targets are not built (scripts/setup.sh installs clang)"
  exit 0
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DPMVP_FUZZ=ON -DPMVP_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz --target "${targets[@]}"

status=0
for t in "${targets[@]}"; do
  # The repository's seeds stay as they are: the run grows a copy.
  work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  cp -n tests/fuzz/corpus/$t/* "$work"/ 2>/dev/null || true
  dict=()
  [ -f tests/fuzz/${t#fuzz_}.dict ] && dict=(-dict=tests/fuzz/${t#fuzz_}.dict)
  # The readers of text take files far larger than libFuzzer's 4 KiB
  # default, and a deep nesting needs room; the others need little.
  case $t in
    fuzz_scenario|fuzz_core_file) dict+=(-max_len=262144) ;;
    fuzz_checkpoint) dict+=(-max_len=65536) ;;
  esac
  echo "fuzz: $t for $seconds s"
  if ! ASAN_OPTIONS=detect_leaks=0 build-fuzz/tests/fuzz/$t "$work" "${dict[@]}" -max_total_time="$seconds" \
       -print_final_stats=1 -artifact_prefix="$findings/" 2>"build-fuzz/$t.log"; then
    tail -40 "build-fuzz/$t.log"
    echo "fuzz: $t found a fault (build-fuzz/$t.log, $findings/)"
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/$t.log" | sed "s/^/fuzz: $t: /"
  fi
done
exit $status
