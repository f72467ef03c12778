#!/usr/bin/env bash
# Rewrites the golden PNGs of Tests/CardTests/Golden with the current renderer.
# Run it only on purpose (the picture changed by design), look at the new PNGs, commit.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product shimmerd
bin=$(swift build --show-bin-path)/shimmerd
dir=Tests/CardTests/Golden
mkdir -p "$dir"
"$bin" render --focal 175,233.33333333333334 --out "$dir/card-origin.png"
"$bin" render --focal 60,60 --out "$dir/card-focal-60-60.png"
echo "regenerated $dir; look at the PNGs before committing"
