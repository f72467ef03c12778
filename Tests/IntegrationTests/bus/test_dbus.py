"""shimmerd on the system bus (org.shimmerd.Shimmerd1), through the real binary on a
private dbus-daemon, read and called with systemd's busctl: the properties follow a
tilt, PropertiesChanged carries the change (and `shimmerd monitor --dbus` shows it),
Recalibrate() captures a new baseline, and
the shipped policy (dbus/org.shimmerd.Shimmerd1.conf) lets root and group shimmerd-view
recalibrate while anyone else may only read and claim, and lets the service's own user,
shimmerd, own the name. Claims are counted per connection and end with it. While the card
moves without pause, PropertiesChanged goes out at most ten
times a second. Without a bus the daemon says so once and goes on."""
import grp
import json
import math
import os
import pwd
import subprocess
import threading
import time

import pytest

from support.bus import POLICY, SYSTEM_DEFAULTS, busctl, prop, start_daemon
from support.harness import BMC150, WAIT, Device, SystemBus, pose, wait_until
from support.privileges import unprivileged_bed
from support.raw_dbus import IFACE, METHOD_RETURN, NAME, PATH, RawBus

# Some tests add the shimmerd user and group that test_package.py's install test watches
# for: one worker runs them all, one after the other.
pytestmark = pytest.mark.xdist_group("machine")


