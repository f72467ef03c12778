"""The daemon's D-Bus service under test: a private system bus with Debian's defaults and
the shipped policy, busctl against it, the daemon started on it, and a reader that holds
a claim (Claimant) or shows the frames it claimed (claiming_viewer)."""
import json
import os
import subprocess

from gi.repository import Gio

from support.harness import BMC150, REPO, WAIT, Device, SystemBus, pose, wait_until
from support.raw_dbus import IFACE, NAME, PATH
POLICY = os.path.join(REPO, "dbus", "org.shimmerd.Shimmerd1.conf")


# Debian's system bus defaults (/usr/share/dbus-1/system.conf): nothing may be owned and no
# method called unless a policy allows it; replies and signals flow; the bus itself answers.
SYSTEM_DEFAULTS = """
<policy context="default">
  <allow user="*"/>
  <deny own="*"/>
  <deny send_type="method_call"/>
  <allow send_type="signal"/>
  <allow send_requested_reply="true" send_type="method_return"/>
  <allow send_requested_reply="true" send_type="error"/>
  <allow receive_type="method_call"/>
  <allow receive_type="method_return"/>
  <allow receive_type="error"/>
  <allow receive_type="signal"/>
  <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
  <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
</policy>
"""


def busctl(bus, *args, prefix=(), check=True):
    r = subprocess.run([*prefix, "busctl", "--address=" + bus.address, "--json=short", *args],
                       capture_output=True, text=True, timeout=WAIT)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def prop(bus, name):
    return json.loads(busctl(bus, "get-property", NAME, PATH, IFACE, name).stdout)["data"]


def shipped_bus():
    """A private system bus with Debian's defaults and the shipped policy, reachable by
    other users."""
    bus = SystemBus(policy=SYSTEM_DEFAULTS + "<include>%s</include>" % POLICY)
    os.chmod(bus.dir, 0o755)
    return bus


def start_daemon(bed_factory, bus, *args, extra_env=None, binary=None, attitude_filter="none", baseline=False):
    """The daemon on the bmc150 lying flat, serving on `bus` (null sink, 50 Hz, a baseline
    of 3 samples, `Attitude.filter` set unless None; `args` set more or override):
    (device, bed, daemon) once it holds the bus name, and with `baseline` once it has one."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    filtering = ["--set", "Attitude.filter=" + attitude_filter] if attitude_filter else []
    d = bed.spawn("run", "--set", "Sink.type=null", "--set", "Sensor.rate=50", *filtering,
                  "--set", "Attitude.baseline_samples=3", *args, extra_env=dict(bus.env, **(extra_env or {})),
                  binary=binary)
    d.wait_log(r"system bus: serving org\.shimmerd\.Shimmerd1 at /org/shimmerd/Shimmerd1", "the name taken")
    if baseline:
        wait_until(lambda: prop(bus, "BaselineAge") >= 0, "a baseline", daemon=d)
    return dev, bed, d


class Claimant:
    """A reader on the bus: its own connection, which holds a claim after `claim()` and
    loses it with `release()` or `close()` (the connection ends)."""

    def __init__(self, bus):
        self.conn = Gio.DBusConnection.new_for_address_sync(
            bus.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

    def call(self, method):
        self.conn.call_sync(NAME, PATH, IFACE, method, None, None, Gio.DBusCallFlags.NONE, int(WAIT * 1000), None)

    def claim(self):
        self.call("Claim")

    def release(self):
        self.call("Release")

    def close(self):
        self.conn.close_sync(None)
