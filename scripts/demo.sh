#!/usr/bin/env bash
# Sets everything up and runs shimmerd's main job without hardware or root: the whole
# pipeline on the embedded simulated accelerometer (`shimmerd demo`), into ./shimmerd-demo.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec "$(swift build --show-bin-path)/shimmerd" demo --out shimmerd-demo "$@"
