"""Test harness: a umockdev testbed per test, the real shimmerd binary run inside it,
and small, independent re-implementations of the IIO facts the tests need (scan
layout and encoding, mount matrices, the tilt of docs/TILT.md) to compute
expectations. No fakes of libiio or libudev: the daemon uses the real libraries,
redirected to the testbed by umockdev's preload library."""
import contextlib
import fcntl
import grp
import json
import math
import os
import queue
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time

from gi.repository import UMockdev

SUPPORT = os.path.dirname(os.path.abspath(__file__))    # Tests/IntegrationTests/support
HERE = os.path.dirname(SUPPORT)                         # Tests/IntegrationTests
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
SHIMMERD = os.path.abspath(os.path.join(REPO, os.environ.get("SHIMMERD", ".build/debug/shimmerd")))
G = 9.80665
PUBLIC_FIXTURES = [
    "bmc150_bosc0200_ideapad_d330",
    "hid_accel3d_ish_convertible",
    "kxtf9_acer_iconia_a500",
    "mxc4005_aquarius_cmp_ns483",
    "st_lis2dh12_lenovo_miix320",
]
OWN_FIXTURES = ["kxcjk_teclast_f6pro_convertible"]
WAIT = 20.0  # seconds a test waits for an event before failing (a limit, not a measurement)
# The fixtures most tests run on: an accelerometer read in poll or buffer mode, an
# accelerometer and gyroscope in one scan, a HID sensor hub's accel_3d and gyro_3d, and a
# HID sensor hub's accelerometer alone.
BMC150 = "bmc150_bosc0200_ideapad_d330"
IMU = "inv_mpu6500_combined_imu"
HUB = "hid_sensor_hub_accel_gyro"
HID = "hid_accel3d_ish_convertible"
NOBODY_UID = 65534
# The tilt as read: no attitude filter, a baseline of three samples.
NO_FILTER = ["--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3"]
AS_NOBODY = ["setpriv", "--reuid=%d" % NOBODY_UID, "--regid=%d" % NOBODY_UID, "--clear-groups", "--"]


def expect(name):
    with open(os.path.join(FIXTURES, name + ".expect.json")) as f:
        return json.load(f)


def parse_umockdev(text):
    """{syspath: {"attrs": {...}, "props": {...}}} from a umockdev description."""
    devices = {}
    current = None
    for line in text.splitlines():
        if line.startswith("P: "):
            current = {"attrs": {}, "props": {}}
            devices[line[3:]] = current
        elif line.startswith("A: ") and current is not None:
            k, _, v = line[3:].partition("=")
            current["attrs"][k] = v.replace("\\n", "\n")
        elif line.startswith("E: ") and current is not None:
            k, _, v = line[3:].partition("=")
            current["props"][k] = v
    return devices


def block_of(text, syspath):
    """The description block of one device (for adding it back after a removal)."""
    for block in text.split("\n\n"):
        if block.startswith("P: " + syspath + "\n"):
            return block.strip() + "\n"
    raise KeyError(syspath)


# --- linear algebra and the attitude spec, written independently of the Swift code ---

def mat_vec(m, v):
    return [sum(m[r][c] * v[c] for c in range(3)) for r in range(3)]


