"""pytest setup: the tests drive umockdev testbeds from this process (uevents, attribute
changes), which needs umockdev's preload library in this process too; re-exec under it
when it is missing. Run as: /usr/bin/python3 -m pytest Tests/IntegrationTests"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

if "libumockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
    os.environ["LD_PRELOAD"] = (os.environ.get("LD_PRELOAD", "") + " libumockdev-preload.so.0").strip()
    os.execv(sys.executable, [sys.executable] + sys.orig_argv[1:])

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from support import harness  # noqa: E402 (imported once re-executed under the preload library)
from support.bus import shipped_bus  # noqa: E402 (imported once re-executed under the preload library)


@pytest.fixture
def bed_factory():
    beds = []

    def make(*fixtures):
        b = harness.Bed(*fixtures)
        beds.append(b)
        return b

    yield make
    for b in beds:
        b.close()


@pytest.fixture
def shm_name():
    """A shm object name of this test's own, removed afterwards."""
    name = "shimmerd-test-%d-%d" % (os.getpid(), time.monotonic_ns() % 1_000_000)
    yield name
    if os.path.lexists("/dev/shm/" + name):
        os.unlink("/dev/shm/" + name)


@pytest.fixture
def open_dir():
    """A directory everyone may write, as /tmp is (pytest's tmp_path is 0700 root): for
    user nobody, and for a neighbour swapping names."""
    d = tempfile.mkdtemp(prefix="shimmerd-open-", dir="/tmp")
    os.chmod(d, 0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def pytest_sessionstart(session):
    if not os.access(harness.SHIMMERD, os.X_OK):
        raise pytest.UsageError("shimmerd binary not found at %s (build it, or set SHIMMERD)" % harness.SHIMMERD)


@pytest.fixture
def realtime():
    """For a test whose daemon must keep up with real time (it counts the samples or
    frames of a run, or how closely the drawn point follows a path fed at 100 Hz, or gives
    a reader 0.5 s to take a frame): this thread, and the daemons, feeders and readers it
    starts from now on, run at nice -10 (as root), ahead of the other tests of a parallel
    run and of the builds beside it, so their load is not what the test measures."""
    before = os.getpriority(os.PRIO_PROCESS, 0)     # Linux: the calling thread's nice value
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
    except PermissionError:
        pass
    yield
    os.setpriority(os.PRIO_PROCESS, 0, before)


@pytest.fixture(scope="session")
def release_shimmerd():
    built = subprocess.run([os.path.join(harness.REPO, "scripts", "build-release.sh")], capture_output=True, text=True,
                           timeout=3600)
    assert built.returncode == 0, built.stderr[-3000:]
    return built.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def malloc_count_library(tmp_path_factory):
    out = tmp_path_factory.mktemp("malloc_count") / "libmalloccount.so"
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", str(out),
                    os.path.join(harness.HERE, "support", "malloc_count.c")], check=True)
    return str(out)


@pytest.fixture(name="shipped_bus")
def shipped_bus_fixture():
    """A private system bus with Debian's defaults and the shipped policy, its socket
    reachable by other users."""
    bus = shipped_bus()
    yield bus
    bus.close()


@pytest.fixture
def xserver():
    """An Xvfb server of its own: the display name, e.g. ":5". Servers start and stop one
    at a time across a parallel run's workers, so that a starting server never takes a
    display number, and its socket path, that a stopping one still holds or is removing."""
    r, w = os.pipe()
    with harness.machine_wide("xvfb"):
        p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                             pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
    assert number, "Xvfb did not start"
    yield ":" + number
    with harness.machine_wide("xvfb"):
        p.terminate()
        p.wait(timeout=harness.WAIT)


@pytest.fixture
def viewer_group():
    """The gid of group shimmerd-view, the viewers' (made when missing)."""
    with harness.system_group("shimmerd-view") as gid:
        yield gid
