#!/usr/bin/env bash
# Installs shimmerd as a system service: release binary, unit, udev rule, user, and the
# documented default configuration (an existing /etc/shimmerd/shimmerd.conf is kept).
#   sudo ./scripts/install.sh            # install and enable (does not start)
#   PREFIX=/usr ./scripts/install.sh     # another prefix (the unit's ExecStart follows)
#   DESTDIR=/tmp/pkg ./scripts/install.sh  # stage into a directory (packaging, tests)
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}

./scripts/setup.sh
bin="$(./scripts/build-release.sh)"

install -D -m 0755 "$bin" "$DESTDIR$PREFIX/bin/shimmerd"
install -D -m 0755 "$(dirname "$bin")/shimmerd-view" "$DESTDIR$PREFIX/bin/shimmerd-view"
install -d -m 0755 "$DESTDIR/etc/systemd/system" "$DESTDIR/etc/udev/rules.d" "$DESTDIR/etc/shimmerd/shimmerd.conf.d" \
  "$DESTDIR/usr/lib/sysusers.d" "$DESTDIR$PREFIX/share/doc/shimmerd"
sed "s#/usr/local/bin/shimmerd#$PREFIX/bin/shimmerd#" systemd/shimmerd.service > "$DESTDIR/etc/systemd/system/shimmerd.service"
install -m 0644 systemd/60-shimmerd.rules "$DESTDIR/etc/udev/rules.d/60-shimmerd.rules"
install -m 0644 systemd/shimmerd.sysusers "$DESTDIR/usr/lib/sysusers.d/shimmerd.conf"
[ -e "$DESTDIR/etc/shimmerd/shimmerd.conf" ] || install -m 0644 config/shimmerd.conf "$DESTDIR/etc/shimmerd/shimmerd.conf"
install -m 0644 README.md "$DESTDIR$PREFIX/share/doc/shimmerd/README.md"
# The desktop viewer (docs/VIEWER.md): a user unit and a menu entry; nothing is enabled.
install -m 0644 docs/VIEWER.md "$DESTDIR$PREFIX/share/doc/shimmerd/VIEWER.md"
install -d -m 0755 "$DESTDIR$PREFIX/lib/systemd/user" "$DESTDIR$PREFIX/share/applications"
sed "s#/usr/local/#$PREFIX/#g" systemd/shimmerd-view.service > "$DESTDIR$PREFIX/lib/systemd/user/shimmerd-view.service"
install -m 0644 systemd/shimmerd-view.desktop "$DESTDIR$PREFIX/share/applications/shimmerd-view.desktop"

if [ -z "$DESTDIR" ]; then
  systemd-sysusers /usr/lib/sysusers.d/shimmerd.conf
  if [ -d /run/systemd/system ]; then
    udevadm control --reload && udevadm trigger --subsystem-match=iio || true
    systemctl daemon-reload
    systemctl enable shimmerd.service
    echo "installed; start with: systemctl start shimmerd"
  else
    echo "installed; systemd is not running here, so nothing was enabled"
  fi
fi