def properties_changed(bus, bed):
    """busctl monitor of the object's PropertiesChanged, one JSON message a line."""
    signals = subprocess.Popen(["busctl", "--address=" + bus.address, "--json=short", "monitor",
                                "--match=type='signal',interface='org.freedesktop.DBus.Properties',"
                                "member='PropertiesChanged',path='%s'" % PATH],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bed.children.append(signals)
    return signals


def swaying(bed, dev, moving):
    """The device turns without pause while `moving` is set (0.2 rad every 2 s, written
    every 10 ms)."""
    def sway():
        t0 = time.monotonic()
        while moving.is_set():
            bed.set_raw(dev, dev.raw_for(pose(0.2 * math.sin(math.pi * (time.monotonic() - t0)), 0)))
            time.sleep(0.01)
    threading.Thread(target=sway, daemon=True).start()


def test_properties_follow_a_tilt_and_recalibrate_makes_a_new_baseline(bed_factory):
    bus = SystemBus()
    try:
        dev, bed, d = start_daemon(bed_factory, bus, baseline=True)
        assert prop(bus, "Sensor").startswith("iio:device0 (")
        assert prop(bus, "SensorMode") == "poll"
        assert prop(bus, "State") in ("moving", "still")
        assert prop(bus, "Sink") == "null"
        signals = subprocess.Popen(["busctl", "--address=" + bus.address, "--json=short", "monitor",
                                    "--match=type='signal',interface='org.freedesktop.DBus.Properties',"
                                    "path='%s'" % PATH],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        bed.children.append(signals)
        watcher = bed.spawn("monitor", "--dbus", "--json", extra_env=bus.env)
        _, first = watcher.wait_for(lambda r: r.get("type") == "status", "monitor --dbus: the state")
        assert first["SensorMode"] == "poll" and first["Sensor"] == prop(bus, "Sensor")
        bed.set_raw(dev, dev.raw_for(pose(0.3, 0)))       # turned 0.3 rad clockwise: dRoll 0.3
        wait_until(lambda: abs(prop(bus, "DRoll") - 0.3) < 0.01, "DRoll 0.3", daemon=d)
        # monitor --dbus shows it (from PropertiesChanged).
        watcher.wait_for(lambda r: r.get("type") == "status" and "DRoll" in r["changed"]
                         and abs(r["DRoll"] - 0.3) < 0.01, "monitor --dbus: DRoll 0.3")
        assert watcher.stop() == 0
        assert abs(prop(bus, "DPitch")) < 0.01
        focal = prop(bus, "FocalPoint")
        assert len(focal) == 2 and focal != [175, 350 * 2 / 3]
        assert prop(bus, "FramesPublished") > 0
        # PropertiesChanged said so, with the interface and the new value.
        changed = None
        for line in signals.stdout:
            m = json.loads(line)
            if m.get("member") == "PropertiesChanged":
                iface, props, _ = m["payload"]["data"]
                if iface == IFACE and "DRoll" in props and abs(props["DRoll"]["data"] - 0.3) < 0.01:
                    changed = props
                    break
        assert changed is not None
        age = prop(bus, "BaselineAge")
        busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate")
        d.wait_log(r"D-Bus Recalibrate\(\) from :1\.\d+: recapturing the baseline", "the recalibration")
        # The new baseline is the turned pose: no tilt from it, and it is younger.
        wait_until(lambda: abs(prop(bus, "DRoll")) < 0.01, "DRoll 0 from the new baseline", daemon=d)
        assert 0 <= prop(bus, "BaselineAge") < age + 0.5
        assert d.stop() == 0
    finally:
        bus.close()


@pytest.fixture
def shimmerd_group():
    """Group shimmerd (the package's sysusers file creates it), made here when missing."""
    try:
        grp.getgrnam("shimmerd")
        made = False
    except KeyError:
        subprocess.run(["groupadd", "--system", "shimmerd"], check=True)
        made = True
    yield "shimmerd"
    if made and subprocess.run(["getent", "group", "shimmerd"], capture_output=True).returncode == 0:
        subprocess.run(["groupdel", "shimmerd"], check=True)    # userdel may have taken it with the user


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to call as other users")
def test_the_policy_lets_root_and_group_shimmerd_view_recalibrate_and_others_read(bed_factory, shimmerd_group,
                                                                                  viewer_group):
    bus = SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY)
    os.chmod(bus.dir, 0o755)      # other users reach the socket
    try:
        _, _, d = start_daemon(bed_factory, bus, baseline=True)
        nobody = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
        member = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=%d" % viewer_group)
        service_group = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=" + shimmerd_group)
        # Anyone reads.
        r = busctl(bus, "get-property", NAME, PATH, IFACE, "SensorMode", prefix=nobody)
        assert json.loads(r.stdout)["data"] == "poll"
        # Others may not recalibrate...
        r = busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate", prefix=nobody, check=False)
        assert r.returncode != 0 and "Access denied" in r.stderr, r.stderr
        # ...nor may the service's group, which may write the sensors' attributes...
        r = busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate", prefix=service_group, check=False)
        assert r.returncode != 0 and "Access denied" in r.stderr, r.stderr
        # ...nor take the name.
        r = subprocess.run([*nobody, "busctl", "--address=" + bus.address, "call", "org.freedesktop.DBus",
                            "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName", "su", NAME, "0"],
                           capture_output=True, text=True, timeout=WAIT)
        assert r.returncode != 0, r.stdout
        # Group shimmerd-view and root may.
        busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate", prefix=member)
        busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate")
        i, _ = d.wait_log(r"D-Bus Recalibrate\(\) from", "the member's call")
        d.wait_log(r"D-Bus Recalibrate\(\) from", "root's call", start=i + 1)
        assert sum("D-Bus Recalibrate()" in line for line in d.logs) == 2
        assert d.stop() == 0
    finally:
        bus.close()


@pytest.fixture
def shimmerd_user(shimmerd_group):
    """User shimmerd in group shimmerd, as systemd/shimmerd.sysusers makes them; made here
    when missing."""
    try:
        pwd.getpwnam("shimmerd")
        made = False
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--gid", shimmerd_group, "shimmerd"], check=True)
        made = True
    yield "shimmerd"
    if made:
        subprocess.run(["userdel", "shimmerd"], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the daemon as user shimmerd")
def test_the_service_user_shimmerd_owns_the_name_under_the_shipped_policy(bed_factory, shimmerd_user, open_dir):
    """The daemon as the unit runs it (User=shimmerd, Group=shimmerd), unprivileged, on a bus
    with the system defaults and the shipped policy: it takes org.shimmerd.Shimmerd1 (the
    bus says the owner is user shimmerd), serves its properties, and root's Recalibrate()
    reaches it."""
    bus = SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY)
    os.chmod(bus.dir, 0o755)      # user shimmerd reaches the socket
    try:
        dev, bed, conf = unprivileged_bed(bed_factory, BMC150, open_dir)
        d = bed.spawn("run", "--config", conf, "--set", "Sink.type=null", "--set", "Sensor.rate=50",
                      "--set", "Attitude.baseline_samples=3", extra_env=bus.env,
                      prefix=["setpriv", "--reuid=" + shimmerd_user, "--regid=shimmerd", "--clear-groups", "--"])
        d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1 at /org/shimmerd/Shimmerd1", "the name taken")
        with open("/proc/%d/status" % d.p.pid) as f:
            uids = dict(l.split(":", 1) for l in f.read().splitlines())["Uid"].split()
        uid = pwd.getpwnam(shimmerd_user).pw_uid
        assert uids == [str(uid)] * 4
        r = busctl(bus, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                   "GetConnectionUnixUser", "s", NAME)
        assert json.loads(r.stdout)["data"] == [uid]
        wait_until(lambda: prop(bus, "SensorMode") == "poll", "the properties served", daemon=d)
        busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate")
        d.wait_log(r"D-Bus Recalibrate\(\) from :1\.\d+: recapturing the baseline", "root's call")
        assert d.stop() == 0
    finally:
        bus.close()


def test_properties_changed_at_most_ten_times_a_second_while_the_card_moves(bed_factory):
    """The device turns without pause (a sway of 0.2 rad every 2 s, read at 50 Hz, so the
    tilt changes at every sample): PropertiesChanged is counted on the bus over the
    seconds between the first and last signal: more than none, at most ten a second plus
    one. A bound on a count, taken from the bus's own timestamps."""
    bus = SystemBus()
    moving = threading.Event()
    try:
        dev, bed, d = start_daemon(bed_factory, bus, baseline=True)
        signals = properties_changed(bus, bed)
        moving.set()
        swaying(bed, dev, moving)
        stamps = []

        def count():
            for line in signals.stdout:
                m = json.loads(line)
                if m.get("member") == "PropertiesChanged" and m["payload"]["data"][0] == IFACE:
                    stamps.append(m["timestamp-realtime"] / 1e6)
        threading.Thread(target=count, daemon=True).start()
        wait_until(lambda: len(stamps) >= 2 and stamps[-1] - stamps[0] >= 4.0, "4 s of PropertiesChanged", daemon=d)
        moving.clear()
        signals.terminate()
        stamps = list(stamps)
        seconds = stamps[-1] - stamps[0]
        assert seconds >= 4.0, (len(stamps), seconds)
        assert 0 < len(stamps) <= 10 * seconds + 1, (len(stamps), seconds)
        assert d.stop() == 0
    finally:
        moving.clear()
        bus.close()


def test_without_a_bus_the_daemon_says_so_once_and_runs(bed_factory):
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("run", "--set", "Sink.type=null", "--set", "Sensor.rate=50", "--duration", "1.5",
                  extra_env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"})
    assert d.wait(timeout=WAIT) == 0
    assert sum("no system bus" in line and "org.shimmerd.Shimmerd1 is not offered" in line for line in d.logs) == 1
    assert any("stopped after" in line for line in d.logs), d.logs


def holder(bus):
    """A client connection of its own (raw_dbus.RawBus), which lives until closed."""
    return RawBus(bus.address)


def ask(conn, member):
    """Calls a method of the interface on `conn` and waits for its (empty) reply."""
    m = conn.reply_to(conn.call(NAME, PATH, IFACE, member), WAIT)
    assert m["kind"] == METHOD_RETURN, (member, m)


def test_claims_are_one_per_connection_and_end_with_release_or_the_connection(bed_factory):
    """Claim() holds a claim for the caller's connection: a second Claim() of the same
    connection changes nothing, Release() ends it, Release() without a claim does nothing,
    two connections are two claims, and a connection that closes without Release() has
    its claim counted out within 1 s. PropertiesChanged carries each new count. (The
    open bus: busctl monitor may eavesdrop; who may claim is the next test's.)"""
    bus = SystemBus()
    try:
        _, bed, d = start_daemon(bed_factory, bus, baseline=True)
        signals = properties_changed(bus, bed)
        signalled = []

        def read_signals():
            for line in signals.stdout:
                m = json.loads(line)
                if m.get("member") == "PropertiesChanged" and "Claims" in m["payload"]["data"][1]:
                    signalled.append(m["payload"]["data"][1]["Claims"]["data"])
        threading.Thread(target=read_signals, daemon=True).start()
        assert prop(bus, "Claims") == 0
        a, b = holder(bus), holder(bus)
        ask(a, "Claim")
        assert prop(bus, "Claims") == 1
        wait_until(lambda: signalled[-1:] == [1], "PropertiesChanged: Claims 1", daemon=d)
        ask(a, "Claim")
        assert prop(bus, "Claims") == 1, "a second Claim() of the same connection changes nothing"
        ask(a, "Release")
        assert prop(bus, "Claims") == 0
        wait_until(lambda: signalled[-1:] == [0], "PropertiesChanged: Claims 0", daemon=d)
        ask(a, "Release")
        assert prop(bus, "Claims") == 0, "Release() without a claim does nothing"
        ask(a, "Claim")
        ask(b, "Claim")
        assert prop(bus, "Claims") == 2
        wait_until(lambda: signalled[-1:] == [2], "PropertiesChanged: Claims 2", daemon=d)
        for conn, left in ((b, 1), (a, 0)):
            conn.close()        # without Release()
            t0 = time.monotonic()
            wait_until(lambda: prop(bus, "Claims") == left, "Claims %d" % left, daemon=d)
            took = time.monotonic() - t0
            print("claims %d, %.3f s after a connection closed" % (left, took))
            assert took <= 1.0, took
        wait_until(lambda: signalled[-1:] == [0], "PropertiesChanged: Claims 0 again", daemon=d)
        assert 1 in signalled and 2 in signalled
        assert d.stop() == 0
    finally:
        bus.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to call as another user")
def test_the_policy_lets_anyone_claim_but_not_recalibrate(bed_factory):
    """User nobody, in no group, may call Claim() and Release() (a claim only costs
    power) but not Recalibrate()."""
    bus = SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY)
    os.chmod(bus.dir, 0o755)      # other users reach the socket
    try:
        _, _, d = start_daemon(bed_factory, bus, baseline=True)
        nobody = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")
        for member in ("Claim", "Release"):
            busctl(bus, "call", NAME, PATH, IFACE, member, prefix=nobody)
        r = busctl(bus, "call", NAME, PATH, IFACE, "Recalibrate", prefix=nobody, check=False)
        assert r.returncode != 0 and "Access denied" in r.stderr, r.stderr
        assert not any("D-Bus Recalibrate()" in line for line in d.logs)
        assert d.stop() == 0
    finally:
        bus.close()
