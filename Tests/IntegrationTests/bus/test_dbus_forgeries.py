"""Signals forged by a local user on the system bus: anyone may send a signal addressed to
one connection, with any path, interface and member, and dbus-daemon delivers it whatever
that connection's match rules say. The daemon, the viewer and `shimmerd monitor --dbus`
believe the bus's own signals (NameOwnerChanged, NameLost, NameAcquired) only from the
bus, and PropertiesChanged only from the daemon's unique name. The real binaries on a
private dbus-daemon with Debian's defaults and the shipped policy; the forger is
raw_dbus.py on a bare socket, run as user nobody."""
import json
import os
import subprocess
import sys
import time

import pytest

from support.bus import busctl, prop, shipped_bus, start_daemon
from support.harness import AS_NOBODY, SUPPORT, frames_published, pose, rss_kib, wait_until
from support.viewer import claiming_viewer

pytestmark = [pytest.mark.xdist_group("machine"),
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the forger as another user")]

BUS_DRIVER = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")


def owner_of(bus, name):
    return json.loads(busctl(bus, "call", *BUS_DRIVER, "GetNameOwner", "s", name).stdout)["data"][0]


def unique_name_of(bus, pid):
    """The unique name of the connection process `pid` opened (it has one)."""
    def find():
        for name in json.loads(busctl(bus, "call", *BUS_DRIVER, "ListNames").stdout)["data"][0]:
            if name.startswith(":"):
                r = busctl(bus, "call", *BUS_DRIVER, "GetConnectionUnixProcessID", "s", name, check=False)
                if r.returncode == 0 and json.loads(r.stdout)["data"][0] == pid:
                    return name
        return None
    return wait_until(find, "the connection of process %d" % pid)


def forge_as_nobody(bus, destination, count, kind, *args):
    """raw_dbus.py as nobody sends `count` forgeries of `kind` to `destination`; returns
    once they are delivered (its own round trips after them are answered)."""
    p = subprocess.Popen([*AS_NOBODY, sys.executable, os.path.join(SUPPORT, "raw_dbus.py"), bus.address, "forge",
                          destination, str(count), kind, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline().strip()
        assert line == "sent", p.stderr.read()
    finally:
        p.kill()
        p.wait()


def tilting(bed, dev, seconds):
    """The device turned back and forth for `seconds`."""
    end = time.monotonic() + seconds
    k = 0
    while time.monotonic() < end:
        k += 1
        bed.set_raw(dev, dev.raw_for(pose(0.3 * ((k % 7) - 3) / 3, 0.1)))
        time.sleep(0.05)


def test_forged_name_owner_changed_leaves_the_viewers_claim_and_the_viewer_claims_once(bed_factory, xserver,
                                                                                       shm_name, monkeypatch):
    """A viewer holds the claim of an idle daemon (Sink.demand = auto). User nobody sends
    the daemon three NameOwnerChanged saying the viewer's connection closed, and the viewer
    5000 saying the daemon's name has a new owner. Claims stays 1, the state is not idle,
    frames keep coming while the device is tilted, and the viewer claims no more."""
    bus = shipped_bus()
    try:
        dev, bed, d = start_daemon(bed_factory, bus, "--set", "Sink.type=shm", "--set", "Sink.name=" + shm_name)
        v = claiming_viewer(xserver, shm_name, bus, d, monkeypatch)
        daemon_name, viewer_name = owner_of(bus, "org.shimmerd.Shimmerd1"), unique_name_of(bus, v.d.p.pid)
        claims_before = sum("view: claimed the frames" in line for line in v.d.logs)

        forge_as_nobody(bus, daemon_name, 3, "noc", viewer_name, viewer_name, "")
        claims_now = prop(bus, "Claims")
        forge_as_nobody(bus, viewer_name, 5000, "noc", "org.shimmerd.Shimmerd1", "", ":1.9999")
        before = frames_published(shm_name)
        tilting(bed, dev, 2.0)
        after = frames_published(shm_name)
        state = prop(bus, "State")
        claims_later = prop(bus, "Claims")
        viewer_claims = sum("view: claimed the frames" in line for line in v.d.logs) - claims_before
        viewer_lines = len(v.d.logs)
        print("Claims %d right after the forgeries, %d 2 s later; State %s; %d frames in 2 s of tilting; "
              "%d more Claim() lines of the viewer, %d viewer lines in all"
              % (claims_now, claims_later, state, after - before, viewer_claims, viewer_lines))
        assert claims_now == 1 and claims_later == 1
        assert state != "idle"
        assert after - before >= 5
        assert viewer_claims == 0, viewer_claims
        assert d.poll() is None and v.d.poll() is None
        assert v.stop() == 0
        assert d.stop() == 0
    finally:
        bus.close()


def test_forged_name_lost_and_acquired_signals_change_nothing_and_say_nothing(bed_factory):
    """5000 forged NameLost/NameAcquired pairs for org.shimmerd.Shimmerd1, sent to the
    daemon by user nobody: not one log line, and the name still served."""
    bus = shipped_bus()
    try:
        dev, bed, d = start_daemon(bed_factory, bus)
        before = len(d.logs)
        forge_as_nobody(bus, owner_of(bus, "org.shimmerd.Shimmerd1"), 5000, "lost-acquired", "org.shimmerd.Shimmerd1")
        assert prop(bus, "SensorMode") == "poll"
        new = [line for line in d.logs[before:] if "org.shimmerd.Shimmerd1" in line]
        print("%d log lines about the bus after 10,000 forged signals" % len(new))
        assert new == [], new[:5]
        assert d.poll() is None
        assert d.stop() == 0
    finally:
        bus.close()


def test_forged_properties_changed_is_not_shown_by_monitor_dbus_nor_grows_it(bed_factory):
    """User nobody sends `shimmerd monitor --dbus` 20 PropertiesChanged of the daemon's
    interface, from its own connection: State "FORGED...", Claims 4294967295, DPitch NaN
    and 50,000 junk properties each. monitor prints none of it, its lines keep their
    length, its RSS grows by less than 1 MiB, and a real change (a tilt) still shows."""
    bus = shipped_bus()
    try:
        dev, bed, d = start_daemon(bed_factory, bus)
        watcher = bed.spawn("monitor", "--dbus", "--json", extra_env=bus.env)
        _, first = watcher.wait_for(lambda r: r.get("type") == "status", "monitor --dbus: the state")
        name = unique_name_of(bus, watcher.p.pid)
        seen = len(watcher.records)
        rss_before = rss_kib(watcher.p.pid)
        forge_as_nobody(bus, name, 20, "props", "50000")
        # A real change after them: once monitor shows it, it has read every forgery.
        bed.set_raw(dev, dev.raw_for(pose(0.3, 0)))
        watcher.wait_for(lambda r: r.get("type") == "status" and abs(r.get("DRoll", 0) - 0.3) < 0.01,
                         "monitor --dbus: DRoll 0.3", start=seen)
        rss_after = rss_kib(watcher.p.pid)
        assert watcher.stop() == 0
        shown = watcher.records[seen:]
        longest = max(len(json.dumps(r)) for r in shown)
        forged = [r for r in shown if "FORGED" in json.dumps(r) or r.get("Claims") == 4294967295
                  or any(k.startswith("Junk") for k in r) or r.get("DPitch") != r.get("DPitch")]
        print("%d lines after the forgeries, %d forged, the longest %d characters; RSS %d -> %d KiB"
              % (len(shown), len(forged), longest, rss_before, rss_after))
        assert forged == [], str(forged)[:300]
        assert longest < 2000
        assert rss_after - rss_before < 1024, (rss_before, rss_after)
        assert d.stop() == 0
    finally:
        bus.close()
