"""shimmerd beside iio-sensor-proxy, the screen-rotation service of GNOME, KDE and Phosh:
the real iio-sensor-proxy and its monitor-sensor on a private system bus, with the real
shimmerd, on the same umockdev device. iio-sensor-proxy must see every orientation change
while shimmerd follows the tilt, and the device's buffer (enable, scan elements, length,
watermark, trigger) and sampling frequency must stay as iio-sensor-proxy left them, during
shimmerd's run and after it, whichever starts first. A buffer some other program enabled
is left alone too, SIGTERM included."""
import glob
import os
import subprocess
import sys
import threading
import time

import pytest

from support.harness import BMC150, HID, SUPPORT, WAIT, Device, Lines, ScanPipe, SystemBus, pose, wait_trace, wait_until

# Its fixtures: BMC150 (I2C: iio-sensor-proxy polls in_accel_*_raw) and HID (a HID sensor
# hub: iio-sensor-proxy uses the buffer).
SENSOR_PROXY = "/usr/sbin/iio-sensor-proxy"
# The poses of the test and the orientation iio-sensor-proxy reports for each: upright,
# turned a quarter clockwise, upright, a quarter anticlockwise, upright.
TURNS = [(1.5708, "left-up"), (0.0, "normal"), (-1.5708, "right-up"), (0.0, "normal")]
RATE_ATTRIBUTE = "in_accel_sampling_frequency"          # both fixtures' (no shared sampling_frequency)


def buffer_state(bed, dev):
    """Every attribute of the device's buffer, by file name."""
    root = bed.root + dev.syspath
    files = ["buffer/enable", "buffer/length", "buffer/watermark", "trigger/current_trigger"]
    files += sorted(os.path.relpath(f, root) for f in glob.glob(root + "/scan_elements/*_en"))
    return {f: bed.attr(dev.syspath, f).strip() for f in files if os.path.exists(root + "/" + f)}


class Device3:
    """The device's pose, kept in its raw attributes (what a poller reads) and, for a HID
    hub, fed as scans into its node (what iio-sensor-proxy's buffer reads)."""

    def __init__(self, bed, dev, buffered):
        self.bed, self.dev = bed, dev
        self.roll = 0.0
        self.stop = threading.Event()
        self.set(0.0)
        if buffered:
            pipe = ScanPipe(bed, dev)

            def feed():
                while not self.stop.is_set():
                    try:
                        pipe.send(dev.scans(pose(self.roll, 0), count=1))
                    except BlockingIOError:
                        pass            # nobody reads: a full kernel buffer drops scans
                    time.sleep(0.05)
            threading.Thread(target=feed, daemon=True).start()

    def set(self, roll):
        self.roll = roll
        self.bed.set_raw(self.dev, self.dev.raw_for(pose(roll, 0)))


@pytest.fixture
def bus():
    b = SystemBus()
    yield b
    b.close()


def start_sensor_proxy(bed, bus):
    """iio-sensor-proxy and a monitor-sensor that claims the accelerometer, once it says
    it has one and its first orientation: (proxy, monitor, index of that line)."""
    env = dict(bed.env, **bus.env)
    proxy = Lines([SENSOR_PROXY], env)
    bed.children.append(proxy)
    mon = Lines(["monitor-sensor"], env)
    bed.children.append(mon)
    mon.wait_line(r"=== Has accelerometer", "monitor-sensor: an accelerometer")
    i, _ = mon.wait_line(r"Accelerometer orientation changed: normal", "monitor-sensor: upright")
    return proxy, mon, i


def start_shimmerd(bed, bus):
    d = bed.spawn("monitor", "--json", "--set", "Sensor.rate=50", "--set", "Attitude.baseline_samples=3",
                  "--set", "Attitude.filter=none", extra_env=bus.env)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    return d, attached


def turn_through(device, mon, seen, d, bed, dev, left):
    """Each of TURNS: iio-sensor-proxy reports the orientation, shimmerd follows (dRoll is
    the turn: docs/TILT.md, filter off, 12-bit counts) and the buffer stays as `left`;
    yields after each turn for the caller's own checks."""
    start = len(d.records)
    for roll, orientation in TURNS:
        device.set(roll)
        seen, _ = mon.wait_line(r"Accelerometer orientation changed: " + orientation, orientation, start=seen + 1)
        start, _ = d.wait_for(lambda r: r["type"] == "sample" and abs(r["droll"] - roll) < 0.01,
                              "dRoll %.2f" % roll, start=start)
        assert buffer_state(bed, dev) == left
        yield roll


