"""The Debian packages, built by scripts/package-deb.sh and installed for real.

The packages are built from the release build (scripts/build-release.sh, shared with
test_allocations.py, so it is built once). Their contents, dependencies and lintian's
verdict are checked as files; then, as root, they are installed with dpkg on this machine
as it is: without systemd as PID 1, deb-systemd-invoke starts nothing, and without a
running udev the postinst leaves the rules for the next boot, which is what dpkg does in
a container or an image build. The test checks the installed daemon, its unit, user,
conffile, manual pages and completion, upgrades the package over itself with an edited
conffile, and purges it, comparing the file system before and after. The packages are
purged at the end whatever happens."""
import gzip
import os
import re
import subprocess

import pytest

from support.harness import REPO, SHIMMERD, WAIT

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="installs packages with dpkg: needs root")
# The install test changes the machine (packages, the shimmerd account) and compares its
# files before and after: one worker runs it with the other tests that add that account.
pytestmark = pytest.mark.xdist_group("machine")

CONFFILE = "/etc/shimmerd/shimmerd.conf"
UNIT = "/usr/lib/systemd/system/shimmerd.service"

# Where the file-system comparison looks; below these, what package managers and other
# programs change on their own (dpkg's database and logs, apt's caches) is left out.
WATCHED = ["/etc", "/usr", "/var", "/dev/shm"]
# Segments of other tests (conftest.py's shm_name) and of the benchmarks (harness.Workbench),
# running meanwhile, come and go with them, not with the package.
TEST_SEGMENTS = ("shimmerd-test-", "shimmerd-bench-", "shimmerd-soak-")
UNWATCHED = ["/var/lib/dpkg", "/var/lib/apt", "/var/cache", "/var/log/dpkg.log", "/var/log/apt", "/var/tmp"]


def plain_env():
    """The environment without umockdev's preload (conftest.py adds it to this process):
    dpkg, its maintainer scripts and the installed binary see the real machine."""
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")} | {"LC_ALL": "C"}


def run(*argv, check=True, **kw):
    r = subprocess.run(list(argv), capture_output=True, text=True, env=plain_env(), timeout=600, **kw)
    if check:
        assert r.returncode == 0, "%s: exit %d\n%s%s" % (" ".join(argv), r.returncode, r.stdout, r.stderr)
    return r


@pytest.fixture(scope="module")
def debs(tmp_path_factory):
    out = tmp_path_factory.mktemp("debs")
    built = subprocess.run([os.path.join(REPO, "scripts", "package-deb.sh"), str(out)], capture_output=True,
                           text=True, env=plain_env(), timeout=3600)
    assert built.returncode == 0, built.stderr[-3000:]
    paths = built.stdout.split()
    by_name = {os.path.basename(p).split("_")[0]: p for p in paths}
    assert {"shimmerd", "shimmerd-view"} <= set(by_name), paths
    return by_name


def control_field(deb, field):
    return run("dpkg-deb", "--field", deb, field).stdout.strip()


def contents(deb):
    """Path -> permission string, from `dpkg -c`."""
    listing = {}
    for line in run("dpkg", "-c", deb).stdout.splitlines():
        fields = line.split(None, 5)
        listing[fields[5].split(" -> ")[0].lstrip(".")] = fields[0]
    return listing


def test_files_are_where_debian_puts_them(debs):
    daemon = contents(debs["shimmerd"])
    for path in ["/usr/bin/shimmerd", UNIT, "/usr/lib/udev/rules.d/60-shimmerd.rules",
                 "/usr/lib/sysusers.d/shimmerd.conf", CONFFILE, "/etc/shimmerd/shimmerd.conf.d/",
                 "/usr/share/man/man8/shimmerd.8.gz", "/usr/share/man/man5/shimmerd.conf.5.gz",
                 "/usr/share/bash-completion/completions/shimmerd", "/usr/share/zsh/vendor-completions/_shimmerd",
                 "/usr/share/doc/shimmerd/README.md", "/usr/share/doc/shimmerd/changelog.gz",
                 "/usr/share/doc/shimmerd/copyright", "/usr/share/dbus-1/system.d/org.shimmerd.Shimmerd1.conf",
                 "/usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml"]:
        assert path in daemon, path
    assert daemon["/usr/bin/shimmerd"].startswith("-rwxr-xr-x")
    viewer = contents(debs["shimmerd-view"])
    for path in ["/usr/libexec/shimmerd/shimmerd-view", "/usr/lib/systemd/user/shimmerd-view.service",
                 "/usr/lib/systemd/user/shimmerd-background.service", "/usr/share/doc/shimmerd-view/BACKGROUND.md",
                 "/usr/share/applications/shimmerd-view.desktop", "/usr/share/doc/shimmerd-view/copyright"]:
        assert path in viewer, path
    shared = {p for p in set(daemon) & set(viewer) if not daemon[p].startswith("d")}
    assert shared == set(), shared
    # The configuration is a conffile: dpkg keeps local edits on upgrade.
    assert run("dpkg-deb", "--info", debs["shimmerd"], "conffiles").stdout.split() == [CONFFILE]


