#!/usr/bin/env bash
# Makes the Linux image set pmvp boots on its virt machine (docs/LINUX.md),
# from Debian 12's arm64 packages, outside the repository:
#   OUT/Image            the kernel: linux-image-<abi>-cloud-arm64-unsigned,
#                        the version Debian's linux-image-cloud-arm64 names
#   OUT/initrd.cpio.gz   an initramfs: busybox-static; linux-perf and the
#                        shared libraries it needs (its ELF NEEDED entries,
#                        followed); the workload (firmware/linux/workload.S,
#                        built by Debian's cross compiler); and /init
#                        (firmware/linux/init)
# The packages are downloaded and unpacked by scripts/debian-packages.sh into
# OUT/debian, nothing installed; a second run downloads nothing.
#
#   scripts/linux-image.sh [OUT]     (default: ${PMVP_CACHE:-~/.cache/pmvp}/linux)
#
# Prints the two files' paths, for pmvp-soc's --kernel and --initrd.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${PMVP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmvp}/linux}
deb="$out/debian"
fetch() { bash "$here/scripts/debian-packages.sh" "$@" >&2; }
for tool in aarch64-linux-gnu-gcc readelf cpio gzip; do
  command -v "$tool" >/dev/null || { echo "linux-image.sh: $tool is missing (bash scripts/setup.sh installs it)" >&2; exit 2; }
done
mkdir -p "$out"
# One build at a time (two test runs may share the cache), and each file
# replaced whole, so that a boot reading the set never sees half of one.
exec 9>"$out/.lock"
flock 9

# The kernel: the cloud flavour's current ABI, as the metapackage names it.
fetch bookworm arm64 "$deb" linux-image-cloud-arm64
abi=$(dpkg-deb -f "$deb"/debs/linux-image-cloud-arm64_*.deb Depends | grep -oE 'linux-image-[0-9][^ ,]*-cloud-arm64' | head -n 1)
[ -n "$abi" ] || { echo "linux-image.sh: linux-image-cloud-arm64 names no kernel" >&2; exit 1; }
fetch bookworm arm64 "$deb" "$abi-unsigned"
vmlinuz="$deb/boot/vmlinuz-${abi#linux-image-}"
if gzip -t "$vmlinuz" 2>/dev/null; then zcat "$vmlinuz" > "$out/Image.new"; else cp "$vmlinuz" "$out/Image.new"; fi
mv -f "$out/Image.new" "$out/Image"

# The initramfs's programs.
fetch --with-libraries bookworm arm64 "$deb" busybox-static linux-perf
root="$out/root"
rm -rf "$root"
mkdir -p "$root"/{bin,usr/bin,lib,proc,sys,tmp,dev}
cp "$deb/bin/busybox" "$root/bin/busybox"
cp "$deb/usr/bin/perf" "$root/usr/bin/perf"
cp "$here/firmware/linux/init" "$root/init"
# (Assembled first to an object of a fixed name, which its symbol table names.)
aarch64-linux-gnu-gcc -c -o "$out/workload.o" "$here/firmware/linux/workload.S"
aarch64-linux-gnu-gcc -nostdlib -static -Wl,--build-id=none -o "$root/workload" "$out/workload.o"

# The shared libraries perf needs, and theirs: each NEEDED entry found in the
# unpacked packages' library folders, copied where the loader looks.
copy_needed() {
  local elf=$1 lib path
  for lib in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    [ -e "$root/lib/aarch64-linux-gnu/$lib" ] && continue
    path=""
    for dir in "$deb/lib/aarch64-linux-gnu" "$deb/usr/lib/aarch64-linux-gnu"; do
      [ -e "$dir/$lib" ] && { path="$dir/$lib"; break; }
    done
    [ -n "$path" ] || { echo "linux-image.sh: $lib, which $(basename "$elf") needs, is in no package fetched" >&2; exit 1; }
    mkdir -p "$root/lib/aarch64-linux-gnu"
    cp -L "$path" "$root/lib/aarch64-linux-gnu/$lib"
    copy_needed "$root/lib/aarch64-linux-gnu/$lib"
  done
}
copy_needed "$root/usr/bin/perf"
cp -L "$deb/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1" "$root/lib/ld-linux-aarch64.so.1"

# The same bytes on every build (so a run's counts and instants repeat):
# every file dated 1 January 2000, cpio's inode numbers its own, gzip's
# header without a name or date.
find "$root" -exec touch -h -d @946684800 {} +
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible -R 0:0) | gzip -9 -n > "$out/initrd.cpio.gz.new"
mv -f "$out/initrd.cpio.gz.new" "$out/initrd.cpio.gz"
echo "$out/Image"
echo "$out/initrd.cpio.gz"
