#!/usr/bin/env bash
# Installs every Debian package shimmerd needs to build, run and test, then builds it.
# Idempotent: packages already installed are not fetched again. Needs root or sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # build: the C libraries behind the system-library targets (Package.swift)
  pkg-config libiio-dev libudev-dev libsystemd-dev libpng-dev libfreetype-dev libfontconfig-dev
  # build: libdrm for the DRM/KMS sink (CDRM)
  libdrm-dev
  # build: libevdev for accelerometers and game controllers exposed as input devices (CEvdev)
  libevdev-dev
  # run: the default font of the card's labels and arrows; setfacl, which
  # 60-shimmerd.rules runs to let the service read a tablet-mode switch
  fonts-dejavu-core fontconfig acl
  # test: emulated IIO devices, a real iiod, libiio tools, pytest with the UMockdev bindings,
  # pytest-xdist to run the end-to-end tests in parallel (scripts/test.sh)
  umockdev libumockdev-dev gir1.2-umockdev-1.0 python3-gi python3-pytest python3-pytest-xdist iiod libiio-utils
  # test: the raw sink into a real ffmpeg, the unit checked by systemd-analyze
  ffmpeg systemd
  # test: a C compiler for the allocation counter preloaded into the daemon
  # (Tests/IntegrationTests/support/malloc_count.c)
  gcc libc6-dev
  # test and docs: `shimmerd plot` SVGs rendered by librsvg (rsvg-convert)
  librsvg2-bin
  # build: SDL2 for `shimmerd view` (CSDL2); test: the viewer on a virtual X server, xwd
  # screenshots, XTEST keys (xdotool), WM_DELETE_WINDOW (python3-xlib), the desktop entry
  libsdl2-dev xvfb x11-apps xdotool python3-xlib desktop-file-utils
  # build: libwayland-client for `shimmerd view --background` (CWaylandClient); wayland-scanner
  # (libwayland-bin) and wayland-protocols' xdg-shell for scripts/generate-wayland-protocols.sh;
  # test: headless sway 1.7 with swaybg, grim screenshots, weston (a compositor without
  # wlr-layer-shell) and its weston-flower client as a fullscreen window (test_background.py)
  libwayland-dev libwayland-bin wayland-protocols sway swaybg grim weston
  # package: scripts/package-deb.sh (debhelper and dpkg-buildpackage from dpkg-dev;
  # Rules-Requires-Root: no, so no fakeroot), checked by lintian; the install test runs the
  # maintainer scripts' deb-systemd-helper/-invoke (init-system-helpers) and udevadm (udev),
  # which also checks 60-shimmerd.rules (udevadm test, in a namespace made by util-linux's
  # unshare)
  debhelper dpkg-dev lintian init-system-helpers udev util-linux
  # test: test_hostile.py mounts small tmpfs file systems (mount), in a private mount
  # namespace for /dev/shm (util-linux's unshare), drops to nobody (setpriv) and runs
  # tools/shmread.py with its address space capped (prlimit)
  mount
  # test: the real iio-sensor-proxy and its monitor-sensor beside shimmerd on one device,
  # on a private system bus of a real dbus-daemon (test_sensor_proxy.py)
  iio-sensor-proxy dbus-daemon
  # test: a device that answers EBUSY, as the kernel does for a buffer another program
  # holds: a FUSE file mounted over a testbed file (Tests/IntegrationTests/support/refusing_file.py)
  python3-fusepy
  # test: perf records the daemon's context switches by the call they sleep in
  # (test_input_devices.py tells its own wakeups from umockdev's round trips to an emulated
  # evdev node, which the kernel's evdev does not cost)
  linux-perf
  # test: the man pages checked by `groff -man -ww -z` and read with man (man-db), the
  # completion scripts run by bash (as bash-completion loads them) and checked by zsh
  groff man-db bash-completion zsh
  # test: flake8 over the Python of the tree (its settings: .flake8)
  flake8
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  # Another apt-get or dpkg running on the machine holds its lock: wait for it (10 min)
  # rather than fail.
  lock=(-o DPkg::Lock::Timeout=600)
  "${sudo_cmd[@]}" apt-get "${lock[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }
swift build --product shimmerd 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
test -x "$(swift build --show-bin-path)/shimmerd"
