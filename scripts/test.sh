#!/usr/bin/env bash
# Sets everything up and runs every test: the Swift unit tests (swift test), then the
# end-to-end tests that run the real shimmerd binary under umockdev (pytest), then a
# short `shimmerd bench --json` smoke that checks relations true on any machine, then a
# short libFuzzer run of every parser (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

echo "== build (imports must match the declared, one-way module dependencies)"
swift build --explicit-target-dependency-import-check error 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
swift build --explicit-target-dependency-import-check error > /dev/null 2>&1

echo "== swift test"
log=$(mktemp)
set +e
swift test > "$log" 2>&1
status=$?
set -e
# The full log is kept; the screen shows failures and the summary, not 500 "started" lines.
grep -vE '^\[[0-9]+/[0-9]+\]|(started|passed after [0-9.]+ seconds)\.?$' "$log" | grep -v '^$' || true
grep -E 'Test run with [0-9]+ tests?' "$log" || true
[ "$status" -eq 0 ] || { echo "swift test failed (exit $status); full log: $log"; exit "$status"; }
grep -qE 'Test run with [0-9]+ tests? .*passed' "$log"

echo "== integration tests (real binary, umockdev)"
export SHIMMERD="$(swift build --show-bin-path)/shimmerd"
# /usr/bin/python3: Debian's interpreter, which has the UMockdev gi bindings. The ten
# slowest tests are listed at the end: the suite should stay well under its time budget.
/usr/bin/python3 -m pytest -q -p no:cacheprovider --durations=10 Tests/IntegrationTests

echo "== fuzz (20000 executions per parser; scripts/fuzz.sh --runs N for longer runs)"
./scripts/fuzz.sh --runs 20000