def test_dependencies_come_from_the_binaries_and_only_the_viewer_needs_sdl_and_wayland(debs):
    daemon = control_field(debs["shimmerd"], "Depends")
    viewer = control_field(debs["shimmerd-view"], "Depends")
    # dpkg-shlibdeps found the C libraries the daemon links.
    for lib in ["libc6", "libiio0", "libudev1", "libsystemd0", "libpng16-16", "libfreetype6", "libfontconfig1",
                "libdrm2"]:
        assert re.search(r"\b%s\b" % re.escape(lib), daemon), (lib, daemon)
    assert "sdl" not in daemon.lower() and "libx11" not in daemon.lower() and "wayland" not in daemon.lower(), daemon
    assert re.search(r"\blibsdl2-2\.0-0\b", viewer), viewer
    # The background links libwayland-client itself (dh_shlibdeps finds it).
    assert re.search(r"\blibwayland-client0\b", viewer), viewer
    assert re.search(r"\bshimmerd \(= ", viewer), viewer


def depends_names(deb):
    """The package names of a .deb's Depends (alternatives included, versions dropped)."""
    return {alt.split()[0] for dep in control_field(deb, "Depends").split(",") for alt in dep.split("|")}


def code_of(markdown):
    """The command text of a Markdown page: its `code spans` and its indented lines."""
    spans = re.findall(r"`([^`\n]+)`", markdown)
    return spans + [l.strip() for l in markdown.splitlines() if l.startswith("    ")]


def see_also(page):
    """(name, section) of a manual page's SEE ALSO section."""
    text = page.split('.SH "SEE ALSO"', 1)[1].split("\n.SH", 1)[0]
    return re.findall(r"\\fB([^\\]+)\\fR\((\d)\)", text)


