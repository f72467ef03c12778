#!/usr/bin/env bash
# Sets everything up and runs every test: the Swift unit tests (swift test), then the
# end-to-end tests that run the real shimmerd binary under umockdev (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

echo "== swift test"
swift test 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|^.\s*Test .* (started|passed after)' | tee /tmp/shimmerd-swift-test.log
grep -qE 'Test run with [0-9]+ tests? .* passed' /tmp/shimmerd-swift-test.log

echo "== integration tests (real binary, umockdev)"
export SHIMMERD="$(swift build --show-bin-path)/shimmerd"
# /usr/bin/python3: Debian's interpreter, which has the UMockdev gi bindings.
/usr/bin/python3 -m pytest -q -p no:cacheprovider Tests/IntegrationTests
