#!/usr/bin/env bash
# Builds and runs the cairo reference programs (benchmarks/cairo/card_cairo.c) at 700 x 467:
# "naive" redraws every shape, "expert" recolors pre-rendered masks. Installs cairo's
# development package if missing. Prints one JSON line per program.
#   benchmarks/cairo.sh [frames]
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-2000}
if ! pkg-config --exists cairo; then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq libcairo2-dev >/dev/null
fi
out=$(mktemp -d)
cc -O2 -o "$out/card_cairo" benchmarks/cairo/card_cairo.c $(pkg-config --cflags --libs cairo) -lm
"$out/card_cairo" naive $((frames / 5 > 100 ? frames / 5 : 100)) 2
"$out/card_cairo" expert "$frames" 2
