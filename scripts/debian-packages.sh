#!/usr/bin/env bash
# Downloads Debian packages of another release or architecture and unpacks
# them into a folder, leaving the system as it was: apt runs with a private
# configuration (its own sources line, package lists and cache, kept under
# the folder) for `apt-get download`, and `dpkg-deb -x` unpacks. Nothing is
# installed, and the system's sources, lists and dpkg database are not read
# or written.
#
#   scripts/debian-packages.sh [--with-libraries] SUITE ARCH DEST PACKAGE...
#
# e.g. `trixie amd64 ~/.cache/pmvp/unicorn libunicorn-dev libunicorn2t64`.
# --with-libraries also takes every library package (Debian's section
# "libs") the packages depend on, directly or not, for programs to be run
# from DEST.
# The archive is the first Debian mirror the system's sources name
# (deb.debian.org if none); PMVP_DEBIAN_MIRROR overrides it. Each package's
# .deb stays in DEST/debs, so a second call downloads nothing.
set -euo pipefail
libraries=false
[ "${1:-}" = --with-libraries ] && { libraries=true; shift; }
[ $# -ge 4 ] || { echo "usage: $0 [--with-libraries] SUITE ARCH DEST PACKAGE..." >&2; exit 2; }
suite=$1 arch=$2 dest=$3
shift 3

mirror=${PMVP_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

apt_dir="$dest/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dest/debs"
echo "deb [arch=$arch signed-by=$keyring] $mirror $suite main" > "$apt_dir/sources.list"
: > "$apt_dir/status"
opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::Status=$apt_dir/status"
      -o "Dir::Cache=$apt_dir/cache" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
      -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
      -o APT::Sandbox::User=root -o Debug::NoLocking=1)

wanted=("$@")
if $libraries; then
  compgen -G "$apt_dir/lists/*Packages*" >/dev/null || apt-get "${opts[@]}" -qq update
  mapfile -t closure < <(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "$@" | grep -E '^[a-z0-9][^ :<>]*$' | sort -u)
  mapfile -t deps < <(apt-cache "${opts[@]}" show --no-all-versions "${closure[@]}" 2>/dev/null |
    awk '/^Package:/ { p = $2 } /^Section:/ && $2 == "libs" { print p }' | sort -u)
  wanted+=("${deps[@]}")
fi
missing=()
for p in "${wanted[@]}"; do
  compgen -G "$dest/debs/${p}_*_*.deb" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get "${opts[@]}" -qq update
  (cd "$dest/debs" && apt-get "${opts[@]}" -qq download "${missing[@]}")
fi
for p in "${wanted[@]}"; do
  for deb in "$dest"/debs/"${p}"_*_*.deb; do
    dpkg-deb -x "$deb" "$dest"
  done
done
