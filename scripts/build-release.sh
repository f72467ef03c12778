#!/usr/bin/env bash
# The release build of shimmerd used by install.sh and the benchmarks: optimized, with
# the Swift runtime linked statically (only the parts used are mapped: the daemon's RSS
# drops by about 4 MB, see docs/PERFORMANCE.md), and the viewer `shimmerd-view` beside it.
# Prints the daemon binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
# lld with packed relative relocations (DT_RELR, glibc >= 2.36): the position-independent
# executable keeps its ASLR, and its 37,000 relative relocations take 7 KiB instead of
# 906 KiB that the loader reads, and keeps resident, at every start (docs/PERFORMANCE.md).
flags=(-Xswiftc -static-stdlib -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
for product in shimmerd shimmerd-view; do
  swift build -c release --product "$product" "${flags[@]}" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|mktemp' >&2 || true
done
bin="$(swift build -c release "${flags[@]}" --show-bin-path)/shimmerd"
test -x "$bin"
echo "$bin"
