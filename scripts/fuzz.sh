#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Sources, declared in Package.swift when
# SHIMMERD_FUZZ=1) with `-sanitize=fuzzer,address` and runs each for a number of
# executions, one after the other. Seeds come from Fuzz/corpus/NAME (committed, never
# written); inputs that find new coverage go to .build-fuzz/corpus/NAME, which later runs
# reuse. A crash or a violated property stops the script with exit 1 and leaves the input
# in .build-fuzz/crashes/NAME/ (rerun it: .build-fuzz/debug/FuzzNAME FILE).
#
#   scripts/fuzz.sh [--runs N] [--fresh] [TARGET...]
#     --runs N   executions per target (default 1000000)
#     --fresh    start from the committed seeds only (forget .build-fuzz/corpus)
#     TARGET     configuration, mount-matrix, sysfs-number, scan-decoder, trace-reader, shm-header
#                (default: all)
# docs/RELIABILITY.md "Fuzzing" has the properties each target checks and the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
fresh=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --runs=*) runs="${1#--runs=}"; shift ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(configuration mount-matrix sysfs-number scan-decoder trace-reader shm-header)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# libFuzzer ships with the Swift toolchain's clang runtime (compiler-rt).
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
if ! ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
   && ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
  echo "fuzz.sh: no libclang_rt.fuzzer in the toolchain (Debian: apt-get install libclang-rt-14-dev)" >&2
  exit 69
fi

product() {  # configuration -> FuzzConfiguration, mount-matrix -> FuzzMountMatrix
  local name="" part
  IFS=- read -ra parts <<< "$1"
  for part in "${parts[@]}"; do name+="${part^}"; done
  echo "Fuzz$name"
}

scratch=.build-fuzz
export SHIMMERD_FUZZ=1
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race ASan's.
export SWIFT_BACKTRACE=enable=no
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t (${all[*]})" >&2; exit 64; }
  # ld.gold warns about every ASan register helper it cannot export: noise, dropped.
  swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address --product "$(product "$t")" 2>&1 \
    | grep -vE '^\[[0-9]+/[0-9]+\]|Cannot export local symbol|^Building for|^Build of product' || true
done
bin="$scratch/debug"

status=0
for t in "${targets[@]}"; do
  corpus="$scratch/corpus/$t"
  crashes="$scratch/crashes/$t"
  [ "$fresh" -eq 0 ] || rm -rf "$corpus"
  mkdir -p "$corpus" "$crashes"
  log="$scratch/fuzz-$t.log"
  echo "== fuzz $t: $runs executions"
  set +e
  "$bin/$(product "$t")" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$corpus" "Fuzz/corpus/$t" > "$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    grep -E 'property violated|ERROR: AddressSanitizer|Fatal error|deadly signal|Test unit written' "$log" | head -5
    echo "fuzz $t: FAILED (exit $rc); log: $log"
    status=1
    continue
  fi
  # "#1000000 DONE cov: 812 ft: 2735 corp: 371/12Kb lim: 4096 exec/s: 16129 rss: 412Mb"
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | tr -s '\t ' ' ')
  seconds=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE 'in [0-9]+' | cut -d' ' -f2)
  echo "fuzz $t: ok: ${done_line#\#} in ${seconds}s"
done
exit "$status"
