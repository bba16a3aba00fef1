#!/usr/bin/env bash
# The firmware PMU suite on pmvp and on QEMU side by side (docs/FIRMWARE.md).
# Installs what is missing (QEMU included), builds pmvp and the suite's image
# for the virt machine, runs that one file, pmu-suite-virt.elf, on pmvp's virt
# machine (platform/scenarios/firmware-pmu-suite-virt.json) and on QEMU's
# with one instruction per virtual nanosecond, and prints one table:
# test | pmvp | QEMU, a failure with the first expectation it missed.
# Options: --logs DIR keeps both consoles there.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --logs) logs="$2"; shift 2 ;;
    *) echo "usage: $0 [--logs DIR]" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh qemu-system-arm
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target pmvp-soc firmware >/dev/null
[ -f build/firmware/pmu-suite-virt.elf ] || { echo "compare-qemu: the firmware was not built (no aarch64-linux-gnu-gcc)" >&2; exit 1; }

dir=${logs:-$(mktemp -d)}
mkdir -p "$dir"
# Each run fails (exit 1) when a test fails: that is what the table shows.
./build/platform/pmvp-soc platform/scenarios/firmware-pmu-suite-virt.json >"$dir/pmvp.log" 2>&1 || true
qemu_status=0
timeout 300 qemu-system-aarch64 -M virt -cpu max -smp 1 -icount shift=0 -nographic -no-reboot \
  -semihosting-config enable=on,target=native -kernel build/firmware/pmu-suite-virt.elf \
  >"$dir/qemu.log" 2>&1 </dev/null || qemu_status=$?
[ "$qemu_status" -eq 124 ] && echo "compare-qemu: QEMU did not finish in 300 s" >&2

echo "pmvp: $(./build/platform/pmvp-soc --version 2>/dev/null | head -1 || echo pmvp-soc)"
echo "QEMU: $(qemu-system-aarch64 --version | head -1), -M virt -cpu max -icount shift=0"
echo
# The consoles: pmvp prefixes PE 0's with "  | "; a test prints PASS, FAIL or
# SKIP with its name, a failure first prints "  name: expectation: got, want".
awk '
  function take(src, line,   name, rest) {
    sub(/^  \| /, "", line)
    if (match(line, /^(PASS|FAIL|SKIP) [a-z0-9-]+/)) {
      name = substr(line, 6, RLENGTH - 5)
      if (!(name in seen)) { seen[name] = 1; order[n++] = name }
      if (substr(line, 1, 4) == "PASS") res[src, name] = "pass"
      else if (substr(line, 1, 4) == "SKIP") { rest = substr(line, RLENGTH + 3); res[src, name] = "skip: " rest }
      else res[src, name] = "**FAIL**: " why[src, name]
    } else if (match(line, /^  [a-z0-9-]+: /)) {
      name = substr(line, 3, RLENGTH - 4)
      if (why[src, name] == "") why[src, name] = substr(line, RLENGTH + 1)
    } else if (line ~ /^[0-9]+ passed, [0-9]+ failed$/) total[src] = line
  }
  FNR == 1 { src = (src == "" ? "pmvp" : "qemu") }
  { take(src, $0) }
  END {
    print "| test | pmvp | QEMU |"
    print "|---|---|---|"
    for (i = 0; i < n; i++) {
      t = order[i]
      p = res["pmvp", t]; q = res["qemu", t]
      printf "| %s | %s | %s |\n", t, p == "" ? "(no result)" : p, q == "" ? "(no result)" : q
    }
    printf "| **total** | %s | %s |\n", total["pmvp"] == "" ? "(did not finish)" : total["pmvp"],
           total["qemu"] == "" ? "(did not finish)" : total["qemu"]
  }' "$dir/pmvp.log" "$dir/qemu.log"
[ -n "$logs" ] || rm -rf "$dir"