def test_shipped_documents_link_only_what_is_shipped(debs, tmp_path):
    """The documents as the packages lay them out lead only to what is there: every
    relative link and image of every shipped Markdown file names a shipped file, and none
    points outside the package (`../shared/...`); a file a command of theirs runs
    (`python3 tools/shmread.py`) is shipped where the command, run in the documents'
    directory, finds it; every `shimmerd COMMAND` of theirs and of the manual pages is a
    command and every `man PAGE` an installed page; shimmerd(8)'s SEE ALSO names only
    pages of packages shimmerd depends on (Debian 12's iio-sensor-proxy has none); the
    units' Documentation= names installed files."""
    roots = {}
    for package in ("shimmerd", "shimmerd-view"):
        root = roots[package] = tmp_path / package
        run("dpkg-deb", "-x", debs[package], str(root))

    def installed(path):
        return any((root / path.lstrip("/")).exists() for root in roots.values())
    listed = run(SHIMMERD, "--help").stdout.split("Commands:")[1].split("Options:")[0]
    commands = {l.split()[0] for l in listed.splitlines() if l.strip()}
    pages = [gzip.open(roots["shimmerd"] / ("usr/share/man/man%s/%s.gz" % (p[-1], p)), "rt").read()
             for p in ("shimmerd.8", "shimmerd.conf.5")]
    texts = []
    for package, root in roots.items():
        doc = root / "usr/share/doc" / package
        markdown = sorted(doc.rglob("*.md"))
        assert markdown, package
        for page in markdown:
            text = page.read_text()
            where = str(page.relative_to(root))
            texts.append((where, code_of(text)))
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
                if re.match(r"[a-z]+:", target):
                    continue
                assert (page.parent / target).is_file(), (where, target)
            assert not re.search(r"\.\./shared|\]\(\.\./", text), (where, "a path outside the package")
            for script in re.findall(r"python3 ((?:tools|examples|docs)/\S+\.py)", text):
                assert (root / "usr/share/doc/shimmerd" / script).is_file() or (doc / script).is_file(), (where, script)
    for page in pages:
        examples = re.findall(r"^\.nf\n(.*?)^\.fi$", page.replace("\\-", "-"), re.M | re.S)
        texts.append(("man", [l for block in examples for l in block.splitlines()]))
    for where, code in texts:
        for line in code:
            for command in re.findall(r"(?:^|[|;&(]\s*|sudo\s+)shimmerd ([a-z][a-z-]*)\b", line):
                assert command in commands, (where, line)
            for name in re.findall(r"^man (shimmerd[\w.]*)", line):
                assert list((roots["shimmerd"] / "usr/share/man").rglob(name + ".*.gz")), (where, line)
    depends = depends_names(debs["shimmerd"])
    for page in pages:
        for name, section in see_also(page):
            if installed("/usr/share/man/man%s/%s.%s.gz" % (section, name, section)):
                continue
            found = run("man", "-w", section, name, check=False)
            assert found.returncode == 0, "%s(%s): no such manual page here" % (name, section)
            owner = run("dpkg", "-S", found.stdout.strip()).stdout.split(":")[0]
            assert owner in depends, "%s(%s) is in %s, which shimmerd does not depend on" % (name, section, owner)
    units = [roots["shimmerd"] / "usr/lib/systemd/system/shimmerd.service",
             roots["shimmerd-view"] / "usr/lib/systemd/user/shimmerd-view.service",
             roots["shimmerd-view"] / "usr/lib/systemd/user/shimmerd-background.service"]
    for unit in units:
        for entry in re.search(r"^Documentation=(.*)$", unit.read_text(), re.M).group(1).split():
            if entry.startswith("file:"):
                assert installed(entry[len("file:"):]), (unit.name, entry)
            else:
                assert entry.startswith("man:") and installed("/usr/share/man/man%s/%s.%s.gz" % (
                    entry[-2], entry[4:-3], entry[-2])), (unit.name, entry)
    assert (tmp_path / "shimmerd/usr/share/doc/shimmerd/docs/demo-frame.png").is_file()
    copyright = (tmp_path / "shimmerd/usr/share/doc/shimmerd/copyright").read_text()
    assert "License: Apache-2.0" in copyright and "all rights reserved" not in copyright.lower()
    for package in ("shimmerd", "shimmerd-view"):
        assert "Apple" not in control_field(debs[package], "Description")
        assert "example" not in control_field(debs[package], "Maintainer")
    daemon = control_field(debs["shimmerd"], "Depends")
    for needed in ["acl", "udev", "fonts-dejavu-core", "systemd | systemd-standalone-sysusers"]:
        assert needed in daemon, (needed, daemon)


def test_lintian_reports_no_errors_and_no_warnings(debs):
    r = run("lintian", "--no-tag-display-limit", debs["shimmerd"], debs["shimmerd-view"], check=False)
    problems = [line for line in r.stdout.splitlines() if line[:2] in ("E:", "W:")]
    assert problems == [], r.stdout
    assert r.returncode == 0, r.stdout + r.stderr


def snapshot():
    """Every path below WATCHED, but UNWATCHED, with its type."""
    seen = {}
    for top in WATCHED:
        for root, dirs, files in os.walk(top):
            if any(root == u or root.startswith(u + "/") for u in UNWATCHED):
                dirs[:] = []
                continue
            for name in dirs + files:
                path = os.path.join(root, name)
                if path in UNWATCHED or (root == "/dev/shm" and name.startswith(TEST_SEGMENTS)):
                    continue
                seen[path] = "l" if os.path.islink(path) else "d" if os.path.isdir(path) else "f"
    return seen


def installed(package):
    r = run("dpkg-query", "-W", "-f=${db:Status-Status}", package, check=False)
    return r.returncode == 0 and r.stdout.strip() not in ("", "not-installed")


def dpkg(*argv, **kw):
    """dpkg with the packages' maintainer scripts: they ask udev to reload its rules only
    where udevd runs (its control socket), so a machine without it (a container, an image
    build, this one while udevd is stopped) sees no udevadm complaint."""
    r = run("dpkg", *argv, **kw)
    assert "Failed to send reload request" not in r.stdout + r.stderr, r.stdout + r.stderr
    return r


