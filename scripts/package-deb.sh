#!/usr/bin/env bash
# Builds the Debian packages shimmerd (the daemon) and shimmerd-view (the desktop window)
# from the release build with the Swift runtime linked statically:
#   ./scripts/package-deb.sh            # .debs in dist/
#   ./scripts/package-deb.sh DIR        # .debs in DIR
#   sudo apt install ./dist/shimmerd_*.deb
# Prints the paths of the .debs.
#
# debhelper and dpkg-buildpackage with debian/, rather than dpkg-deb on a hand-made tree:
# debhelper writes the maintainer scripts Debian expects (deb-systemd-helper enable,
# deb-systemd-invoke start/stop/restart, systemd-sysusers), marks /etc files as
# conffiles, computes Depends with dpkg-shlibdeps, compresses man pages and changelogs,
# fixes permissions and writes md5sums, all as lintian checks them. The Swift toolchain
# is not a Debian package, so the build happens here first (scripts/build-release.sh,
# reused as is when it is up to date) and dpkg-buildpackage runs in a staged copy of
# what it packages under .build/deb: it writes its results next to the tree it runs in,
# and dh_clean deletes files it takes for editor leftovers, neither of which should
# happen in a checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}

./scripts/setup.sh >&2
bin="$(./scripts/build-release.sh)"

version=$("$bin" --version | sed -n 's/^shimmerd //p')
packaged=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$version" != "$packaged" ]; then
  echo "package-deb: shimmerd --version says $version, debian/changelog $packaged; add a changelog entry" >&2
  exit 1
fi

work=.build/deb
stage=$work/shimmerd-$version
rm -rf "$work"
mkdir -p "$stage/bin" "$stage/tools"
cp -a debian systemd dbus config README.md CHANGELOG.md "$stage/"
cp -a docs "$stage/"
cp -a tools/shmread.py "$stage/tools/"
install -m 0755 "$bin" "$(dirname "$bin")/shimmerd-view" "$stage/bin/"

(cd "$stage" && dpkg-buildpackage --build=binary --no-sign >&2)

mkdir -p "$out"
for deb in "$work"/*.deb; do
  cp "$deb" "$out/"
  echo "$out/$(basename "$deb")"
done