@pytest.mark.parametrize("order", ["proxy_first", "shimmerd_first"])
@pytest.mark.parametrize("fixture", [BMC150, HID])
def test_sensor_proxy_keeps_rotating_while_shimmerd_follows(bed_factory, bus, fixture, order):
    dev = Device(fixture)
    bed = bed_factory(fixture)
    device = Device3(bed, dev, buffered=fixture == HID)
    try:
        untouched = buffer_state(bed, dev)
        if order == "proxy_first":
            _, mon, seen = start_sensor_proxy(bed, bus)
            left = buffer_state(bed, dev)       # as iio-sensor-proxy set it up
            d, attached = start_shimmerd(bed, bus)
        else:
            d, attached = start_shimmerd(bed, bus)
            assert buffer_state(bed, dev) == untouched
            _, mon, seen = start_sensor_proxy(bed, bus)
            left = buffer_state(bed, dev)
        assert attached["mode"] == "poll"
        # Why: iio-sensor-proxy's udev tag, or (a HID hub, iio-sensor-proxy first) its buffer.
        d.wait_log(r"in poll mode: auto: (iio-sensor-proxy may read it \(udev IIO_SENSOR_PROXY_TYPE = iio-poll-accel "
                   r"iio-buffer-accel|its buffer is already enabled by another program)", "why it polls")
        rate = float(bed.attr(dev.syspath, RATE_ATTRIBUTE))       # raised, never lowered under the other reader
        for _ in turn_through(device, mon, seen, d, bed, dev, left):
            assert float(bed.attr(dev.syspath, RATE_ATTRIBUTE)) >= rate
        assert d.stop() == 0
        assert buffer_state(bed, dev) == left
        assert mon.poll() is None           # monitor-sensor still has its accelerometer
    finally:
        device.stop.set()


def test_buffer_enabled_by_another_program_is_left_alone(bed_factory):
    """No iio-sensor-proxy, no system bus: a buffer already enabled (another program's) is
    neither used, nor reconfigured, nor disabled; shimmerd polls and says why. Its
    sampling frequency is not lowered under the other reader either."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    root = bed.root + dev.syspath
    for f in glob.glob(root + "/scan_elements/*_en"):
        bed.set_attr(dev.syspath, os.path.relpath(f, root), "1")
    bed.set_attr(dev.syspath, "trigger/current_trigger", "bmc150_accel-dev0")
    bed.set_attr(dev.syspath, "buffer/enable", "1")
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    before = dict(buffer_state(bed, dev), rate=bed.attr(dev.syspath, RATE_ATTRIBUTE))
    trace = os.path.join(bed.root, "trace.jsonl")
    d = bed.spawn("run", "--set", "Sink.type=null", "--set", "Sensor.rate=50", "--set", "Trace.path=" + trace,
                  extra_env=NO_BUS)
    d.wait_log(r"in poll mode: auto: its buffer is already enabled by another program \(buffer/enable = 1\): "
               r"polling, the buffer left alone", "why it polls")
    d.wait_log(r"in_accel_sampling_frequency = 125\.000000 kept: another reader may use the device", "rate kept")
    wait_trace(trace, lambda r: r["type"] == "sample", "a polled sample", d)
    assert dict(buffer_state(bed, dev), rate=bed.attr(dev.syspath, RATE_ATTRIBUTE)) == before
    assert d.stop() == 0
    assert dict(buffer_state(bed, dev), rate=bed.attr(dev.syspath, RATE_ATTRIBUTE)) == before


NO_BUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"}


def monitor_in_buffer_mode(bed, dev, stop, env):
    """The node fed with level scans until `stop` is set, and shimmerd monitor reading them
    from the buffer, past its first sample."""
    ScanPipe(bed, dev).feed(bed, lambda t: (0.0, 0.0), stop)
    d = bed.spawn("monitor", "--json", "--set", "Sensor.rate=50", "--set", "Attitude.baseline_samples=3", extra_env=env)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert attached["mode"] == "buffer"
    d.wait_for(lambda r: r["type"] == "sample", "a buffered sample")
    return d


def test_the_buffer_is_given_back_when_the_device_is_tagged_later(bed_factory, bus):
    """iio-sensor-proxy installed while shimmerd runs: its rules tag the device (a udev
    change event with IIO_SENSOR_PROXY_TYPE). shimmerd, reading the untagged device's
    buffer, gives it back at once with its attributes as they were, and polls; then
    iio-sensor-proxy starts and rotates the screen."""
    dev = Device(BMC150)
    text = "".join(line + "\n" for line in dev.text.splitlines() if not line.startswith("E: IIO_SENSOR_PROXY_TYPE="))
    bed = bed_factory()
    bed.add(text)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    untouched = buffer_state(bed, dev)
    stop = threading.Event()
    try:
        d = monitor_in_buffer_mode(bed, dev, stop, bus.env)
        assert buffer_state(bed, dev)["buffer/enable"] == "1"
        start = len(d.records)
        bed.tb.set_property(dev.syspath, "IIO_SENSOR_PROXY_TYPE", "iio-poll-accel iio-buffer-accel")
        bed.tb.uevent(dev.syspath, "change")
        d.wait_log(r"udev change event: iio-sensor-proxy may read it .*; giving its buffer back, polling from now on",
                   "the buffer given back")
        _, again = d.wait_for(lambda r: r["type"] == "attached", "attached again", start=start)
        assert again["mode"] == "poll"
        stop.set()
        assert buffer_state(bed, dev) == untouched
        _, mon, seen = start_sensor_proxy(bed, bus)
        left = buffer_state(bed, dev)
        device = Device3(bed, dev, buffered=False)
        for roll, orientation in TURNS[:2]:
            device.set(roll)
            seen, _ = mon.wait_line(r"Accelerometer orientation changed: " + orientation, orientation, start=seen + 1)
        assert buffer_state(bed, dev) == left
        assert d.stop() == 0
        assert buffer_state(bed, dev) == left
    finally:
        stop.set()


def test_a_buffer_shimmerd_used_is_left_as_it_found_it(bed_factory):
    """No other reader (no system bus): shimmerd reads the buffer, and on SIGTERM puts back
    buffer/length, buffer/watermark, the scan elements and the trigger as they were."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    untouched = buffer_state(bed, dev)
    stop = threading.Event()
    try:
        d = monitor_in_buffer_mode(bed, dev, stop, NO_BUS)
        assert buffer_state(bed, dev) != untouched          # enabled, its length and watermark set
        assert d.stop() == 0
        assert buffer_state(bed, dev) == untouched
    finally:
        stop.set()


