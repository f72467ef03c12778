#!/usr/bin/env bash
# The release build of shimmerd used by install.sh and the benchmarks: optimized, with
# the Swift runtime linked statically (only the parts used are mapped: the daemon's RSS
# drops by about 4 MB, see docs/PERFORMANCE.md). Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product shimmerd -Xswiftc -static-stdlib 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|mktemp' >&2 || true
bin="$(swift build -c release -Xswiftc -static-stdlib --show-bin-path)/shimmerd"
test -x "$bin"
echo "$bin"
