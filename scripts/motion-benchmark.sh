#!/usr/bin/env bash
# shimmerd's fusion against the field's peers (docs/MOTION.md, "Against the field's peers"),
# in one run, on identical input: builds the release binary, makes the peers' venv once
# (.build/motion-venv: numpy, vqf, imufusion, ahrs at pinned versions; measuring sticks,
# not dependencies of the daemon) and runs benchmarks/motion.py --peers with it. Prints
# the markdown tables (synthetic paths, BROAD) and writes the SVG plots into docs/.
# Arguments go to motion.py: --json, --svg-dir DIR, --paths ..., --broad DIR|none, --keep DIR.
#
# The venv is made from Debian's /usr/bin/python3 without the system's site packages: the
# benchmark needs neither gi nor UMockdev (the integration tests' emulated devices), only
# the daemon reading a trace.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/motion-venv
pins=(numpy==2.4.6 vqf==2.1.2 imufusion==1.3.3 ahrs==0.4.0)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if ! /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "motion-benchmark: installing Debian's python3-venv (the venv module or ensurepip is missing)" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
fi

# Made once and reused; made anew when the pins change.
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/pins" 2>/dev/null)" != "${pins[*]}" ]; then
  echo "motion-benchmark: making $venv (${pins[*]})" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2
  echo "${pins[*]}" > "$venv/pins"
fi

bin="$(./scripts/build-release.sh)"
svg_dir=(--svg-dir docs)
for arg in "$@"; do
  case "$arg" in --svg-dir|--svg-dir=*) svg_dir=() ;; esac
done
exec "$venv/bin/python" benchmarks/motion.py --peers --binary "$bin" "${svg_dir[@]}" "$@"