def test_a_rate_someone_else_set_meanwhile_is_not_restored(bed_factory):
    """shimmerd lowered an unshared device's rate (125 -> 62.5 Hz for Sensor.rate 60); another
    program set 250 Hz since: on exit the rate stays theirs, with one line saying so."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    d = bed.spawn("monitor", "--json", "--set", "Sensor.mode=poll",
                  extra_env=NO_BUS)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert "125.000000 -> 62.500000" in attached["sampling_frequency"]
    bed.set_attr(dev.syspath, RATE_ATTRIBUTE, "250.000000\n")
    assert d.stop() == 0
    assert bed.attr(dev.syspath, RATE_ATTRIBUTE).strip() == "250.000000"
    left = "in_accel_sampling_frequency left as it is: it was set to 250.000000 since shimmerd wrote 62.500000"
    assert any(left in line for line in d.logs), d.logs


class RefusingFile:
    """One file of the testbed (a raw attribute, the device node) served by
    support/refusing_file.py, a FUSE file system mounted over it: `text` while serving,
    EBUSY in read(2) or open(2) (`where`) while refusing, as the kernel answers for a
    device whose buffer or node another program holds. `opens()` counts the attempts."""

    def __init__(self, path, text, where):
        self.path = path
        self.control, self.count = path + ".control", path + ".opens"
        self.serve(text)
        open(self.count, "w").close()
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
        self.p = subprocess.Popen([sys.executable, os.path.join(SUPPORT, "refusing_file.py"), "--in", where,
                                   "--count", self.count, path, self.control], env=env)
        wait_until(lambda: self.mounted() or self.p.poll() is not None, "the FUSE mount on " + path)
        assert self.mounted(), "refusing_file.py did not mount %s (exit %s)" % (path, self.p.poll())

    def mounted(self):
        with open("/proc/self/mountinfo") as f:
            return any(line.split()[4] == self.path for line in f)

    def _write(self, text):
        with open(self.control + ".new", "w") as f:
            f.write(text)
        os.replace(self.control + ".new", self.control)

    def serve(self, text):
        self._write(text)

    def refuse(self):
        self._write("EBUSY\n")

    def opens(self):
        with open(self.count) as f:
            return len(f.read().splitlines())

    def close(self):
        subprocess.run(["umount", "-l", self.path], capture_output=True)
        try:
            self.p.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.p.kill()


@pytest.fixture
def refusing_files():
    made = []

    def make(path, text, where):
        f = RefusingFile(path, text, where)
        made.append(f)
        return f
    yield make
    for f in made:
        f.close()


def test_raw_reads_refused_while_another_program_has_the_buffer_are_waited_for(bed_factory, refusing_files):
    """An I2C accelerometer (bmc150) polled by shimmerd; another program enables its buffer,
    and the kernel answers every in_accel_*_raw read with EBUSY (bmc150-accel-core.c). One
    line says so, the daemon runs on and retries once a second (not at its 50 Hz), the
    buffer stays the other program's; once the buffer is off, reads are answered and the
    samples come again, with the device's new pose."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    x = refusing_files(bed.root + dev.syspath + "/in_accel_x_raw", "%d\n" % dev.raw_for(pose(0, 0))[0], "read")
    d = bed.spawn("monitor", "--json", "--set", "Sensor.mode=poll", "--set", "Sensor.rate=50",
                  "--set", "Attitude.baseline_samples=3", "--set", "Attitude.filter=none", extra_env=NO_BUS)
    d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    start = len(d.records)
    d.wait_for(lambda r: r["type"] == "sample", "a polled sample", start=start)
    # The other program enables its buffer: raw reads are refused from now on.
    bed.set_attr(dev.syspath, "buffer/enable", "1")
    x.refuse()
    i, _ = d.wait_log(r"iio:device0 \([^)]*\): the kernel refuses raw reads \(in_accel_x_raw: .*Device or "
                      r"resource busy.*\): another program has its buffer enabled; shimmerd leaves it alone and "
                      r"retries every 1 s", "the refusal")
    refused_at, opens = time.monotonic(), x.opens()
    time.sleep(3)
    assert d.poll() is None
    retries, seconds = x.opens() - opens, time.monotonic() - refused_at
    # A retry a second, not a read every 20 ms: a count over the three seconds.
    assert 1 <= retries <= seconds + 2, (retries, seconds)
    assert sum("refuses raw reads" in line for line in d.logs) == 1
    assert not any("sample skipped" in line for line in d.logs[i:]), d.logs[i:]
    assert bed.attr(dev.syspath, "buffer/enable").strip() == "1"
    # The buffer off again, the device turned: the next retry is answered.
    start = len(d.records)
    turned = dev.raw_for(pose(0.3, 0))
    for axis, v in zip("yz", turned[1:]):
        bed.set_attr(dev.syspath, "in_accel_%s_raw" % axis, "%d\n" % v)
    bed.set_attr(dev.syspath, "buffer/enable", "0")
    x.serve("%d\n" % turned[0])
    d.wait_log(r"iio:device0 \([^)]*\): raw reads answered again", "reads answered", start=i + 1)
    d.wait_for(lambda r: r["type"] == "sample" and abs(r["droll"] - 0.3) < 0.01, "dRoll 0.3", start=start)
    assert d.stop() == 0