def mat_inv(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    inv = [[e * i - f * h, c * h - b * i, b * f - c * e],
           [f * g - d * i, a * i - c * g, c * d - a * f],
           [d * h - e * g, b * g - a * h, a * e - b * d]]
    return [[x / det for x in row] for row in inv]


def norm(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def tilt(baseline_accel, accel):
    """(dPitch, dRoll) of docs/TILT.md, "Axes and signs" and "The two angles", filter off."""
    u0 = norm([-x for x in baseline_accel])
    u = norm([-x for x in accel])
    if abs(u0[0]) > math.cos(math.pi / 4):
        ref = [0, -1, 0] if u0[0] > 0 else [0, 1, 0]
    else:
        ref = [1, 0, 0]
    k = dot(ref, u0)
    e1 = norm([ref[j] - k * u0[j] for j in range(3)])
    e2 = cross(u0, e1)
    v = cross(u, u0)
    s = math.sqrt(dot(v, v))
    if s == 0:
        return 0.0, 0.0
    angle = math.atan2(s, dot(u, u0))
    w = [angle * x / s for x in v]
    return dot(w, e1), dot(w, e2)


def pose(roll, pitch):
    """Display-frame reading (gravity direction, m/s^2): upright is (0, -g, 0); roll turns
    the device clockwise in its own plane (right edge down), pitch leans the screen back
    (top edge away from the viewer)."""
    up = [0.0, -G * math.cos(pitch), -G * math.sin(pitch)]
    return [up[0] * math.cos(roll) - up[1] * math.sin(roll), up[0] * math.sin(roll) + up[1] * math.cos(roll), up[2]]


def in_the_hand(t):
    """A device in the hand from the first reading on: (roll, lean) at t seconds."""
    return 0.15 * math.sin(2 * math.pi * 0.4 * t), 0.35 + 0.08 * math.sin(2 * math.pi * 0.5 * t)


def move_in_the_hand(bed, dev, stop, made, t0):
    """Writes `in_the_hand` into the device's raw attributes every 5 ms on a thread (what a
    reader that polls sees) until `stop` is set; `made` gets (the reading the daemon
    computes, seconds since `t0`) for each pose written. Returns the thread."""
    def run():
        while not stop.is_set():
            t = time.monotonic() - t0
            raw = dev.raw_for(pose(*in_the_hand(t)))
            bed.set_raw(dev, raw)
            made.append((dev.accel_of(raw), t))
            time.sleep(0.005)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


CARD_ORIGIN = (175.0, 350.0 * 2 / 3)


def card_point(dpitch, droll):
    """The default mapper (docs/CARD.md): 100 pt for 0.2 rad of roll and 0.1 rad of pitch."""
    def off(v, rng):
        return max(-100.0, min(100.0, v / rng * 100.0))
    return CARD_ORIGIN[0] + off(droll, 0.2), CARD_ORIGIN[1] + off(dpitch, 0.1)


def following(records, made, true_accel, start=0.0):
    """How the drawn point follows a moving device from daemon time `start` (its start, a
    claim): `made` lists (the reading the daemon gets, its time on the mover's clock) for
    every reading written, `true_accel(t)` the reading at mover time t. The samples,
    matched to the readings they carry, give the offset between the two clocks; against
    the first baseline from `start`, each frame from `start` + 0.5 s on is compared with
    the true point at the best lag of 0-300 ms. Returns the first frame's time from
    `start`, the frames in the 3 s after it, the RMS (pt) at that lag, and how far the
    true point moved (pt, peak to peak) over those frames."""
    frames = [(r["t"], r["focal"]) for r in records if r["type"] == "frame" and r["t"] >= start]
    [baseline] = [r for r in records if r["type"] == "baseline" and r["t"] >= start][:1]
    u0 = [-x for x in baseline["up"]]
    offsets, j = [], 0
    for smp in (r for r in records if r["type"] == "sample" and r["t"] >= start):
        k = j
        while k < len(made) and max(abs(p - q) for p, q in zip(made[k][0], smp["accel"])) > 2e-6:
            k += 1
        if k < len(made):
            offsets.append(smp["t"] - made[k][1])
            j = k
    assert len(offsets) > 20, "samples matched to the readings written: %d" % len(offsets)
    offset = sorted(offsets)[len(offsets) // 2]

    def truth(t):
        return card_point(*tilt(u0, true_accel(t - offset)))
    shown = [(t, p) for t, p in frames if t >= start + 0.5]
    best = min((math.sqrt(sum((p[0] - truth(t - lag)[0]) ** 2 + (p[1] - truth(t - lag)[1]) ** 2 for t, p in shown)
                          / len(shown)), lag) for lag in [i * 0.01 for i in range(31)])
    xs = [truth(t)[0] for t, _ in shown]
    ys = [truth(t)[1] for t, _ in shown]
    first = frames[0][0]
    return (first - start, sum(1 for t, _ in frames if first < t <= first + 3.0), best[0],
            math.hypot(max(xs) - min(xs), max(ys) - min(ys)))


class Device:
    """One accelerometer of a fixture: converts display-frame m/s^2 to raw counts and
    scans the way the kernel would store them."""

    def __init__(self, fixture, device_id=None):
        self.fixture = fixture
        self.exp = expect(fixture)
        self.id = device_id or self.exp["display_device"]
        self.dev = self.exp["devices"][self.id]
        self.devpath = self.dev["syspath"]          # /devices/... as in the description
        self.syspath = "/sys" + self.devpath          # what udev and the testbed API use
        with open(os.path.join(FIXTURES, fixture + ".umockdev")) as f:
            self.text = f.read()
        self.attrs = parse_umockdev(self.text)[self.devpath]["attrs"]
        scale = self.dev["scale"]
        self.scale = scale if isinstance(scale, list) else [scale] * 3
        offset = self.dev.get("offset", 0)
        self.offset = offset if isinstance(offset, list) else [offset] * 3
        self.matrix = self.dev["mount_matrix"]

    def raw_for(self, accel):
        sensor = mat_vec(mat_inv(self.matrix), accel)
        return [int(round(sensor[i] / self.scale[i] - self.offset[i])) for i in range(3)]

    def accel_of(self, raw):
        return mat_vec(self.matrix, [(raw[i] + self.offset[i]) * self.scale[i] for i in range(3)])

    def scan_layout(self):
        """[(name, offset, (be, signed, bits, storage, shift, repeat))], scan size: the
        kernel's iio_compute_scan_bytes() with every element enabled."""
        elements = []
        for k, v in self.attrs.items():
            m = re.match(r"scan_elements/in_(.+)_index$", k)
            if m:
                t = self.attrs["scan_elements/in_%s_type" % m.group(1)].strip()
                tm = re.match(r"(le|be):([su])(\d+)/(\d+)(?:X(\d+))?>>(\d+)$", t)
                elements.append((int(v), m.group(1), (tm.group(1) == "be", tm.group(2) == "s", int(tm.group(3)),
                                                      int(tm.group(4)), int(tm.group(6)), int(tm.group(5) or 1))))
        elements.sort()
        out, offset, largest = [], 0, 1
        for _, name, t in elements:
            length = t[3] // 8 * t[5]
            offset = (offset + length - 1) // length * length
            out.append((name, offset, t))
            offset += length
            largest = max(largest, length)
        return out, (offset + largest - 1) // largest * largest

    def gyro_raw_for(self, anglvel):
        """Gyroscope counts that read as `anglvel` (rad/s, device frame) through the frame
        of docs/TILT.md, "With a gyroscope" (the device's `gyro_sign` * `gyro_matrix`)."""
        sign, m = self.dev["gyro_sign"], self.dev["gyro_matrix"]
        sensor = mat_vec(mat_inv(m), [v / sign for v in anglvel])
        offset = self.dev.get("gyro_offset", [0, 0, 0])
        return [int(round(sensor[i] / self.dev["gyro_scale"] - offset[i])) for i in range(3)]

    def scans(self, accel, count=3, ts0=1_800_000_000_000_000_000, raw=None, gyro_raw=(0, 0, 0)):
        """`count` scans of the reading `accel` (or the counts `raw`), and on a combined IMU
        the gyroscope counts `gyro_raw`; other elements (a temperature) read 0."""
        raw = raw if raw is not None else self.raw_for(accel)
        layout, size = self.scan_layout()
        data = bytearray()
        for n in range(count):
            scan = bytearray(size)
            for name, off, (be, signed, bits, storage, shift, rep) in layout:
                if name == "timestamp":
                    value = ts0 + n * 10_000_000
                elif name.startswith("anglvel_"):
                    value = gyro_raw["xyz".index(name[-1])]
                elif name[-1] in "xyz":
                    value = raw["xyz".index(name[-1])]
                else:
                    value = 0
                word = (value & ((1 << bits) - 1)) << shift
                scan[off:off + storage // 8] = word.to_bytes(storage // 8, "big" if be else "little")
            data += scan
        return bytes(data)


class ScanPipe:
    """The device node as a FIFO the test writes scans into: like the kernel's IIO
    character device, a read returns what is there and EAGAIN when nothing is (umockdev's
    plain-file node instead ends in EOF, which libiio reports as EIO, every pass). The
    test keeps a writer open, so the reader never sees EOF."""

    def __init__(self, bed, dev):
        self.dev = dev
        node = os.path.join(bed.root, "dev", dev.id)
        os.unlink(node)
        os.mkfifo(node)
        self.fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)

    def send(self, data):
        os.write(self.fd, data)

    def pose(self, roll, lean):
        self.send(self.dev.scans(pose(roll, lean)))
        return self.dev.accel_of(self.dev.raw_for(pose(roll, lean)))

    def close(self):
        os.close(self.fd)

    def feed(self, bed, pose_of_time, stop, sent=None, scan_at=None, late=None):
        """Plays the kernel's side of a running buffer on a thread until `stop` is set:
        scans at the device's `sampling_frequency` (as the daemon set it), handed over in
        groups of `buffer/watermark` scans, when the kernel would report the node
        readable. `pose_of_time(t)` gives the (roll, lean) at t seconds, one pose for each
        group; or `scan_at(t, ts_ns)` gives each scan's bytes, sampled at its own time t
        (seconds from the start; `ts_ns` its timestamp). `sent`, a list, gets the
        CLOCK_MONOTONIC ns at which each group became readable. `late(g)` gives seconds by
        which group g is handed over late (its scans keep their own times): a reader that
        wakes late on a busy machine, made deterministic."""
        syspath = self.dev.syspath
        freq_attr = next(a for a in ("in_accel_sampling_frequency", "sampling_frequency") if a in self.dev.attrs)

        def rate():
            try:
                return (float(bed.attr(syspath, freq_attr).strip() or 0) or 100.0,
                        max(1, int(bed.attr(syspath, "buffer/watermark").strip() or 1)))
            except (OSError, ValueError):
                return 100.0, 1

        def run():
            t0 = time.monotonic()
            n, g = 0, 0
            hz, group = rate()
            while not stop.is_set():
                extra = late(g) if late is not None else 0.0
                g += 1
                # Everything but the write happens half a group's time before it is due,
                # so the thread sleeps right after handing a group over: like the kernel,
                # which takes microseconds to make a buffer readable, it must not keep a
                # CPU busy while the daemon works on what it was handed (on 2 cores that
                # changes where the daemon's own wakeups run: the benchmark would
                # measure the feeder).
                due = t0 + (n + group) / hz + extra
                time.sleep(max(0.0, due - group / (2 * hz) - time.monotonic()))
                hz, group = rate()          # the daemon may have changed them
                due = t0 + (n + group) / hz + extra
                if scan_at is None:
                    data = b"".join(self.dev.scans(pose(*pose_of_time(due - t0)), count=1,
                                                   ts0=int((t0 + (n + k + 1) / hz) * 1e9)) for k in range(group))
                else:
                    data = b"".join(scan_at((n + k + 1) / hz, int((t0 + (n + k + 1) / hz) * 1e9))
                                    for k in range(group))
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    if sent is not None:
                        sent.append(time.monotonic_ns())
                    self.send(data)
                except BlockingIOError:
                    pass          # a full pipe: the kernel buffer overflowed, scans dropped
                n += group
        th = threading.Thread(target=run, daemon=True)
        th.start()
        return th


class Workbench:
    """What the benchmark scripts (benchmarks/daemon.py, soak.py) start from: a testbed
    with one fixture, levelled; a scratch directory with an empty configuration file and
    a trace path; a shm segment name of this process."""

    def __init__(self, fixture, prefix):
        self.dev = Device(fixture)
        self.bed = Bed(fixture)
        self.tmp = tempfile.mkdtemp(prefix="shimmerd-%s-" % prefix)
        self.trace = os.path.join(self.tmp, "trace.jsonl")
        self.conf = os.path.join(self.tmp, "empty.conf")
        open(self.conf, "w").close()
        self.name = "shimmerd-%s-%d" % (prefix, os.getpid())
        self.bed.set_raw(self.dev, self.dev.raw_for(pose(0, 0)))


class Bed:
    """A umockdev testbed with fixtures loaded, and shimmerd run inside it."""

    def __init__(self, *fixtures):
        self.tb = UMockdev.Testbed.new()
        for f in fixtures:
            assert self.tb.add_from_file(os.path.join(FIXTURES, f + ".umockdev")), f
        self.root = self.tb.get_root_dir()
        self.env = dict(os.environ, LD_PRELOAD="libumockdev-preload.so.0", UMOCKDEV_DIR=self.root, LC_ALL="C")
        self.children = []

    def add(self, text):
        assert self.tb.add_from_string(text)

    def remove(self, syspath):
        """A hot-unplug as the kernel does it: the remove uevent, and the device is gone."""
        self.tb.uevent(syspath, "remove")
        self.tb.remove_device(syspath)

    def delete_attr(self, syspath, name):
        os.unlink(self.root + syspath + "/" + name)

    def set_attr(self, syspath, name, value):
        self.tb.set_attribute(syspath, name, value)

    def set_raw(self, device, raw):
        for axis, v in zip("xyz", raw):
            self.set_attr(device.syspath, "in_accel_%s_raw" % axis, "%d\n" % v)

    def wait_polled(self, device, daemon, what):
        """Returns once the daemon has read `device`'s attributes as they are now and has
        begun its next poll: the poll that read them has then made its sample and queued
        it (the loop reads, uses what it read, then waits). Seen in the access time of
        the attribute file, which relatime updates at the first read after a write, and
        which a rewrite of the same value (a new file) makes older again."""
        path = self.root + device.syspath + "/in_accel_z_raw"

        def read():
            st = os.stat(path)
            return st.st_atime_ns > st.st_mtime_ns
        wait_until(read, "a read of %s (%s)" % (device.id, what), daemon)
        self.set_attr(device.syspath, "in_accel_z_raw", self.attr(device.syspath, "in_accel_z_raw"))
        wait_until(read, "the next poll of %s (%s)" % (device.id, what), daemon)

    def read_since_written(self, device):
        """Whether any of `device`'s raw attributes was read after it was last written:
        relatime updates the access time at the first read after a write."""
        for axis in "xyz":
            st = os.stat(self.root + device.syspath + "/in_accel_%s_raw" % axis)
            if st.st_atime_ns > st.st_mtime_ns:
                return True
        return False

    def attr(self, syspath, name):
        """An attribute's text. libiio writes the terminating NUL too (sysfs ignores it)."""
        with open(self.root + syspath + "/" + name) as f:
            return f.read().rstrip("\x00")

    def write_node(self, device_id, data):
        path = os.path.join(self.root, "dev", device_id)
        tmp = path + ".new"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def run(self, *args, timeout=60):
        return subprocess.run([SHIMMERD, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def spawn(self, *args, extra_env=None, prefix=(), binary=None, pass_fds=()):
        env = dict(self.env, **(extra_env or {}))
        d = Daemon([*prefix, binary or SHIMMERD, *args], env, pass_fds=pass_fds)
        self.children.append(d)
        return d

    def start_iiod(self, port):
        """A real iiod serving this testbed on 127.0.0.1:port, once it listens."""
        p = subprocess.Popen(["iiod", "-p", str(port)], env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.children.append(p)
        wait_listening(port, "iiod", p)
        return p

    def close(self):
        for c in self.children:
            if c.poll() is None:
                c.terminate()
                try:
                    c.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    c.kill()
        self.tb = None


class Daemon:
    """shimmerd running with --json: records from stdout, log lines from stderr, read
    by threads so waiting never blocks on a pipe."""

    def __init__(self, argv, env, pass_fds=()):
        """`pass_fds`: descriptors the daemon inherits (an emulated device's event stream)."""
        self.p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  pass_fds=pass_fds)
        self.records = []
        self.logs = []
        self.events = queue.Queue()
        self.readers = [threading.Thread(target=self._read, args=(stream, is_json), daemon=True)
                        for stream, is_json in ((self.p.stdout, True), (self.p.stderr, False))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, is_json):
        for line in stream:
            if is_json:
                try:
                    self.records.append(json.loads(line))
                except ValueError:
                    self.records.append({"type": "unparsable", "text": line})
            else:
                self.logs.append(line.rstrip("\n"))
            self.events.put(None)
        self.events.put(None)

    def poll(self):
        return self.p.poll()

    def exited_and_read(self):
        """True once shimmerd has exited and both pipes are read to their end: only then
        is a missing record or log line really missing (the reader threads may still hold
        the last lines for a moment after the exit)."""
        if self.p.poll() is None:
            return False
        for reader in self.readers:
            reader.join(timeout=WAIT)
        return True

    def terminate(self):
        self.p.terminate()

    def wait(self, timeout=None):
        """The exit status, once the pipes are read to their end too."""
        status = self.p.wait(timeout=timeout)
        self.exited_and_read()
        return status

    def kill(self):
        self.p.kill()

    def wait_for(self, predicate, what, start=0, timeout=WAIT):
        """The first record at index >= start satisfying predicate; fails after timeout."""
        deadline = time.monotonic() + timeout
        i = start
        while True:
            while i < len(self.records):
                r = self.records[i]
                if predicate(r):
                    return i, r
                i += 1
            if self.exited_and_read():
                if i < len(self.records):
                    continue    # the last records came with the end of the pipe
                raise AssertionError("shimmerd exited (%s) before %s; log:\n%s" % (self.p.returncode, what,
                                                                                   "\n".join(self.logs[-20:])))
            if time.monotonic() > deadline:
                raise AssertionError("no %s within %ss; last records: %s; log:\n%s"
                                     % (what, timeout, self.records[-3:], "\n".join(self.logs[-20:])))
            try:
                self.events.get(timeout=0.2)
            except queue.Empty:
                pass

    def wait_log(self, pattern, what, start=0, timeout=WAIT):
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            for i in range(start, len(self.logs)):
                if rx.search(self.logs[i]):
                    return i, self.logs[i]
            if time.monotonic() > deadline or self.exited_and_read():
                if any(rx.search(line) for line in self.logs[start:]):
                    continue    # the line came with the end of the pipe
                raise AssertionError("no log line %s (%r); log:\n%s" % (what, pattern, "\n".join(self.logs[-30:])))
            try:
                self.events.get(timeout=0.2)
            except queue.Empty:
                pass

    def samples(self, start=0):
        return [r for r in self.records[start:] if r.get("type") == "sample"]

    def stop(self):
        """SIGTERM, then the exit status (a clean stop is 0)."""
        self.p.send_signal(signal.SIGTERM)
        return self.wait(timeout=WAIT)


def shm_header(name):
    """The shm sink's header (docs/SHM.md): magic, frame counter, writer pid."""
    with open("/dev/shm/" + name, "rb") as f:
        h = f.read(128)
    return h[:4], struct.unpack_from("<Q", h, 48)[0], struct.unpack_from("<I", h, 72)[0]


def tilt_until_exit(bed, dev, p, roll=0.0):
    """Tilts `dev` one way and back, twice a second, until process `p` exits (a raw
    sink whose reader left ends at its next frame)."""
    while p.poll() is None:
        roll = 0.12 if roll <= 0 else -0.12
        bed.set_raw(dev, dev.raw_for(pose(roll, 0)))
        try:
            p.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass


def craft_segment(name, width=700, height=467, stride=None, count=3, offset=4096, size=None, frame=1, writer=0,
                  length=None):
    """/dev/shm/NAME written by hand (docs/SHM.md's header), any field as given,
    mode 0640: what a neighbour or a broken writer could leave. The file is `length`
    bytes (default: what the header's layout says, sparse)."""
    stride = width * 4 if stride is None else stride
    size = (stride * height + 4095) // 4096 * 4096 if size is None else size
    h = bytearray(128)
    struct.pack_into("<4sIIIIIII", h, 0, b"SHMR", 1, 128, width, height, stride, 0x34325258, count)
    struct.pack_into("<QQQQffI", h, 32, offset, size, frame, 0, 175.0, 233.3, writer)
    path = "/dev/shm/" + name
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640)
    try:
        os.fchmod(fd, 0o640)
        os.write(fd, bytes(h))
        os.ftruncate(fd, length if length is not None else min(offset + count * size, 1 << 40))
    finally:
        os.close(fd)
    return path


def close_to(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


@contextlib.contextmanager
def machine_wide(name):
    """Holds an exclusive lock named `name` across the processes of a parallel run (its
    workers), for what the machine has one of or hands out by name: the console, X
    display numbers. The lock files are in /run/lock (the system's lock directory, emptied
    at boot), so a test run leaves nothing in /tmp."""
    directory = "/run/lock" if os.access("/run/lock", os.W_OK) else "/tmp"
    with open(os.path.join(directory, "shimmerd-tests-%s.lock" % name), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def system_group(name):
    """The system group `name` (a package's sysusers file creates it), made with groupadd
    when missing and deleted again afterwards, unless userdel already took it: its gid.
    Tests that use it run in the xdist group "machine", as test_package.py's install test
    watches the accounts."""
    try:
        grp.getgrnam(name)
        made = False
    except KeyError:
        subprocess.run(["groupadd", "--system", name], check=True)
        made = True
    try:
        yield grp.getgrnam(name).gr_gid
    finally:
        if made and subprocess.run(["getent", "group", name], capture_output=True).returncode == 0:
            subprocess.run(["groupdel", name], check=True)


def wait_until(predicate, what, daemon=None, timeout=WAIT):
    """predicate()'s first true value; fails if the daemon exits or `timeout` passes.
    Every waiter of the tests is built on this one: a wait ends on the event it waits
    for, the timeout only bounds a failure."""
    deadline = time.monotonic() + timeout
    while True:
        v = predicate()
        if v:
            return v
        if daemon is not None and daemon.poll() is not None:
            v = predicate()     # what the daemon wrote just before it exited
            if v:
                return v
            raise AssertionError("shimmerd exited (%s) before %s; log:\n%s" % (daemon.poll(), what,
                                                                               "\n".join(daemon.logs[-20:])))
        if time.monotonic() > deadline:
            raise AssertionError("no %s within %ss; log:\n%s" % (what, timeout,
                                                                 "\n".join(daemon.logs[-20:]) if daemon else ""))
        time.sleep(0.05)


# --- traces: JSON Lines (docs/TRACES.md), written by the daemon as it runs ---

def trace_text(path):
    """The trace's text so far ("" before the daemon created it)."""
    try:
        with open(path, "rb") as f:
            return f.read().decode()
    except FileNotFoundError:
        return ""


def read_trace(path, kind=None, final=False):
    """The records of a trace, or only those of type `kind`. While the daemon writes it
    (the default), only whole lines count: a line still being written is left out, and a
    trace not created yet has none. `final=True` reads a finished trace: it must exist and
    every line in it must be whole JSON."""
    if final:
        with open(path, "rb") as f:
            lines = [line for line in f.read().decode().split("\n") if line.strip()]
    else:
        lines = [line for line in trace_text(path).split("\n")[:-1] if line]
    records = [json.loads(line) for line in lines]
    return records if kind is None else [r for r in records if r["type"] == kind]


def wait_trace(path, predicate, what, daemon=None, start=0, timeout=WAIT):
    """(index, record) of the first whole record at index >= start satisfying predicate;
    fails if the daemon exits first or `timeout` passes (the trace is flushed at least
    once a second)."""
    def find():
        records = read_trace(path)
        for i in range(start, len(records)):
            if predicate(records[i]):
                return i, records[i]
        return None
    return wait_until(find, "%s in the trace %s" % (what, path), daemon, timeout)


def free_port():
    """A TCP port on the loopback address that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, what, process=None, timeout=WAIT):
    """Waits until something accepts connections on 127.0.0.1:port (a readiness wait, not
    a measurement); fails if `process` exits first."""
    def accepts():
        assert process is None or process.poll() is None, "%s exited" % what
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    wait_until(accepts, "%s listening on port %d" % (what, port), timeout=timeout)


class AllocationCount:
    """The preloaded counter of a running process, read through /proc/PID/mem."""

    def __init__(self, pid, address_file, daemon):
        wait_until(lambda: os.path.exists(address_file) and open(address_file).read().endswith("\n"),
                   "the counter's address", daemon)
        self.path = "/proc/%d/mem" % pid
        self.address = int(open(address_file).read().split()[0], 16)   # line 1: allocations

    def read(self):
        with open(self.path, "rb") as mem:
            mem.seek(self.address)
            return struct.unpack("<Q", mem.read(8))[0]


def frames_published(name):
    return shm_header(name)[1]


def drain_terminal(controller):
    """Everything written to a pseudo-terminal until its last writer closes it (EIO or
    end of file), read from the controller side, which is then closed."""
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], WAIT)
        assert ready, "nothing written to the terminal and it was not closed"
        try:
            chunk = os.read(controller, 1 << 16)
        except OSError:     # EIO: the last writer closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return shown


class SystemBus:
    """A private system bus: a real dbus-daemon with its own configuration (`policy`,
    XML put inside <busconfig>, or everyone allowed everything), listening in a scratch
    directory. `env` points DBUS_SYSTEM_BUS_ADDRESS at it."""

    OPEN = ('<policy context="default"><allow user="*"/><allow own="*"/>'
            '<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/></policy>')

    def __init__(self, policy=None):
        self.dir = tempfile.mkdtemp(prefix="shimmerd-bus-")
        self.address = "unix:path=" + os.path.join(self.dir, "system_bus_socket")
        self.conf = os.path.join(self.dir, "system.conf")
        with open(self.conf, "w") as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" '
                    '"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    "<busconfig><type>system</type><listen>%s</listen><auth>EXTERNAL</auth>%s</busconfig>\n"
                    % (self.address, policy if policy is not None else self.OPEN))
        self.start()
        self.env = {"DBUS_SYSTEM_BUS_ADDRESS": self.address}

    def start(self):
        """A dbus-daemon at the address, once it listens."""
        self.p = subprocess.Popen(["dbus-daemon", "--config-file=" + self.conf, "--nofork", "--print-address"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.p.stdout.readline().startswith("unix:"), "dbus-daemon did not start"

    def stop(self):
        """The bus goes away: its dbus-daemon stops (and removes its socket); `start`
        brings one back at the same address."""
        if self.p.poll() is None:
            self.p.terminate()
            self.p.wait(timeout=10)

    def close(self):
        """The bus stops for good: its scratch directory goes too."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Lines:
    """A program's output lines, read by a thread (iio-sensor-proxy's monitor-sensor)."""

    def __init__(self, argv, env):
        self.p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        threading.Thread(target=lambda: [self.lines.append(line.rstrip("\n")) for line in self.p.stdout],
                         daemon=True).start()

    def wait_line(self, pattern, what, start=0, timeout=WAIT):
        """(index, match) of the first line at index >= start matching `pattern`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in range(start, len(self.lines)):
                m = re.search(pattern, self.lines[i])
                if m:
                    return i, m
            time.sleep(0.05)
        raise AssertionError("timed out waiting for %s; output:\n%s" % (what, "\n".join(self.lines[-30:])))

    @property
    def logs(self):
        """What the waiters show of a program that failed them (its output, stderr included)."""
        return self.lines

    def poll(self):
        return self.p.poll()

    def terminate(self):
        self.p.terminate()

    def wait(self, timeout=None):
        return self.p.wait(timeout=timeout)

    def kill(self):
        self.p.kill()


def wakeups(pid):
    """Voluntary context switches of all the process's threads: the times it slept and
    was woken (preemptions, the machine's load, are counted apart by the kernel)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


PERF_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}


def record_switches(pid, seconds, workdir):
    """perf records each switch out of the process's threads over `seconds`
    (sched:sched_switch) with its call chain. perf runs outside umockdev's preload, which
    would turn its /sys into the testbed's."""
    data = os.path.join(str(workdir), "switches.perf")
    subprocess.run(["perf", "record", "-q", "-e", "sched:sched_switch", "-g", "-o", data, "-p", str(pid), "--",
                    "sleep", "%g" % seconds], env=PERF_ENV, check=True, capture_output=True, timeout=seconds + 60)
    return data


def voluntary_switches(data):
    """The recorded voluntary context switches (from state S or D: the count
    /proc/PID/task/*/status keeps), by the C library call the thread slept in."""
    text = subprocess.run(["perf", "script", "-i", data], env=PERF_ENV, check=True, capture_output=True, text=True,
                          timeout=120).stdout
    by_call = {}
    for block in text.split("\n\n"):
        head, _, chain = block.strip().partition("\n")
        m = re.search(r"prev_pid=(\d+) .*prev_state=(\S+)", head)
        if not m or m.group(2)[0] not in "SD":
            continue
        libc = [line.split()[1] for line in chain.splitlines() if "libc.so" in line]
        call = re.sub(r"[@+].*", "", libc[0]) if libc else "?"
        by_call[call] = by_call.get(call, 0) + 1
    return by_call


# Where umockdev's round trip for each request to an emulated node sleeps (a read(2) too:
# libumockdev-preload.c remote_emulate() sends it to this process, waits in recv(2) for
# each answer, and ends with a usleep(0)): switches the kernel's evdev does not cost.
ROUND_TRIP_CALLS = {"__libc_recv", "recv", "recvfrom", "clock_nanosleep", "__nanosleep", "usleep"}


def cpu_seconds(pid):
    """User and system CPU time the process has used."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    """The process's resident set, KiB."""
    with open("/proc/%d/status" % pid) as f:
        return int([line for line in f if line.startswith("VmRSS:")][0].split()[1])


def frames_in(path):
    """The frame records of a trace so far."""
    return read_trace(path, "frame")


def expected_focal(dp, dr, max_offset=100.0):
    """docs/CARD.md's mapper: the ranges (0.2 rad roll, 0.1 rad pitch) give the full offset
    (Mapper.max_offset points), then each offset is clamped to it."""
    def clamp(v):
        return max(-max_offset, min(max_offset, v))
    return [175 + clamp(dr / 0.2 * max_offset), 350 * 2 / 3 + clamp(dp / 0.1 * max_offset)]


def monitor(bed, *args):
    """`shimmerd monitor --json` in the testbed."""
    return bed.spawn("monitor", "--json", *args)


def run_shimmerd(*args, timeout=120, **kw):
    """A shimmerd command outside any testbed, its output as text."""
    return subprocess.run([SHIMMERD, *args], capture_output=True, text=True, timeout=timeout, **kw)


class Heartbeats:
    """The service manager's side of sd_notify: a datagram socket, every message kept
    with the monotonic time it came."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"}
        self.messages = []
        self.open = True
        threading.Thread(target=self._receive, daemon=True).start()

    def _receive(self):
        while self.open:
            try:
                self.messages.append((time.monotonic(), self.sock.recv(4096).decode()))
            except socket.timeout:
                pass
            except OSError:     # closed
                return

    def longest_gap(self, t0, t1):
        beats = [t for t, m in self.messages if m == "WATCHDOG=1" and t0 <= t <= t1]
        assert len(beats) >= 2, beats
        return max(b - a for a, b in zip(beats, beats[1:]))

    def close(self):
        self.open = False
        self.sock.close()
