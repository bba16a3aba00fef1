#!/usr/bin/env bash
# Formats pmvp's C and C++ sources with clang-format and the project's
# .clang-format. With --check, changes nothing and lists the files that
# are not formatted (exit 1 if any): CI runs that, so no change brings
# unformatted code in.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=fix
[ "${1:-}" = "--check" ] && mode=check
command -v clang-format >/dev/null || bash scripts/setup.sh
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' ':!:tests/data/*')
bad=0
for f in "${files[@]}"; do
  if [ "$mode" = check ]; then
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then
      echo "not formatted: $f (bash scripts/format.sh formats it)"
      bad=1
    fi
  else
    clang-format --style=file -i "$f"
  fi
done
exit $bad
