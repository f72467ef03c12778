#!/usr/bin/env bash
# Sets everything up and runs shimmerd's main job without hardware: renders the card.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
bin="$(swift build --show-bin-path)/shimmerd"
mkdir -p shimmerd-demo
"$bin" render --focal 60,60 --out shimmerd-demo/card.png
echo "open shimmerd-demo/card.png"
