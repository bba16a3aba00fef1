#!/usr/bin/env bash
# Makes the Linux image set (scripts/linux-image.sh), builds pmvp-soc and
# boots the set in platform/scenarios/linux-perf.json: Debian's arm64 kernel
# and perf reading pmvp's PMU (docs/LINUX.md). Arguments go to pmvp-soc
# (--json FILE, --detached, a scenario of your own before them, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mapfile -t images < <(bash scripts/linux-image.sh)
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target pmvp-soc
scenario=platform/scenarios/linux-perf.json
[ $# -gt 0 ] && [ "${1%.json}" != "$1" ] && { scenario=$1; shift; }
./build/platform/pmvp-soc "$scenario" --kernel "${images[0]}" --initrd "${images[1]}" "$@"