def test_a_device_node_another_program_holds_is_left_to_it_and_polled(bed_factory, refusing_files):
    """No iio-sensor-proxy (no system bus), buffer off, but another program has the device
    node open: the IIO character device opens once, and shimmerd's open is EBUSY. One line
    (the attach line) names the node and says another program reads it; shimmerd polls, the
    buffer attributes as they were, during the run and after SIGTERM; the tilt is followed."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    untouched = buffer_state(bed, dev)
    node = refusing_files(os.path.join(bed.root, "dev", dev.id), "", "open")
    node.refuse()
    d = bed.spawn("monitor", "--json", "--set", "Sensor.rate=50", "--set", "Attitude.baseline_samples=3",
                  "--set", "Attitude.filter=none", extra_env=NO_BUS)
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert attached["mode"] == "poll"
    d.wait_log(r"in poll mode: auto: its device node /dev/iio:device0 is open in another program, which reads the "
               r"device \(EBUSY on open\): polling, the buffer left alone", "why it polls")
    assert node.opens() >= 1                 # it did try the node
    assert buffer_state(bed, dev) == untouched
    d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    start = len(d.records)
    bed.set_raw(dev, dev.raw_for(pose(0.3, 0)))
    d.wait_for(lambda r: r["type"] == "sample" and abs(r["droll"] - 0.3) < 0.01, "dRoll 0.3", start=start)
    assert buffer_state(bed, dev) == untouched
    assert d.stop() == 0
    assert buffer_state(bed, dev) == untouched
    assert sum("is open in another program" in line for line in d.logs) == 1


@pytest.mark.parametrize("fixture", [BMC150, HID])
def test_sensor_proxy_appearing_on_the_bus_finds_the_buffer_untouched(bed_factory, bus, fixture):
    """shimmerd first, on a device iio-sensor-proxy's rules tag, with a system bus on which
    iio-sensor-proxy is not running yet: the device is polled from the start (iio-sensor-proxy
    may start at any time), so there is no buffer to give back when it appears. shimmerd sees
    net.hadess.SensorProxy appear, stays attached in poll mode (no release, no new attach),
    the buffer is as iio-sensor-proxy sets it, every orientation change is reported, and
    shimmerd follows the tilt."""
    dev = Device(fixture)
    bed = bed_factory(fixture)
    device = Device3(bed, dev, buffered=fixture == HID)
    try:
        untouched = buffer_state(bed, dev)
        d, attached = start_shimmerd(bed, bus)
        assert attached["mode"] == "poll"
        d.wait_log(r"in poll mode: auto: iio-sensor-proxy may read it \(udev IIO_SENSOR_PROXY_TYPE = iio-poll-accel "
                   r"iio-buffer-accel; net\.hadess\.SensorProxy on the system bus: "
                   r"(not known yet|not running now, but may start at any time)\): polling, the buffer left alone",
                   "why it polls")
        assert buffer_state(bed, dev) == untouched
        attaches = sum(r["type"] == "attached" for r in d.records)
        _, mon, seen = start_sensor_proxy(bed, bus)
        d.wait_log(r"iio-sensor-proxy: net\.hadess\.SensorProxy appeared on the system bus", "the name seen")
        left = buffer_state(bed, dev)
        for _ in turn_through(device, mon, seen, d, bed, dev, left):
            pass
        assert not any("giving its buffer back" in line for line in d.logs), d.logs
        assert sum(r["type"] == "attached" for r in d.records) == attaches
        assert not any(r["type"] == "detached" for r in d.records)
        assert d.stop() == 0
        assert buffer_state(bed, dev) == left
        assert mon.poll() is None
    finally:
        device.stop.set()


def test_raw_reads_refused_before_shimmerd_starts_are_waited_for(bed_factory, bus, refusing_files):
    """Another program runs the buffer of a tagged bmc150 before shimmerd starts, and the
    kernel refuses the raw attributes: one waiting line says the buffer is that program's
    and which raw attribute would not read; the daemon waits, looking again every second.
    Once the buffer is off and reads are answered, it attaches, polling (iio-sensor-proxy
    may read the device), with the buffer as that program left it, and follows the tilt."""
    dev = Device(BMC150)
    bed = bed_factory(BMC150)
    bed.set_raw(dev, dev.raw_for(pose(0, 0)))
    bed.set_attr(dev.syspath, "buffer/enable", "1")
    x = refusing_files(bed.root + dev.syspath + "/in_accel_x_raw", "%d\n" % dev.raw_for(pose(0, 0))[0], "read")
    x.refuse()
    d = bed.spawn("monitor", "--json", "--set", "Sensor.rate=50", "--set", "Attitude.baseline_samples=3",
                  "--set", "Attitude.filter=none", extra_env=bus.env)
    _, waiting = d.wait_for(lambda r: r["type"] == "waiting", "waiting")
    assert ("its buffer is already enabled by another program (buffer/enable = 1), and the kernel refuses its raw "
            "attributes while that buffer runs (in_accel_x_raw would not read); looking again every second"
            in waiting["reason"])
    opens = x.opens()
    wait_until(lambda: x.opens() >= opens + 2, "two more looks at in_accel_x_raw", daemon=d)
    assert not any(r["type"] == "attached" for r in d.records)
    assert sum(r["type"] == "waiting" for r in d.records) == 1
    # The other program is done: buffer off, reads answered.
    bed.set_attr(dev.syspath, "buffer/enable", "0")
    left = buffer_state(bed, dev)
    x.serve("%d\n" % dev.raw_for(pose(0, 0))[0])
    _, attached = d.wait_for(lambda r: r["type"] == "attached", "attached")
    assert attached["mode"] == "poll" and "iio-sensor-proxy may read it" in attached["mode_reason"]
    d.wait_for(lambda r: r["type"] == "baseline", "baseline")
    start = len(d.records)
    turned = dev.raw_for(pose(0.3, 0))
    for axis, v in zip("yz", turned[1:]):
        bed.set_attr(dev.syspath, "in_accel_%s_raw" % axis, "%d\n" % v)
    x.serve("%d\n" % turned[0])
    d.wait_for(lambda r: r["type"] == "sample" and abs(r["droll"] - 0.3) < 0.01, "dRoll 0.3", start=start)
    assert buffer_state(bed, dev) == left
    assert d.stop() == 0
    assert buffer_state(bed, dev) == left