def shimmerd_processes():
    """Processes running the installed daemon (another test's build-tree daemon is not one)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink("/proc/%s/exe" % pid) == "/usr/bin/shimmerd":
                found.append(int(pid))
        except OSError:
            pass
    return found


def account_exists(database, name):
    return run("getent", database, name, check=False).returncode == 0


@pytest.fixture
def clean_machine():
    """A machine without shimmerd installed, left that way afterwards: the packages are
    purged, and the system account the package keeps by design is removed when the test
    created it."""
    if installed("shimmerd") or installed("shimmerd-view") or os.path.exists("/etc/shimmerd"):
        pytest.skip("shimmerd is already installed here (dpkg, or scripts/install.sh's /etc/shimmerd); "
                    "the install test needs a machine without it")
    user_existed = account_exists("passwd", "shimmerd")
    group_existed = account_exists("group", "shimmerd")
    viewers_existed = account_exists("group", "shimmerd-view")
    try:
        yield
    finally:
        for package in ["shimmerd-view", "shimmerd"]:
            if installed(package):
                run("dpkg", "--purge", package, check=False)
        if not user_existed and account_exists("passwd", "shimmerd"):
            run("userdel", "shimmerd", check=False)
        if not group_existed and account_exists("group", "shimmerd"):
            run("groupdel", "shimmerd", check=False)
        if not viewers_existed and account_exists("group", "shimmerd-view"):
            run("groupdel", "shimmerd-view", check=False)


@needs_root
def test_install_upgrade_and_purge(debs, clean_machine, tmp_path):
    before = snapshot()

    dpkg("-i", debs["shimmerd"])
    built = run(SHIMMERD, "--version").stdout.split()[1]
    assert run("/usr/bin/shimmerd", "--version").stdout.strip() == "shimmerd " + built

    # The unit as installed: it verifies (ExecStart= exists) and keeps its exposure level.
    r = run("systemd-analyze", "verify", UNIT, check=False)
    assert r.returncode == 0 and "shimmerd" not in r.stderr, r.stderr
    assert "ExecStart=/usr/bin/shimmerd run" in open(UNIT).read()
    r = run("systemd-analyze", "security", "--offline=true", UNIT)
    level = float(re.search(r"Overall exposure level for shimmerd.service: ([0-9.]+)", r.stdout).group(1))
    assert level <= 2.0, r.stdout
    # Not enabled: udev starts the service where an accelerometer appears
    # (60-shimmerd.rules, SYSTEMD_WANTS), so no machine runs it on every boot unless told
    # to (`systemctl enable`); and nothing was started.
    wants = "/etc/systemd/system/multi-user.target.wants/shimmerd.service"
    assert not os.path.lexists(wants)
    assert shimmerd_processes() == []

    # The user and group of systemd/shimmerd.sysusers, and the viewers' group, which is
    # not the service's: user shimmerd is in it (to give it the segments), nobody else.
    passwd = run("getent", "passwd", "shimmerd").stdout.split(":")
    group = run("getent", "group", "shimmerd").stdout.split(":")
    assert passwd[3] == group[2], (passwd, group)
    assert "shimmerd" in run("getent", "group", "video").stdout.strip().split(":")[3].split(",")
    viewers = run("getent", "group", "shimmerd-view").stdout.strip().split(":")
    assert viewers[2] != group[2] and viewers[3].split(",") == ["shimmerd"], (viewers, group)

    # The conffile: the documented defaults, registered with dpkg.
    assert open(CONFFILE).read() == open(os.path.join(REPO, "config", "shimmerd.conf")).read()
    assert CONFFILE in run("dpkg-query", "-W", "-f=${Conffiles}", "shimmerd").stdout
    assert run("/usr/bin/shimmerd", "check-config").returncode == 0

    # Manual pages and completion: what the installed binary generates, warning-free.
    for page, path in [("shimmerd.8", "/usr/share/man/man8/shimmerd.8.gz"),
                       ("shimmerd.conf.5", "/usr/share/man/man5/shimmerd.conf.5.gz")]:
        text = gzip.open(path, "rt").read()
        assert text == run("/usr/bin/shimmerd", "man", page).stdout
        r = subprocess.run(["groff", "-man", "-ww", "-z"], input=text, capture_output=True, text=True,
                           env=plain_env())
        assert r.returncode == 0 and r.stderr == "", r.stderr
    assert run("man", "-w", "shimmerd").stdout.strip() == "/usr/share/man/man8/shimmerd.8.gz"
    assert open("/usr/share/bash-completion/completions/shimmerd").read() == \
        run("/usr/bin/shimmerd", "completion", "bash").stdout

    # The viewer: `shimmerd view` finds its helper in /usr/libexec/shimmerd; with no display
    # it is the helper that answers (exit 69, no window), not a missing executable.
    dpkg("-i", debs["shimmerd-view"])
    env = {k: v for k, v in plain_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    r = subprocess.run(["/usr/bin/shimmerd", "view", "--name", "shimmerd-package-test"], capture_output=True,
                       text=True, env=env, timeout=WAIT)
    assert r.returncode == 69 and "cannot open a window" in r.stderr, r.stderr

    # An upgrade over itself keeps an edited conffile, asking nothing.
    with open(CONFFILE, "a") as f:
        f.write("\n# edited here\n[Sink]\nfps = 30\nname = shimmerd-package-root\n")
    edited = open(CONFFILE).read()
    dpkg("-i", debs["shimmerd"], stdin=subprocess.DEVNULL)
    assert open(CONFFILE).read() == edited
    assert not [n for n in os.listdir("/etc/shimmerd") if ".dpkg-" in n], os.listdir("/etc/shimmerd")
    assert "fps = 30" in run("/usr/bin/shimmerd", "check-config").stdout
    assert not os.path.lexists(wants)

    # What the service leaves while it runs: logs and traces, and its shm frames.
    os.makedirs("/var/log/shimmerd", exist_ok=True)
    open("/var/log/shimmerd/trace.jsonl", "w").write("{}\n")
    segment = "/dev/shm/shimmerd-package-test"
    open(segment, "wb").write(b"\0" * 128)
    os.chown(segment, int(passwd[2]), int(group[2]))
    # A test run as root leaves a root-owned segment under the configured name, which the
    # service's user can never replace: purge removes it too. A root-owned segment under
    # a name shimmerd does not use is not shimmerd's to remove.
    # The default name is shimmerd's too: one a root run left earlier goes with the
    # purge, so it is planted when absent and is expected gone either way.
    named = "/dev/shm/shimmerd-package-root"
    unnamed = "/dev/shm/shimmerd-package-unnamed"
    default = "/dev/shm/shimmer"
    before.pop(default, None)
    for path in (named, unnamed) + (() if os.path.exists(default) else (default,)):
        open(path, "wb").write(b"SHMR" + b"\0" * 124)
        os.chown(path, 0, 0)

    # Removal keeps the conffile and the logs; purge removes everything the package made.
    dpkg("--remove", "shimmerd-view", "shimmerd")
    assert os.path.exists(CONFFILE) and os.path.exists("/var/log/shimmerd/trace.jsonl")
    assert not os.path.exists("/usr/bin/shimmerd")
    dpkg("--purge", "shimmerd-view", "shimmerd")
    assert not os.path.exists(named) and not os.path.exists(default)
    assert open(unnamed, "rb").read(4) == b"SHMR"
    os.unlink(unnamed)
    after = snapshot()
    appeared = sorted(set(after) - set(before))
    vanished = sorted(set(before) - set(after))
    assert appeared == [] and vanished == [], "left behind: %s; gone: %s" % (appeared, vanished)
    # The system user and group stay, as Debian keeps system accounts (debian/shimmerd.postrm).
    assert account_exists("passwd", "shimmerd") and account_exists("group", "shimmerd")
    assert account_exists("group", "shimmerd-view")


def test_readme_installs_the_files_the_package_script_writes(debs):
    """The README's install lines name the packages package-deb.sh writes, in the
    directory it writes them to when given none."""
    with open(os.path.join(REPO, "README.md")) as f:
        readme = f.read()
    named = re.findall(r"apt install \./(\S+)/(\S+\.deb)", readme)
    assert {"shimmerd", "shimmerd-view"} <= {name.split("_")[0] for _, name in named}, named
    with open(os.path.join(REPO, "scripts", "package-deb.sh")) as f:
        default = re.search(r"^out=\$\{1:-([^}]+)\}", f.read(), re.M).group(1)
    built = {os.path.basename(p) for p in debs.values()}
    for directory, name in named:
        assert directory == default, (directory, default)
        assert name in built, (name, sorted(built))
