#!/usr/bin/env bash
# Host instructions of pmvp-soc on scenarios, monitors attached and
# detached, as Valgrind's callgrind counts them: the same figure on every
# run, which this VM's timing noise is not (docs/PERFORMANCE.md, "Counted
# instructions"). Installs what is missing (valgrind included), builds
# pmvp-soc optimised (Release, as scripts/bench.sh), and prints for each
# scenario, for the whole run and for its start-up alone (--time 1ns): the
# instructions attached and detached, their ratio, and the monitors' part
# (attached - detached).
# Usage: scripts/instructions.sh [SCENARIO ...]   (names in
# platform/scenarios; default: default large-soc)
set -euo pipefail
cd "$(dirname "$0")/.."
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(default large-soc)
for s in "${scenarios[@]}"; do
  [ -f "platform/scenarios/$s.json" ] || { echo "instructions: no scenario $s in platform/scenarios" >&2; exit 2; }
done
bash scripts/setup.sh valgrind
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPMVP_BUILD_TESTS=OFF >/dev/null
cmake --build build-release --target pmvp-soc >/dev/null

# The instructions one run executes; a run that fails is named, with its
# output, and stops the script.
count() {
  local out
  if ! out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null ./build-release/platform/pmvp-soc "$@" --quiet 2>&1); then
    echo "instructions: pmvp-soc $* failed:" >&2
    echo "$out" >&2
    exit 1
  fi
  awk '/I *refs:/ { gsub(",", "", $NF); print $NF }' <<<"$out"
}

printf '%-12s %-9s %15s %15s %7s %15s\n' scenario part attached detached ratio monitors
for s in "${scenarios[@]}"; do
  for part in run start-up; do
    extra=()
    [ "$part" = run ] || extra=(--time 1ns)
    a=$(count "platform/scenarios/$s.json" "${extra[@]}")
    d=$(count "platform/scenarios/$s.json" "${extra[@]}" --detached)
    awk -v s="$s" -v p="$part" -v a="$a" -v d="$d" \
      'BEGIN { printf "%-12s %-9s %15d %15d %6.2fx %15d\n", s, p, a, d, a / d, a - d }'
  done
done
