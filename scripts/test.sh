#!/usr/bin/env bash
# Sets everything up and runs every test: flake8 over the Python (the end-to-end tests,
# benchmarks/, tools/), the formatting check of the Swift (swift format lint), the Swift
# unit tests (swift test), then the end-to-end tests that run the real shimmerd binary
# under umockdev (pytest), then a short `shimmerd bench --json` smoke that checks
# relations true on any machine, then a short libFuzzer run of every parser (scripts/fuzz.sh).
#
# Where the time goes, and why the steps are ordered so: the builds keep both cores busy,
# while the end-to-end tests mostly wait on daemons, so those run in parallel (pytest-xdist,
# SHIMMERD_TEST_WORKERS processes, default 6). The fuzz build (its own scratch directory,
# .build-fuzz) and run start at once beside everything else, at the lowest priority: they
# take the CPU time the other steps leave. The builds in .build (debug with the tests,
# then release for test_allocations.py and test_package.py) come before pytest, one after
# the other: SwiftPM holds that directory for one command at a time, and a test that runs
# SwiftPM there (test_manifest.py, the release build the allocation tests count in) would
# wait for it.
#
# What a run writes stays in the checkout, under .build/test-run: the logs (logs/, kept
# for reading), pytest's scratch directories (pytest/) and the temporary files of what
# the tests start (tmp/, the TMPDIR of everything the run starts: umockdev testbeds,
# private buses, and SwiftPM's own TemporaryDirectory.* scratch, which it leaves behind).
# A passing run removes pytest/ and tmp/ (hundreds of MB); a failing one keeps them and
# says where.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

run_dir="$PWD/.build/test-run"
rm -rf "$run_dir"
logs="$run_dir/logs"
mkdir -p "$logs" "$run_dir/pytest" "$run_dir/tmp"
export TMPDIR="$run_dir/tmp"
echo "== fuzz: built and run beside the other steps (log: $logs/fuzz.log)"
set -m     # the fuzz job in a process group of its own, so that an early exit ends all of it
(nice -n 19 ./scripts/fuzz.sh --runs 20000 > "$logs/fuzz.log" 2>&1; echo $? > "$logs/fuzz.status") &
fuzz_pid=$!
set +m
trap 'kill -- -"$fuzz_pid" 2>/dev/null || true' EXIT

echo "== flake8 (the Python: Tests/IntegrationTests, benchmarks/, tools/; settings in .flake8)"
flake8
echo "== swift format lint (the formatting of .swift-format; scripts/format.sh applies it)"
swift format lint --strict --parallel --recursive Package.swift Sources Tests

echo "== build with the tests (imports must match the declared, one-way module dependencies)"
set +e
swift build --build-tests --explicit-target-dependency-import-check error 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]'
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "build failed (exit $status)"; exit "$status"; }

echo "== swift test"
log="$logs/swift-test.log"
set +e
# Swift Testing only (the package has no XCTest cases, whose runner would print an empty
# "Executed 0 tests" block), --quiet: issues and the summary, not a line per test or per
# argument (a multi-line argument spilled its lines past any line filter).
swift test --skip-build --disable-xctest --quiet > "$log" 2>&1
status=$?
set -e
# The log is kept; the screen shows it without SwiftPM's progress lines.
grep -vE '^\[[0-9]+/[0-9]+\]|^Building for|^Build complete|^Build of product|^◇ Test run started|^↳ ' "$log" | grep -v '^$' || true
[ "$status" -eq 0 ] || { echo "swift test failed (exit $status); full log: $log"; exit "$status"; }
grep -qE 'Test run with [0-9]+ tests? .*passed' "$log"

echo "== release build (what test_allocations.py counts in and test_package.py packages)"
./scripts/build-release.sh > /dev/null

echo "== integration tests (real binary, umockdev)"
export SHIMMERD="$(swift build --show-bin-path)/shimmerd"
# /usr/bin/python3: Debian's interpreter, which has the UMockdev gi bindings. The ten
# slowest tests are listed at the end: the suite should stay well under its time budget.
# --dist loadgroup: the tests that change the machine itself (test_package.py installs
# the packages, test_dbus.py adds the shimmerd user) share one worker, one at a time.
set +e
/usr/bin/python3 -m pytest -q -p no:cacheprovider -n "${SHIMMERD_TEST_WORKERS:-6}" --dist loadgroup \
  --durations=10 --basetemp "$run_dir/pytest" Tests/IntegrationTests
status=$?
set -e
[ "$status" -eq 0 ] || { echo "integration tests failed (exit $status); their files: $run_dir/pytest, $run_dir/tmp"; exit "$status"; }
rm -rf "$run_dir/pytest"

echo "== fuzz (20000 executions per parser; scripts/fuzz.sh --runs N for longer runs)"
wait "$fuzz_pid" || true
trap - EXIT
grep -vE '^\[[0-9]+/[0-9]+\]|Cannot export local symbol|^Building for|^Build of product' "$logs/fuzz.log" || true
status=$(cat "$logs/fuzz.status" 2>/dev/null || echo 1)
[ "$status" -eq 0 ] || { echo "fuzz failed (exit $status); full log: $logs/fuzz.log"; exit "$status"; }
rm -rf "$run_dir/tmp"     # once the fuzz build, which writes there too, is done
