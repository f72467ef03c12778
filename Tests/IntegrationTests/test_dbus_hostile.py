"""shimmerd's interface on the system bus against a hostile neighbour: a local user who
sends what the bus lets through (names of megabytes, floods of calls that want no reply,
calls with the wrong arguments, Recalibrate() by the thousand) and never reads what comes
back, and a bus that goes away and comes back. The real binary on a private dbus-daemon
with the system defaults and the shipped policy (as test_dbus.py runs it); the attacker
is raw_dbus.py on a bare socket, run as user nobody."""
import json
import math
import os
import subprocess
import sys
import threading
import time

import pytest

from harness import HERE, WAIT, Device, SystemBus, frames_published, pose, wait_until
from raw_dbus import IFACE, NAME, PATH, PROPERTIES, RawBus
from test_dbus import BMC150, POLICY, SYSTEM_DEFAULTS, busctl

pytestmark = pytest.mark.xdist_group("machine")

NOBODY = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
MIB = 1024 * 1024


def shipped_bus():
    """A private system bus with Debian's defaults and the shipped policy, reachable by
    other users."""
    bus = SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY)
    os.chmod(bus.dir, 0o755)
    return bus


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int([line for line in f if line.startswith("VmRSS:")][0].split()[1])


def attacker(bed, bus, *args):
    """raw_dbus.py run as nobody: returns once it says everything is sent."""
    p = subprocess.Popen([*NOBODY, sys.executable, os.path.join(HERE, "raw_dbus.py"), bus.address, *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bed.children.append(p)
    return p


def get_property_seconds(bus, name="SensorMode"):
    """How long another client's `busctl get-property` takes (it must answer)."""
    t0 = time.monotonic()
    r = busctl(bus, "--timeout=5", "get-property", NAME, PATH, IFACE, name, check=False)
    took = time.monotonic() - t0
    assert r.returncode == 0, (took, r.stderr)
    return took


def start_daemon(bed_factory, bus, *args, extra_env=None):
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", "--set", "Sink.type=null", "--set", "Sensor.rate=50", "--set", "Attitude.filter=none",
                  "--set", "Attitude.baseline_samples=3", *args, extra_env=dict(bus.env, **(extra_env or {})))
    d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1 at /org/shimmerd/Shimmerd1", "the name taken")
    return dev, bed, d


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the attacker as another user")
@pytest.mark.parametrize("calls", [12, 40])
def test_get_calls_with_huge_names_never_read_leave_memory_and_other_callers_alone(bed_factory, calls):
    """User nobody sends `calls` Properties.Get with an interface and a property name of
    16,000,000 characters each (a 32 MB message: just under dbus-daemon's 32 MiB maximum)
    and never reads a reply. The daemon's RSS stays within 64 MiB of what it was before
    and comes back to it once the calls are answered; root's `busctl get-property`
    answers within 1 s all along and after the attacker has left."""
    bus = shipped_bus()
    try:
        dev, bed, d = start_daemon(bed_factory, bus)
        get_property_seconds(bus)
        start = rss_kib(d.p.pid)
        peak = [start]
        sampling = threading.Event()

        def sample():
            while not sampling.is_set():
                peak[0] = max(peak[0], rss_kib(d.p.pid))
                time.sleep(0.02)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        slowest = 0.0
        try:
            a = attacker(bed, bus, "huge-get", str(calls), "16000000")
            sent = threading.Event()
            threading.Thread(target=lambda: a.stdout.readline() and sent.set(), daemon=True).start()
            deadline = time.monotonic() + 120
            while not sent.is_set():
                assert a.poll() is None and time.monotonic() < deadline, "the attacker did not send its calls"
                slowest = max(slowest, get_property_seconds(bus))
                time.sleep(0.1)
            for _ in range(10):          # the attacker holds its connection, reading nothing
                slowest = max(slowest, get_property_seconds(bus))
                time.sleep(0.2)
            after_attack = rss_kib(d.p.pid)
            a.kill()
            a.wait()
            for _ in range(10):          # and after it left
                slowest = max(slowest, get_property_seconds(bus))
                time.sleep(0.1)
        finally:
            sampling.set()
            sampler.join()
        print("RSS %d KiB before, peak %d KiB, %d KiB after; slowest get-property %.3f s"
              % (start, peak[0], after_attack, slowest))
        assert peak[0] - start <= 64 * 1024, (start, peak[0])
        assert after_attack - start <= 8 * 1024, (start, after_attack)
        assert slowest <= 1.0, slowest
        assert d.poll() is None
        assert d.stop() == 0
    finally:
        bus.close()
