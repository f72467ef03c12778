"""Package.swift declares every module each target imports.

SwiftPM's import check (`swift build --explicit-target-dependency-import-check error`,
run by scripts/test.sh) accepts an import of any module in the target's transitive
dependencies, so a module can import another it never declared. This test reads the
evaluated manifest (`swift package dump-package`) and every `import` line of each
target's sources and requires the direct declaration. Toolchain modules (Glibc,
Foundation, Testing, ...) are not targets and are not checked."""
import json
import os
import re
import subprocess

from support.harness import REPO, SHIMMERD

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_implementationOnly\s+)?import\s+(?:(?:struct|enum|class|func)\s+)?(\w+)",
                    re.M)


def manifest():
    r = subprocess.run(["swift", "package", "dump-package"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def default_path(target):
    top = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(top, target["name"])


def imports_of(directory):
    found = set()
    for root, _, files in os.walk(os.path.join(REPO, directory)):
        for name in files:
            if name.endswith(".swift"):
                found |= set(IMPORT.findall(open(os.path.join(root, name), encoding="utf-8").read()))
    return found


def test_every_imported_module_of_the_package_is_a_declared_dependency():
    targets = manifest()["targets"]
    names = {t["name"] for t in targets}
    undeclared = {}
    checked = 0
    for t in targets:
        if t["type"] == "system":
            continue
        directory = os.path.join(REPO, t.get("path") or default_path(t))
        if not any(name.endswith(".swift") for _, _, files in os.walk(directory) for name in files):
            continue    # a C target (CWaylandProtocols): what it uses are #includes
        declared = {list(d.values())[0][0] for d in t["dependencies"]}
        imported = imports_of(t.get("path") or default_path(t)) & names
        # The pure core and the tests' helpers import no module of the package.
        assert imported or t["name"] in ("Motion", "Color", "Raster", "TestSupport"), \
            "no imports found for %s" % t["name"]
        checked += 1
        if imported - declared - {t["name"]}:
            undeclared[t["name"]] = sorted(imported - declared)
    assert checked >= 20, checked
    assert undeclared == {}, undeclared


def test_the_viewer_links_no_drm_png_udev_iio_or_evdev_library():
    """shimmerd-view reads the shared-memory frames through the SharedMemory module alone:
    it needs SDL2, FreeType and fontconfig for its window, libwayland-client for the
    background and libsystemd for its claim, never the daemon's display, image or device
    libraries."""
    viewer = os.path.join(os.path.dirname(SHIMMERD), "shimmerd-view")
    r = subprocess.run(["readelf", "-d", viewer], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)
    assert any(n.startswith("libSDL2") for n in needed), needed
    assert any(n.startswith("libwayland-client") for n in needed), needed
    unwanted = [n for n in needed if re.match(r"lib(drm|png|udev|iio|evdev)\b", n)]
    assert unwanted == [], needed
