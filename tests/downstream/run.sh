#!/usr/bin/env bash
# Installs a pmvp build into a temporary prefix, runs the installed
# pmvp-soc on installed scenarios (one with firmware), then builds programs
# against the installation and runs them: two with find_package(pmvp) (the
# SystemC example platform, which reads PMU.PMCCNTR_EL0 over TLM, and one
# whose core is a core description's preset), one with
# pkg-config, make and a C compiler only. Exits non-zero if anything fails.
#
# usage: run.sh BUILD_DIR WORK_DIR [EXTRA_FLAGS]
#   EXTRA_FLAGS: compiler and linker flags the build was made with that a
#   consumer must repeat (the sanitizers).
set -euo pipefail
build=$1
work=$2
extra=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

echo "== find_package(pmvp)"
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DPMVP_EXAMPLE="$src/bindings/examples/minimal_platform.cpp" \
  -DPMVP_CONFIG_EXAMPLE="$src/config/examples/core_from_file.cpp" \
  -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$work/cmake" >/dev/null
# LeakSanitizer cannot follow SystemC's coroutine stacks (its tracer has been
# seen to crash on them), as for pmvp's own SystemC programs: leak detection
# is off for this one when it is built with the sanitizers (ASan and UBSan
# stay on).
(cd "$work/cmake" && SC_COPYRIGHT_MESSAGE=DISABLE ASAN_OPTIONS=detect_leaks=0 ./downstream_systemc)
(cd "$work/cmake" && SC_COPYRIGHT_MESSAGE=DISABLE ASAN_OPTIONS=detect_leaks=0 ./downstream_config cortex-a53 >/dev/null)

echo "== the installed pmvp-soc, on an installed scenario"
SC_COPYRIGHT_MESSAGE=DISABLE ASAN_OPTIONS=detect_leaks=0 \
  "$prefix/bin/pmvp-soc" "$prefix/share/pmvp/scenarios/smt-wfi.json" --quiet --json "$work/result.json"
grep -q '"schema"' "$work/result.json"
if [ -f "$prefix/share/pmvp/scenarios/pmu-suite.elf" ]; then
  SC_COPYRIGHT_MESSAGE=DISABLE ASAN_OPTIONS=detect_leaks=0 \
    "$prefix/bin/pmvp-soc" "$prefix/share/pmvp/scenarios/firmware-pmu-suite.json" --quiet
fi
test -f "$prefix/share/doc/pmvp/CORE.md"

echo "== pkg-config pmvp"
pc=$(dirname "$(find "$prefix" -name pmvp.pc)")
mkdir -p "$work/make"
PKG_CONFIG_PATH=$pc make -s -C "$work/make" -f "$here/Makefile" SRC="$here" EXTRA="$extra"
"$work/make/c_consumer"
