#!/usr/bin/env bash
# Builds pmvp's Debian package with cpack, checks that it holds the
# libraries, headers, CMake package, pmvp-soc, scenarios and documents and
# depends on SystemC (and on Unicorn where pmvp-soc links a shared
# libunicorn: cmake/unicorn.cmake links a private 2.1 statically), then unpacks it and runs its pmvp-soc on one of its
# scenarios. Exits non-zero if anything fails.
#
# usage: debian_package.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work" >/dev/null)
deb=$(ls "$work"/pmvp_*.deb)
dpkg-deb -c "$deb" > "$work/contents"
for f in ./usr/bin/pmvp-soc ./usr/include/pmvp/core.h ./usr/include/pmvp/systemc/monitors.h \
         ./usr/include/pmvp/config/core_file.h ./usr/share/pmvp/scenarios/default.json \
         ./usr/share/doc/pmvp/CORE.md pmvpConfig.cmake libpmvp_model; do
  grep -q -- "$f" "$work/contents" || { echo "the package has no $f"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
needed=(libsystemc libsystemc-dev)
readelf -d "$build/platform/pmvp-soc" | grep -q 'NEEDED.*libunicorn' && needed+=(libunicorn)
for d in "${needed[@]}"; do
  echo "$depends" | grep -q "$d" || { echo "the package does not depend on $d"; exit 1; }
done
dpkg-deb -x "$deb" "$work/root"
SC_COPYRIGHT_MESSAGE=DISABLE "$work/root/usr/bin/pmvp-soc" "$work/root/usr/share/pmvp/scenarios/smt-wfi.json" \
  --quiet --json "$work/result.json"
grep -q '"schema"' "$work/result.json"
echo "$deb: ok"
