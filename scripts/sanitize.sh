#!/usr/bin/env bash
# Runs the unit test suite (swift test) under AddressSanitizer (with LeakSanitizer) and
# ThreadSanitizer, each in its own scratch path (.build-asan, .build-tsan), and fails on
# any failed test or any sanitizer report. The end-to-end tests (pytest, umockdev) are
# not run here: they exercise the same code through the real binary.
#
#   scripts/sanitize.sh [address] [thread]      (default: both)
# docs/RELIABILITY.md "Sanitizers" has the results.
set -euo pipefail
cd "$(dirname "$0")/.."

kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)
# Reports go to the log; the Swift runtime's backtracer would race the sanitizers' own.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:exitcode=66}"

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address) scratch=.build-asan; pattern='ERROR: (AddressSanitizer|LeakSanitizer)' ;;
    thread) scratch=.build-tsan; pattern='WARNING: ThreadSanitizer|ERROR: ThreadSanitizer' ;;
    *) echo "sanitize.sh: unknown sanitizer $kind (address, thread)" >&2; exit 64 ;;
  esac
  mkdir -p "$scratch"
  log="$scratch/sanitize.log"
  echo "== swift test --sanitize=$kind"
  start=$(date +%s)
  set +e
  swift test --sanitize="$kind" --scratch-path "$scratch" > "$log" 2>&1
  rc=$?
  set -e
  reports=$(grep -cE "$pattern" "$log" || true)
  summary=$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -1 || true)
  echo "   ${summary:-no Swift Testing summary}; $reports sanitizer reports; exit $rc; $(( $(date +%s) - start ))s; log: $log"
  if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ] || ! grep -qE 'Test run with [0-9]+ tests? .*passed' "$log"; then
    grep -E "$pattern|SUMMARY:|✘" "$log" | head -20 || true
    status=1
  fi
done
exit "$status"
