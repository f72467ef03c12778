#!/usr/bin/env bash
# The release build of shimmerd used by install.sh and the benchmarks: optimized, with
# the Swift runtime linked statically (only the parts used are mapped: the daemon's RSS
# drops by about 4 MB, see docs/PERFORMANCE.md), and the viewer `shimmerd-view` beside it.
# Prints the daemon binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in shimmerd shimmerd-view; do
  swift build -c release --product "$product" -Xswiftc -static-stdlib 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|mktemp' >&2 || true
done
bin="$(swift build -c release -Xswiftc -static-stdlib --show-bin-path)/shimmerd"
test -x "$bin"
echo "$bin"
